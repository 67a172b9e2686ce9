/* paired.h — the paired verdict of `ab`: two builds timed round by round.
 *
 * ab measures each case of BASE and HEAD in the same round, one after the
 * other (ABBA order), in one process on one CPU.  Whatever the machine does
 * between rounds (the host's placement of the vCPU, the page placement of a
 * cold set, the clock) hits both sides of a round alike, so the unit is the
 * round's ratio head/base, not a sample: samples within a round share its
 * state and are not independent of it (issue 31, Kalibera and Jones).
 *
 * The test is the exact sign-flip (permutation) test of the mean log-ratio:
 * under "no change" each round's log-ratio is as likely to be d as -d,
 * which needs neither normality nor equal spreads, and whose smallest
 * p-value, 2 / 2^n, says how many rounds a suite needs.  The interval is
 * Student's t on the log-ratios, exponentiated: a ratio's, asymmetric. */
#ifndef CB_PAIRED_H
#define CB_PAIRED_H

#include <stddef.h>
#include <stdint.h>

/* Rounds up to this many are tested exactly (2^n sign patterns); more are
 * tested on CB_PAIRED_DRAWS seeded random patterns. */
#define CB_PAIRED_EXACT_MAX 22
#define CB_PAIRED_DRAWS (1u << 20)

struct cb_paired {
    size_t n;                 /* rounds with a positive value on both sides */
    double ratio;             /* geometric mean of head/base over the rounds */
    double lo, hi;            /* its interval at the level asked for; NAN when n < 2 */
    double p;                 /* two-sided p-value of "no change"; NAN when n < 2 */
};

/* Two-sided p-value of the sign-flip test of mean(d) = 0: the share of the
 * 2^n sign patterns whose |sum| is at least |sum(d)| (with a relative
 * tolerance for rounding).  Exact up to CB_PAIRED_EXACT_MAX values, then a
 * seeded draw.  NAN when n == 0. */
double cb_sign_flip_p(const double *d, size_t n);

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
