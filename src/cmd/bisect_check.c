/* bisect_check.c — `bisect-check`: compare in git bisect run's language.
 * 0 good, 1 bad, 125 cannot tell, and 128 (abort the bisection) for
 * errors, because git would read exit 2 as "bad". */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "meter.h"
#include "parse.h"
#include "rerun.h"

#define BISECT_ERROR 128

static void bisect_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget bisect-check --against BASE [options]\n"
            "  measures this binary's cases that BASE has (stored as a new run tagged 'bisect')\n"
            "  and compares BASE with them, for 'git bisect run'\n"
            CMP_COMMON_HELP
            "      --reps N           exactly N samples per case (default: adaptive)\n"
            "      --max-time SEC     time cap per case when adaptive (default 0.25)\n"
            "      --rounds N         measure each case in N rounds with an idle pause between\n"
            "                         (as 'run --rounds'; default 1)\n"
            "      --cold-bytes SIZE  cold-mode working set\n"
            "  -q, --quiet            no table, only the verdict line\n"
            "exit status: 0 good, 1 bad (regressed against BASE), 125 cannot tell (skip),\n"
            "128 error (aborts git bisect run, which would read 1..127 as bad)\n");
}

int cmd_bisect_check(int argc, char **argv)
{
    static const struct option opts[] = {
        CMP_COMMON_LONGOPTS,
        {"against", required_argument, 0, 'A'}, {"reps", required_argument, 0, 'n'},
        {"max-time", required_argument, 0, 'm'}, {"cold-bytes", required_argument, 0, 'C'},
        {"rounds", required_argument, 0, 'N'},  {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct cmp_common c;
    cmp_common_defaults(&c);
    const char *against = NULL;
    int quiet = 0;
    struct cb_harness_opts h;
    cb_harness_defaults(&h);
    char err[1536];
    long lv;
    uint64_t u64;
    char cmdline[2048];
    cmp_cmdline("bisect-check", argc, argv, cmdline, sizeof cmdline);
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        int r = cmp_common_opt(ch, &c, err, sizeof err);
        if (r < 0)
            goto usage_err;
        if (r == 0)
            continue;
        switch (ch) {
        case 'A': against = optarg; break;
        case 'n':
            if (cb_parse_long(optarg, 1, 1000000, "--reps", &lv, err, sizeof err) < 0)
                goto usage_err;
            h.reps = (int)lv;
            break;
        case 'm':
            if (cb_parse_seconds(optarg, "--max-time", &h.case_seconds, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'C':
            if (cb_parse_size(optarg, &u64, err, sizeof err) < 0)
                goto usage_err;
            h.cold_bytes = u64;
            break;
        case 'N':
            if (cb_parse_long(optarg, 1, CB_MAX_ROUNDS, "--rounds", &lv, err, sizeof err) < 0)
                goto usage_err;
            h.rounds = (int)lv;
            break;
        case 'q': quiet = 1; break;
        case 'h': bisect_usage(stdout); return 0;
        default: cb_option_error("bisect-check", argv); return BISECT_ERROR;
        }
    }
    if (!against || optind < argc) {
        snprintf(err, sizeof err, "bisect-check needs --against BASE and nothing else; see 'cyclebudget bisect-check --help'");
        goto usage_err;
    }
    struct cb_store *st;
    if (cb_store_open(c.db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    struct cb_side A, B, keys;
    memset(&B, 0, sizeof B);
    memset(&keys, 0, sizeof keys);
    int status = BISECT_ERROR, rc;
    if ((rc = cb_side_resolve(st, against, c.include_aborted, c.repo, &A, err, sizeof err)) < 0 ||
        (rc = cb_side_load(st, &A, "tsc")) < 0) {
        if (rc != -ENOENT && rc != -EINVAL)
            snprintf(err, sizeof err, "cannot read %s: %s", c.db, strerror(-rc));
        cb_store_close(st);
        cb_side_free(&A);
        goto usage_err;
    }
    int cpu = cmp_run_cpu(st, A.runs[0]);
    cb_store_close(st);
    /* Measure every case the base has (that this binary knows). */
    struct cb_collect_opts co = {
        .db = c.db, .tag = "bisect", .repo = c.repo, .cmdline = cmdline, .cpu = cpu, .quiet = 1,
        .harness = h,
    };
    struct cb_collector col;
    int usage = 0;
    if ((rc = cb_collector_open(&col, &co, err, sizeof err, &usage)) < 0) {
        cb_side_free(&A);
        goto usage_err;
    }
    cmp_catch_stop_signals();
    size_t measured = 0;
    for (size_t i = 0; i < A.ncases && rc >= 0; i++) {
        if (c.o.glob && fnmatch(c.o.glob, A.cases[i].key, 0) != 0)
            continue;
        rc = cmp_measure_into(&col, &A.cases[i], "tsc", &keys);
        if (rc == 0)
            measured++;
    }
    int64_t run_id = col.run_id;
    cb_collector_finish(&col, rc < 0 ? "aborted" : "complete");
    if (rc < 0) {
        cb_die_msg("measuring failed (%s): run %lld marked aborted", strerror(-rc), (long long)run_id);
        cb_side_free(&A);
        cb_side_free(&keys);
        return rc == -EINTR ? 130 : BISECT_ERROR;
    }
    cb_side_free(&keys);
    cb_side_free(&A);
    /* Compare from the store, exactly as 'compare BASE RUN' would. */
    if (cb_store_open(c.db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    struct cmp_result res = {0};
    char crosses[1024];
    char runspec[32];
    snprintf(runspec, sizeof runspec, "%lld", (long long)run_id);
    struct cmp_ctx x = {0};
    if (measured == 0) {
        cb_die_msg("none of the cases of '%s' can be measured by this binary: cannot tell", against);
        status = 125;
        goto out;
    }
    if ((rc = cb_side_resolve(st, against, c.include_aborted, c.repo, &A, err, sizeof err)) < 0 ||
        (rc = cb_side_resolve(st, runspec, 1, c.repo, &B, err, sizeof err)) < 0 ||
        (rc = cmp_check_env(st, &A, &B, c.force, crosses, sizeof crosses, err, sizeof err)) < 0) {
        cb_die_msg("%s", err);
        /* A different environment (governor, SMT, microcode, pinned CPU...)
         * changes timings by itself: this commit cannot be judged, but the
         * bisection can go on with the next one. */
        if (rc == -EXDEV) {
            printf("bisect-check: cannot tell (skip): this run's environment differs from %s's "
                   "(%s)\n", against, crosses);
            status = 125;
        }
        goto out;
    }
    x.crosses = crosses[0] ? crosses : NULL;
    x.metric = cb_sides_metric(st, &A, &B);
    cmp_describe_side(st, &A, x.base_desc, sizeof x.base_desc);
    snprintf(x.head_desc, sizeof x.head_desc, "this tree = run %lld", (long long)run_id);
    if ((rc = cb_side_load(st, &A, x.metric)) < 0 || (rc = cb_side_load(st, &B, x.metric)) < 0 ||
        (rc = cmp_evaluate(st, &A, &B, &c.o, &res)) < 0) {
        cb_die_msg("cannot read the samples from %s: %s", c.db, strerror(-rc));
        goto out;
    }
    struct cb_bisect_row *br = calloc(res.n ? res.n : 1, sizeof *br);
    if (!br) {
        cb_die_msg("out of memory");
        goto out;
    }
    size_t shared_bad = 0;
    for (size_t i = 0; i < res.n; i++) {
        br[i] = (struct cb_bisect_row){res.rows[i].v, res.rows[i].acked, res.rows[i].all_contended};
        shared_bad += br[i].v == CB_CMP_REGRESSED && !br[i].acked && br[i].shared;
    }
    status = cb_bisect_exit(br, res.n);
    free(br);
    if (!quiet)
        cmp_print_result(&x, &c.o, &res, status, stdout);
    printf("bisect-check: %s (run %lld against %s)\n",
           status == 0 ? "good" : status == 1 ? "bad: regressed" : "cannot tell (skip)",
           (long long)run_id, against);
    if (status == 125 && shared_bad)
        printf("bisect-check: %zu regressed case%s measured with the core busy (an SMT sibling or "
               "the host: the contention meter over %.2fx its run's baseline) the whole "
               "time: not trusted; run again, or pin BASE and this check to a quiet CPU "
               "(cyclebudget calibrate --smt)\n", shared_bad, shared_bad > 1 ? "s were" : " was",
               CB_METER_SHIFT);
out:
    free(res.rows);
    cb_side_free(&A);
    cb_side_free(&B);
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return BISECT_ERROR;
}

