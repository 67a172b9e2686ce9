/* bisect_check.c — `bisect-check`: compare in git bisect run's language.
 * 0 good, 1 bad, 125 cannot tell, and 128 (abort the bisection) for
 * errors, because git would read exit 2 as "bad". */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/ab.h"
#include "cli/ab_select.h"
#include "report/ab_print.h"
#include "host/emulation.h"
#include "counters/meter.h"
#include "cli/parse.h"
#include "harness/plugin.h"
#include "store/lookup.h"
#include "cli/rerun.h"
#include "analysis/verdict.h"
#include "cli/sim.h"

#define BISECT_ERROR 128
/* --against-plugin: undecided cases get rounds until this much measuring
 * time is spent (--max-time).  A bisection is rare and must be right: a
 * skipped commit leaves git unable to tell it from its neighbour (7
 * and 8 of 10 bisects right, each miss a comment-only commit that
 * came back unsure after ab's 36 rounds). */
#define BISECT_PAIRED_SECONDS 300
/* --against: undecided cases get new rounds of this tree until decided or
 * this many seconds (--rerun-time): a verdict, not a skip, is what a
 * bisection needs, and the base's runs are the past. */
#define BISECT_RERUN_SECONDS 60

/* What the command line asked for. */
struct bisect {
    struct cmp_common c;
    struct cb_sb dbpath;          /* --against-plugin's default store (cb_paired_db) */
    const char *against;
    int quiet;
    int sim;                      /* --sim */
    const char *sim_caches;       /* --sim-caches */
    int argc;                     /* as typed, for --sim's re-execution */
    char **argv;
    struct cb_harness_opts h;
    struct cb_plugin_info plugins[CB_PLUGIN_MAX]; /* --plugin, loaded */
    const char *plugin_args[CB_PLUGIN_MAX];       /* --plugin, as typed */
    int nplugins;
    const char *rounds_arg;                       /* --rounds, as typed */
    const char *max_time_arg;                     /* --max-time, as typed */
    const char *against_plugin;                   /* --against-plugin GOOD.so */
    struct cb_ab ab;                              /* its paired protocol */
    struct cb_select sel;                         /* -p -V -s -m as typed; NULL: defaults */
    double rerun_s;                               /* --rerun-time; 0 none */
};

enum { OPT_MAX_TIME = CB_OPT_LONG_ONLY, OPT_COLD_BYTES, OPT_ROUNDS, OPT_PLUGIN, OPT_SIM, OPT_RERUN_TIME };

/* One of bisect-check's own options: 0 taken, 1 not one of them, or
 * -EINVAL with the message in err. */
static int bisect_opt(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct bisect *b = ctx;
    uint64_t u64;
    switch (ch) {
    case OPT_MAX_TIME:
        b->max_time_arg = arg;   /* its meaning depends on --against-plugin */
        return 0;
    case OPT_COLD_BYTES:
        if (cb_parse_size(arg, &u64, err) < 0)
            return -EINVAL;
        b->h.cold_bytes = u64;
        return 0;
    case OPT_ROUNDS:
        b->rounds_arg = arg;   /* its range depends on --against-plugin */
        return 0;
    case OPT_PLUGIN:
        if (b->nplugins == CB_PLUGIN_MAX) {
            cb_sb_setf(err, "--plugin: at most %d plugins", CB_PLUGIN_MAX);
            return -EINVAL;
        }
        b->plugin_args[b->nplugins++] = arg;
        return 0;
    case OPT_RERUN_TIME:
        if (strcmp(arg, "0") == 0) {
            b->rerun_s = 0;
            return 0;
        }
        return cb_parse_seconds(arg, "--rerun-time", &b->rerun_s, err);
    case OPT_SIM:
        b->sim = 1;
        return cb_sim_requested() ? 0 : cb_sim_check(err);
    }
    return 1;
}

/* --against-plugin: the paired protocol of ab, with this commit's build
 * (--plugin) as HEAD and the good one as BASE, both loaded now so that a
 * bad file is refused before anything is measured. */
static int parse_paired(struct bisect *b, int argc, struct cb_sb *err)
{
    if (!b->against_plugin || b->against || b->nplugins != 1 || b->sim || optind < argc) {
        cb_sb_setf(err, "bisect-check --against-plugin GOOD.so takes this commit's build as "
                 "one --plugin HEAD.so, and neither --against nor --sim (-p, -V, -s and -m belong "
                 "to it); see 'cyclebudget bisect-check --help'");
        return -EINVAL;
    }
    b->ab.o.quiet = 1;
    b->ab.o.alpha = b->c.o.alpha;
    b->ab.o.threshold = b->c.o.threshold;
    if (b->rounds_arg &&
        cb_parse_int(b->rounds_arg, 2, 1000, "--rounds", &b->ab.o.rounds, err) < 0)
        return -EINVAL;
    b->ab.o.max_seconds = BISECT_PAIRED_SECONDS;
    if (b->max_time_arg &&
        cb_parse_seconds(b->max_time_arg, "--max-time", &b->ab.o.max_seconds, err) < 0)
        return -EINVAL;
    if (cb_ab_load(&b->ab, b->against_plugin, b->plugin_args[0], err) < 0 ||
        cb_ab_plan_select(&b->ab, &b->sel, err) < 0) {
        cb_ab_free(&b->ab); /* a refused plan may hold its case table */
        return -EINVAL;
    }
    return 0;
}

/* --against BASE and the options, nothing else (cb_cmd's parse step). */
static const struct cb_option bisect_options[] = {
    CB_OPT_STR(0, "against", struct bisect, against, "BASE",
               "the known-good side: a run id, 'latest', a tag, a commit, or a comma list"),
    CB_OPT_GROUP(cmp_common_options, struct bisect, c),
    CB_OPT_INT(0, "reps", struct bisect, h.reps, "N", 1, 1000000, "exactly N samples per case (default: adaptive)"),
    CB_OPT_CALL(OPT_MAX_TIME, "max-time", "SEC",
                "time cap per case when adaptive (default 0.25); with --against-plugin, the "
                "measuring time undecided cases get more rounds within (default "
                CB_OPT_NUM(BISECT_PAIRED_SECONDS) ")"),
    CB_OPT_CALL(OPT_ROUNDS, "rounds", "N",
                "measure each case in N rounds with an idle pause between (as 'run --rounds'; "
                "default 1); with --against-plugin, ab's rounds (default "
                CB_OPT_NUM(CB_AB_DEFAULT_ROUNDS) ")"),
    CB_OPT_CALL(OPT_RERUN_TIME, "rerun-time", "SEC",
                "with --against: measure the undecided cases again, round by round, until each "
                "is decided or SEC seconds are spent (default " CB_OPT_NUM(BISECT_RERUN_SECONDS)
                "; 0: judge the one run)"),
    CB_OPT_CALL(OPT_COLD_BYTES, "cold-bytes", "SIZE", "cold-mode working set"),
    CB_OPT_CALL(OPT_SIM, "sim", NULL,
                "count under callgrind, as 'run --sim' (BASE's runs must be --sim runs too); "
                "the verdict is then exact (see compare)"),
    CB_OPT_STR(0, "sim-caches", struct bisect, sim_caches, "SPEC",
               "with --sim, the simulated caches (as 'run --sim-caches')"),
    CB_OPT_CALL(OPT_PLUGIN, "plugin", "PATH",
                "load a variant plugin first, as 'run --plugin' (its cases in BASE are "
                "measured with this build of it; repeatable); with --against-plugin, this "
                "commit's build, once"),
    CB_OPT_STR(0, "against-plugin", struct bisect, against_plugin, "GOOD.so",
               "instead of --against: time this commit's build of the plugin (--plugin) "
               "against GOOD.so, a build of the good commit made once before the bisection, "
               "paired in one process as 'cyclebudget ab' does"),
    CB_OPT_GROUP_NOTE(cb_select_options, struct bisect, sel,
                      "with --against-plugin only; default: the families and variants the "
                      "plugin adds, each family's sizes, warm,cold"),
    CB_OPT_BOOL('q', "quiet", struct bisect, quiet, "no table, only the verdict line"),
    CB_OPT_END,
};

static int bisect_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct bisect *b = ctx;
    static const struct cb_cmd_parser parser = {
        .cmd = "bisect-check",
        .synopsis =
            "usage: cyclebudget bisect-check --against BASE [options]\n"
            "       cyclebudget bisect-check --plugin HEAD.so --against-plugin GOOD.so [options]\n"
            "  measures this binary's cases that BASE has (stored as a new run tagged 'bisect')\n"
            "  and compares BASE with them, for 'git bisect run'; or times this commit's build\n"
            "  of a plugin against a good build made once before the bisection, paired in one\n"
            "  process as 'cyclebudget ab' does (whose run goes where ab's does, without --db:\n"
            "  $CB_DB, else $XDG_DATA_HOME/cyclebudget/cyclebudget.db, out of the measured tree)\n",
        .options = bisect_options,
        .footer = "exit status: 0 good, 1 bad (regressed against BASE), 125 cannot tell (skip),\n"
                  "128 error (aborts git bisect run, which would read 1..127 as bad)\n",
        .option = bisect_opt,
    };
    memset(b, 0, sizeof *b);
    b->argc = argc;
    b->argv = argv;
    cmp_common_defaults(&b->c, argc, argv);
    cb_sb_init(&b->dbpath);
    b->c.db = NULL;
    b->c.o.nofloor_within = 1;   /* one run a commit, no floor: the within-run test, as before */
    cb_harness_defaults(&b->h);
    cb_ab_defaults(&b->ab.o);
    b->rerun_s = BISECT_RERUN_SECONDS;
    int rc = cb_getopt(argc, argv, &parser, b, err);
    /* --against reads BASE's runs where run stored them; the paired
     * protocol keeps its own runs out of the tree being bisected. */
    if (!b->c.db)
        b->c.db = b->against_plugin ? cb_paired_db(&b->dbpath) : cb_default_db();
    if (rc != 0)
        return rc;
    if (b->against_plugin || b->sel.probes || b->sel.variants || b->sel.sizes ||
        b->sel.modes)
        return parse_paired(b, argc, err);
    if (b->rounds_arg &&
        cb_parse_int(b->rounds_arg, 1, CB_MAX_ROUNDS, "--rounds", &b->h.rounds, err) < 0)
        return -EINVAL;
    if (b->max_time_arg &&
        cb_parse_seconds(b->max_time_arg, "--max-time", &b->h.case_seconds, err) < 0)
        return -EINVAL;
    for (int i = 0; i < b->nplugins; i++)
        if (cb_plugin_load(b->plugin_args[i], &b->plugins[i], err) < 0)
            return -EINVAL;
    if (!b->against || optind < argc) {
        cb_sb_setf(err, "bisect-check needs --against BASE and nothing else; see 'cyclebudget bisect-check --help'");
        return -EINVAL;
    }
    if (b->sim_caches && !b->sim) {
        cb_sb_setf(err, "--sim-caches sets the simulated caches of --sim: give --sim too");
        return -EINVAL;
    }
    struct cb_cache_model m;
    if (b->sim && !cb_sim_requested() && cb_sim_model(b->sim_caches, &m, err) < 0)
        return -EINVAL;
    return 0;
}

/* BASE's side with its cases, and the CPU its first run was pinned to:
 * that is where this tree must be measured.  0, or -EINVAL with the
 * message in err. */
static int load_base(const struct bisect *b, struct cb_side *A, int *cpu, struct cb_sb *err)
{
    struct cb_store *st;
    if (cb_store_open(b->c.db, CB_STORE_READ, 0, &st, err) < 0)
        return -EINVAL;
    int rc;
    if ((rc = cb_side_resolve(st, b->against, b->c.include_aborted, b->c.repo, A, err)) < 0 ||
        (rc = cmp_select_host(st, A, b->c.host, err)) < 0 ||
        (rc = cb_side_load(st, A, cb_sides_metric(st, A, NULL))) < 0) {
        if (rc != -ENOENT && rc != -EINVAL && rc != -EXDEV && rc != -ETIMEDOUT && rc != -EINTR)
            cb_sb_setf(err, "cannot read %s: %s", b->c.db, strerror(-rc));
        cb_store_close(st);
        cb_side_free(A);
        return -EINVAL;
    }
    *cpu = cb_store_run_cpu(st, A->runs[0]);
    cb_store_close(st);
    return 0;
}

/* Measure every case BASE has (that this binary knows) into a new run
 * tagged 'bisect'.  Returns 0 with the run and how many cases it measured,
 * or the exit status to end with. */
static int measure_tree(const struct bisect *b, int64_t *run_id, size_t *measured)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_side A, keys;
    memset(&keys, 0, sizeof keys);
    int cpu;
    if (load_base(b, &A, &cpu, &err) < 0)
        goto usage_err;
    struct cb_collect_opts co = {
        .db = b->c.db, .tag = "bisect", .repo = b->c.repo, .cmdline = b->c.cmdline.buf, .cpu = cpu,
        .quiet = 1, .harness = b->h,
    };
    struct cb_collector col;
    int usage = 0, rc;
    if ((rc = cb_collector_open(&col, &co, &err, &usage)) < 0) {
        cb_side_free(&A);
        goto usage_err;
    }
    for (int i = 0; i < b->nplugins && rc >= 0; i++)
        rc = cb_store_run_plugin_add(col.st, col.run_id, b->plugins[i].path, b->plugins[i].sha256,
                                     b->plugins[i].name, b->plugins[i].variants, NULL);
    cb_catch_stop_signals(0);
    *measured = 0;
    for (size_t i = 0; i < A.ncases && rc >= 0; i++) {
        if (b->c.o.glob && fnmatch(b->c.o.glob, A.cases[i].key, 0) != 0)
            continue;
        rc = cmp_measure_into(&col, &A.cases[i], col.sim ? CB_SIDES_SIM_METRIC : "tsc", &keys);
        if (rc == 0)
            (*measured)++;
    }
    *run_id = col.run_id;
    cb_collector_finish(&col, rc < 0 ? "aborted" : "complete");
    cb_side_free(&A);
    cb_side_free(&keys);
    if (rc < 0) {
        cb_error("measuring failed (%s): run %lld marked aborted", strerror(-rc), (long long)*run_id);
        cb_sb_release(&err);
        return rc == -EINTR ? 130 : BISECT_ERROR;
    }
    cb_sb_release(&err);
    return 0;
usage_err:
    cb_error("%s", err.buf);
    cb_sb_release(&err);
    return BISECT_ERROR;
}

/* The outcome in git bisect run's language: 1 bad, 125 cannot tell
 * (unsure, or nothing compared), 0 good. */
static int bisect_exit(enum cb_verdict_outcome out)
{
    return out == CB_VERDICT_FAIL ? 1 : out == CB_VERDICT_PASS ? 0 : 125;
}

static void print_verdict(const struct bisect *b, const struct cmp_verdict *v, int status,
                          int64_t run_id)
{
    if (!b->quiet)
        cmp_print_result(&v->x, &b->c.o, b->c.fmt, &v->res, status, stdout);
    printf("bisect-check: %s (run %lld against %s)\n",
           status == 0 ? "good" : status == 1 ? "bad: regressed" : "cannot tell (skip)",
           (long long)run_id, b->against);
}

/* Compare from the store, exactly as 'compare BASE RUN' would: the one
 * pipeline (analysis/verdict.h). */
static int judge(struct bisect *b, int64_t run_id, size_t measured)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    if (cb_store_open(b->c.db, CB_STORE_READ, 0, &st, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return BISECT_ERROR;
    }
    struct cb_side A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    struct cmp_verdict v;
    cb_verdict_init(&v);
    char runspec[32];
    snprintf(runspec, sizeof runspec, "%lld", (long long)run_id);
    int status = BISECT_ERROR, rc;
    if (measured == 0) {
        cb_error("none of the cases of '%s' can be measured by this binary: cannot tell", b->against);
        status = 125;
        goto out;
    }
    if ((rc = cb_side_resolve(st, b->against, b->c.include_aborted, b->c.repo, &A, &err)) < 0 ||
        (rc = cmp_select_host(st, &A, b->c.host, &err)) < 0 ||
        (rc = cb_side_resolve(st, runspec, 1, b->c.repo, &B, &err)) < 0 ||
        (rc = cb_verdict_judge(st, &A, &B, &b->c.o, b->c.force, &v, &err)) < 0) {
        cb_error("%s", err.buf);
        /* A different environment (governor, SMT, microcode, pinned CPU...)
         * changes timings by itself: this commit cannot be judged, but the
         * bisection can go on with the next one. */
        if (rc == -EXDEV) {
            printf("bisect-check: cannot tell (skip): this run's environment differs from %s's "
                   "(%s)\n", b->against, v.crosses.buf);
            status = 125;
        }
        goto out;
    }
    if (v.outcome == CB_VERDICT_UNSURE && b->rerun_s > 0 && !b->sim) {
        const struct cmp_rerun_plan plan = {{NULL, "bisect"}, 2, b->c.cmdline.buf, &b->h};
        if ((rc = cmp_rerun_sides(st, &A, &B, &b->c, b->rerun_s, &plan, &v, &err)) < 0) {
            cb_error("%s", err.buf);
            status = rc == -EINTR ? 130 : BISECT_ERROR;
            goto out;
        }
    }
    snprintf(v.x.head_desc, sizeof v.x.head_desc, "this tree = run%s ", B.nruns > 1 ? "s" : "");
    for (size_t i = 0; i < B.nruns; i++)
        snprintf(v.x.head_desc + strlen(v.x.head_desc), sizeof v.x.head_desc - strlen(v.x.head_desc),
                 "%s%lld", i ? "," : "", (long long)B.runs[i]);
    if (v.outcome == CB_VERDICT_EMULATED) {
        printf("bisect-check: cannot tell (skip): no verdict: run %lld is emulated (%s)\n",
               (long long)v.emulated_run, v.why.buf);
        status = 125;
    } else if (v.outcome == CB_VERDICT_NOTHING) {
        printf("bisect-check: cannot tell (skip): no case could be compared with %s: %s\n", b->against,
               v.why.len ? v.why.buf : "neither side has a case that passed verification");
        status = 125;
    } else {
        status = bisect_exit(v.outcome);
        print_verdict(b, &v, status, run_id);
    }
out:
    cb_verdict_release(&v);
    cb_side_free(&A);
    cb_side_free(&B);
    cb_store_close(st);
    cb_sb_release(&err);
    return status;
}

/* The first case BAD on a side, said: 125, a commit that breaks (or
 * fixes) a variant cannot be timed against one that does not. */
static int paired_bad(const struct cb_ab *ab, int64_t run)
{
    for (size_t i = 0; i < ab->n; i++) {
        const struct cb_ab_case *c = &ab->cases[i];
        if (c->bad[0] || c->bad[1]) {
            printf("bisect-check: cannot tell (skip): %s is %s (%s), so it cannot be timed "
                   "against the other build (run %lld)\n", c->key,
                   c->bad[0] && c->bad[1] ? "BAD in both builds" : c->bad[1] ? "BAD in this build"
                                                                        : "BAD in GOOD.so",
                   c->why, (long long)run);
            return 1;
        }
    }
    return 0;
}

/* --against-plugin: good (0) at once when this build's code is GOOD.so's
 * in every case (codehash.h: wherever it sits); else timed as ab does,
 * undecided cases getting rounds until --max-time is spent.  Bad (1) when
 * a case regressed beyond noise; cannot tell (125) when a variant is BAD
 * on a side, or a case is still undecided; good otherwise (an improvement
 * is not a regression). */
static int bisect_paired(struct bisect *b)
{
    struct cb_collect_opts co = {
        .db = b->c.db, .tag = "bisect", .repo = b->c.repo, .cmdline = b->c.cmdline.buf, .cpu = -1,
        .quiet = 1, .harness = b->h,
    };
    char where[1200];
    struct cb_sb err = CB_SB_INIT;
    int64_t run = 0;
    int cpu = -1, changed, regressed, unsure, bad;
    if (cb_ab_same_code(&b->ab)) {
        /* The same code is BAD or good on both sides alike: a BAD one is
         * still no verdict ("BAD on both sides" answered 0). */
        for (size_t i = 0; i < b->ab.n; i++) {
            struct cb_verdict vd;
            const struct cb_ab_case *c = &b->ab.cases[i];
            if (i && c->v[1] == b->ab.cases[i - 1].v[1])
                continue;   /* one verdict per variant: its cases are planned together */
            if (c->p[1]->verify(c->v[1], &vd) == 0 && !vd.ok) {
                printf("bisect-check: cannot tell (skip): %s is BAD in both builds (the same code): "
                       "%s\n", c->key, vd.detail);
                cb_ab_free(&b->ab);
                return 125;
            }
        }
        printf("bisect-check: good: the same code as %s in all %zu case%s (code hash %s), "
               "wherever it sits: nothing to time\n", b->against_plugin, b->ab.n,
               b->ab.n > 1 ? "s" : "", b->ab.cases[0].code[0]);
        cb_ab_free(&b->ab);
        return 0;
    }
    cb_catch_stop_signals(0);
    int rc = cb_ab_run(&b->ab, &co, cb_stop_flag(), &run, &cpu, &err);
    if (rc < 0) {
        cb_error("%s", err.buf);
        cb_ab_free(&b->ab);
        cb_sb_release(&err);
        return rc == -EINTR ? 130 : BISECT_ERROR;
    }
    snprintf(where, sizeof where, "pinned to CPU %d; run %lld in %s", cpu, (long long)run, b->c.db);
    b->ab.o.quiet = b->quiet;   /* the table, unless -q */
    if (!b->quiet)
        cb_ab_print(&b->ab, CB_FMT_TEXT, where, stdout);
    cb_ab_counts(&b->ab, &changed, &regressed, &unsure, &bad);
    if (paired_bad(&b->ab, run)) {
        cb_ab_free(&b->ab);
        cb_sb_release(&err);
        return 125;
    }
    struct cb_sb ew = CB_SB_INIT;
    int status = regressed ? 1 : unsure ? 125 : 0;
    if (cb_emulation_live(&ew) == 1) {
        status = 125;
        printf("bisect-check: no verdict: run %lld is emulated (%s)\n", (long long)run, ew.buf);
    }
    cb_sb_release(&ew);
    printf("bisect-check: %s (run %lld, paired against %s)\n",
           status == 0 ? "good" : status == 1 ? "bad: regressed" : "cannot tell (skip)",
           (long long)run, b->against_plugin);
    if (status == 125 && unsure)
        printf("bisect-check: %d case%s still unsure after %d rounds in %.0f s (--max-time %g)\n",
               unsure, unsure > 1 ? "s" : "", b->ab.rounds_done, b->ab.seconds, b->ab.o.max_seconds);
    cb_ab_free(&b->ab);
    cb_sb_release(&err);
    return status;
}

/* Measure this tree, then judge it against BASE as compare would. */
static int bisect_body(void *ctx, struct cb_store *st)
{
    struct bisect *b = ctx;
    int64_t run_id;
    size_t measured;
    (void)st;
    /* --sim: this same check again under callgrind, where the collector
     * counts; its exit status is git bisect run's answer. */
    if (b->sim && !cb_sim_requested()) {
        int rc = cb_sim_exec(b->argc, b->argv, 1, b->sim_caches);
        return rc == CB_EXIT_USAGE ? BISECT_ERROR : rc;
    }
    if (b->against_plugin)
        return bisect_paired(b);
    int rc = measure_tree(b, &run_id, &measured);
    return rc != 0 ? rc : judge(b, run_id, measured);
}

int cmd_bisect_check(int argc, char **argv)
{
    static const struct cb_cmd cmd = {bisect_parse, BISECT_ERROR, NULL, 0, bisect_body};
    struct bisect b = {0};
    int rc = cb_cmd_main(&cmd, argc, argv, &b);
    cmp_common_release(&b.c);
    cb_sb_release(&b.dbpath);
    return rc;
}
