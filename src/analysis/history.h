/* history.h — where in a series of commits did a case's cost step?
 *
 * Per-commit medians are noisy, and a tracker that alerts on every wiggle
 * is soon ignored.  A step here is a change point of an L1 step fit (as
 * asv does it): the series is cut into segments, each summarised by its
 * median, minimising the sum of absolute deviations plus a penalty per
 * segment, found exactly by dynamic programming.  Two rules keep noise out:
 * every segment must span at least `persist` commits (so one odd point is
 * never a step, and the newest commit needs company before it alerts), and
 * a step must change the median by at least min_effect. */
#ifndef CB_HISTORY_H
#define CB_HISTORY_H

#include <stddef.h>

struct cb_step {
    size_t at;             /* index of the first point after the step */
    size_t from;           /* first index of the segment before it */
    size_t to;             /* one past the last index of the segment after it */
    double before, after;  /* the two segments' medians */
};

/* The robust noise scale of a series: 1.4826 x the median absolute
 * difference of neighbours / sqrt 2 (a step moves one difference only). */
double cb_series_noise(const double *y, size_t n);

/* Steps of y[0..n) (n <= CB_HISTORY_MAX_POINTS), at most max into out, in
 * order.  Returns how many, or -EINVAL / -ENOMEM. */
#define CB_HISTORY_MAX_POINTS 2000
int cb_steps_detect(const double *y, size_t n, double min_effect, size_t persist,
                    struct cb_step *out, size_t max);

#endif
