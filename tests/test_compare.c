/* test_compare.c — the statistics behind compare and history, against
 * published values and independent computations. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "counters/meter.h"
#include "counters/tsc.h"
#include "analysis/history.h"
#include "util/dist.h"
#include "harness/stats.h"
#include "probes/synthetic.h"
#include "store/side_rows.h"
#include "tap.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The plain textbook median: sort a copy, take the middle. */
static double ref_median(const double *v, size_t n)
{
    double *t = malloc(n * sizeof *t);
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_d);
    double m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    free(t);
    return m;
}

/* U by counting every pair, the definition. */
static double ref_u(const double *a, size_t na, const double *b, size_t nb)
{
    double u = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    return u;
}

/* A deterministic normal deviate (Box-Muller over a separate LCG), so the
 * coverage check does not share a generator with the code under test. */
static uint64_t lcg_state = 12345;
static double lcg_unif(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(lcg_state >> 11) + 0.5) / 9007199254740992.0;
}
static double lcg_normal(void)
{
    return sqrt(-2 * log(lcg_unif())) * cos(2 * M_PI * lcg_unif());
}

static void test_mann_whitney(void)
{
    /* scipy.stats.mannwhitneyu documentation example (males vs females):
     * U1 = 17, asymptotic two-sided p with continuity correction
     * 0.11134688653314041. */
    const double males[] = {19, 22, 16, 29, 24}, females[] = {20, 11, 17, 12};
    is_near(cb_mann_whitney_u(males, 5, females, 4), 17, 1e-12, "U of the scipy example is 17");
    is_near(cb_mann_whitney_u(females, 4, males, 5), 3, 1e-12, "U of the other side is n1*n2 - 17 = 3");
    is_near(cb_mann_whitney_p(males, 5, females, 4), 0.11134688653314041, 1e-12,
            "p of the scipy example (asymptotic, continuity-corrected)");
    /* Complete separation, 10 vs 10: U = 0; z = (50 - 0.5) / sqrt(175),
     * p = erfc(z / sqrt 2), worked by hand. */
    double a[10], b[10];
    for (int i = 0; i < 10; i++) {
        a[i] = i;
        b[i] = 100 + i;
    }
    is_near(cb_mann_whitney_u(a, 10, b, 10), 0, 0, "separated samples: U = 0");
    is_near(cb_mann_whitney_p(a, 10, b, 10), erfc(49.5 / sqrt(175.0) / sqrt(2.0)), 1e-12,
            "separated samples: p from the normal approximation worked by hand");
    /* Ties: U against the pair-counting definition, on data with many ties. */
    int agree = 1;
    for (int rep = 0; rep < 50; rep++) {
        double x[23], y[17];
        for (int i = 0; i < 23; i++)
            x[i] = floor(lcg_unif() * 8);
        for (int i = 0; i < 17; i++)
            y[i] = floor(lcg_unif() * 8);
        if (fabs(cb_mann_whitney_u(x, 23, y, 17) - ref_u(x, 23, y, 17)) > 1e-9)
            agree = 0;
    }
    ok(agree, "U equals the pair count on 50 tied samples");
    ok(isnan(cb_mann_whitney_u(a, 0, b, 10)), "U of an empty side is NAN");
}

static void test_rng_median(void)
{
    /* splitmix64 from seed 0 (Vigna's published reference output) seeds
     * the state. */
    struct cb_rng r;
    cb_rng_seed(&r, 0);
    is_uint(r.s[0], 0xe220a8397b1dcdafull, "splitmix64(0) first output");
    is_uint(r.s[1], 0x6e789e6aa1b965f4ull, "splitmix64(0) second output");
    is_uint(r.s[2], 0x06c45d188009454full, "splitmix64(0) third output");
    int inrange = 1, seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint64_t x = cb_rng_below(&r, 7);
        if (x >= 7)
            inrange = 0;
        else
            seen[x]++;
    }
    int fair = 1;
    for (int i = 0; i < 7; i++)
        fair &= seen[i] > 850 && seen[i] < 1150;
    ok(inrange && fair, "cb_rng_below(7) stays in range and hits every value about equally");

    int same = 1;
    for (size_t n = 1; n < 60; n++) {
        double v[60], w[60];
        for (size_t i = 0; i < n; i++)
            v[i] = w[i] = floor(lcg_unif() * (n % 3 ? 1000 : 5)); /* some with many ties */
        if (cb_median_inplace(v, n) != ref_median(w, n))
            same = 0;
    }
    ok(same, "cb_median_inplace equals the sorted median for n = 1..59, with ties");
    ok(isnan(cb_median_inplace(NULL, 0)), "median of nothing is NAN");
}

static void test_bootstrap(void)
{
    double a[40], b[40];
    for (int i = 0; i < 40; i++) {
        a[i] = 100;
        b[i] = 120;
    }
    double est, lo, hi;
    is_int(cb_boot_rel_change(a, 40, b, 40, 500, 1, 0.95, &est, &lo, &hi), 0, "constant samples");
    ok(fabs(est - 0.2) < 1e-12 && fabs(lo - 0.2) < 1e-12 && fabs(hi - 0.2) < 1e-12,
       "constant samples: change and both ends are exactly +20%%");

    /* Fixed seed: an independent re-computation with the same draws (sort
     * for the medians, the percentile by hand) gives the same interval. */
    double x[15], y[11];
    for (int i = 0; i < 15; i++)
        x[i] = 1000 + 50 * lcg_normal();
    for (int i = 0; i < 11; i++)
        y[i] = 1100 + 50 * lcg_normal();
    const int B = 400;
    is_int(cb_boot_rel_change(x, 15, y, 11, B, 42, 0.95, &est, &lo, &hi), 0, "bootstrap runs");
    struct cb_rng r;
    cb_rng_seed(&r, 42);
    double stat[400], ta[15], tb[11];
    for (int k = 0; k < B; k++) {
        for (int i = 0; i < 15; i++)
            ta[i] = x[cb_rng_below(&r, 15)];
        for (int i = 0; i < 11; i++)
            tb[i] = y[cb_rng_below(&r, 11)];
        stat[k] = ref_median(tb, 11) / ref_median(ta, 15) - 1;
    }
    qsort(stat, B, sizeof stat[0], cmp_d);
    /* type 7 at q = 0.025 of 400: h = 399 * 0.025 = 9.975 */
    double want_lo = stat[9] + 0.975 * (stat[10] - stat[9]);
    double want_hi = stat[389] + 0.025 * (stat[390] - stat[389]);
    is_near(est, ref_median(y, 11) / ref_median(x, 15) - 1, 1e-12, "estimate is the ratio of medians - 1");
    is_near(lo, want_lo, 1e-12, "lower end equals the independent re-computation");
    is_near(hi, want_hi, 1e-12, "upper end equals the independent re-computation");
    double lo2, hi2, est2;
    cb_boot_rel_change(x, 15, y, 11, B, 42, 0.95, &est2, &lo2, &hi2);
    ok(lo2 == lo && hi2 == hi, "the same seed gives the same interval");

    /* Coverage: 200 A/A data sets; the 95%% interval should hold 0 in about
     * 95%% of them (binomial: 183..197 is the central 99.9%%-ish range). */
    int cover = 0;
    for (int rep = 0; rep < 200; rep++) {
        double u[30], v[30];
        for (int i = 0; i < 30; i++) {
            u[i] = 1000 * exp(0.05 * lcg_normal());
            v[i] = 1000 * exp(0.05 * lcg_normal());
        }
        cb_boot_rel_change(u, 30, v, 30, 500, CB_BOOT_SEED, 0.95, &est, &lo, &hi);
        cover += lo <= 0 && hi >= 0;
    }
    ok(cover >= 180 && cover <= 199, "A/A coverage of the 95%% interval: %d of 200", cover);
    is_int(cb_boot_rel_change(a, 0, b, 40, 500, 1, 0.95, &est, &lo, &hi), -EINVAL, "an empty side is refused");
}

static void test_adjust(void)
{
    /* Worked by hand, m = 4.  Holm: sorted 0.005 0.01 0.03 0.04 times
     * 4 3 2 1 = 0.02 0.03 0.06 0.04, made monotone = 0.02 0.03 0.06 0.06.
     * BH: times 4/1 4/2 4/3 4/4 = 0.02 0.02 0.04 0.04, monotone from the top. */
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    double h[4], bh[4];
    cb_p_adjust_holm(p, 4, h);
    cb_p_adjust_bh(p, 4, bh);
    const double wh[] = {0.03, 0.06, 0.06, 0.02}, wbh[] = {0.02, 0.04, 0.04, 0.02};
    for (int i = 0; i < 4; i++) {
        is_near(h[i], wh[i], 1e-12, "Holm p[%d]", i);
        is_near(bh[i], wbh[i], 1e-12, "BH p[%d]", i);
    }
    /* NAN entries are not tests: m counts the others. */
    const double q[] = {0.02, NAN, 0.5};
    double hq[3];
    cb_p_adjust_holm(q, 3, hq);
    ok(fabs(hq[0] - 0.04) < 1e-12 && isnan(hq[1]) && fabs(hq[2] - 0.5) < 1e-12,
       "Holm skips NAN: 0.02*2 = 0.04, NAN stays, 0.5");
    const double big[] = {0.6, 0.9};
    cb_p_adjust_holm(big, 2, hq);
    is_near(hq[1], 1.0, 0, "Holm caps at 1");
}

/* How far a host state can move a figure (cb_state_bound), worked by hand:
 * the bound a change must clear before a side in that state is called. */
static void test_state_bound(void)
{
    is_near(cb_state_bound(0, NAN, 0, NAN, NAN, NAN), 0, 0, "no state: bound 0");
    is_near(cb_state_bound(1, 1.3, 0, NAN, NAN, NAN), 0.3, 1e-12, "slowed 1.30x: 30%%");
    /* A case at 3.50 GHz against a run at 3.70 GHz, its clock's noise
     * 5.7%: 0.20 / 3.70 = 5.405% off, plus 5.7% = 11.105%. */
    is_near(cb_state_bound(0, NAN, 1, 3.5, 3.7, 5.7), 0.2 / 3.7 + 0.057, 1e-12,
            "the run's clock used: the case's distance from it plus its noise");
    is_near(cb_state_bound(0, NAN, 1, 3.9, 3.7, 0.5), 0.2 / 3.7 + 0.005, 1e-12,
            "a faster case clock bounds the same way");
    is_near(cb_state_bound(1, 1.3, 1, 3.5, 3.7, 5.7), 1.3 * (1 + 0.2 / 3.7 + 0.057) - 1, 1e-12,
            "both: compounded");
    ok(isnan(cb_state_bound(1, NAN, 0, NAN, NAN, NAN)), "slowed with no ratio stored: unknown");
    ok(isnan(cb_state_bound(0, NAN, 1, 0, 3.7, 1)), "the run's clock used, the case's unknown: unknown");
    ok(isnan(cb_state_bound(0, NAN, 1, 3.5, 3.7, NAN)), "no noise stored: unknown");
}

static void test_decide(void)
{
    const double t = 0.02, al = 0.01;
    is_str(cb_cmp_verdict_name(cb_cmp_decide(0.001, 0.15, 0.25, al, t)), "regressed", "significant, CI above +2%%");
    is_str(cb_cmp_verdict_name(cb_cmp_decide(0.001, -0.25, -0.15, al, t)), "improved", "significant, CI below -2%%");
    is_str(cb_cmp_verdict_name(cb_cmp_decide(0.5, -0.01, 0.015, al, t)), "unchanged", "CI within +-2%%");
    is_str(cb_cmp_verdict_name(cb_cmp_decide(0.001, 0.005, 0.015, al, t)), "unchanged", "significant but tiny");
    is_str(cb_cmp_verdict_name(cb_cmp_decide(0.001, 0.01, 0.05, al, t)), "unsure", "CI straddles the threshold");
    is_str(cb_cmp_verdict_name(cb_cmp_decide(0.02, 0.05, 0.30, al, t)), "unsure", "large change, p above alpha");
    is_str(cb_cmp_verdict_name(cb_cmp_decide(NAN, NAN, NAN, al, t)), "unsure", "nothing known");
}

/* bisect-check's exit: git bisect run's 0 good, 1 bad, 125 skip. */
static void test_bisect_exit(void)
{
    const enum cb_cmp_verdict U = CB_CMP_UNCHANGED, R = CB_CMP_REGRESSED, S = CB_CMP_UNSURE,
                              I = CB_CMP_IMPROVED;
    struct cb_bisect_row good[] = {{U, 0, 0}, {I, 0, 0}, {U, 0, 1}};
    is_int(cb_bisect_exit(good, 3), 0, "unchanged and improved cases: good (0)");
    is_int(cb_bisect_exit(good, 0), 125, "no case compared: cannot tell (125), never a pass on nothing measured");
    struct cb_bisect_row bad[] = {{U, 0, 0}, {R, 0, 0}, {S, 0, 0}};
    is_int(cb_bisect_exit(bad, 3), 1, "a regression on a quiet core is bad (1), even beside an unsure case");
    struct cb_bisect_row unsure[] = {{U, 0, 0}, {S, 0, 0}};
    is_int(cb_bisect_exit(unsure, 2), 125, "an unsure case: cannot tell (125)");
    struct cb_bisect_row shared[] = {{U, 0, 0}, {R, 0, 1}};
    is_int(cb_bisect_exit(shared, 2), 125, "a regression measured only on a shared core: cannot tell (125)");
    struct cb_bisect_row both[] = {{R, 0, 1}, {R, 0, 0}};
    is_int(cb_bisect_exit(both, 2), 1, "a shared-core regression beside a quiet-core one: bad (1)");
    struct cb_bisect_row acked[] = {{R, 1, 0}, {U, 0, 0}};
    is_int(cb_bisect_exit(acked, 2), 0, "an acknowledged regression alone: good (0)");
}

static void test_steps(void)
{
    struct cb_step s[8];
    const double step[] = {100, 101, 99, 100, 102, 120, 121, 119, 120, 122};
    int n = cb_steps_detect(step, 10, 0.02, 2, s, 8);
    is_int(n, 1, "a 20%% step is one step");
    if (n == 1) {
        is_int(s[0].at, 5, "at the sixth point");
        is_near(s[0].before, 100, 0, "median before");
        is_near(s[0].after, 120, 0, "median after");
    }
    const double spike[] = {100, 101, 99, 150, 100, 102, 99, 101};
    is_int(cb_steps_detect(spike, 8, 0.02, 2, s, 8), 0, "one odd point is not a step");
    const double last[] = {100, 101, 99, 100, 102, 100, 130};
    is_int(cb_steps_detect(last, 7, 0.02, 2, s, 8), 0, "the newest point alone is not a step yet");
    const double small[] = {100, 100.2, 99.9, 100.1, 101, 101.1, 100.9, 101};
    is_int(cb_steps_detect(small, 8, 0.02, 2, s, 8), 0, "a 1%% step is below the 2%% minimum");
    const double two[] = {100, 100, 100, 110, 110, 110, 95, 95, 95};
    n = cb_steps_detect(two, 9, 0.02, 2, s, 8);
    is_int(n, 2, "up then down: two steps");
    if (n == 2)
        ok(s[0].at == 3 && s[1].at == 6, "at the fourth and seventh points");
    is_int(cb_steps_detect(step, 3, 0.02, 2, s, 8), 0, "too short for a step");
    is_near(cb_series_noise(step, 5), 1.4826 * 1.5 / sqrt(2.0), 1e-9,
            "noise: 1.4826 x median |diff| (1, 2, 1, 2 -> 1.5) / sqrt 2");
}

static void test_synth(void)
{
    double d;
    is_int(cb_synth_parse_delta("0.05", &d), 0, "0.05 parses");
    is_near(d, 0.05, 1e-15, "to 0.05");
    is_int(cb_synth_parse_delta(NULL, &d), 0, "unset is 0");
    const char *bad[] = {"1e3", "-0.1", "abc", "0.1x", " 0.1", "11", "0x1", "1..2", ".", "inf"};
    int all = 1;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        all &= cb_synth_parse_delta(bad[i], &d) == -EINVAL;
    ok(all, "junk, negatives, exponents, hex and > 10 are refused");
    is_uint(cb_synth_work(1000, 0.05), 1050, "1000 adds with 5%% more are 1050");
    is_uint(cb_synth_work(1000, 0), 1000, "no slowdown, no change");
    /* The chain really computes x + n (so the asm is not folded away). */
    const struct cb_variant *v = &cb_probe_synthetic.variants[0];
    struct cb_verdict vd;
    cb_probe_synthetic.verify(v, &vd);
    ok(vd.ok, "the add chain verifies: %s", vd.detail);
}

/* Yuen's trimmed t-test against values computed by an independent Python
 * implementation (trimmed means by slicing, the t CDF by Simpson's rule on
 * the density) and, for Welch, by hand. */
static void test_yuen(void)
{
    static const double x[10] = {10.1, 10.3, 9.8, 10.0, 10.2, 10.4, 9.9, 30.0, 10.1, 10.0};
    static const double y[10] = {10.6, 10.9, 10.5, 10.7, 10.8, 1.0, 10.6, 10.4, 10.7, 10.5};
    struct cb_yuen r;
    is_int(cb_yuen(x, 10, y, 10, 0.2, 0.95, &r), 0, "yuen: 10 vs 10, one wild value each");
    /* sorted x without 2 each end: 10.0 10.0 10.1 10.1 10.2 10.3 */
    is_near(r.tm_x, 60.7 / 6, 1e-12, "yuen: x's 20%% trimmed mean ignores the 30.0");
    is_near(r.est, 0.48333333333333, 1e-9, "yuen: difference of trimmed means");
    is_near(r.lo, 0.28052723327286, 1e-7, "yuen: 95%% interval, low end");
    is_near(r.hi, 0.68613943339381, 1e-7, "yuen: 95%% interval, high end");
    is_near(r.p, 0.00043970669419, 1e-8, "yuen: two-sided p");
    is_int(cb_yuen(x, 10, y, 10, 0.0, 0.95, &r), 0, "welch: the same without trimming");
    is_near(r.est, -2.41, 1e-9, "welch: the wild values swing the means");
    is_near(r.p, 0.29594989783247, 1e-7, "welch: and the variance hides it (p = 0.30)");
    static const double w1[4] = {1, 2, 3, 4}, w2[5] = {2, 4, 6, 8, 10};
    is_int(cb_yuen(w1, 4, w2, 5, 0.0, 0.95, &r), 0, "welch: 4 vs 5");
    /* By hand: variances 5/3 and 10, se^2 = 5/12 + 2, df = se^4 / ((5/12)^2/3 + 2^2/4). */
    is_near(r.df, (29.0 / 12) * (29.0 / 12) / (25.0 / 432 + 1.0), 1e-9, "welch: Welch-Satterthwaite df");
    is_near(r.t, 3.5 / sqrt(29.0 / 12), 1e-12, "welch: t");
    is_near(r.p, 0.06913359319240, 1e-8, "welch: p");
    is_near(r.lo, -0.38536808051403, 1e-7, "welch: interval low end");
    static const double c1[3] = {5, 5, 5}, c2[3] = {6, 6, 6};
    is_int(cb_yuen(c1, 3, c2, 3, 0.2, 0.95, &r), 0, "yuen: no spread at all");
    ok(r.est == 1 && r.lo == 1 && r.hi == 1 && r.p == 0, "yuen: an exact difference is certain");
    is_int(cb_yuen(c1, 3, c1, 3, 0.2, 0.95, &r), 0, "yuen: identical constants");
    ok(r.est == 0 && r.p == 1, "yuen: identical constants differ by nothing (p = 1)");
    is_int(cb_yuen(c1, 1, c2, 3, 0.2, 0.95, &r), -EINVAL, "yuen: one value on a side is refused");
    is_int(cb_yuen(c1, 3, c2, 3, 0.5, 0.95, &r), -EINVAL, "yuen: trimming half is refused");
}

/* Runs as the unit: a run-to-run wobble of +-4% must not read as a change,
 * a real 30% shift must still be found, and a wild run on a side must not
 * hide a 5% one.  Each run is 20 values within +-0.1% of its level, whose
 * median is the level itself. */
static void fill_runs(double *v, size_t *end, const double *level, size_t runs)
{
    size_t n = 0;
    for (size_t r = 0; r < runs; r++) {
        for (int k = 0; k < 20; k++)
            v[n++] = level[r] * (1.0 + 0.001 * ((k % 5) - 2) / 2.0);
        end[r] = n;
    }
}

static void test_runs_as_unit(void)
{
    double a[200], b[200];
    size_t ea[10], eb[10];
    static const double la[3] = {100, 104, 96}, lb[3] = {101, 99, 103}, lc[3] = {130, 131, 129};
    struct cb_cmp_stats s;
    fill_runs(a, ea, la, 3);
    fill_runs(b, eb, lb, 3);
    is_int(cb_cmp_stats_runs(a, ea, 3, b, eb, 3, 0.5, 0.2, &s), 0, "runs: A/A with run wobble");
    ok(s.lo < 0 && s.hi > 0, "runs: the interval covers 0 [%+.1f%%, %+.1f%%]", 100 * s.lo, 100 * s.hi);
    is_near(s.p, 0.71554152749223, 1e-7, "runs: p (Python reference)");
    ok(s.runs_a == 3 && s.runs_b == 3 && s.na == 60 && s.nb == 60, "runs: 3 runs, 60 samples a side");
    is_int(cb_cmp_decide(s.p, s.lo, s.hi, 0.01, 0.02) == CB_CMP_REGRESSED, 0, "runs: A/A is no regression");
    fill_runs(b, eb, lc, 3);
    is_int(cb_cmp_stats_runs(a, ea, 3, b, eb, 3, 0.5, 0.2, &s), 0, "runs: a 30%% shift");
    is_near(s.change, 0.30066841858897, 1e-9, "runs: change is the ratio of geometric means");
    is_near(s.lo, 0.18295560348695, 1e-7, "runs: interval low end");
    is_near(s.hi, 0.43009452774732, 1e-7, "runs: interval high end");
    is_near(s.p, 0.00611538465666, 1e-8, "runs: p");
    is_near(s.med_a, exp((log(100) + log(104) + log(96)) / 3), 1e-9, "runs: base is the geometric mean of run medians");
    is_int(cb_cmp_decide(s.p, s.lo, s.hi, 0.01, 0.02), CB_CMP_REGRESSED, "runs: +30%% is regressed");
    static const double wa[10] = {100, 100.2, 99.9, 100.1, 100, 99.8, 100.3, 100.1, 240, 99.9};
    double wb[10];
    static const double wbase[10] = {100.1, 99.9, 100, 100.2, 108, 100, 99.8, 100.1, 100, 100.2};
    for (int i = 0; i < 10; i++)
        wb[i] = wbase[i] * 1.05;
    fill_runs(a, ea, wa, 10);
    fill_runs(b, eb, wb, 10);
    is_int(cb_cmp_stats_runs(a, ea, 10, b, eb, 10, 0.5, 0.2, &s), 0, "runs: 5%% with a 2.4x run and an 8%% run");
    is_near(s.change, 0.05017510215712, 1e-9, "runs: the wild runs are trimmed away");
    is_near(s.lo, 0.04814313669319, 1e-7, "runs: and the interval stays tight (low)");
    is_near(s.hi, 0.05221100685749, 1e-7, "runs: and the interval stays tight (high)");
    ok(s.p < 1e-10, "runs: p has no floor (%.3g): Holm over 470 cases still passes", s.p);
    is_int(cb_cmp_decide(s.p * 470, s.lo, s.hi, 0.01, 0.02), CB_CMP_REGRESSED, "runs: regressed");
    is_int(cb_cmp_stats_runs(a, ea, 1, b, eb, 3, 0.5, 0.2, &s), -EINVAL, "runs: one run on a side is refused");
    double z[40];
    size_t ez[2];
    static const double lz[2] = {100, 100};
    fill_runs(z, ez, lz, 2);
    z[0] = z[1] = z[2] = z[3] = z[4] = z[5] = z[6] = z[7] = z[8] = z[9] = z[10] = -1;
    is_int(cb_cmp_stats_runs(z, ez, 2, b, eb, 10, 0.5, 0.2, &s), 0, "runs: a run with a negative median");
    ok(isnan(s.change) && isnan(s.p), "runs: gives no figures, so the verdict is unsure");
}

/* Bimodal interference, as on this project's VM: each run's samples sit at
 * the code's own cost or 13% above it, in a share that changes from run to
 * run.  Run medians then jump between the modes; the 0.1-quantile stays at
 * the code's cost, so an A/A compare is exactly unchanged and a 5% change
 * is exactly 5%. */
static void fill_bimodal(double *v, size_t *end, double level, const int *slow, size_t runs)
{
    size_t n = 0;
    for (size_t r = 0; r < runs; r++) {
        for (int k = 0; k < 20; k++)
            v[n++] = k % 20 < slow[r] ? level * 1.13 : level;   /* slow samples first: order is irrelevant */
        end[r] = n;
    }
}

static void test_run_quantile(void)
{
    static const int sa[6] = {4, 12, 6, 14, 3, 11}, sb[6] = {13, 5, 15, 2, 12, 7};
    double a[120], b[120];
    size_t ea[6], eb[6];
    struct cb_cmp_stats s;
    fill_bimodal(a, ea, 1000, sa, 6);
    fill_bimodal(b, eb, 1000, sb, 6);
    is_int(cb_cmp_stats_runs(a, ea, 6, b, eb, 6, 0.5, 0.2, &s), 0, "bimodal A/A by run medians");
    ok(s.hi - s.lo > 0.05, "run medians flip between modes: a wide interval [%+.1f%%, %+.1f%%]",
       100 * s.lo, 100 * s.hi);
    ok(cb_cmp_decide(s.p, s.lo, s.hi, 0.01, 0.02) == CB_CMP_UNSURE, "so A/A by medians is unsure");
    is_int(cb_cmp_stats_runs(a, ea, 6, b, eb, 6, 0.1, 0.2, &s), 0, "bimodal A/A by 0.1-quantiles");
    ok(s.change == 0 && s.lo == 0 && s.hi == 0, "the 0.1-quantile is the code's cost in every run");
    is_int(cb_cmp_decide(s.p, s.lo, s.hi, 0.01, 0.02), CB_CMP_UNCHANGED, "so A/A is unchanged");
    fill_bimodal(b, eb, 1050, sb, 6);
    is_int(cb_cmp_stats_runs(a, ea, 6, b, eb, 6, 0.1, 0.2, &s), 0, "bimodal, head 5%% slower");
    is_near(s.change, 0.05, 1e-12, "the change is exactly 5%%");
    is_int(cb_cmp_decide(s.p, s.lo, s.hi, 0.01, 0.02), CB_CMP_REGRESSED, "and regressed");
    is_int(cb_cmp_stats_runs(a, ea, 6, b, eb, 6, 1.5, 0.2, &s), -EINVAL, "a quantile above 1 is refused");
}

/* Quiet samples: a run keeps the samples its meter read as quiet when it
 * has CB_QUIET_MIN of them, keeps everything when it has no readings, and
 * is left out otherwise. */
static void test_runs_quiet(void)
{
    enum { L = 8 };
    double v[4 * L], smt[4 * L], out[4 * L];
    size_t end[4], oe[4], dropped;
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < L; i++) {
            v[r * L + i] = 100 * r + i;
            /* run 0: all quiet; run 1: 6 quiet, 2 contended; run 2: 4 quiet
             * (too few); run 3: not metered */
            smt[r * L + i] = r == 0 ? 1.0 : r == 1 ? (i < 2 ? 2.5 : 1.1) : r == 2 ? (i < 4 ? 1.0 : 1.6) : NAN;
        }
        end[r] = (size_t)(r + 1) * L;
    }
    is_uint(cb_runs_quiet(v, smt, end, 4, CB_QUIET_MIN, out, oe, &dropped), 3,
            "a run with 4 quiet samples of 8 is left out");
    ok(oe[0] == 8 && oe[1] == 14 && oe[2] == 22, "kept: 8 quiet, 6 quiet, 8 unmetered (ends 8, 14, 22)");
    ok(out[8] == 102 && out[13] == 107 && out[14] == 300, "run 1 lost its 2 contended samples, in order");
    is_uint(dropped, 2, "2 samples of kept runs were left out");
    ok(smt[8] == 2.5 && CB_METER_SHIFT < 1.16 && 1.1 <= CB_METER_SHIFT, "1.1 is quiet, 2.5 is not");
    is_uint(cb_runs_quiet(v, smt, end, 4, 4, out, oe, &dropped), 4, "with min 4, run 2 is kept");
    is_uint(oe[2], 18, "run 2 keeps its 4 quiet samples");
    is_uint(cb_runs_quiet(v, NULL, end, 4, CB_QUIET_MIN, out, oe, &dropped), 4, "no meter: every run whole");
    ok(oe[3] == 32 && dropped == 0, "all 32 samples");

    /* history's per-run figures: every run gets one, the quiet ones from
     * their quiet samples.  Type-7 0.1-quantiles by hand: run 0 over 0..7 is
     * 0.7; run 1 over its quiet 102..107 is 102.5; run 2 (too few quiet)
     * over all of 200..207 is 200.7; run 3 (unmetered) over 300..307 is 300.7. */
    double lv[4];
    int quiet[4];
    v[0] = 0.5;   /* a run figure must be positive: 0.5, 1..7 -> 0.5 + 0.7 x 0.5 = 0.85 */
    is_int(cb_run_log_values(v, smt, end, 4, 0.1, lv, quiet), 0, "per-run figures");
    ok(quiet[0] && quiet[1] && !quiet[2] && quiet[3], "quiet: runs 0, 1 and the unmetered 3; not run 2");
    ok(fabs(exp(lv[0]) - 0.85) < 1e-12 && fabs(exp(lv[1]) - 102.5) < 1e-12 &&
           fabs(exp(lv[2]) - 200.7) < 1e-12 && fabs(exp(lv[3]) - 300.7) < 1e-12,
       "figures 0.85, 102.5 (quiet samples only), 200.7 and 300.7 (%.4g %.4g %.4g %.4g)",
       exp(lv[0]), exp(lv[1]), exp(lv[2]), exp(lv[3]));
    v[0] = 0;
    is_int(cb_run_log_values(v, smt, end, 1, 0.0, lv, quiet), -EINVAL, "a run figure of 0 has no log: -EINVAL");
}

int main(void)
{
    test_yuen();
    test_runs_as_unit();
    test_run_quantile();
    test_runs_quiet();
    test_mann_whitney();
    test_rng_median();
    test_bootstrap();
    test_adjust();
    test_decide();
    test_state_bound();
    test_bisect_exit();
    test_steps();
    test_synth();
    return tap_done();
}
