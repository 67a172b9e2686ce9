/* rank.c — one ranking for every report (see rank.h). */
#include "report/rank.h"

#include <math.h>
#include <string.h>

#include "harness/ranktest.h"
#include "util/dist.h"
#include "harness/stats.h"

size_t cb_rank_runs(const struct cb_report *r)
{
    return r->npeers + 1 >= CB_RANK_RUNS_MIN ? r->npeers + 1 : 1;
}

/* Runs as the unit: the paired t-test on log(a / b) over the runs that
 * measured both (the report's own, and each peer). */
static int faster_by_runs(const struct cb_report *r, const struct cb_report_case *a,
                          const struct cb_report_case *b)
{
    double d[CB_RANK_PEERS_MAX + 1], sum = 0, ss = 0;
    size_t n = 0;
    d[n++] = log(cb_rank_median(r, a) / cb_rank_median(r, b));
    for (size_t p = 0; p < r->npeers; p++)
        if (a->peer[p] > 0 && b->peer[p] > 0)
            d[n++] = log(a->peer[p] / b->peer[p]);
    for (size_t i = 0; i < n; i++)
        sum += d[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (d[i] - mean) * (d[i] - mean);
    if (n < CB_RANK_RUNS_MIN || !isfinite(mean) || !(mean <= log1p(-CB_RANK_MARGIN)))
        return 0;
    double se = sqrt(ss / (double)(n - 1) / (double)n);
    if (!(se > 0))
        return 1;   /* every run agrees exactly, beyond the margin */
    return 2 * cb_t_cdf(mean / se, (double)(n - 1)) < CB_RANK_ALPHA;
}

int cb_rank_by_time(const struct cb_report *r)
{
    return strcmp(r->cyc_source, "estimate") == 0 && r->tsc_event >= 0;
}

double cb_rank_median(const struct cb_report *r, const struct cb_report_case *c)
{
    if (!c->measured)
        return NAN;
    return cb_rank_by_time(r) ? c->tsc.median : c->cyc.median;
}

double cb_rank_shown(const struct cb_report *r, const struct cb_report_case *c)
{
    return cb_rank_by_time(r) ? c->ns_per_op : c->cyc.median;
}

const struct cb_report_series *cb_rank_series(const struct cb_report *r,
                                              const struct cb_report_case *c)
{
    int e = cb_rank_by_time(r) ? r->tsc_event : r->cyc_event;
    if (e < 0 || !c->ev || c->ev[e].n == 0)
        return NULL;
    return &c->ev[e];
}

int cb_rank_faster(const struct cb_report *r, const struct cb_report_case *a,
                   const struct cb_report_case *b)
{
    double ma = cb_rank_median(r, a), mb = cb_rank_median(r, b);
    /* Between runs, and in this run's own table too: a claim the table
     * beside it contradicts would be no claim at all. */
    if (cb_rank_runs(r) > 1 && a->peer && b->peer)
        return ma < mb && faster_by_runs(r, a, b);
    if (!(ma <= mb * (1 - CB_RANK_MARGIN)))
        return 0;
    const struct cb_report_series *x = cb_rank_series(r, a), *y = cb_rank_series(r, b);
    if (!x || !y)
        return 0;
    return cb_mw_p(x->v, x->n, y->v, y->n) < CB_RANK_ALPHA;
}

/* Measured first, then the lower rank figure (this run's: the column the
 * reader sees, so that every "best first" is monotone in it), then the
 * name. */
static int before(const struct cb_report *r, const struct cb_report_case *x,
                  const struct cb_report_case *y)
{
    if (x->measured != y->measured)
        return x->measured;
    if (x->measured) {
        double a = cb_rank_median(r, x), b = cb_rank_median(r, y);
        if (a != b)
            return a < b;
    }
    return strcmp(x->info.variant, y->info.variant) < 0;
}

int cb_rank_within_span(const struct cb_report *r, const struct cb_report_case *first,
                        const struct cb_report_case *c)
{
    double a = cb_rank_median(r, first), b = cb_rank_median(r, c);
    return a > 0 && b <= a * (1 + CB_RANK_TIE_SPAN);
}

size_t cb_rank_group(const struct cb_report *r, const struct cb_report_case **v, size_t n,
                     int *tied)
{
    /* Insertion sort: a group is a family's variants, a few dozen at most,
     * and the order needs r. */
    for (size_t i = 1; i < n; i++) {
        const struct cb_report_case *c = v[i];
        size_t j = i;
        for (; j > 0 && before(r, c, v[j - 1]); j--)
            v[j] = v[j - 1];
        v[j] = c;
    }
    size_t first = n && v[0]->measured ? 1 : 0;
    if (tied)
        memset(tied, 0, n * sizeof *tied);
    /* Each against the first, never through another: a tie cannot chain
     * (A with B, B with C, C 3x A), and spans at most CB_RANK_TIE_SPAN. */
    for (size_t k = 1; first && k < n && v[k]->measured; k++)
        if (!cb_rank_faster(r, v[0], v[k])) {
            first++;
            int t = cb_rank_within_span(r, v[0], v[k]) ? CB_RANK_TIED : CB_RANK_UNSEPARATED;
            if (tied) {
                tied[k] = t;
                if (t == CB_RANK_TIED)
                    tied[0] = CB_RANK_TIED;
            }
        }
    return first;
}
