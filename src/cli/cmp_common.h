/* cmp_common.h — what compare and bisect-check share on the command line:
 * the statistical options and the output format.  What decides their
 * verdicts is analysis/verdict.h (cb_verdict_judge), what prints them
 * report/verdict_out.h; the commands map the outcome to an exit status. */
#ifndef CB_CMD_CMP_COMMON_H
#define CB_CMD_CMP_COMMON_H

#include "util/strbuf.h"

#include <stdio.h>

#include "cli/cmd.h"
#include "analysis/judge.h"
#include "store/store.h"
#include "analysis/verdict.h"
#include "report/verdict_out.h"

struct cmp_common {
    const char *db, *repo;
    const char *host;            /* --host: a machine id prefix or hostname glob; NULL none */
    int force, include_aborted;
    struct cmp_opts o;
    enum cb_format fmt;                /* --format */
    int unsure_exit;             /* --unsure-exit: the status when a case is unsure (0: none) */
    struct cb_sb cmdline;        /* as typed: for the runs a rerun records; cmp_common_release */
};

/* The options compare and bisect-check share, relative to struct
 * cmp_common (cli/options.h's groups): their ids are from
 * CMP_OPT_FIRST, below which each command numbers its own. */
#define CMP_OPT_FIRST (CB_OPT_LONG_ONLY + 100)
extern const struct cb_opt_group cmp_common_options;

/* "2", "2%", "0.5%": a percentage in [0, 100], as a fraction; what names
 * the option in the message. */
int cmp_parse_pct(const char *s, const char *what, double *out, struct cb_sb *err);
void cmp_common_defaults(struct cmp_common *c, int argc, char **argv);
void cmp_common_release(struct cmp_common *c);

#endif
