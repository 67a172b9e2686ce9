/* paired.h — the paired verdict of `ab`: two builds timed round by round.
 *
 * ab measures each case of BASE and HEAD in the same round, one after the
 * other (ABBA order), in one process on one CPU.  Whatever the machine does
 * between rounds (the host's placement of the vCPU, the page placement of a
 * cold set, the clock) hits both sides of a round alike, so the unit is the
 * round's ratio head/base, not a sample: samples within a round share its
 * state and are not independent of it (Kalibera and Jones).
 *
 * The test is Wilcoxon's signed-rank test of the rounds' log-ratios, exact
 * (the distribution of W+ counted, not approximated), and the estimate is
 * its Hodges-Lehmann companion: the median of the Walsh averages, with the
 * interval those averages give at the test's critical value.  Ranks, not
 * values: on a shared VM one round in ten is an outlier (the host ran
 * something else), which would widen a mean's interval and leave a real
 * 10% change "unsure"; here it moves one rank.  Neither needs normality
 * nor equal spreads; the smallest p-value, 2 / 2^n, says how many rounds a
 * suite needs (cb_paired_min_rounds). */
#ifndef CB_PAIRED_H
#define CB_PAIRED_H

#include <stddef.h>
#include <stdint.h>

/* Up to this many rounds the distribution of W+ is counted exactly; more
 * use the normal approximation (with continuity correction). */
#define CB_PAIRED_EXACT_MAX 200

struct cb_paired {
    size_t n;                 /* rounds with a positive value on both sides */
    double ratio;             /* exp(Hodges-Lehmann estimate of the log-ratio) */
    double lo, hi;            /* its interval at the level asked for; NAN when n is too
                                 small for one (under 6 rounds at 95%) */
    double p;                 /* two-sided p-value of "no change"; NAN when n < 2 */
};

/* P(W+ <= w) for n untied non-zero differences under "no change", where
 * W+ is the sum of the ranks of the positive ones.  NAN for n == 0 or
 * n > CB_PAIRED_EXACT_MAX. */
double cb_signed_rank_cdf(size_t n, double w);

/* Two-sided p-value of the signed-rank test of d (zeros dropped; tied |d|
 * share their mean rank).  NAN when no difference is non-zero. */
double cb_signed_rank_p(const double *d, size_t n);

/* The paired verdict's figures from n rounds of base and head values
 * (per-operation times; a round whose value is not positive on a side is
 * left out).  level: e.g. 0.95.  0, -EINVAL (n == 0 or a bad level) or
 * -ENOMEM. */
int cb_paired_ratio(const double *base, const double *head, size_t n, double level,
                    struct cb_paired *out);

/* The fewest rounds whose smallest p-value, 2 / 2^n, passes Holm's first
 * step over m cases at alpha: 2 / 2^n < alpha / m. */
int cb_paired_min_rounds(size_t m, double alpha);

#endif
