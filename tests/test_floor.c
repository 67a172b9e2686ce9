/* test_floor.c — the between-run noise floor (src/analysis/floor.h).
 *
 * Each figure here was worked independently: the t quantiles and the power
 * search in Python with mpmath (the t CDF from the regularized incomplete
 * beta function, its quantiles by root finding), the robust spread by hand
 * from its definition.  The store part writes runs of known figures into a
 * fresh SQLite store and learns their floor, as compare does.
 *
 * The floor before issue 40 fails these: it pooled squared deviations (one
 * run 2.4x slow made a 2% floor 31%), grouped runs by build and commit (a
 * slowed run of the same build joined the floor it was judged by), and
 * sized "N more runs" with normal quantiles at 50% power (3 runs where 5 are
 * needed). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/floor.h"
#include "store/store.h"
#include "tap.h"

/* One group of eight runs, one of them +140% (a busy host): the other
 * seven spread by 2%. */
static void test_wild_run(void)
{
    const double x[8] = {0, 0.02, -0.02, 0.01, -0.01, 0.03, -0.03, 0.875};
    struct cb_floor f = {0};
    is_int(cb_floor_add(&f, "k", x, 8), 0, "a group of 8 runs is added");
    cb_floor_finish(&f);
    const struct cb_floor_case *c = cb_floor_find(&f, "k");
    ok(c != NULL, "its case is found");
    if (!c)
        return;
    /* median 0.005; deviations times sqrt(8/7); MAD 0.031699, so 4 MADs is
     * 0.1268: the +0.875 run is left out, and the spread is the root mean
     * square of the other seven deviations. */
    is_near(cb_floor_sd(c), 0.0220389266, 1e-9, "one wild run in 8: the floor is the other seven's 2.2%%");
    is_uint(c->rejected, 1, "and that run is counted as left out");
    is_uint(c->df, 6, "with 7 - 1 = 6 degrees of freedom");
    ok(cb_floor_sd(c) < 0.31 / 10, "a pooled standard deviation would be 31%%: this is a tenth of it");
    is_near(f.s0, 0.0220389266, 1e-9, "the host's typical spread is the one case's");
    cb_floor_free(&f);

    /* Two runs: nothing to reject; their deviation is the spread. */
    const double two[2] = {0.0, 0.04};
    is_int(cb_floor_add(&f, "two", two, 2), 0, "a group of 2");
    cb_floor_finish(&f);
    is_near(cb_floor_sd(cb_floor_find(&f, "two")), 0.04 / sqrt(2.0), 1e-12,
            "two runs 4%% apart: a spread of 4%%/sqrt 2, their standard deviation");
    cb_floor_free(&f);

    /* Three runs, one 8% faster and one 0.2% slower than the middle: the
     * median |deviation| is 0 (the middle run's), so 4 robust sds is
     * nothing, but a fast run is never the host's: kept, the spread is
     * their standard deviation about the median, with 2 df. */
    const double three[3] = {0.0, 0.002, -0.08};
    is_int(cb_floor_add(&f, "three", three, 3), 0, "a group of 3");
    cb_floor_finish(&f);
    const struct cb_floor_case *c3 = cb_floor_find(&f, "three");
    is_uint(c3 ? c3->rejected : 99, 0, "three runs, one 8%% faster: it is kept, not wild");
    is_near(cb_floor_sd(c3), sqrt((0.002 * 0.002 + 0.08 * 0.08) / 2), 1e-12,
            "the spread is their standard deviation about the median, with 2 df");
    is_uint(c3 ? c3->df : 0, 2, "2 degrees of freedom");
    cb_floor_free(&f);
    /* The same run 8% slower: the host's, left out. */
    const double slow[3] = {0.0, 0.002, 0.08};
    is_int(cb_floor_add(&f, "slow", slow, 3), 0, "a group of 3, one run 8%% slower");
    cb_floor_finish(&f);
    const struct cb_floor_case *cs = cb_floor_find(&f, "slow");
    is_uint(cs ? cs->rejected : 0, 1, "the slow run is left out as wild");
    is_near(cb_floor_sd(cs), 0.002 * sqrt(1.5 / 2), 1e-12,
            "the spread is the other two's: 0.2%% times sqrt(3/2), over 2");
    cb_floor_free(&f);

    const double one[1] = {0.1};
    is_int(cb_floor_add(&f, "one", one, 1), 0, "a run alone is no group");
    cb_floor_finish(&f);
    ok(cb_floor_find(&f, "one") == NULL && isnan(f.s0), "and teaches nothing");
    cb_floor_free(&f);
}

static void test_stats(void)
{
    struct cb_cmp_stats s;
    double la = log(1000), lb = log(1300);
    is_int(cb_floor_stats(&la, 1, &lb, 1, 0.03, 10, &s), 0, "one run a side against a 3%% floor");
    is_near(s.change, 0.3, 1e-12, "the change is +30%%");
    /* Student's t with CB_FLOOR_TAIL_DF = 5, not the floor's 10. */
    is_near(s.lo, 0.165678957754, 1e-9, "interval, low end (t with 5 df)");
    is_near(s.hi, 0.449798839345, 1e-9, "interval, high end");
    is_near(s.p, 0.00161206320458, 1e-9, "two-sided p");

    double a2[2] = {log(1000), log(1010)}, b2[2] = {log(1200), log(1190)};
    is_int(cb_floor_stats(a2, 2, b2, 2, 0.02, 3, &s), 0, "two runs a side against a 2%% floor, 3 df");
    is_near(s.change, 0.189059033917, 1e-9, "the ratio of the geometric means");
    is_near(s.lo, 0.115734955216, 1e-9, "interval, low end (se = sd, 3 df)");
    is_near(s.hi, 0.267201838151, 1e-9, "interval, high end");
    is_near(s.p, 0.00324136606515, 1e-9, "two-sided p");
    ok(cb_floor_stats(a2, 0, b2, 2, 0.02, 3, &s) == -EINVAL, "an empty side is refused");
}

static void test_runs_needed(void)
{
    /* Welch's t on n runs a side (2n - 2 df), 80% power. */
    is_uint(cb_floor_runs_needed(0.10, 0.03, 0.01, 1, 0.02), 5,
            "+10%% on a 3%% floor, one case: 5 runs a side (normal quantiles at 50%% power said 3)");
    is_uint(cb_floor_runs_needed(0.10, 0.03, 0.01, 20, 0.02), 7, "the same among 20 cases (Holm): 7");
    is_uint(cb_floor_runs_needed(0.0, 0.01, 0.01, 20, 0.02), 6, "unchanged on a 1%% floor: 6 runs a side");
    is_uint(cb_floor_runs_needed(0.30, 0.05, 0.01, 6, 0.02), 4, "+30%% on a 5%% floor, 6 cases: 4");
    is_uint(cb_floor_runs_needed(0.02, 0.01, 0.01, 1, 0.02), CB_FLOOR_RUNS_CAP,
            "a change at the threshold itself is never decided");
    is_uint(cb_floor_runs_needed(NAN, 0.01, 0.01, 1, 0.02), CB_FLOOR_RUNS_CAP, "no change known: the cap");
}

static void test_moderate(void)
{
    struct cb_floor f = {0};
    const double quiet[3] = {0, 0.001, -0.001}, loud[3] = {0, 0.05, -0.05}, mid[3] = {0, 0.02, -0.02};
    cb_floor_add(&f, "quiet", quiet, 3);
    cb_floor_add(&f, "loud", loud, 3);
    cb_floor_add(&f, "mid", mid, 3);
    cb_floor_finish(&f);
    double sd, df;
    /* mid: deviations 0, +-0.02 times sqrt(3/2): the rms is 0.02. */
    is_near(f.s0, 0.02, 1e-12, "s0 is the median of the cases' spreads (0.1%%, 2%%, 5%%)");
    cb_floor_moderate(&f, cb_floor_find(&f, "quiet"), &sd, &df);
    is_near(sd, 0.02, 1e-12, "a case quieter than the host's typical one is taken at s0");
    is_near(df, 2 + CB_FLOOR_PRIOR_DF, 1e-12, "with its own df and the prior's");
    cb_floor_moderate(&f, cb_floor_find(&f, "loud"), &sd, &df);
    is_near(sd, sqrt((2 * 0.05 * 0.05 + 4 * 0.02 * 0.02) / 6), 1e-12, "a loud one moves toward s0");
    cb_floor_free(&f);
}

/* ---- learned from a store ------------------------------------------------ */

static struct cb_host host(void)
{
    struct cb_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.vendor, sizeof h.vendor, "GenuineIntel");
    snprintf(h.model_name, sizeof h.model_name, "test CPU");
    snprintf(h.kernel, sizeof h.kernel, "6.1.0");
    snprintf(h.hostname, sizeof h.hostname, "floorhost");
    h.ncpus = 2;
    return h;
}

/* One complete run of bytes `code` (64 hex digits from one repeated
 * character), build and commit the same for all: one case whose every
 * sample is `figure` ticks per op.  Its id, or -1. */
static int64_t add_run(struct cb_store *st, const struct cb_host *h, char code, double figure)
{
    char id[65];
    memset(id, code, 64);
    id[64] = '\0';
    struct cb_run_meta m = {
        .host = h, .tsc_ghz = 2.0, .tsc_source = "calibrated", .core_ghz_source = "", .pmu = "perf",
        .version = "0.1.0", .compiler = "gcc 12", .cflags = "-O2", .commit = "", .subject = "",
        .commit_date = "", .dirty = -1, .cmdline = "cyclebudget run", .cpu = 0,
        .clock_backend = "perf_event", .fingerprint = "governor=performance;", .code_id = id,
        .code_what = "test",
    };
    int64_t run, ev, cid;
    struct cb_event_row e = {"tsc", "tsc", "", "", "tsc", "rdtsc", 1, ""};
    struct cb_case_row c = {"synthetic", "chain", 1000, "add", "call", "warm", 0, "ok", "", 0, 0, 0,
                            NULL, NULL, 0, 0, NULL, 0, NULL, -1};
    struct cb_sample_row s[10];
    if (cb_store_run_begin(st, &m, &run) < 0 || cb_store_event_add(st, run, &e, &ev) < 0)
        return -1;
    for (int i = 0; i < 10; i++)
        s[i] = (struct cb_sample_row){i, 100, ev, 100 * figure, 0, 0, 0, 0, NAN, 0, NAN, NULL};
    if (cb_store_case_add(st, run, &c, s, 10, &cid) < 0 || cb_store_run_finish(st, run, "complete") < 0)
        return -1;
    return run;
}

static void test_learn(void)
{
    char dir[] = "/tmp/test_floor.XXXXXX", path[64];
    struct cb_sb err = CB_SB_INIT;
    if (!mkdtemp(dir)) {
        ok(0, "a temporary directory");
        return;
    }
    snprintf(path, sizeof path, "%s/f.db", dir);
    struct cb_store *st;
    int r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    is_int(r, 0, "a new store (%s)", err.buf);
    if (r) {
        cb_sb_release(&err);
        return;
    }
    struct cb_host h = host();
    /* Bytes A three times at 1000, 1010 and 990 ticks; then a slowed build
     * of the same version and commit (bytes B, +30%), as an LD_PRELOAD'd
     * wrapper or CB_SYNTH_SLOWDOWN leaves them; then A and B compared. */
    int64_t a1 = add_run(st, &h, 'a', 1000), a2 = add_run(st, &h, 'a', 1010);
    int64_t a3 = add_run(st, &h, 'a', 990), b1 = add_run(st, &h, 'b', 1300);
    int64_t a4 = add_run(st, &h, 'a', 1005), b2 = add_run(st, &h, 'b', 1310);
    ok(a1 > 0 && a2 > 0 && a3 > 0 && b1 > 0 && a4 > 0 && b2 > 0, "six runs written");
    const int64_t skip[2] = {a4, b2};
    struct cb_floor f;
    is_int(cb_floor_learn(st, b2, "tsc", 0.1, 1, skip, 2, &f), 0, "the floor of a4 against b2");
    is_uint(f.groups, 1, "one group: the three other runs of bytes A (b1 alone makes none)");
    is_uint(f.runs, 3, "of 3 runs: the slowed run of the same build is not in it");
    const struct cb_floor_case *c = cb_floor_find(&f, "synthetic/chain/1000/warm");
    double l0 = log(1000), l1 = log(1010), l2 = log(990);
    double want = sqrt(1.5 * ((l1 - l0) * (l1 - l0) + (l2 - l0) * (l2 - l0)) / 3);
    is_near(cb_floor_sd(c), want, 1e-9, "its spread is that of 1000, 1010 and 990 (%.2f%%)", 100 * want);
    cb_floor_free(&f);

    /* A second slowed run: bytes B have their own group, which is right
     * (they are the same bytes), and a's floor is no wider for it. */
    int64_t b3 = add_run(st, &h, 'b', 1305);
    is_int(cb_floor_learn(st, b2, "tsc", 0.1, 1, skip, 2, &f), 0, "learned again after another B run");
    is_uint(f.groups, 2, "two groups now: A's three runs, B's two");
    ok(b3 > 0 && cb_floor_sd(cb_floor_find(&f, "synthetic/chain/1000/warm")) < 0.02,
       "and the spread stays that of repeats, never the 30%% between A and B");
    cb_floor_free(&f);
    cb_store_close(st);
    unlink(path);
    rmdir(dir);
    cb_sb_release(&err);
}

int main(void)
{
    test_wild_run();
    test_stats();
    test_runs_needed();
    test_moderate();
    test_learn();
    return tap_done();
}
