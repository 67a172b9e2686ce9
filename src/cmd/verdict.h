/* verdict.h — what compare and bisect-check share: the statistical options,
 * evaluating BASE against HEAD case by case, the environment check, and the
 * printed verdict.  What decides the verdicts is analysis/judge.h.
 *
 * bisect-check is compare with git bisect run's exit codes: it must reach
 * the same verdict as 'compare BASE RUN' would on the same rows, so both go
 * through these functions and nothing else. */
#ifndef CB_CMD_VERDICT_H
#define CB_CMD_VERDICT_H

#include "strbuf.h"

#include <stdio.h>

#include "cmd.h"
#include "judge.h"
#include "store.h"

struct cb_path_delta;

enum fmt { FMT_TEXT, FMT_MARKDOWN, FMT_JSON, FMT_JUNIT };

struct cmp_ctx {
    const char *metric;
    const char *crosses;          /* NULL: same environment; else the difference */
    const char *cpu_note;         /* NULL, or that the sides pinned different CPUs of one class */
    char base_desc[512], head_desc[512];
    char cpu_buf[320];
    char record[1024];            /* no floor yet: what to record to get one (cmp_record_hint); "" */
    const struct cb_path_delta *paths;  /* the paths both sides stored (compare only); shown, not gated */
    size_t npaths;
};

struct cmp_common {
    const char *db, *repo;
    const char *host;            /* --host: a machine id prefix or hostname glob; NULL none */
    int force, include_aborted;
    struct cmp_opts o;
    enum fmt fmt;                /* --format */
    int unsure_exit;             /* --unsure-exit: the status when a case is unsure (0: none) */
    struct cb_sb cmdline;        /* as typed: for the runs a rerun records; cmp_common_release */
};

/* The options compare and bisect-check share, relative to struct
 * cmp_common (cmd/options.h's groups): their ids are from
 * CMP_OPT_FIRST, below which each command numbers its own. */
#define CMP_OPT_FIRST (CB_OPT_LONG_ONLY + 100)
extern const struct cb_opt_group cmp_common_options;

/* "2", "2%", "0.5%": a percentage in [0, 100], as a fraction; what names
 * the option in the message. */
int cmp_parse_pct(const char *s, const char *what, double *out, struct cb_sb *err);
void cmp_common_defaults(struct cmp_common *c, int argc, char **argv);
void cmp_common_release(struct cmp_common *c);
/* A side's runs must come from one machine: with --host (host non-NULL),
 * keep those of the machines it names (-ENOENT when none is left); without,
 * -EXDEV when they come from several.  The message in err. */
int cmp_select_host(struct cb_store *st, struct cb_side *s, const char *host, struct cb_sb *err);
/* One line naming a side's runs and commits, for the header. */
void cmp_describe_side(struct cb_store *st, const struct cb_side *s, char *buf, size_t len);
void cmp_print_result(const struct cmp_ctx *x, const struct cmp_common *c,
                      const struct cmp_result *res, int exit_status, FILE *f);
/* Each path's verdict (its reading) from its steps' cases' rows. */
void cmp_path_verdicts(const struct cmp_result *res, struct cb_path_delta *d, size_t n);
/* JUnit XML (verdict_junit.c): one testcase per case, a failure for each
 * unacknowledged regression, an unsure case skipped with what would decide
 * it. */
void cmp_print_junit(const struct cmp_ctx *x, const struct cmp_result *res, FILE *f);
/* A row's verdict in words: "regressed", "unsure: 4 more runs a side
 * needed", "unsure: no noise floor yet". */
void cmp_verdict_text(const struct cmp_row *r, char *buf, size_t len);
/* compare's exit status: 1 when a regression is not acknowledged; else
 * unsure_exit when a case is unsure; else 0. */
int cmp_exit_of(const struct cmp_result *res, int unsure_exit);
/* With rows judged without a floor (CMP_TEST_NOFLOOR): the command that
 * records BASE's bytes again (its first run's command line, and LD_PRELOAD
 * and the CB_* variables it ran with), into buf; else "". */
#define CMP_FLOOR_RECORD 3        /* runs of it that make a floor (2 df, and the host's prior) */
void cmp_record_hint(struct cb_store *st, const struct cb_side *A, const struct cmp_result *res,
                     char *buf, size_t len);
/* Check the fingerprints: within each side and across.  Returns 0, or
 * -EXDEV with the message in err when refused. */
int cmp_check_env(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, int force,
                  struct cb_sb *crosses, struct cb_sb *err);

/* When the sides' runs were pinned to different CPUs (of one class, or
 * cmp_check_env would have refused): a note saying so; else "". */
void cmp_cpu_note(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, char *buf,
                  size_t len);

#endif
