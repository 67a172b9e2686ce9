/* test_paired.c — ab's paired statistics against independent references:
 * the signed-rank distribution against published critical values and a
 * brute-force enumeration of sign patterns; the p-value against that
 * enumeration; the Hodges-Lehmann estimate and interval against the Walsh
 * averages listed by hand; the rounds rule against its inequality. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/paired.h"
#include "tap.h"

/* Brute force: every sign pattern of ranks 1..n, counting W+ <= w. */
static double brute_cdf(size_t n, double w)
{
    long hits = 0, total = 0;
    for (unsigned long mask = 0; mask < (1ul << n); mask++) {
        double s = 0;
        for (size_t r = 1; r <= n; r++)
            s += (mask >> (r - 1)) & 1 ? (double)r : 0;
        hits += s <= w;
        total++;
    }
    return (double)hits / (double)total;
}

/* Brute-force p: the share of sign patterns of the observed |d| whose
 * W+ is as far from its mean as the observed one (both tails). */
static double brute_p(const double *d, size_t n)
{
    int rank[32];
    for (size_t i = 0; i < n; i++) {
        rank[i] = 1;
        for (size_t j = 0; j < n; j++)
            rank[i] += fabs(d[j]) < fabs(d[i]);
    }
    double obs = 0, mu = (double)n * (double)(n + 1) / 4;
    for (size_t i = 0; i < n; i++)
        obs += d[i] > 0 ? rank[i] : 0;
    long hits = 0, total = 0;
    for (unsigned long mask = 0; mask < (1ul << n); mask++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += (mask >> i) & 1 ? rank[i] : 0;
        hits += fabs(s - mu) >= fabs(obs - mu) - 1e-9;
        total++;
    }
    return (double)hits / (double)total;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    /* Published two-sided 5% critical values of W (Wilcoxon's table):
     * n=6: 0, n=10: 8, n=12: 13, n=20: 52.  P(W <= crit) <= 0.025 < P(W <= crit+1). */
    const size_t ns[] = {6, 10, 12, 20};
    const double crit[] = {0, 8, 13, 52};
    for (int i = 0; i < 4; i++) {
        ok(cb_signed_rank_cdf(ns[i], crit[i]) <= 0.025 &&
               cb_signed_rank_cdf(ns[i], crit[i] + 1) > 0.025,
           "n=%zu: the 5%% two-sided critical value is %g, as the published table says", ns[i], crit[i]);
    }
    int agree = 1;
    for (size_t n = 1; n <= 14; n++)
        for (double w = -1; w <= (double)(n * (n + 1) / 2) + 1; w += 1)
            if (fabs(cb_signed_rank_cdf(n, w) - brute_cdf(n, w)) > 1e-12)
                agree = 0;
    ok(agree, "P(W+ <= w) equals the enumeration of all 2^n sign patterns, n = 1..14, every w");
    is_near(cb_signed_rank_cdf(3, 0), 0.125, 1e-15, "n=3: P(W+ = 0) = 1/8 (by hand)");

    /* p-values of random untied data against the brute-force test. */
    srand(11);
    agree = 1;
    for (size_t n = 2; n <= 14; n++)
        for (int rep = 0; rep < 6; rep++) {
            double d[14];
            for (size_t i = 0; i < n; i++)
                d[i] = (rand() / (double)RAND_MAX - 0.35) * (1 + i * 0.01);
            double got = cb_signed_rank_p(d, n), want = fmin(1, brute_p(d, n));
            if (fabs(got - want) > 1e-12) {
                printf("# n=%zu rep=%d got %.9g want %.9g\n", n, rep, got, want);
                agree = 0;
            }
        }
    ok(agree, "signed-rank p equals the brute-force test on 78 random sets, n = 2..14");
    double allpos[12];
    for (int i = 0; i < 12; i++)
        allpos[i] = 0.1 + 0.01 * i;
    is_near(cb_signed_rank_p(allpos, 12), 2.0 / 4096, 1e-15, "12 positive rounds: p = 2/2^12");
    double zeros[3] = {0, 0, 0};
    ok(isnan(cb_signed_rank_p(zeros, 3)), "no non-zero difference: NAN");

    /* An outlier moves one rank: twenty rounds of +10% and one of them
     * -60% (the host ran something else) still read as +10%, significant,
     * where a mean of the log-ratios would read +4.6% with an interval
     * that spans zero. */
    double base[20], head[20];
    for (int i = 0; i < 20; i++) {
        base[i] = 100 + i;
        head[i] = base[i] * (1.10 + 0.002 * (i % 3));
    }
    head[4] = base[4] * 0.4;
    struct cb_paired r;
    is_int(cb_paired_ratio(base, head, 20, 0.95, &r), 0, "cb_paired_ratio runs");
    ok(r.ratio > 1.09 && r.ratio < 1.11, "Hodges-Lehmann ratio with an outlier round: %.4f", r.ratio);
    ok(r.lo > 1.02, "its interval's low end stays above +2%% (%.4f)", r.lo);
    ok(r.p < 0.001, "and the change is significant (p %.6f; W- = 20, far below n=20's 1%% value 37)", r.p);

    /* Estimate and interval from the Walsh averages listed here: for 10
     * rounds, C = crit + 1 = 9, so the interval is the 9th smallest and
     * 9th largest of the 55 averages. */
    double b10[10], h10[10], d10[10], w[55];
    for (int i = 0; i < 10; i++) {
        b10[i] = 200;
        d10[i] = 0.01 * (i - 3) + 0.002 * (i * i % 7);
        h10[i] = 200 * exp(d10[i]);
    }
    int k = 0;
    for (int i = 0; i < 10; i++)
        for (int j = i; j < 10; j++)
            w[k++] = (d10[i] + d10[j]) / 2;
    qsort(w, 55, sizeof *w, cmpd);
    cb_paired_ratio(b10, h10, 10, 0.95, &r);
    is_near(log(r.ratio), w[27], 1e-12, "the estimate is the median (28th of 55) Walsh average");
    is_near(log(r.lo), w[8], 1e-12, "the interval's low end is the 9th smallest");
    is_near(log(r.hi), w[46], 1e-12, "its high end the 9th largest");
    is_near(r.p, brute_p(d10, 10), 1e-12, "its p-value is the signed-rank test's");

    /* Too few rounds: no interval rather than an absurd one. */
    const double b3[] = {100, 0, 100, 100, 100}, h3[] = {110, 90, NAN, 111, 109};
    cb_paired_ratio(b3, h3, 5, 0.95, &r);
    is_int((int)r.n, 3, "rounds without a positive value on both sides are left out");
    ok(isnan(r.lo) && isnan(r.hi), "3 rounds: no 95%% interval (none exists under 6), said as NAN");
    is_int(cb_paired_ratio(b3, h3, 0, 0.95, &r), -22, "no rounds: -EINVAL");

    /* The rounds rule: 2/2^n < alpha/m, the smallest such n. */
    is_int(cb_paired_min_rounds(1, 0.01), 8, "1 case at alpha 0.01: 8 rounds (2/256 < 0.01 <= 2/128)");
    is_int(cb_paired_min_rounds(20, 0.01), 12, "20 cases at alpha 0.01: 12 rounds (2/4096 < 0.0005)");
    is_int(cb_paired_min_rounds(1, 0.05), 6, "1 case at alpha 0.05: 6 rounds");
    return tap_done();
}
