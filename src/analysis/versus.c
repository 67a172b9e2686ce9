/* versus.c — a variant against another (see versus.h). */
#include "analysis/versus.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/ranktest.h"
#include "util/dist.h"
#include "harness/stats.h"

/* The largest k with P(U <= k - 1) <= alpha / 2, so that the k-th smallest
 * and k-th largest pairwise difference bound a 1 - alpha interval; 0 when
 * even the extremes do not reach that level. */
static size_t crit_rank(size_t na, size_t nb, double alpha)
{
    size_t n = na * nb, k = 0;
    if (na + nb <= CB_MW_EXACT_MAX) {
        while (k < n / 2 && cb_mw_exact_cdf(na, nb, (double)k) <= alpha / 2)
            k++;
        return k;
    }
    /* Normal approximation of U's distribution for large samples. */
    double z = cb_z_two_sided(alpha);
    double c = floor((double)n / 2 - z * sqrt((double)n * (double)(na + nb + 1) / 12.0));
    return c > 0 ? (size_t)c : 0;
}

static int positive(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0) || isinf(v[i]))
            return 0;
    return 1;
}

int cb_versus_unpaired(const double *a, size_t na, const double *b, size_t nb, double alpha,
                       struct cb_versus *v)
{
    memset(v, 0, sizeof *v);
    if (!na || !nb || !(alpha > 0 && alpha < 1) || !positive(a, na) || !positive(b, nb))
        return -EINVAL;
    size_t n = na * nb, k = 0;
    double *d = malloc(n * sizeof *d);
    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            d[k++] = log(b[j]) - log(a[i]);
    cb_sort_doubles(d, n);
    size_t c = crit_rank(na, nb, alpha);
    *v = (struct cb_versus){na, nb, 0, exp(cb_quantile_sorted(d, n, 0.5)),
                            exp(d[c ? c - 1 : 0]), exp(d[c ? n - c : n - 1]), c > 0,
                            cb_mw_p(a, na, b, nb)};
    free(d);
    return 0;
}

/* P(X <= k) for X ~ Binomial(n, 1/2), summed exactly in doubles. */
static double binom_cdf(size_t n, size_t k)
{
    double term = pow(0.5, (double)n), sum = 0;
    for (size_t i = 0; i <= k && i <= n; i++) {
        sum += term;
        term = term * (double)(n - i) / (double)(i + 1);
    }
    return sum;
}

int cb_versus_paired(const double *a, const double *b, size_t n, double alpha,
                     struct cb_versus *v)
{
    memset(v, 0, sizeof *v);
    if (!n || !(alpha > 0 && alpha < 1) || !positive(a, n) || !positive(b, n))
        return -EINVAL;
    double *r = malloc(n * sizeof *r);
    if (!r)
        return -ENOMEM;
    size_t up = 0, down = 0;
    for (size_t i = 0; i < n; i++) {
        r[i] = b[i] / a[i];
        up += r[i] > 1;
        down += r[i] < 1;
    }
    cb_sort_doubles(r, n);
    /* Order statistics k and n + 1 - k bound the median ratio at 1 - alpha
     * when P(Bin(n, 1/2) <= k - 1) <= alpha / 2. */
    size_t k = 0;
    while (k < n / 2 && binom_cdf(n, k) <= alpha / 2)
        k++;
    size_t m = up + down, few = up < down ? up : down;
    double p = m ? 2 * binom_cdf(m, few) : 1;
    *v = (struct cb_versus){n, n, 1, cb_quantile_sorted(r, n, 0.5), r[k ? k - 1 : 0],
                            r[k ? n - k : n - 1], k > 0, p > 1 ? 1 : p};
    free(r);
    return 0;
}
