/* stats.h — robust summaries of samples, and the tests compare will need.
 *
 * Benchmark samples are skewed (interrupts, frequency changes only ever make
 * a sample slower), so everything here is order-statistic based: medians,
 * quartiles, and a distribution-free confidence interval for the median. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

#include "sort.h"   /* cb_sort_doubles, which this layer's users reach through here */

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
/* Two-sided p-value of the Mann-Whitney U test (normal approximation with
 * tie correction and continuity correction). */
double cb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* The Mann-Whitney U statistic of a: the number of pairs (a_i, b_j) with
 * a_i > b_j, ties counting one half.  NAN when a side is empty.  (Appended
 * for compare: the test checks U against published worked examples.) */
double cb_mann_whitney_u(const double *a, size_t na, const double *b, size_t nb);

/* Student's t distribution with df > 0 degrees of freedom (df need not be
 * an integer: Welch's and Yuen's tests give fractional ones).  The CDF
 * comes from the regularised incomplete beta function; the quantile
 * inverts it by bisection.  NAN for a bad df or p outside (0, 1).
 * (Appended for compare's runs-as-the-unit test.) */
/* z with P(|Z| > z) = alpha for a standard normal Z. */
double cb_z_two_sided(double alpha);
double cb_t_cdf(double t, double df);
double cb_t_quantile(double p, double df);

#endif
