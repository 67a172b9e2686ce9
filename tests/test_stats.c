/* test_stats.c — order statistics and the rank test against values worked
 * out by hand (and, for Mann-Whitney, scipy.stats.mannwhitneyu with
 * method="asymptotic", use_continuity=True). */
#include <math.h>
#include <stdlib.h>

#include "util/dist.h"
#include "harness/stats.h"
#include "tap.h"

int main(void)
{
    double a4[] = {4, 1, 3, 2};
    struct cb_summary s;
    is_int(cb_summarize(a4, 4, &s), 0, "summarize 4 values");
    is_near(s.median, 2.5, 1e-12, "median of 1..4 is 2.5");
    is_near(s.p25, 1.75, 1e-12, "p25 of 1..4 is 1.75 (type 7)");
    is_near(s.p75, 3.25, 1e-12, "p75 of 1..4 is 3.25 (type 7)");
    is_near(s.min, 1, 0, "min");
    is_near(s.max, 4, 0, "max");
    is_near(s.mean, 2.5, 1e-12, "mean");
    is_near(s.spread_pct, (3.25 - 1.75) / 2.5 * 100, 1e-9, "spread is IQR/median");
    ok(a4[0] == 4 && a4[1] == 1, "summarize leaves its input unsorted");
    is_int(cb_summarize(a4, 0, &s), -22, "no samples is -EINVAL");

    double odd[] = {9, 7, 5, 3, 1};
    cb_summarize(odd, 5, &s);
    is_near(s.median, 5, 0, "median of an odd count is the middle value");
    is_near(s.ci_lo, 1, 0, "CI of n<6 is the full range (low)");
    is_near(s.ci_hi, 9, 0, "CI of n<6 is the full range (high)");

    /* n = 100: ranks floor(50 - 9.8) = 40 and ceil(51 + 9.8) = 61. */
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = 100 - i;
    cb_summarize(v, 100, &s);
    is_near(s.ci_lo, 40, 0, "median CI low bound, n=100, is the 40th value");
    is_near(s.ci_hi, 61, 0, "median CI high bound, n=100, is the 61st value");
    is_near(s.median, 50.5, 1e-12, "median of 1..100");
    is_near(s.ci_pct, (61.0 - 40.0) / 2 / 50.5 * 100, 1e-9, "ci_pct is half-width over median");

    /* Coverage of the median CI: for samples from a known distribution
     * (uniform, median 0.5) the interval should hold the true median about
     * 95% of the time. */
    unsigned long long x = 88172645463325252ull;
    int hits = 0, trials = 2000;
    for (int t = 0; t < trials; t++) {
        double w[41];
        for (int i = 0; i < 41; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            w[i] = (double)(x >> 11) / 9007199254740992.0;
        }
        cb_summarize(w, 41, &s);
        hits += s.ci_lo <= 0.5 && 0.5 <= s.ci_hi;
    }
    ok(hits > trials * 0.93 && hits < trials * 0.99, "median CI covers the true median ~95%% (%d/%d)",
       hits, trials);

    double q[] = {10, 20, 30};
    is_near(cb_quantile_sorted(q, 3, 0), 10, 0, "q=0 is min");
    is_near(cb_quantile_sorted(q, 3, 1), 30, 0, "q=1 is max");
    is_near(cb_quantile_sorted(q, 3, 0.25), 15, 1e-12, "q=0.25 interpolates");

    double ma[] = {1, 2, 3, 4, 5}, mb[] = {6, 7, 8, 9, 10};
    is_near(cb_mann_whitney_p(ma, 5, mb, 5), 0.012185, 2e-5, "Mann-Whitney, fully separated 5 vs 5");
    is_near(cb_mann_whitney_p(mb, 5, ma, 5), 0.012185, 2e-5, "Mann-Whitney is symmetric");
    double ta[] = {1, 2, 2, 3}, tb[] = {2, 3, 4, 5};
    is_near(cb_mann_whitney_p(ta, 4, tb, 4), 0.136658, 2e-5, "Mann-Whitney with ties (tie-corrected variance)");
    double same[] = {5, 5, 5, 5};
    is_near(cb_mann_whitney_p(same, 4, same, 4), 1.0, 1e-12, "identical constant samples: p = 1");
    ok(isnan(cb_mann_whitney_p(ma, 0, mb, 5)), "empty side gives NaN");

    /* Student's t: closed forms for 1 and 2 degrees of freedom (Cauchy:
     * 1/2 + atan(t)/pi; df 2: 1/2 + t / (2 sqrt(2 + t^2))), published table
     * quantiles, and a fractional df checked by Simpson's rule in Python. */
    for (double t = -6; t <= 6; t += 0.75) {
        is_near(cb_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12, "t CDF, df 1, at %.2f", t);
        is_near(cb_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12, "t CDF, df 2, at %.2f", t);
    }
    is_near(cb_t_cdf(2.0, 3.5), 0.93693073871204, 1e-9, "t CDF, df 3.5");
    is_near(cb_t_cdf(0, 7), 0.5, 1e-15, "t CDF at 0");
    is_near(cb_t_quantile(0.975, 1), 12.7062, 1e-4, "t quantile 0.975, df 1 (table)");
    is_near(cb_t_quantile(0.975, 2), 4.3027, 1e-4, "t quantile 0.975, df 2 (table)");
    is_near(cb_t_quantile(0.975, 5), 2.5706, 1e-4, "t quantile 0.975, df 5 (table)");
    is_near(cb_t_quantile(0.975, 10), 2.2281, 1e-4, "t quantile 0.975, df 10 (table)");
    is_near(cb_t_quantile(0.995, 10), 3.1693, 1e-4, "t quantile 0.995, df 10 (table)");
    is_near(cb_t_quantile(0.975, 30), 2.0423, 1e-4, "t quantile 0.975, df 30 (table)");
    is_near(cb_t_quantile(0.95, 20), 1.7247, 1e-4, "t quantile 0.95, df 20 (table)");
    is_near(cb_t_quantile(0.025, 10), -2.2281, 1e-4, "t quantile is symmetric");
    is_near(cb_t_cdf(cb_t_quantile(0.9999, 4.2), 4.2), 0.9999, 1e-12, "quantile inverts the CDF");
    ok(isnan(cb_t_cdf(1, 0)) && isnan(cb_t_quantile(1, 5)) && isnan(cb_t_quantile(0.5, -1)),
       "t: a bad df or p gives NAN");
    return tap_done();
}
