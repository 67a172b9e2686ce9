/* dist.h — the tests many layers compare samples with: the Mann-Whitney
 * U test, Student's t distribution and the normal's two-sided quantile.
 * They know nothing of measuring (the harness's own summaries are
 * harness/stats.h). */
#ifndef CB_DIST_H
#define CB_DIST_H

#include <stddef.h>

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
