/* versus.h — one variant against another in the same run: the ratio of
 * their costs with a distribution-free confidence interval.
 *
 * "Is avx2 better than adc-1chain at 1500 B cold?" had no answer but two
 * medians (its margin read 4% in one run and 20% in another).
 * Where the run measured in rounds (a race), the two are paired round by
 * round, so that drift common to a round cancels; otherwise their samples
 * are compared as two groups.
 *
 * Unpaired: the Hodges-Lehmann estimate of the shift of log(b) over log(a)
 * (the median of all pairwise differences), its interval from the exact
 * distribution of the Mann-Whitney U (ranktest.h) while it applies, and the
 * exact rank test's p.  Paired: the median of the per-round ratios, its
 * interval from order statistics at binomial ranks, and the sign test's p. */
#ifndef CB_VERSUS_H
#define CB_VERSUS_H

#include <stddef.h>

struct cb_versus {
    size_t na, nb;       /* samples (or rounds) on each side */
    int paired;          /* 1: by round */
    double ratio;        /* b over a, estimated */
    double lo, hi;       /* its 1 - alpha interval; the widest the data give when
                            they are too few for that level (then bounded = 0) */
    int bounded;
    double p;            /* two-sided: rank test, or sign test when paired */
};

/* Positive costs only (a cost of 0 or less has no ratio): -EINVAL, as for
 * an empty side or alpha outside (0, 1); -ENOMEM. */
int cb_versus_unpaired(const double *a, size_t na, const double *b, size_t nb, double alpha,
                       struct cb_versus *v);
int cb_versus_paired(const double *a, const double *b, size_t n, double alpha,
                     struct cb_versus *v);

#endif
