/* stepfit.c — L1 step fit with persistence (see history.h). */
#include "analysis/history.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "analysis/compare.h"

double cb_series_noise(const double *y, size_t n)
{
    if (n < 3)
        return 0;
    double *d = malloc((n - 1) * sizeof *d);
    if (!d)
        return 0;
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = fabs(y[i + 1] - y[i]);
    double m = cb_median_inplace(d, n - 1);
    free(d);
    return 1.4826 * m / sqrt(2.0);
}

/* Sum of |y - median| over y[i..j). */
static double l1_cost(const double *y, size_t i, size_t j, double *scratch, double *med)
{
    size_t n = j - i;
    memcpy(scratch, y + i, n * sizeof *scratch);
    double m = cb_median_inplace(scratch, n);
    double c = 0;
    for (size_t k = i; k < j; k++)
        c += fabs(y[k] - m);
    if (med)
        *med = m;
    return c;
}

int cb_steps_detect(const double *y, size_t n, double min_effect, size_t persist,
                    struct cb_step *out, size_t max)
{
    if (n > CB_HISTORY_MAX_POINTS || persist < 1 || !(min_effect >= 0))
        return -EINVAL;
    if (n < 2 * persist)
        return 0;
    void *blk[3];
    if (cb_alloc_all(blk, (const size_t[]){n * sizeof(double), (n + 1) * sizeof(double),
                                           (n + 1) * sizeof(size_t)}, 3) < 0)
        return -ENOMEM;
    double *scratch = blk[0], *best = blk[1];
    size_t *prev = blk[2];
    memcpy(scratch, y, n * sizeof *scratch);
    double level = fabs(cb_median_inplace(scratch, n));
    /* The penalty: a step of the minimum effect lasting `persist` points
     * must pay for itself, and noise must not. */
    double gamma = fmax(4.0 * cb_series_noise(y, n), min_effect * level * (double)persist / 2.0);
    if (!(gamma > 0))
        gamma = 1e-12;
    best[0] = 0;
    for (size_t j = 1; j <= n; j++) {
        best[j] = INFINITY;
        prev[j] = 0;
        if (j < persist)
            continue;
        for (size_t i = 0; i + persist <= j; i++) {
            if (!isfinite(best[i]))
                continue;
            double c = best[i] + l1_cost(y, i, j, scratch, NULL) + gamma;
            if (c < best[j]) {
                best[j] = c;
                prev[j] = i;
            }
        }
    }
    /* Walk back the segment starts. */
    size_t starts[CB_HISTORY_MAX_POINTS + 1], ns = 0;
    for (size_t j = n; j > 0; j = prev[j])
        starts[ns++] = prev[j];
    /* starts is reversed: segment k is [starts[ns-1-k], next start). */
    size_t nout = 0;
    for (size_t k = ns - 1; k >= 1 && nout < max; k--) {
        size_t a0 = starts[k], b0 = starts[k - 1];
        size_t b1 = k >= 2 ? starts[k - 2] : n;
        double ma, mb;
        l1_cost(y, a0, b0, scratch, &ma);
        l1_cost(y, b0, b1, scratch, &mb);
        if (ma != 0 && fabs(mb / ma - 1.0) >= min_effect)
            out[nout++] = (struct cb_step){.at = b0, .from = a0, .to = b1, .before = ma, .after = mb};
    }
    cb_free_all(blk, 3);
    return (int)nout;
}
