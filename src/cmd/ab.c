/* ab.c — `cyclebudget ab BASE.so HEAD.so`: two builds of one plugin, timed
 * interleaved in one process, judged pairwise (ab.h).  0 no change, 1 a
 * change (the cases named), 2 a usage error or a failure (nothing judged).
 *
 * Everything typed is checked, and both plugins are loaded (each first in
 * a child), before the store is opened: a file that is no plugin, or one
 * that crashes, writes nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ab.h"
#include "cli/ab_select.h"
#include "cli/cmd.h"
#include "host/emulation.h"
#include "cli/parse.h"
#include "cli/session.h"
#include "report/ab_print.h"
#include "util/strbuf.h"

struct ab_plan {
    struct cb_session s;
    struct cb_ab ab;
    struct cb_select sel;         /* -p -V -s -m as typed; NULL: defaults */
    enum cb_format format;
    struct cb_sb dbpath;          /* the default store's path (cb_paired_db) */
};

enum { OPT_ALPHA = CB_OPT_LONG_ONLY, OPT_THRESHOLD, OPT_MAX_TIME };

static int ab_option(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct ab_plan *pl = ctx;
    struct cb_ab_opts *o = &pl->ab.o;
    switch (ch) {
    case OPT_THRESHOLD: return cb_parse_percent(arg, "--threshold", &o->threshold, err);
    case OPT_MAX_TIME:
        return cb_parse_seconds(arg, "--max-time", &pl->s.co.harness.case_seconds, err) < 0
                   ? -EINVAL : 0;
    case OPT_ALPHA: {
        char *end;
        o->alpha = strtod(arg, &end);
        if (end == arg || *end || !(o->alpha > 0 && o->alpha < 0.5)) {
            cb_sb_setf(err, "--alpha '%s': give a level between 0 and 0.5, e.g. 0.01", arg);
            return -EINVAL;
        }
        return 0;
    }
    }
    return 1;
}

static const struct cb_opt_choice ab_formats[] = {
    {"text", CB_FMT_TEXT}, {"markdown", CB_FMT_MARKDOWN}, {"md", CB_FMT_MARKDOWN}, {"json", CB_FMT_JSON},
    {NULL, 0},
};

static const struct cb_option ab_options[] = {
    CB_OPT_GROUP_NOTE(cb_select_options, struct ab_plan, sel,
                      "default: the families the plugins add variants to, the plugins' own "
                      "variants (a built-in one such as ref is the same code on both sides: a "
                      "control), each family's sizes, warm,cold"),
    CB_OPT_INT(0, "rounds", struct ab_plan, ab.o.rounds, "N", 2, 1000,
               "rounds at least (default " CB_OPT_NUM(CB_AB_DEFAULT_ROUNDS) "; raised until Holm's "
                "first step can pass over the cases: 2/2^N < alpha/cases)"),
    CB_OPT_INT(0, "max-rounds", struct ab_plan, ab.o.max_rounds, "N", 2, 5000,
               "undecided cases get more rounds, up to N (default 3x rounds)"),
    CB_OPT_CALL(OPT_ALPHA, "alpha", "P", "significance after Holm's correction (default 0.01)"),
    CB_OPT_CALL(OPT_THRESHOLD, "threshold", "PCT",
                "a change must exceed this over the whole 95% CI (default 2%)"),
    CB_OPT_INT(0, "reps", struct ab_plan, s.co.harness.reps, "N", 1, 1000000, "exactly N samples per side per round (default: adaptive)"),
    CB_OPT_CALL(OPT_MAX_TIME, "max-time", "SEC",
                "adaptive: time cap per side per round (default 0.1)"),
    CB_OPT_FORMAT(struct ab_plan, format, ab_formats, "text (default), markdown or json"),
    CB_OPT_GROUP(cb_session_options, struct ab_plan, s),
    CB_OPT_END,
};

static int ab_parse(struct ab_plan *pl, int argc, char **argv, struct cb_sb *err)
{
    static const struct cb_cmd_parser parser = {
        .cmd = "ab",
        .synopsis = "usage: cyclebudget ab BASE.so HEAD.so [options]\n"
                    "  times two builds of one plugin in this one process, round by round in ABBA\n"
                    "  order on one CPU, stores one run with both sides (tag ab), and judges each\n"
                    "  case on the rounds' paired ratios head/base; without --db the run goes to\n"
                    "  $CB_DB, else $XDG_DATA_HOME/cyclebudget/cyclebudget.db (~/.local/share/...),\n"
                    "  never into the measured tree\n",
        .options = ab_options,
        .footer = "exit status: 0 no change found (an unsure case is said, with the rounds that\n"
                  "would decide it), 1 a change (named), 2 usage error or failure,\n"
                  "or no case compared (BAD in both builds, or no variant in common: named)\n",
        .option = ab_option,
    };
    cb_session_init(&pl->s, NULL, NULL, argc, argv);
    cb_sb_init(&pl->dbpath);
    pl->s.co.db = NULL;
    pl->s.co.tag = "ab";
    pl->format = CB_FMT_TEXT;
    cb_ab_defaults(&pl->ab.o);
    int rc = cb_getopt(argc, argv, &parser, pl, err);
    if (!pl->s.co.db)
        pl->s.co.db = cb_paired_db(&pl->dbpath);
    if (rc != 0)
        return rc;
    if (argc - optind != 2) {
        cb_sb_setf(err, "ab needs two plugins, BASE.so and HEAD.so (two builds "
                 "of the same plugin); see 'cyclebudget ab --help'");
        return -EINVAL;
    }
    return 0;
}

/* Options, then both builds loaded and the cases planned: every refusal
 * here is exit 2 with nothing written. */
static int ab_parse_plan(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct ab_plan *pl = ctx;
    int rc = ab_parse(pl, argc, argv, err);
    if (rc == 0) {
        pl->ab.o.quiet = pl->s.co.quiet;
        char *base = argv[optind], *head = argv[optind + 1];
        if ((rc = cb_ab_load(&pl->ab, base, head, err)) < 0 ||
            (rc = cb_ab_plan_select(&pl->ab, &pl->sel, err)) < 0) {
            cb_ab_free(&pl->ab); /* a refused plan may hold its case table */
            rc = -EINVAL;
        }
    }
    return rc;
}

static int ab_body(void *ctx, struct cb_store *unused)
{
    struct ab_plan *pl = ctx;
    struct cb_sb err = CB_SB_INIT;
    int64_t run = 0;
    int pinned = -1;
    (void)unused;
    cb_catch_stop_signals(1);
    int rc = cb_ab_run(&pl->ab, &pl->s.co, cb_stop_flag(), &run, &pinned, &err);
    if (rc < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        cb_ab_free(&pl->ab);
        return rc == -EINTR ? 130 : CB_EXIT_USAGE;
    }
    cb_sb_release(&err);
    char where[1200];
    snprintf(where, sizeof where, "pinned to CPU %d; run %lld in %s", pinned, (long long)run,
             pl->s.co.db);
    cb_ab_print(&pl->ab, pl->format, where, stdout);
    int changed, regressed, unsure, bad, status = cb_ab_exit(&pl->ab);
    cb_ab_counts(&pl->ab, &changed, &regressed, &unsure, &bad);
    struct cb_sb why = CB_SB_INIT;
    if (status == 2 && cb_ab_compared(&pl->ab, &why) == 0)
        cb_error("no case could be compared (%s): no verdict; -V a variant that verifies in both "
                 "builds", why.buf);
    cb_sb_release(&why);
    cb_ab_free(&pl->ab);
    /* An emulated CPU's times are no machine's (emulation.h): no verdict
     * there, changed or not; a BAD result still is one.  Beside JSON, on
     * stderr, so that stdout stays one document. */
    struct cb_sb ew = CB_SB_INIT;
    if (status != 2 && !bad && cb_emulation_live(&ew) == 1) {
        fprintf(pl->format != CB_FMT_JSON ? stdout : stderr, "no verdict: run %lld is emulated "
                "(%s): figures are not timings of any machine\n", (long long)run, ew.buf);
        status = 0;
    }
    cb_sb_release(&ew);
    return status;
}

int cmd_ab(int argc, char **argv)
{
    static const struct cb_cmd cmd = {ab_parse_plan, CB_EXIT_USAGE, NULL, 0, ab_body};
    struct ab_plan pl;
    memset(&pl, 0, sizeof pl);
    int rc = cb_cmd_main(&cmd, argc, argv, &pl);
    cb_session_release(&pl.s);
    cb_sb_release(&pl.dbpath);
    return rc;
}
