/* ranktest.c — the exact Mann-Whitney test (see ranktest.h). */
#include "harness/ranktest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/dist.h"
#include "harness/stats.h"

struct tagged {
    double v;
    int a;
};

static int cmp_tagged(const void *x, const void *y)
{
    double p = ((const struct tagged *)x)->v, q = ((const struct tagged *)y)->v;
    return (p > q) - (p < q);
}

/* Twice each value's midrank, so that every rank and sum is an integer:
 * values i..j (0-based) tied share rank (i + j + 2) / 2. */
static void doubled_midranks(struct tagged *t, size_t n, long *rank2)
{
    qsort(t, n, sizeof *t, cmp_tagged);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && t[j + 1].v == t[i].v)
            j++;
        for (size_t k = i; k <= j; k++)
            rank2[k] = (long)(i + j + 2);
        i = j + 1;
    }
}

/* The number of m-subsets of the n doubled ranks by their doubled sum s,
 * s = 0 .. n (n + 1): a subset-sum count, one rank at a time.  Caller frees. */
static double *subset_counts(const long *rank2, size_t n, size_t m)
{
    long smax = (long)(n * (n + 1));
    size_t w = (size_t)smax + 1;
    double *cnt = calloc((m + 1) * w, sizeof *cnt);
    if (!cnt)
        return NULL;
    cnt[0] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = (i + 1 < m ? i + 1 : m); k >= 1; k--)
            for (long s = smax; s >= rank2[i]; s--)
                cnt[k * w + (size_t)s] += cnt[(k - 1) * w + (size_t)(s - rank2[i])];
    memmove(cnt, cnt + m * w, w * sizeof *cnt);
    return cnt;
}

static double tail_share(const long *rank2, size_t n, size_t m, long obs)
{
    long smax = (long)(n * (n + 1));
    double *cnt = subset_counts(rank2, n, m);
    if (!cnt)
        return NAN;
    /* The doubled mean of the sum is m (n + 1): an integer, so "as far from
     * the mean" is decided without rounding. */
    long mean = (long)(m * (n + 1)), dev = labs(obs - mean);
    double tail = 0, all = 0;
    for (long s = 0; s <= smax; s++) {
        all += cnt[s];
        if (labs(s - mean) >= dev)
            tail += cnt[s];
    }
    free(cnt);
    return all > 0 ? tail / all : NAN;
}

double cb_mw_exact_cdf(size_t na, size_t nb, double u)
{
    size_t n = na + nb, m = na;
    if (na == 0 || nb == 0 || n > CB_MW_EXACT_MAX)
        return NAN;
    long rank2[CB_MW_EXACT_MAX];
    for (size_t i = 0; i < n; i++)
        rank2[i] = 2 * (long)(i + 1);
    double *cnt = subset_counts(rank2, n, m);
    if (!cnt)
        return NAN;
    /* U = W - m (m + 1) / 2, so U <= u is doubled W <= 2u + m (m + 1). */
    double lim = 2 * floor(u) + (double)(m * (m + 1)), below = 0, all = 0;
    for (long s = 0; s <= (long)(n * (n + 1)); s++) {
        all += cnt[s];
        if ((double)s <= lim)
            below += cnt[s];
    }
    free(cnt);
    return below / all;
}

double cb_mw_exact_p(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    if (na == 0 || nb == 0 || n > CB_MW_EXACT_MAX)
        return NAN;
    struct tagged *t = malloc(n * sizeof *t);
    long *rank2 = malloc(n * sizeof *rank2);
    if (!t || !rank2) {
        free(t);
        free(rank2);
        return NAN;
    }
    for (size_t i = 0; i < na; i++)
        t[i] = (struct tagged){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        t[na + i] = (struct tagged){b[i], 0};
    doubled_midranks(t, n, rank2);
    /* The test is symmetric: count subsets of the smaller side's size. */
    int small_is_a = na <= nb;
    size_t m = small_is_a ? na : nb;
    long obs = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i].a == small_is_a)
            obs += rank2[i];
    double p = tail_share(rank2, n, m, obs);
    free(t);
    free(rank2);
    return p > 1 ? 1 : p;
}

double cb_mw_p(const double *a, size_t na, const double *b, size_t nb)
{
    if (na + nb <= CB_MW_EXACT_MAX)
        return cb_mw_exact_p(a, na, b, nb);
    return cb_mann_whitney_p(a, na, b, nb);
}
