/* test_ranktest.c — the exact Mann-Whitney test against p-values worked out
 * by hand and against a brute-force reference: every way of splitting the
 * pooled samples into the two sides, counted with U from pairwise
 * comparisons (no ranks, no subset sums), so that the two share no code. */
#include <math.h>
#include <stdlib.h>

#include "harness/ranktest.h"
#include "util/dist.h"
#include "harness/stats.h"
#include "tap.h"

/* U of a over b by pairs: a_i > b_j counts 1, a tie one half. */
static double pairs_u(const double *a, size_t na, const double *b, size_t nb)
{
    double u = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    return u;
}

/* The two-sided p by enumerating every na-subset of the pooled values. */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    double pool[24], x[24], y[24];
    for (size_t i = 0; i < na; i++)
        pool[i] = a[i];
    for (size_t i = 0; i < nb; i++)
        pool[na + i] = b[i];
    double mid = (double)na * (double)nb / 2, dev = fabs(pairs_u(a, na, b, nb) - mid);
    double hit = 0, all = 0;
    for (unsigned long mask = 0; mask < (1ul << n); mask++) {
        if ((size_t)__builtin_popcountl(mask) != na)
            continue;
        size_t kx = 0, ky = 0;
        for (size_t i = 0; i < n; i++) {
            if (mask >> i & 1)
                x[kx++] = pool[i];
            else
                y[ky++] = pool[i];
        }
        all++;
        hit += fabs(pairs_u(x, na, y, nb) - mid) >= dev - 1e-9;
    }
    return hit / all;
}

int main(void)
{
    /* By hand: fully separated samples reach the extreme rank sum, which
     * one subset of C(n, k) has on each side. */
    double s5a[] = {1, 2, 3, 4, 5}, s5b[] = {6, 7, 8, 9, 10};
    is_near(cb_mw_exact_p(s5a, 5, s5b, 5), 2.0 / 252, 1e-12, "5 vs 5 separated: p = 2/252 = 0.0079");
    ok(cb_mw_exact_p(s5a, 5, s5b, 5) < 0.01, "5 vs 5 separated is significant at 0.01 (exact)");
    ok(cb_mann_whitney_p(s5a, 5, s5b, 5) > 0.01, "... where the normal approximation is not (0.012)");
    is_near(cb_mw_exact_p(s5b, 5, s5a, 5), 2.0 / 252, 1e-12, "symmetric in its sides");
    is_near(cb_mw_exact_p(s5a, 4, s5b, 4), 2.0 / 70, 1e-12, "4 vs 4 separated: p = 2/70");
    double s6a[] = {1, 2, 3, 4, 5, 6}, s6b[] = {7, 8, 9, 10, 11, 12};
    is_near(cb_mw_exact_p(s6a, 6, s6b, 6), 2.0 / 924, 1e-12, "6 vs 6 separated: p = 2/924");
    is_near(cb_mw_exact_p(s6a, 3, s6b, 5), 2.0 / 56, 1e-12, "3 vs 5 separated: p = 2/56");
    /* {1,2,4} against {3,5,6}: U = 1; of the 20 splits, U <= 1 in 2 and
     * U >= 8 in 2 (partitions of U into at most 3 parts of at most 3), so
     * p = 4/20 (R's wilcox.test(c(1,2,4), c(3,5,6)) gives 0.2 too). */
    double h3a[] = {1, 2, 4}, h3b[] = {3, 5, 6};
    is_near(cb_mw_exact_p(h3a, 3, h3b, 3), 0.2, 1e-12, "{1,2,4} vs {3,5,6}: p = 4/20");
    double same[] = {5, 5, 5, 5};
    is_near(cb_mw_exact_p(same, 4, same, 4), 1.0, 1e-12, "identical constant samples: p = 1");
    ok(isnan(cb_mw_exact_p(s5a, 0, s5b, 5)), "an empty side gives NaN");
    double big[30] = {0};
    ok(isnan(cb_mw_exact_p(big, 30, big, 30)), "above CB_MW_EXACT_MAX the exact test declines");
    is_near(cb_mw_p(big, 30, big, 30), cb_mann_whitney_p(big, 30, big, 30), 0,
            "... and cb_mw_p falls back to the normal approximation");

    /* U of 5 vs 5 without ties: P(U <= 2) = 4/252 (U = 0, 1, 2, 2: one
     * arrangement each for 0 and 1, two for 2); P(U <= 3) = 7/252. */
    is_near(cb_mw_exact_cdf(5, 5, 2), 4.0 / 252, 1e-12, "P(U <= 2) at 5 vs 5 = 4/252");
    is_near(cb_mw_exact_cdf(5, 5, 3), 7.0 / 252, 1e-12, "P(U <= 3) at 5 vs 5 = 7/252");
    is_near(cb_mw_exact_cdf(3, 3, 9), 1.0, 1e-12, "P(U <= 9) at 3 vs 3 = 1");

    /* Against brute force, ties included: seeded samples on a coarse grid
     * (so ties are common), every size pair up to 7 vs 7. */
    unsigned long long x = 88172645463325252ull;
    int agree = 0, cases = 0;
    for (size_t na = 1; na <= 7; na++)
        for (size_t nb = 1; nb <= 7; nb++)
            for (int rep = 0; rep < 6; rep++) {
                double a[7], b[7];
                for (size_t i = 0; i < na + nb; i++) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    double v = (double)(x % 6) + (rep & 1 ? 0.0 : (double)(i % 3));
                    if (i < na)
                        a[i] = v;
                    else
                        b[i - na] = v + (rep > 3 ? 2 : 0);
                }
                double e = cb_mw_exact_p(a, na, b, nb), r = brute_p(a, na, b, nb);
                cases++;
                if (fabs(e - r) < 1e-12)
                    agree++;
                else
                    printf("#   %zu vs %zu rep %d: exact %.12f brute %.12f\n", na, nb, rep, e, r);
            }
    is_int(agree, cases, "exact p = brute-force enumeration in all %d seeded cases (with ties)", cases);
    return tap_done();
}
