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

#include "ab.h"
#include "cmd.h"
#include "emulation.h"
#include "parse.h"
#include "session.h"

struct ab_plan {
    struct cb_session s;
    struct cb_ab ab;
    const char *format;
    char err[1536];
};

enum { OPT_ROUNDS = CB_OPT_LONG_ONLY, OPT_MAX_ROUNDS, OPT_ALPHA, OPT_THRESHOLD, OPT_REPS,
       OPT_MAX_TIME };

static int ab_option(int ch, const char *arg, void *ctx, char *err, size_t len)
{
    struct ab_plan *pl = ctx;
    struct cb_ab_opts *o = &pl->ab.o;
    switch (ch) {
    case OPT_ROUNDS: return cb_parse_int(arg, 2, 1000, "--rounds", &o->rounds, err, len);
    case OPT_MAX_ROUNDS: return cb_parse_int(arg, 2, 5000, "--max-rounds", &o->max_rounds, err, len);
    case OPT_THRESHOLD: return cb_parse_percent(arg, "--threshold", &o->threshold, err, len);
    case OPT_REPS: return cb_parse_int(arg, 1, 1000000, "--reps", &pl->s.co.harness.reps, err, len);
    case OPT_MAX_TIME:
        return cb_parse_seconds(arg, "--max-time", &pl->s.co.harness.case_seconds, err, len) < 0
                   ? -EINVAL : 0;
    case OPT_ALPHA: {
        char *end;
        o->alpha = strtod(arg, &end);
        if (end == arg || *end || !(o->alpha > 0 && o->alpha < 0.5)) {
            snprintf(err, len, "--alpha '%s': give a level between 0 and 0.5, e.g. 0.01", arg);
            return -EINVAL;
        }
        return 0;
    }
    }
    return 1;
}

static const struct cb_option ab_options[] = {
    CB_OPT_STR('p', "probes", struct ab_plan, ab.o.probes, "LIST",
               "families (default: those the plugins add variants to)"),
    CB_OPT_STR('V', "variants", struct ab_plan, ab.o.variants, "GLOBS",
               "variants (default: the plugins' own; a built-in one such as ref is the same code "
               "on both sides: a control)"),
    CB_OPT_STR('s', "sizes", struct ab_plan, ab.o.sizes, "LIST", "sizes (default: each family's)"),
    CB_OPT_STR('m', "mode", struct ab_plan, ab.o.modes, "MODE",
               "warm, cold, or warm,cold (default: warm,cold)"),
    CB_OPT_CALL(OPT_ROUNDS, "rounds", "N",
                "rounds at least (default " CB_OPT_NUM(CB_AB_DEFAULT_ROUNDS) "; raised until Holm's "
                "first step can pass over the cases: 2/2^N < alpha/cases)"),
    CB_OPT_CALL(OPT_MAX_ROUNDS, "max-rounds", "N",
                "undecided cases get more rounds, up to N (default 3x rounds)"),
    CB_OPT_CALL(OPT_ALPHA, "alpha", "P", "significance after Holm's correction (default 0.01)"),
    CB_OPT_CALL(OPT_THRESHOLD, "threshold", "PCT",
                "a change must exceed this over the whole 95% CI (default 2%)"),
    CB_OPT_CALL(OPT_REPS, "reps", "N", "exactly N samples per side per round (default: adaptive)"),
    CB_OPT_CALL(OPT_MAX_TIME, "max-time", "SEC",
                "adaptive: time cap per side per round (default 0.1)"),
    CB_OPT_STR(0, "format", struct ab_plan, format, "F", "text (default), markdown or json"),
    CB_OPT_GROUP(cb_session_options, struct ab_plan, s),
    CB_OPT_END,
};

static int ab_parse(struct ab_plan *pl, int argc, char **argv)
{
    static const struct cb_cmd_parser parser = {
        .cmd = "ab",
        .synopsis = "usage: cyclebudget ab BASE.so HEAD.so [options]\n"
                    "  times two builds of one plugin in this one process, round by round in ABBA\n"
                    "  order on one CPU, stores one run with both sides (tag ab), and judges each\n"
                    "  case on the rounds' paired ratios head/base\n",
        .options = ab_options,
        .footer = "exit status: 0 no change beyond noise, 1 a change (named), 2 usage error or failure,\n"
                  "or no case compared (BAD in both builds, or no variant in common: named)\n",
        .option = ab_option,
    };
    cb_session_init(&pl->s, NULL, NULL, argc, argv);
    pl->s.co.tag = "ab";
    pl->format = "text";
    cb_ab_defaults(&pl->ab.o);
    int rc = cb_getopt(argc, argv, &parser, pl, pl->err, sizeof pl->err);
    if (rc != 0)
        return rc;
    if (argc - optind != 2) {
        snprintf(pl->err, sizeof pl->err, "ab needs two plugins, BASE.so and HEAD.so (two builds "
                 "of the same plugin); see 'cyclebudget ab --help'");
        return -EINVAL;
    }
    if (strcmp(pl->format, "text") && strcmp(pl->format, "markdown") && strcmp(pl->format, "json")) {
        snprintf(pl->err, sizeof pl->err, "--format '%s': give text, markdown or json", pl->format);
        return -EINVAL;
    }
    return 0;
}

/* Options, then both builds loaded and the cases planned: every refusal
 * here is exit 2 with nothing written. */
static int ab_parse_plan(int argc, char **argv, void *ctx, char *err, size_t errlen)
{
    struct ab_plan *pl = ctx;
    int rc = ab_parse(pl, argc, argv);
    if (rc == 0) {
        pl->ab.o.quiet = pl->s.co.quiet;
        char *base = argv[optind], *head = argv[optind + 1];
        if ((rc = cb_ab_load(&pl->ab, base, head, pl->err, sizeof pl->err)) < 0 ||
            (rc = cb_ab_plan(&pl->ab, pl->err, sizeof pl->err)) < 0) {
            cb_ab_free(&pl->ab); /* a refused plan may hold its case table */
            rc = -EINVAL;
        }
    }
    if (rc == -EINVAL)
        snprintf(err, errlen, "%s", pl->err);
    return rc;
}

static int ab_body(void *ctx, struct cb_store *unused)
{
    struct ab_plan *pl = ctx;
    char err[1024];
    int64_t run = 0;
    int pinned = -1;
    (void)unused;
    cb_catch_stop_signals(1);
    int rc = cb_ab_run(&pl->ab, &pl->s.co, &run, &pinned, err, sizeof err);
    if (rc < 0) {
        cb_error("%s", err);
        cb_ab_free(&pl->ab);
        return rc == -EINTR ? 130 : CB_EXIT_USAGE;
    }
    char where[1200];
    snprintf(where, sizeof where, "pinned to CPU %d; run %lld in %s", pinned, (long long)run,
             pl->s.co.db);
    cb_ab_print(&pl->ab, pl->format, where, stdout);
    int changed, regressed, unsure, bad, status = cb_ab_exit(&pl->ab);
    cb_ab_counts(&pl->ab, &changed, &regressed, &unsure, &bad);
    char why[1024];
    if (status == 2 && cb_ab_compared(&pl->ab, why, sizeof why) == 0)
        cb_error("no case could be compared (%s): no verdict; -V a variant that verifies in both "
                 "builds", why);
    cb_ab_free(&pl->ab);
    /* An emulated CPU's times are no machine's (emulation.h): no verdict
     * there, changed or not; a BAD result still is one.  Beside JSON, on
     * stderr, so that stdout stays one document. */
    char ew[256];
    if (status != 2 && !bad && cb_emulation_live(ew, sizeof ew) == 1) {
        fprintf(strcmp(pl->format, "json") ? stdout : stderr, "no verdict: run %lld is emulated "
                "(%s): figures are not timings of any machine\n", (long long)run, ew);
        return 0;
    }
    return status;
}

int cmd_ab(int argc, char **argv)
{
    static const struct cb_cmd cmd = {ab_parse_plan, CB_EXIT_USAGE, NULL, 0, ab_body};
    struct ab_plan pl;
    memset(&pl, 0, sizeof pl);
    int rc = cb_cmd_main(&cmd, argc, argv, &pl);
    cb_session_release(&pl.s);
    return rc;
}
