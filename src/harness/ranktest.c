/* ranktest.c — the exact Mann-Whitney test (see ranktest.h). */
#include "ranktest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

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

/* cnt[k * (smax + 1) + s]: the number of k-subsets of the ranks seen so far
 * whose doubled sum is s (a subset-sum count, one rank at a time). */
static double tail_share(const long *rank2, size_t n, size_t m, long obs)
{
    long smax = (long)(n * (n + 1));
    size_t w = (size_t)smax + 1;
    double *cnt = calloc((m + 1) * w, sizeof *cnt);
    if (!cnt)
        return NAN;
    cnt[0] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = (i + 1 < m ? i + 1 : m); k >= 1; k--)
            for (long s = smax; s >= rank2[i]; s--)
                cnt[k * w + (size_t)s] += cnt[(k - 1) * w + (size_t)(s - rank2[i])];
    /* The doubled mean of the sum is m (n + 1): an integer, so "as far from
     * the mean" is decided without rounding. */
    long mean = (long)(m * (n + 1)), dev = labs(obs - mean);
    double tail = 0, all = 0;
    for (long s = 0; s <= smax; s++) {
        double c = cnt[m * w + (size_t)s];
        all += c;
        if (labs(s - mean) >= dev)
            tail += c;
    }
    free(cnt);
    return all > 0 ? tail / all : NAN;
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
