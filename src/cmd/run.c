/* cmd_run.c — `cyclebudget run`: validate, measure, store, summarise.
 *
 * Everything the user typed is checked before the database is opened for
 * writing, so a typo never leaves a half-made run behind.  A run is marked
 * complete only after its last case; SIGINT/SIGTERM finish the current
 * sample and mark it aborted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/budget.h"
#include "cli/budget_opts.h"
#include "harness/arrays.h"
#include "harness/collect.h"
#include "cli/cmd.h"
#include "cli/parse.h"
#include "report/path.h"
#include "cli/progress.h"
#include "harness/plugin.h"
#include "harness/probe.h"
#include "report/report.h"
#include "cli/session.h"
#include "analysis/sides.h"
#include "cli/sim.h"

#define MAX_SIZES 64

static int glob_match_any(char **globs, const char *name)
{
    if (!globs)
        return 1;
    for (char **g = globs; *g; g++)
        if (fnmatch(*g, name, 0) == 0)
            return 1;
    return 0;
}

/* Is v of p selected: by -V globs when given, else by the quick suite's
 * globs when running the quick suite, else every variant. */
static int selected(const struct cb_probe *p, const struct cb_variant *v, char **vglobs, int suite)
{
    if (v->flags & CB_VARIANT_TESTONLY)
        return 0;
    if (vglobs)
        return glob_match_any(vglobs, v->name);
    if (!suite || !p->suite_variants)
        return 1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", p->suite_variants);
    for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save))
        if (fnmatch(g, v->name, 0) == 0)
            return 1;
    return 0;
}

/* The sizes of p in this run: -s, else the quick suite's, else all. */
static size_t sizes_of(const struct cb_probe *p, int suite, const uint64_t *given, int ngiven,
                       uint64_t *out, size_t max)
{
    if (ngiven) {
        for (int i = 0; i < ngiven; i++)
            out[i] = given[i];
        return (size_t)ngiven;
    }
    const size_t *src = suite && p->suite_sizes ? p->suite_sizes : p->sizes;
    size_t n = 0;
    while (n < max && src[n]) {
        out[n] = src[n];
        n++;
    }
    return n;
}

/* One case named as compare, history and ack name it. */
struct named_case {
    const struct cb_probe *p;
    const struct cb_variant *v;
    uint64_t size;
    enum cb_mode mode;
};

/* --cases: every name must be a case this binary can measure, so that
 * compare --rerun, which writes these lists, fails loudly when BASE's
 * binary lacks a case rather than recording a run without it. */
static int parse_cases(char **names, int n, struct named_case *out, struct cb_sb *err)
{
    for (int i = 0; i < n; i++) {
        char buf[CB_CASE_KEY_MAX], *f[4], *save = NULL;
        int nf = 0;
        snprintf(buf, sizeof buf, "%s", names[i]);
        for (char *t = strtok_r(buf, "/", &save); t && nf < 4; t = strtok_r(NULL, "/", &save))
            f[nf++] = t;
        if (nf != 4 || strtok_r(NULL, "/", &save)) {
            cb_sb_setf(err, "--cases: '%s' is not a case name: give probe/variant/size/mode, "
                     "e.g. csum/adc-2chain/1500/warm", names[i]);
            return -EINVAL;
        }
        out[i].p = cb_probe_find(f[0]);
        out[i].v = out[i].p ? cb_variant_find(out[i].p, f[1]) : NULL;
        if (!out[i].v || (out[i].v->flags & CB_VARIANT_TESTONLY)) {
            struct cb_sb near = CB_SB_INIT;
            if (out[i].p)
                cb_suggest_variants(out[i].p, f[1], &near);
            else
                cb_suggest_probes(f[0], &near);
            cb_sb_setf(err, "--cases: '%s': no %s '%s' here: did you mean %s?", names[i],
                     out[i].p ? "variant" : "probe", out[i].p ? f[1] : f[0], near.buf);
            cb_sb_release(&near);
            return -ENOENT;
        }
        int m = cb_mode_parse(f[3]);
        struct cb_sb why = CB_SB_INIT;
        int bad = cb_parse_size(f[2], &out[i].size, &why) < 0;
        if (bad)
            cb_sb_setf(err, "--cases: '%s': %s", names[i], why.buf);
        cb_sb_release(&why);
        if (bad)
            return -EINVAL;
        if (m < 0 || out[i].size == 0 || (out[i].v->only_size && out[i].v->only_size != out[i].size)) {
            cb_sb_setf(err, "--cases: '%s': %s", names[i],
                     m < 0 ? "the mode must be warm or cold" : "not a size this variant measures");
            return -EINVAL;
        }
        out[i].mode = (enum cb_mode)m;
        for (int j = 0; j < i; j++)
            if (out[j].v == out[i].v && out[j].size == out[i].size && out[j].mode == out[i].mode) {
                cb_sb_setf(err, "--cases: '%s' is named twice: a run measures a case once",
                         names[i]);
                return -EINVAL;
            }
    }
    return 0;
}

/* Measure one case into the run.  0 to go on (*interrupted set on a
 * signal); 1 when the store failed: the run is then marked aborted. */
static int measure_one(struct cb_collector *col, const struct cb_probe *p, const struct cb_variant *v,
                       uint64_t size, enum cb_mode mode, const char *db, int *interrupted)
{
    int rc = cb_collector_case(col, p, v, size, mode, cb_stop_flag(), NULL, NULL);
    if (rc == -EINTR) {
        *interrupted = 1;
    } else if (rc < 0) {
        return cb_session_abort(col, rc, "a case", db);
    }
    return 0;
}

/* What run was asked for, checked: the cases it will measure. */
struct run_plan {
    struct cb_session s;
    struct cb_select sel;                /* -p -V -s -m */
    const char *cases_arg, *budget_arg;
    struct cb_budget_opts bo;  /* the summary's --link, --frame, --context, --fpu-batch */
    const struct cb_probe *probes[CB_SESSION_MAX_PROBES];
    int np, suite;
    char **vglobs, *vstore;             /* -V, NULL for all */
    enum cb_mode modes[2];
    int nm;
    uint64_t sizes[MAX_SIZES];          /* -s, nsizes 0 for each family's */
    int nsizes;
    struct named_case *named;           /* --cases */
    char **cnames, *cstore;
    int nnamed;
    int sim;                            /* --sim */
    const char *sim_caches;             /* --sim-caches */
    const char *plugin_args[CB_PLUGIN_MAX]; /* --plugin, as typed */
    int nplugins;
    struct cb_plugin_info *plugins;     /* loaded, nplugins of them */
    int argc;                           /* as typed, for --sim's re-execution */
    char **argv;
    struct cb_sb *err;         /* the parse step's message */
};

static int run_work(void *plan, struct cb_collector *col);

enum {
    OPT_MAX_TIME = CB_OPT_LONG_ONLY, OPT_ROUND_PAUSE, OPT_RECALIBRATE,
    OPT_PLUGIN,
};

/* One of run's own options; 0, or -EINVAL with the plan's err set. */
static int run_option(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct run_plan *pl = ctx;
    struct cb_harness_opts *h = &pl->s.co.harness;
    long lv;
    switch (ch) {
    case OPT_MAX_TIME:
        return cb_parse_seconds(arg, "--max-time", &h->case_seconds, err) < 0 ? -EINVAL : 0;
    case OPT_RECALIBRATE: pl->s.co.ceilings = 2; return 0;
    case OPT_PLUGIN:
        if (pl->nplugins == CB_PLUGIN_MAX) {
            cb_sb_setf(err, "--plugin: at most %d plugins in one run", CB_PLUGIN_MAX);
            return -EINVAL;
        }
        pl->plugin_args[pl->nplugins++] = arg;
        return 0;
    case OPT_ROUND_PAUSE:
        if (cb_parse_long(arg, 0, 10000, "--round-pause", &lv, err) < 0)
            return -EINVAL;
        h->pause_ms = (double)lv;
        return 0;
    }
    return 1;
}

/* The options into the plan: cb_getopt's 0, 1 (--help), -EINVAL with err
 * set, or -ENOENT (an unknown option, said). */
static int run_parse(struct run_plan *pl, int argc, char **argv)
{
    static const struct cb_option options[] = {
        CB_OPT_GROUP_NOTE(cb_select_options, struct run_plan, sel,
                          "default: the quick suite of every family; with -p, those families at "
                          "all their sizes; every variant; warm,cold"),
        CB_OPT_STR(0, "cases", struct run_plan, cases_arg, "LIST",
                   "exactly these cases, named probe/variant/size/mode as compare prints them, "
                   "comma-separated (not with -p/-V/-s/-m)"),
        CB_OPT_GROUP(cb_session_options, struct run_plan, s),
        CB_OPT_STR(0, "commit", struct run_plan, s.co.commit, "REV",
                   "the measured commit (default: HEAD of --repo)"),
        CB_OPT_STR(0, "repo", struct run_plan, s.co.repo, "DIR",
                   "the measured git tree (default: the current directory)"),
        CB_OPT_INT(0, "reps", struct run_plan, s.co.harness.reps, "N", 1, 1000000,
                   "exactly N samples per case (default: until the median's 95% CI is within "
                    "+-1%, or --max-time)"),
        CB_OPT_CALL(OPT_MAX_TIME, "max-time", "SEC", "time cap per case when adaptive (default: 0.1)"),
        CB_OPT_INT(0, "rounds", struct run_plan, s.co.harness.rounds, "N", 1, CB_MAX_ROUNDS,
                   "measure each case in N rounds, each set up anew, with an idle pause between "
                    "them; --reps and --max-time are split over the rounds (default: 1; 5 for "
                    "compare, see "
                    "docs/measuring.md)"),
        CB_OPT_CALL(OPT_ROUND_PAUSE, "round-pause", "MS", "that pause, in milliseconds (default: 20)"),
        CB_OPT_INT(0, "state-tries", struct run_plan, s.co.state_tries, "N", 1, 10,
                   "measure a case the host slowed up to N times, keeping the first quiet try "
                   "(default: 3; 1: judge only; see docs/measuring.md)"),
        CB_OPT_STR(0, "budget", struct run_plan, budget_arg, "B",
                   "the same as --link (kept for scripts)"),
        CB_OPT_GROUP(cb_budget_options, struct run_plan, bo),
        CB_OPT_BOOL(0, "sim", struct run_plan, sim,
                    "count instead of timing: run under valgrind's callgrind with this CPU's "
                    "cache model, and store exact simulated counts (Ir, D1/LL misses, branch "
                    "misses, estimated cycles) per op; " CB_OPT_NUM(CB_SIM_REPS) " samples per "
                    "case unless --reps; not with -e"),
        CB_OPT_STR(0, "sim-caches", struct run_plan, sim_caches, "SPEC",
                   "with --sim, simulate these caches instead of this CPU's: one to three "
                   "NAME=SIZE,WAYS,LINE (NAME I1, D1 or LL), e.g. 'D1=32K,8,64 LL=8M,16,64'; "
                   "cold sets are 2x the LL"),
        CB_OPT_CALL(OPT_RECALIBRATE, "recalibrate", NULL,
                    "measure the machine's ceilings anew (default: reuse the newest calibration "
                    "stored for this host and environment, measuring one, about a second, when "
                    "there is none)"),
        CB_OPT_CALL(OPT_PLUGIN, "plugin", "PATH",
                    "load a variant plugin (a shared object defining cyclebudget_plugin(), see "
                    "cyclebudget(3)): its variants are verified and measured as built-in ones; "
                    "its path and sha256 are stored with the run (repeatable, up to "
                    CB_OPT_NUM(CB_PLUGIN_MAX) ")"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "run",
        .synopsis = "usage: cyclebudget run [options]\n",
        .options = options,
        .option = run_option,
    };
    /* No default events here (the collector's are CB_DEFAULT_EVENTS), so
     * that --sim can tell whether -e was given. */
    cb_session_init(&pl->s, NULL, run_work, argc, argv);
    pl->s.co.ceilings = 1;
    pl->budget_arg = "10G";
    cb_budget_opts_init(&pl->bo);
    pl->argc = argc;
    pl->argv = argv;
    int rc = cb_getopt(argc, argv, &parser, pl, pl->err);
    if (rc != 0)
        return rc;
    return cb_session_no_operands(argc, argv, "run", pl->err);
}

/* --cases: the named cases only, with no family loop. */
static int plan_named(struct run_plan *pl)
{
    if (!pl->cases_arg)
        return 0;
    if (pl->sel.probes || pl->sel.variants || pl->sel.sizes || pl->sel.modes) {
        cb_sb_setf(pl->err, "--cases names whole cases: leave out -p, -V, -s and -m");
        return -EINVAL;
    }
    pl->nnamed = cb_parse_name_list(pl->cases_arg, "--cases", &pl->cnames, &pl->cstore, pl->err);
    if (pl->nnamed < 0)
        return pl->nnamed;
    if (!(pl->named = calloc((size_t)pl->nnamed, sizeof *pl->named))) {
        cb_sb_setf(pl->err, "out of memory");
        return -ENOMEM;
    }
    return parse_cases(pl->cnames, pl->nnamed, pl->named, pl->err);
}

/* The families: none with --cases, the quick suite's without -p. */
static int plan_probes(struct run_plan *pl)
{
    pl->suite = pl->sel.probes == NULL && !pl->cases_arg;
    if (pl->cases_arg)
        return 0;
    if (pl->suite) {
        for (size_t i = 0; i < cb_probe_count() && pl->np < CB_SESSION_MAX_PROBES; i++)
            if (cb_probe_at(i)->suite_sizes)
                pl->probes[pl->np++] = cb_probe_at(i);
        return 0;
    }
    pl->np = cb_session_probes(pl->sel.probes, pl->probes, pl->err);
    return pl->np < 0 ? pl->np : 0;
}

/* -V: every glob must match a variant of the chosen families. */
static int plan_variants(struct run_plan *pl)
{
    if (!pl->sel.variants)
        return 0;
    return cb_session_variants(pl->sel.variants, pl->probes, pl->np, 0,
                               pl->suite ? "the quick suite's families" : pl->sel.probes,
                               &pl->vglobs, &pl->vstore, pl->err);
}

static int plan_modes(struct run_plan *pl)
{
    char **names = NULL, *store = NULL;
    int rc = 0;
    pl->nm = cb_parse_name_list(pl->sel.modes ? pl->sel.modes : "warm,cold", "--mode", &names, &store,
                                pl->err);
    if (pl->nm < 0)
        return pl->nm;
    if (pl->nm > 2) {
        cb_sb_setf(pl->err, "--mode: give warm, cold or warm,cold");
        rc = -EINVAL;
    }
    for (int i = 0; i < pl->nm && rc == 0; i++) {
        int m = cb_mode_parse(names[i]);
        if (m < 0) {
            cb_sb_setf(pl->err, "--mode: unknown mode '%s': give warm, cold or warm,cold",
                     names[i]);
            rc = -EINVAL;
        }
        pl->modes[i] = (enum cb_mode)m;
    }
    free(names);
    free(store);
    return rc;
}

/* --plugin: each one loaded into the registry (a crash while loading is
 * caught in a child), before -p, -V and --cases are looked up in it. */
static int plan_plugins(struct run_plan *pl)
{
    if (!pl->nplugins)
        return 0;
    if (!(pl->plugins = calloc((size_t)pl->nplugins, sizeof *pl->plugins))) {
        cb_sb_setf(pl->err, "out of memory");
        return -ENOMEM;
    }
    for (int i = 0; i < pl->nplugins; i++) {
        int rc = cb_plugin_load(pl->plugin_args[i], &pl->plugins[i], pl->err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Everything typed, checked before the store is opened for writing. */
static int run_plan_cases(void *plan)
{
    struct run_plan *pl = plan;
    int rc;
    if ((rc = plan_plugins(pl)) < 0)
        return rc;
    if (cb_budget_opts_finish(&pl->bo, pl->budget_arg, pl->err) < 0)
        return -EINVAL;
    if (pl->sim && pl->s.co.events) {
        cb_sb_setf(pl->err, "--sim counts callgrind's events, and -e chooses perf "
                 "events: give one or the other");
        return -EINVAL;
    }
    if (pl->sim_caches && !pl->sim) {
        cb_sb_setf(pl->err, "--sim-caches sets the simulated caches of --sim: give --sim too");
        return -EINVAL;
    }
    if (pl->sim && !cb_sim_requested()) {
        struct cb_cache_model m;
        if ((rc = cb_sim_check(pl->err)) < 0 ||
            (rc = cb_sim_model(pl->sim_caches, &m, pl->err)) < 0)
            return rc;
    }
    if ((rc = plan_named(pl)) < 0 || (rc = plan_probes(pl)) < 0 || (rc = plan_variants(pl)) < 0 ||
        (rc = plan_modes(pl)) < 0)
        return rc;
    if (pl->sel.sizes && (pl->nsizes = cb_parse_size_list(pl->sel.sizes, pl->sizes, MAX_SIZES,
                                                          pl->err)) < 0)
        return pl->nsizes;
    return 0;
}

/* Each case of the family loop, in order: per probe, size, mode, every
 * selected variant.  A fixed-size variant (memset's struct192) belongs only
 * to its own size: at others there is no case at all.  fn returns nonzero
 * to stop; that value is returned. */
static int each_family_case(const struct run_plan *pl,
                            int (*fn)(void *arg, const struct cb_probe *p, const struct cb_variant *v,
                                      uint64_t size, enum cb_mode mode),
                            void *arg)
{
    for (int i = 0; i < pl->np; i++) {
        const struct cb_probe *p = pl->probes[i];
        uint64_t szs[MAX_SIZES];
        size_t ns = sizes_of(p, pl->suite, pl->sizes, pl->nsizes, szs, MAX_SIZES);
        for (size_t si = 0; si < ns; si++)
            for (int mi = 0; mi < pl->nm; mi++)
                for (size_t j = 0; j < p->nvariants; j++) {
                    const struct cb_variant *v = &p->variants[j];
                    if (!selected(p, v, pl->vglobs, pl->suite) ||
                        (v->only_size && v->only_size != szs[si]))
                        continue;
                    int rc = fn(arg, p, v, szs[si], pl->modes[mi]);
                    if (rc)
                        return rc;
                }
    }
    return 0;
}

struct run_progress {
    struct cb_collector *col;
    const char *db;
    size_t done, total;
    double t0;                    /* when measuring began, for the estimate of the time left */
    int interactive, interrupted;
};

static int count_case(void *arg, const struct cb_probe *p, const struct cb_variant *v, uint64_t size,
                      enum cb_mode mode)
{
    (void)p, (void)v, (void)size, (void)mode;
    ((struct run_progress *)arg)->total++;
    return 0;
}

/* 0 to go on, -EINTR after a signal, 1 when the store failed. */
static int measure_case(void *arg, const struct cb_probe *p, const struct cb_variant *v, uint64_t size,
                        enum cb_mode mode)
{
    struct run_progress *g = arg;
    g->done++;
    if (g->interactive) {
        char szbuf[32];
        cb_progress(stderr, g->done, g->total, g->t0, "%s %s %s %s", p->name, v->name,
                    cb_fmt_size(size, p->unit, szbuf, sizeof szbuf), cb_mode_name(mode));
    }
    int rc = measure_one(g->col, p, v, size, mode, g->db, &g->interrupted);
    return rc ? rc : g->interrupted ? -EINTR : 0;
}

/* Measure every planned case: the named ones, then the family loop.  0,
 * or 1 when the store failed (the run is then marked aborted). */
static int run_measure(const struct run_plan *pl, struct cb_collector *col, int *interrupted)
{
    struct run_progress g = {
        .col = col, .db = pl->s.co.db, .total = (size_t)pl->nnamed,
        .interactive = !pl->s.co.quiet && isatty(2), .interrupted = *cb_stop_flag() != 0,
        .t0 = cb_progress_now(),
    };
    each_family_case(pl, count_case, &g);
    int rc = 0;
    for (int i = 0; i < pl->nnamed && !g.interrupted && rc == 0; i++) {
        g.done++;
        if (g.interactive)
            cb_progress(stderr, g.done, g.total, g.t0, "%s", pl->cnames[i]);
        rc = measure_one(col, pl->named[i].p, pl->named[i].v, pl->named[i].size, pl->named[i].mode,
                         pl->s.co.db, &g.interrupted);
    }
    if (rc == 0 && !g.interrupted)
        rc = each_family_case(pl, measure_case, &g);
    if (g.interactive && rc != 1)
        fprintf(stderr, "\r\033[K");
    *interrupted = g.interrupted;
    return rc == 1 ? 1 : 0;
}

/* The shipped paths at 1500 bytes, kept with the run so that history
 * tracks them (path.h), and one line each in the summary. */
static void run_paths(struct cb_store *st, const struct cb_report *rep, int quiet)
{
    for (size_t i = 0; cb_path_shipped()[i]; i++) {
        struct cb_path p;
        struct cb_path_result res;
        struct cb_sb err = CB_SB_INIT;
        int rc = cb_path_load(cb_path_shipped()[i], &p, &err);
        cb_sb_release(&err);
        if (rc < 0)
            continue;
        cb_path_compose(rep, &p, CB_MTU, &res);
        if (res.missing == res.nparts)
            continue;
        if (cb_path_store(st, rep, &p, &res) < 0)
            fprintf(stderr, "cyclebudget: path %s was not stored with the run\n", p.name);
        if (quiet)
            continue;
        cb_path_summary_line(rep, &p, &res, rep->budget.gbps > 0 ? rep->budget.gbps : 10, i == 0, stdout);
    }
}

/* The summary is read back from the store, as any later report is. */
static void run_summary(const struct run_plan *pl, int64_t run_id)
{
    const char *db = pl->s.co.db;
    struct cb_store *st;
    struct cb_report rep;
    struct cb_sb err = CB_SB_INIT;   /* not said: the run is stored; the summary is a courtesy */
    int quiet = pl->s.co.quiet;
    int opened = cb_store_open(db, CB_STORE_WRITE, 0, &st, &err) == 0;
    cb_sb_release(&err);
    if (opened) {
        if (cb_report_load(st, run_id, &rep) == 0) {
            struct cb_text_opts to = {.budget = &pl->bo.budget, .color = isatty(1) && !getenv("NO_COLOR")};
            cb_budget_opts_apply(&pl->bo, &rep);
            if (!quiet)
                cb_report_summary(&rep, &to, stdout);
            run_paths(st, &rep, quiet);
            cb_report_free(&rep);
        }
        cb_store_close(st);
    }
    if (quiet)
        return;
    printf("\nstored as run %lld in %s; 'cyclebudget report %lld%s%s' shows every variant\n",
           (long long)run_id, db, (long long)run_id, strcmp(db, CB_DEFAULT_DB) ? " --db " : "",
           strcmp(db, CB_DEFAULT_DB) ? db : "");
}

static void run_plan_free(struct run_plan *pl)
{
    cb_session_release(&pl->s);
    cb_free_all((void *const[]){pl->vglobs, pl->vstore, pl->cnames, pl->cstore, pl->named, pl->plugins}, 6);
}

static int run_parse_plan(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct run_plan *pl = ctx;
    pl->err = err;
    return cb_session_checked(run_parse(pl, argc, argv), run_plan_cases, pl);
}

/* In the open session: measure every case, end the run, summarise it. */
static int run_work(void *plan, struct cb_collector *col)
{
    struct run_plan *pl = plan;
    int interrupted = 0;
    for (int i = 0; i < pl->nplugins; i++) {
        const struct cb_plugin_info *pi = &pl->plugins[i];
        int rc = cb_store_run_plugin_add(col->st, col->run_id, pi->path, pi->sha256, pi->name,
                                         pi->variants, NULL);
        if (rc < 0)
            return cb_session_abort(col, rc, "the run's plugin", pl->s.co.db);
        if (!pl->s.co.quiet)
            fprintf(stderr, "cyclebudget: plugin %s (sha256 %.16s...): %s\n", pi->path, pi->sha256,
                    pi->variants);
    }
    int rc = run_measure(pl, col, &interrupted);
    if (rc == 0)
        rc = cb_session_finish(col, interrupted, "run", "it will not appear in reports");
    if (rc == 0)
        run_summary(pl, col->run_id);
    return rc;
}

/* --sim starts this same command under callgrind, where the collector
 * counts with the simulator (CB_SIM is then set); otherwise the session. */
static int run_body(void *plan, struct cb_store *st)
{
    struct run_plan *pl = plan;
    if (pl->sim && !cb_sim_requested())
        return cb_sim_exec(pl->argc, pl->argv, pl->s.co.quiet, pl->sim_caches);
    return cb_session_body(plan, st);
}

int cmd_run(int argc, char **argv)
{
    static const struct cb_cmd cmd = {run_parse_plan, CB_EXIT_USAGE, NULL, 0, run_body};
    struct run_plan pl = {0};
    int rc = cb_cmd_main(&cmd, argc, argv, &pl);
    run_plan_free(&pl);
    return rc;
}
