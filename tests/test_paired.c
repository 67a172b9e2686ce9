/* test_paired.c — ab's paired statistics against independent references:
 * the sign-flip p-value against a recursive enumeration of every sign
 * pattern (and hand-counted small cases), the interval against Student's t
 * computed from the published quantiles, the rounds rule against its
 * inequality. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "paired.h"
#include "tap.h"

/* The reference: count patterns recursively, no Gray code, no shared code. */
static void enumerate(const double *d, size_t n, size_t i, double s, double obs, long *hits,
                      long *total)
{
    if (i == n) {
        (*total)++;
        *hits += fabs(s) >= obs - 1e-9;
        return;
    }
    enumerate(d, n, i + 1, s + d[i], obs, hits, total);
    enumerate(d, n, i + 1, s - d[i], obs, hits, total);
}

static double ref_p(const double *d, size_t n)
{
    double obs = 0;
    for (size_t i = 0; i < n; i++)
        obs += d[i];
    long hits = 0, total = 0;
    enumerate(d, n, 0, 0, fabs(obs), &hits, &total);
    return (double)hits / (double)total;
}

int main(void)
{
    /* +-1 +-2 +-3: sums 6 4 2 0 0 -2 -4 -6; |s| >= 6 in 2 of 8. */
    const double a[] = {1, 2, 3};
    is_near(cb_sign_flip_p(a, 3), 0.25, 1e-15, "sign-flip p of {1,2,3} is 2/8 (counted by hand)");
    /* {1,-1}: sum 0, every pattern's |s| >= 0. */
    const double b[] = {1, -1};
    is_near(cb_sign_flip_p(b, 2), 1.0, 1e-15, "sign-flip p of {1,-1} is 1");
    /* Twelve rounds all the same sign: only the two extreme patterns. */
    double c[12];
    for (int i = 0; i < 12; i++)
        c[i] = 0.1 + 0.01 * i;
    is_near(cb_sign_flip_p(c, 12), 2.0 / 4096, 1e-15, "12 positive rounds: p = 2/2^12");
    ok(isnan(cb_sign_flip_p(c, 0)), "no rounds: NAN");

    /* Random data against the recursive reference, n = 1..16. */
    srand(7);
    int agree = 1;
    for (size_t n = 1; n <= 16; n++)
        for (int rep = 0; rep < 5; rep++) {
            double d[16];
            for (size_t i = 0; i < n; i++)
                d[i] = (rand() / (double)RAND_MAX - 0.3) * 0.05;
            double got = cb_sign_flip_p(d, n), want = ref_p(d, n);
            if (fabs(got - want) > 1e-12) {
                printf("# n=%zu rep=%d got %.9g want %.9g\n", n, rep, got, want);
                agree = 0;
            }
        }
    ok(agree, "sign-flip p equals the recursive enumeration on 80 random sets, n = 1..16");

    /* Beyond the exact limit, a seeded draw: within its sampling error of
     * the exact answer for a set whose answer is known (all one sign: 2/2^n,
     * i.e. ~0 here), and deterministic. */
    double big[30];
    for (int i = 0; i < 30; i++)
        big[i] = i % 2 ? 0.01 : -0.012;
    double p1 = cb_sign_flip_p(big, 30), p2 = cb_sign_flip_p(big, 30);
    ok(p1 == p2, "the drawn p-value is the same on every call (seeded)");
    ok(p1 > 0.3 && p1 <= 1, "30 alternating rounds of nearly equal size: no change (p = %.3f)", p1);
    for (int i = 0; i < 30; i++)
        big[i] = 0.01 + 0.001 * i;
    ok(cb_sign_flip_p(big, 30) < 1e-5, "30 positive rounds: p under 1e-5 (the observed pattern counts once)");

    /* The ratio and its interval, from log-ratios 0, ln(1.1), ln(1.21),
     * ln(1.1), ln(1): mean ln(1.1) * 4/5; t(0.975, 4) = 2.776445105
     * (published tables). */
    const double base[] = {100, 100, 100, 200, 50};
    const double head[] = {100, 110, 121, 220, 50};
    struct cb_paired r;
    is_int(cb_paired_ratio(base, head, 5, 0.95, &r), 0, "cb_paired_ratio runs");
    double L = log(1.1), d5[] = {0, L, 2 * L, L, 0}, mean = 0.8 * L, ss = 0;
    for (int i = 0; i < 5; i++)
        ss += (d5[i] - mean) * (d5[i] - mean);
    double se = sqrt(ss / 4 / 5);
    is_int((int)r.n, 5, "5 rounds counted");
    is_near(r.ratio, exp(mean), 1e-12, "the ratio is the geometric mean of head/base");
    is_near(r.lo, exp(mean - 2.776445105 * se), 1e-6, "the interval's low end (t, 4 df)");
    is_near(r.hi, exp(mean + 2.776445105 * se), 1e-6, "the interval's high end");
    is_near(r.p, ref_p(d5, 5), 1e-12, "its p-value is the sign-flip test's");
    /* A round with a missing side is left out, not counted as 0. */
    const double base2[] = {100, 0, 100}, head2[] = {110, 90, NAN};
    cb_paired_ratio(base2, head2, 3, 0.95, &r);
    is_int((int)r.n, 1, "rounds without a positive value on both sides are left out");
    ok(isnan(r.lo) && isnan(r.p), "one round: no interval and no p-value, rather than absurd ones");
    is_near(r.ratio, 1.1, 1e-12, "... but its ratio");
    is_int(cb_paired_ratio(base2, head2, 0, 0.95, &r), -22, "no rounds: -EINVAL");

    /* The rounds rule: 2/2^n < alpha/m, the smallest such n. */
    is_int(cb_paired_min_rounds(1, 0.01), 8, "1 case at alpha 0.01: 8 rounds (2/256 < 0.01 <= 2/128)");
    is_int(cb_paired_min_rounds(20, 0.01), 12, "20 cases at alpha 0.01: 12 rounds (2/4096 < 0.0005)");
    is_int(cb_paired_min_rounds(1, 0.05), 6, "1 case at alpha 0.05: 6 rounds");
    return tap_done();
}
