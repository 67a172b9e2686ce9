/* ranktest.h — the Mann-Whitney test exact for the small samples reports see.
 *
 * A run with --reps 5 has five samples a case.  The normal approximation of
 * the rank test (stats.h) cannot give p below 0.012 at 5 vs 5, so at alpha
 * 0.01 no difference is ever "significant" and whatever rule breaks the tie
 * becomes the claim ("kernel-2021 wins at every size" while 7x
 * slower at 4 KiB).  The exact permutation distribution of the rank sum has
 * its smallest two-sided p at 2 / C(10, 5) = 0.0079 there, and is right for
 * any sample size it is asked about, ties included (midranks). */
#ifndef CB_RANKTEST_H
#define CB_RANKTEST_H

#include <stddef.h>

/* Up to this many samples in all the exact distribution is used; above it
 * the normal approximation, which is good there and keeps the work small. */
#define CB_MW_EXACT_MAX 48

/* Two-sided p of the Mann-Whitney test from the exact permutation
 * distribution of the rank sum of a, ties given their midranks: the share of
 * all C(na + nb, na) ways to pick a's ranks whose sum is at least as far
 * from its mean as the observed one.  NAN for an empty side or na + nb
 * above CB_MW_EXACT_MAX. */
double cb_mw_exact_p(const double *a, size_t na, const double *b, size_t nb);

/* P(U <= u) for U, the Mann-Whitney statistic of na against nb samples
 * with no ties, from its exact distribution; NAN as cb_mw_exact_p.  For
 * the distribution-free confidence interval of a shift (versus.h). */
double cb_mw_exact_cdf(size_t na, size_t nb, double u);

/* The rank test reports use: exact up to CB_MW_EXACT_MAX samples, the
 * normal approximation (cb_mann_whitney_p) above. */
double cb_mw_p(const double *a, size_t na, const double *b, size_t nb);

#endif
