/* stats.h — robust summaries of samples: what the harness reports of a
 * case.  The tests that compare samples (rank tests, the t distribution)
 * are util/dist.h: they are no part of measuring.
 *
 * Benchmark samples are skewed (interrupts, frequency changes only ever make
 * a sample slower), so everything here is order-statistic based: medians,
 * quartiles, and a distribution-free confidence interval for the median. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

#include "util/sort.h"   /* cb_sort_doubles, which this layer's users reach through here */

struct cb_summary {
    size_t n;
    double min, max, median, p25, p75, mean;
    double ci_lo, ci_hi;     /* 95% CI of the median (order statistics); = min/max when n < 6 */
    double spread_pct;       /* (p75 - p25) / median * 100: the interquartile spread */
    double ci_pct;           /* half-width of the median's CI / median * 100 */
};

/* Quantile q in [0,1] of sorted v, linear interpolation between order
 * statistics (Hyndman-Fan type 7, as R's and numpy's default). */
double cb_quantile_sorted(const double *v, size_t n, double q);
/* Summarise v (left unchanged).  Returns 0, -EINVAL for n == 0, -ENOMEM. */
int cb_summarize(const double *v, size_t n, struct cb_summary *s);
/* 95% CI of the median of sorted v from the binomial order statistics:
 * ranks n/2 -+ 1.96*sqrt(n)/2.  Needs n >= 6, else the full range. */
void cb_median_ci(const double *sorted, size_t n, double *lo, double *hi);
#endif
