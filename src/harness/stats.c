/* stats.c — order statistics of a case's samples (see stats.h). */
#include "harness/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double cb_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (q <= 0)
        return v[0];
    if (q >= 1)
        return v[n - 1];
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    double frac = h - (double)lo;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + frac * (v[lo + 1] - v[lo]);
}

void cb_median_ci(const double *sorted, size_t n, double *lo, double *hi)
{
    if (n < 6) {
        *lo = n ? sorted[0] : NAN;
        *hi = n ? sorted[n - 1] : NAN;
        return;
    }
    double half = 1.96 * sqrt((double)n) / 2.0;
    /* 1-based ranks of the bounds, clamped to the sample. */
    long j = (long)floor((double)n / 2.0 - half);
    long k = (long)ceil((double)n / 2.0 + 1.0 + half);
    if (j < 1)
        j = 1;
    if (k > (long)n)
        k = (long)n;
    *lo = sorted[j - 1];
    *hi = sorted[k - 1];
}

int cb_summarize(const double *v, size_t n, struct cb_summary *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return -EINVAL;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return -ENOMEM;
    memcpy(t, v, n * sizeof *t);
    cb_sort_doubles(t, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += t[i];
    s->n = n;
    s->min = t[0];
    s->max = t[n - 1];
    s->median = cb_quantile_sorted(t, n, 0.5);
    s->p25 = cb_quantile_sorted(t, n, 0.25);
    s->p75 = cb_quantile_sorted(t, n, 0.75);
    s->mean = sum / (double)n;
    cb_median_ci(t, n, &s->ci_lo, &s->ci_hi);
    if (s->median != 0) {
        s->spread_pct = (s->p75 - s->p25) / fabs(s->median) * 100.0;
        s->ci_pct = (s->ci_hi - s->ci_lo) / 2.0 / fabs(s->median) * 100.0;
    } else {
        s->spread_pct = s->ci_pct = (s->p75 == s->p25 && s->ci_hi == s->ci_lo) ? 0 : INFINITY;
    }
    free(t);
    return 0;
}

