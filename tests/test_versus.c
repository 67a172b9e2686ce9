/* test_versus.c — a variant against another: the ratio and its interval
 * against values worked out by hand from the pairwise ratios and the
 * exact distributions (U at 5 vs 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3)
 * = 7/252, so the 95% interval is the 3rd smallest and 3rd largest of the
 * 25 pairwise ratios; Binomial(6, 1/2): P(X <= 0) = 1/64 <= 0.025 < 7/64,
 * so the paired interval is the smallest and largest of 6 ratios). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tap.h"
#include "analysis/versus.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    double a[] = {10, 11, 12, 13, 14}, b[] = {21, 20, 26, 24, 30};
    double r[25];
    int k = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            r[k++] = b[j] / a[i];
    qsort(r, 25, sizeof *r, cmp);
    struct cb_versus v;
    is_int(cb_versus_unpaired(a, 5, b, 5, 0.05, &v), 0, "unpaired 5 vs 5");
    is_near(v.ratio, r[12], 1e-12, "the ratio is the median pairwise ratio (%.4f)", r[12]);
    is_near(v.lo, r[2], 1e-12, "95%% interval low = 3rd smallest pairwise ratio");
    is_near(v.hi, r[22], 1e-12, "95%% interval high = 3rd largest");
    ok(v.bounded && !v.paired, "bounded, not paired");
    is_near(v.p, 2.0 / 252, 1e-12, "p = 2/252: every b above every a");
    is_int(cb_versus_unpaired(a, 3, b, 2, 0.05, &v), 0, "3 vs 2");
    ok(!v.bounded, "3 vs 2 cannot give a 95%% interval: said, the full range given");
    double zero[] = {0, 1};
    is_int(cb_versus_unpaired(zero, 2, b, 2, 0.05, &v), -EINVAL, "a cost of 0 has no ratio");

    double pa[] = {10, 10, 10, 10, 10, 10}, pb[] = {11, 12, 13, 9, 14, 15};
    is_int(cb_versus_paired(pa, pb, 6, 0.05, &v), 0, "paired, 6 rounds");
    is_near(v.ratio, 1.25, 1e-12, "median of the ratios 0.9 1.1 1.2 1.3 1.4 1.5");
    is_near(v.lo, 0.9, 1e-12, "interval low: the smallest ratio");
    is_near(v.hi, 1.5, 1e-12, "interval high: the largest");
    is_near(v.p, 14.0 / 64, 1e-12, "sign test: 5 up, 1 down: p = 2 x 7/64");
    ok(v.paired && v.bounded, "paired and bounded");
    return tap_done();
}
