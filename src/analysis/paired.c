/* paired.c — ab's paired statistics (paired.h). */
#include "analysis/paired.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/dist.h"
#include "harness/stats.h"

/* The number of subsets of {1..n} with each sum, over 2^n: the null
 * distribution of W+.  out has n(n+1)/2 + 1 entries. */
static int null_counts(size_t n, double *out)
{
    size_t top = n * (n + 1) / 2;
    memset(out, 0, (top + 1) * sizeof *out);
    out[0] = 1;
    for (size_t k = 1; k <= n; k++)
        for (size_t w = k * (k + 1) / 2; w >= k; w--)
            out[w] += out[w - k];
    double scale = ldexp(1.0, -(int)n);
    for (size_t w = 0; w <= top; w++)
        out[w] *= scale;
    return 0;
}

double cb_signed_rank_cdf(size_t n, double w)
{
    if (n == 0 || n > CB_PAIRED_EXACT_MAX)
        return NAN;
    size_t top = n * (n + 1) / 2;
    if (w < 0)
        return 0;
    if (w >= (double)top)
        return 1;
    double *c = malloc((top + 1) * sizeof *c);
    if (!c)
        return NAN;
    null_counts(n, c);
    double cum = 0;
    for (size_t k = 0; (double)k <= w; k++)
        cum += c[k];
    free(c);
    return cum > 1 ? 1 : cum;
}

static int by_abs(const void *a, const void *b)
{
    double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
    return x < y ? -1 : x > y;
}

double cb_signed_rank_p(const double *d, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NAN;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0 && isfinite(d[i]))
            v[k++] = d[i];
    if (k == 0) {
        free(v);
        return NAN;
    }
    qsort(v, k, sizeof *v, by_abs);
    double wplus = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j + 1 < k && fabs(v[j + 1]) == fabs(v[i]))
            j++;
        double rank = (double)(i + j + 2) / 2;   /* tied |d|: their mean rank */
        for (size_t t = i; t <= j; t++)
            wplus += v[t] > 0 ? rank : 0;
        i = j + 1;
    }
    free(v);
    double top = (double)k * (double)(k + 1) / 2, w = fmin(wplus, top - wplus), p;
    if (k <= CB_PAIRED_EXACT_MAX) {
        p = 2 * cb_signed_rank_cdf(k, floor(w + 1e-9));
    } else {
        double mu = top / 2, sd = sqrt((double)k * (double)(k + 1) * (double)(2 * k + 1) / 24);
        p = erfc((mu - w - 0.5) / sd / sqrt(2.0));
    }
    return p > 1 ? 1 : p;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The Hodges-Lehmann estimate of d's centre and its interval at level:
 * the median of the Walsh averages (d_i + d_j) / 2, i <= j, and the C-th
 * smallest and largest of them, C - 1 being the largest w with
 * P(W+ <= w) <= (1 - level) / 2.  lo/hi NAN when no such w exists. */
static int hodges_lehmann(const double *d, size_t n, double level, double *est, double *lo,
                          double *hi)
{
    size_t m = n * (n + 1) / 2;
    double *w = malloc(m * sizeof *w);
    if (!w)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[k++] = (d[i] + d[j]) / 2;
    qsort(w, m, sizeof *w, by_value);
    *est = cb_quantile_sorted(w, m, 0.5);
    *lo = *hi = NAN;
    /* c - 1: the largest w with P(W+ <= w) <= (1 - level) / 2. */
    size_t c = 0;
    double *nc = n <= CB_PAIRED_EXACT_MAX ? malloc((m + 1) * sizeof *nc) : NULL;
    if (nc) {
        null_counts(n, nc);
        for (double cum = nc[0]; c < m && cum <= (1 - level) / 2; cum += nc[++c])
            ;
        free(nc);
    } else {
        double mu = (double)m / 2, sd = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24);
        double z = cb_t_quantile(0.5 + level / 2, 1e9), x = floor(mu - z * sd);
        c = x > 0 ? (size_t)x : 0;
    }
    if (c >= 1 && c <= m) {
        *lo = w[c - 1];
        *hi = w[m - c];
    }
    free(w);
    return 0;
}

int cb_paired_ratio(const double *base, const double *head, size_t n, double level,
                    struct cb_paired *out)
{
    *out = (struct cb_paired){.ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN};
    if (n == 0 || !(level > 0 && level < 1))
        return -EINVAL;
    double *d = malloc(n * sizeof *d);
    if (!d)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (base[i] > 0 && head[i] > 0 && isfinite(base[i]) && isfinite(head[i]))
            d[k++] = log(head[i] / base[i]);
    out->n = k;
    int rc = 0;
    if (k) {
        double est, lo, hi;
        rc = hodges_lehmann(d, k, level, &est, &lo, &hi);
        if (rc == 0) {
            out->ratio = exp(est);
            out->lo = exp(lo);
            out->hi = exp(hi);
            out->p = k >= 2 ? cb_signed_rank_p(d, k) : NAN;
            if (isnan(out->p) && k >= 2)
                out->p = 1;   /* every round equal on both sides: no change at all */
        }
    }
    free(d);
    return rc;
}

int cb_paired_min_rounds(size_t m, double alpha)
{
    int n = 2;
    while (n < 64 && 2.0 / ldexp(1.0, n) >= alpha / (double)(m ? m : 1))
        n++;
    return n;
}
