/* cmd_race.c — `cyclebudget race`: race the variants per size bucket, store
 * the race, print its table, and emit the winners as JSON or a C header.
 *
 * As with run, everything typed is checked before the database is opened, so
 * a typo writes nothing.  The race is a run (marked complete only after its
 * race rows are in); SIGINT/SIGTERM finish the current sample and mark it
 * aborted, with no race rows and nothing emitted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/budget_opts.h"
#include "cli/cmd.h"
#include "harness/collect.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "cli/progress.h"
#include "harness/probe.h"
#include "analysis/race.h"
#include "report/race_report.h"
#include "report/report.h"
#include "cli/session.h"
#include "counters/tsc.h"
#include "harness/workset.h"

/* The families raced by default: those whose variants are plain functions
 * of the byte shapes (probe.h's enum cb_call), which are the ones with
 * several strategies for one size of bytes. */
static const char *default_probes(void)
{
    static char buf[256];
    size_t at = 0;
    for (size_t i = 0; i < cb_probe_count() && at < sizeof buf; i++) {
        const struct cb_probe *p = cb_probe_at(i);
        if (p->call != CB_CALL_NONE)
            at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", at ? "," : "", p->name);
    }
    return buf;
}

struct progress {
    int on;
    double t0;
};

static void show_progress(void *arg, size_t done, size_t total, const struct cb_probe *p,
                          const struct cb_variant *v, uint64_t size, int round)
{
    struct progress *pg = arg;
    if (!pg->on)
        return;
    char szbuf[32];
    cb_progress(stderr, done, total, pg->t0, "round %d: %s %s %s", round, p->name, v->name,
                cb_fmt_size(size, p->unit, szbuf, sizeof szbuf));
}

/* A positive fraction in (0, 1) for --alpha. */
static int parse_alpha(const char *s, double *out, struct cb_sb *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0 && v < 0.5)) {
        cb_sb_setf(err, "--alpha '%s': give a level between 0 and 0.5, e.g. 0.01", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_seed(const char *s, uint64_t *out, struct cb_sb *err)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '+' || !*s)
        goto bad;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > INT64_MAX)
        goto bad;
    *out = v;
    return 0;
bad:
    cb_sb_setf(err, "--seed '%s': give a decimal number from 0 to %lld", s, (long long)INT64_MAX);
    return -EINVAL;
}

/* What race was asked for, checked. */
struct race_plan {
    struct cb_session s;
    struct cb_select sel;                /* -p -V -s -m */
    const char *emit, *outpath;
    char **vglobs, *vstore;    /* -V, split */
    struct cb_race_opts ro;
    const struct cb_probe *probes[CB_SESSION_MAX_PROBES];
    struct cb_race_bucket buckets[CB_RACE_MAX_BUCKETS];
    int have_seed;
    struct cb_budget_opts bo;  /* --context, --fpu-batch (and --link, --frame alike) */
    struct cb_sb *err;         /* the parse step's message */
};

static int race_work(void *plan, struct cb_collector *col);

enum { OPT_ALPHA = CB_OPT_LONG_ONLY, OPT_MIN_MARGIN, OPT_SEED };

/* One of race's own options; 0, or -EINVAL with the plan's err set. */
static int race_option(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct race_plan *pl = ctx;
    switch (ch) {
    case OPT_ALPHA: return parse_alpha(arg, &pl->ro.alpha, err);
    case OPT_MIN_MARGIN: return cb_parse_percent(arg, "--min-margin", &pl->ro.min_margin, err);
    case OPT_SEED:
        pl->have_seed = 1;
        return parse_seed(arg, &pl->ro.seed, err);
    }
    return 1;
}

/* The options into the plan: cb_getopt's 0, 1 (--help), -EINVAL with err
 * set, or -ENOENT (an unknown option, said). */
static int race_parse(struct race_plan *pl, int argc, char **argv)
{
    static const struct cb_option options[] = {
        CB_OPT_GROUP_NOTE(cb_select_options, struct race_plan, sel,
                          "default: the families whose variants are plain functions over bytes "
                          "(those plugins add to), every variant, warm; "
                          "a race runs in one mode; each size is a bucket up to that size, the "
                          "last one open-ended (default: small <=64 @40, packets <=1500 @1500, "
                          "pages <=4K @4K, large <=64K @64K, streaming beyond @2x LLC)"),
        CB_OPT_CALL(OPT_ALPHA, "alpha", "A", "rank-test level for a confident winner (default: 0.01)"),
        CB_OPT_CALL(OPT_MIN_MARGIN, "min-margin", "PCT",
                    "a confident winner is at least this much faster, at the low end of its CI "
                    "(default: 2)"),
        CB_OPT_INT(0, "rounds", struct race_plan, ro.rounds, "N", 1, 1000,
                   "shuffled rounds per variant, the units of the test (default: 8)"),
        CB_OPT_INT(0, "reps", struct race_plan, s.co.harness.reps, "N", 1, 10000,
                   "samples per variant per round; their median counts (default: 3)"),
        CB_OPT_CALL(OPT_SEED, "seed", "N", "seed of the shuffle (default: from the clock)"),
        CB_OPT_STR(0, "emit", struct race_plan, emit, "FORMAT", "json or c-header, to -o or stdout"),
        CB_OPT_STR('o', "output", struct race_plan, outpath, "FILE",
                   "where to emit (the format follows a .json or .h name)"),
        CB_OPT_GROUP(cb_session_options, struct race_plan, s),
        CB_OPT_GROUP(cb_budget_options, struct race_plan, bo),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "race",
        .synopsis = "usage: cyclebudget race [options]\n",
        .options = options,
        .footer = "\n"
                  "Variants are verified first (a BAD one never runs), then run in rounds in a\n"
                  "shuffled order.  A winner is confident only when it beats every other variant\n"
                  "(Mann-Whitney at --alpha, and by --min-margin); otherwise the variants it did\n"
                  "not beat tie, and the one needing the fewest CPU features wins (then the\n"
                  "family's reference, then the earlier in its table).\n",
        .option = race_option,
    };
    cb_session_init(&pl->s, "cycles", race_work, argc, argv);
    pl->s.co.harness.reps = 3;
    pl->sel.probes = default_probes();
    pl->sel.modes = "warm";
    pl->ro.alpha = 0.01;
    pl->ro.min_margin = 0.02;
    pl->ro.rounds = 8;
    cb_budget_opts_init(&pl->bo);
    int rc = cb_getopt(argc, argv, &parser, pl, pl->err);
    if (rc != 0)
        return rc;
    return cb_session_no_operands(argc, argv, "race", pl->err);
}

/* --emit, or the format that -o's name implies; and refuse now an output
 * that cannot be written, rather than after a long race (the file itself
 * is written only at the end). */
static int plan_output(struct race_plan *pl)
{
    const char *out = pl->outpath;
    size_t len = out ? strlen(out) : 0;
    if (!pl->emit && out) {
        if (len > 2 && strcmp(out + len - 2, ".h") == 0)
            pl->emit = "c-header";
        else if (len > 5 && strcmp(out + len - 5, ".json") == 0)
            pl->emit = "json";
        else {
            cb_sb_setf(pl->err, "-o %s: say what to write with --emit json or --emit c-header", out);
            return -EINVAL;
        }
    }
    if (pl->emit && strcmp(pl->emit, "json") != 0 && strcmp(pl->emit, "c-header") != 0) {
        cb_sb_setf(pl->err, "--emit '%s': give json or c-header", pl->emit);
        return -EINVAL;
    }
    return cb_output_check(out, pl->s.co.db, pl->err);
}

/* The families: each once, and each measured in bytes.  The buckets are
 * byte sizes; a family whose size counts something else (descriptors in a
 * ring) has no byte thresholds to pick. */
static int plan_probes(struct race_plan *pl)
{
    int np = cb_session_probes(pl->sel.probes, pl->probes, pl->err);
    for (int i = 0; i < np; i++) {
        const struct cb_probe *p = pl->probes[i];
        if (!p->unit || strcmp(p->unit, "B") != 0) {
            cb_sb_setf(pl->err, "%s's size counts %s, not bytes: the race's byte-size buckets do not apply (race a family sized in bytes: 'cyclebudget list' shows each one's unit)",
                     p->name, p->unit ? p->unit : "no unit");
            return -EINVAL;
        }
        for (int j = 0; j < i; j++)
            if (pl->probes[j] == p) {
                cb_sb_setf(pl->err, "--probes: %s is named twice", p->name);
                return -EINVAL;
            }
    }
    pl->ro.probes = pl->probes;
    pl->ro.nprobes = np > 0 ? (size_t)np : 0;
    return np < 0 ? np : 0;
}

/* -V: each glob must match a variant of the families raced. */
static int plan_variants(struct race_plan *pl)
{
    if (!pl->sel.variants)
        return 0;
    int rc = cb_session_variants(pl->sel.variants, pl->probes, (int)pl->ro.nprobes,
                                 pl->ro.include_testonly, pl->sel.probes, &pl->vglobs, &pl->vstore,
                                 pl->err);
    pl->ro.variant_globs = (const char *const *)pl->vglobs;
    return rc;
}

/* One bucket per -s size; by default up to the cold working set, this
 * project's measure of "no cache holds it". */
static int plan_buckets(struct race_plan *pl)
{
    int nb;
    if (pl->sel.sizes) {
        uint64_t sizes[CB_RACE_MAX_BUCKETS + 1];
        int ns = cb_parse_size_list(pl->sel.sizes, sizes, CB_RACE_MAX_BUCKETS + 1, pl->err);
        if (ns < 0)
            return ns;
        if ((nb = cb_race_buckets_from_sizes(sizes, (size_t)ns, pl->buckets)) < 0) {
            cb_sb_setf(pl->err, "--sizes: give 1 to %d sizes", CB_RACE_MAX_BUCKETS);
            return -EINVAL;
        }
    } else {
        uint64_t cold = pl->s.co.harness.cold_bytes;
        nb = (int)cb_race_default_buckets(pl->buckets, cold ? cold : cb_workset_cold_bytes());
    }
    pl->ro.buckets = pl->buckets;
    pl->ro.nbuckets = (size_t)nb;
    return 0;
}

/* Everything typed, checked before the store is opened for writing. */
static int race_plan_check(void *plan)
{
    struct race_plan *pl = plan;
    int m = cb_mode_parse(pl->sel.modes), rc;
    if (m < 0) {
        cb_sb_setf(pl->err, "--mode '%s': a race runs in one mode: give warm or cold", pl->sel.modes);
        return -EINVAL;
    }
    pl->ro.mode = (enum cb_mode)m;
    if ((rc = plan_output(pl)) < 0)
        return rc;
    /* Each round is one value per variant: below 6 the rank test reaches
     * alpha 0.01 only when every round of one variant beats every round of
     * the other (5 against 5: p = 2/252 exactly), so most buckets would tie. */
    if (pl->ro.rounds < 6) {
        cb_sb_setf(pl->err, "--rounds %d: each round is one value for the rank test, which needs at least 6",
                 pl->ro.rounds);
        return -EINVAL;
    }
    if ((rc = plan_probes(pl)) < 0 || (rc = plan_variants(pl)) < 0 || (rc = plan_buckets(pl)) < 0)
        return rc;
    if ((rc = cb_budget_opts_finish(&pl->bo, NULL, pl->err)) < 0)
        return rc;
    pl->ro.context = pl->bo.context;
    if (pl->ro.context == CB_CONTEXT_KERNEL)
        pl->s.co.ceilings = 1; /* the FPU save is measured with the ceilings, or reused */
    pl->ro.fpu_batch = (int)pl->bo.fpu_batch;
    pl->ro.budget = pl->bo.budget;
    if (!pl->have_seed)
        pl->ro.seed = (cb_tsc_begin() ^ ((uint64_t)getpid() << 32)) & INT64_MAX;
    return 0;
}

/* Kernel context: the FPU save from the run's calibration (the ceilings
 * measure it), in the race's metric: TSC ticks, or core cycles at the
 * calibration's clock ratio.  Without one, SIMD entrants sit out. */
static void race_fpu(struct race_plan *pl, struct cb_collector *col)
{
    struct cb_ceilings cs;
    if (pl->ro.context != CB_CONTEXT_KERNEL || !col->cal_id ||
        cb_store_calibration_get(col->st, col->cal_id, &cs, NULL, 0) < 0)
        return;
    pl->ro.fpu = cs.fpu;
    const char *metric = col->h.primary >= 0 ? col->cs.c[col->h.primary].spec.part : "tsc";
    pl->ro.fpu_ratio = strcmp(metric, "tsc") != 0 && cs.core_ghz > 0 && cs.tsc_ghz > 0
                           ? cs.core_ghz / cs.tsc_ghz : 1.0;
}

/* Race, store its rows, and end the run.  0, 130 on a signal (no race
 * rows, nothing emitted), or 1.  *host is the run's, for what is emitted. */
static int race_measure(struct race_plan *pl, struct cb_collector *col, struct cb_race *race,
                        struct cb_host *host)
{
    struct progress pg = {.on = !pl->s.co.quiet && isatty(2), .t0 = cb_progress_now()};
    pl->ro.stop = cb_stop_flag();
    pl->ro.progress = show_progress;
    pl->ro.progress_arg = &pg;
    pl->ro.tsc_ghz = col->clk.tsc_ghz;
    const char *metric = col->h.primary >= 0 ? col->cs.c[col->h.primary].spec.part : "tsc";
    pl->ro.fpu_ratio = strcmp(metric, "tsc") != 0 && col->clk.est.ghz > 0 && col->clk.tsc_ghz > 0
                           ? col->clk.est.ghz / col->clk.tsc_ghz : 1.0;
    race_fpu(pl, col);
    int rc = cb_race_run(col, &pl->ro, race);
    if (pg.on)
        fprintf(stderr, "\r\033[K");
    if (rc == -EINTR || *pl->ro.stop)
        return cb_session_finish(col, 1, "race run", "nothing emitted");
    if (rc == 0)
        rc = cb_race_store(col, race);
    if (rc == -ENOSPC)
        return cb_session_abort(col, rc, "the race", pl->s.co.db);
    if (rc < 0) {
        cb_collector_finish(col, "aborted");
        cb_error("the race failed: %s; run %lld marked aborted", strerror(-rc), (long long)col->run_id);
        return 1;
    }
    *host = col->host;
    return cb_session_finish(col, 0, "race run", "nothing emitted");
}

/* Write the winners to -o (cb_output: a file is put in place when whole)
 * or stdout.  0, or 1 with the message printed. */
static int race_emit(const struct race_plan *pl, const struct cb_race *race, const struct cb_host *host,
                     int64_t run_id)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_output o;
    int rc = 0;
    if (cb_output_open(&o, pl->outpath, pl->s.co.db, &err) < 0) {
        cb_error("%s (the race is stored as run %lld)", err.buf, (long long)run_id);
        cb_sb_release(&err);
        return 1;
    }
    int erc = strcmp(pl->emit, "json") == 0 ? cb_race_emit_json(race, host, o.f)
                                            : cb_race_emit_header(race, host, o.f);
    if (erc < 0)
        cb_sb_setf(&err, "cannot write %s: %s", o.shown, strerror(-erc));
    if (cb_output_close(&o, erc >= 0, &err) < 0 || erc < 0) {
        cb_error("%s (the race is stored as run %lld)", err.buf, (long long)run_id);
        rc = 1;
    }
    cb_sb_release(&err);
    return rc;
}

/* Under the table: each winner's share of the budget, by the one rule. */
static void race_budget_lines(const struct cb_race *race, FILE *tab)
{
    char sz[32];
    fprintf(tab, "  winner's share of the %s budget (docs/budget.md's rule):", race->o.budget.label);
    for (size_t i = 0; i < race->ncells; i++) {
        const struct cb_race_cell *c = &race->cells[i];
        double s = cb_race_budget_share(&race->o, c);
        if (isfinite(s))
            fprintf(tab, "%s %s %s %.1f%%", i ? "," : "", c->probe->name,
                    cb_fmt_size(c->bucket.size, c->probe->unit, sz, sizeof sz), 100 * s);
    }
    fputc('\n', tab);
}

/* The table, read back from the store as a later report reads it, then
 * what is emitted.  The table goes to stderr when the emitted file takes
 * stdout. */
static int race_output(const struct race_plan *pl, const struct cb_race *race,
                       const struct cb_host *host, int64_t run_id)
{
    FILE *tab = pl->emit && !pl->outpath ? stderr : stdout;
    const char *db = pl->s.co.db;
    int quiet = pl->s.co.quiet;
    char line[512];
    struct cb_store *st;
    if (!quiet && race->o.context == CB_CONTEXT_KERNEL) {
        cb_race_context_line(race, line, sizeof line);
        fprintf(tab, "%s\n", line);
    }
    struct cb_sb err = CB_SB_INIT;   /* not said: the race is stored, the table is a courtesy */
    if (!quiet && cb_store_open(db, CB_STORE_READ, 0, &st, &err) == 0) {
        cb_race_print(st, race->race_id, tab);
        cb_store_close(st);
        race_budget_lines(race, tab);
    }
    cb_sb_release(&err);
    if (pl->emit) {
        if (race_emit(pl, race, host, run_id) != 0)
            return 1;
        if (pl->outpath && !quiet)
            fprintf(tab, "wrote %s (%s)\n", pl->outpath, pl->emit);
    }
    if (!quiet)
        fprintf(tab, "stored as race %lld, run %lld in %s\n", (long long)race->race_id,
                (long long)run_id, db);
    return 0;
}

static int race_parse_plan(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct race_plan *pl = ctx;
    pl->err = err;
    return cb_session_checked(race_parse(pl, argc, argv), race_plan_check, pl);
}

/* In the open session: race, store the race and end the run, then print
 * the table and emit the winners. */
static int race_work(void *plan, struct cb_collector *col)
{
    struct race_plan *pl = plan;
    struct cb_race race = {0};
    struct cb_host host;
    int rc = race_measure(pl, col, &race, &host);
    if (rc == 0)
        rc = race_output(pl, &race, &host, col->run_id);
    cb_race_free(&race);
    return rc;
}

int cmd_race(int argc, char **argv)
{
    static const struct cb_cmd cmd = {race_parse_plan, CB_EXIT_USAGE, NULL, 0, cb_session_body};
    struct race_plan pl = {0};
    int rc = cb_cmd_main(&cmd, argc, argv, &pl);
    cb_session_release(&pl.s);
    free(pl.vglobs);
    free(pl.vstore);
    return rc;
}
