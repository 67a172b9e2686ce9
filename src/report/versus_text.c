/* versus_text.c — one variant against another (see versus_text.h). */
#include "report/versus_text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "report/rank.h"
#include "harness/ranktest.h"
#include "analysis/sides.h"
#include "analysis/versus.h"

#define VS_LEVEL 0.05 /* the interval printed: 95% */

size_t cb_vs_collect(const struct cb_report *r, const char *key, struct cb_vs_side *s)
{
    s->r = r;
    s->n = 0;
    for (size_t k = 0; k < r->ncases && s->n < sizeof s->c / sizeof s->c[0]; k++) {
        const struct cb_report_case *c = &r->cases[k];
        char ck[CB_CASE_KEY_MAX];
        cb_case_key(ck, sizeof ck, c->info.probe, c->info.variant, c->info.size, c->info.mode);
        if (c->measured && strcmp(ck, key) == 0)
            s->c[s->n++] = c;
    }
    return s->n;
}

void cb_vs_heading(const struct cb_report *r, const char *a, const char *b, FILE *out)
{
    int t = cb_rank_by_time(r);
    fprintf(out, "\n%s against %s: ratio = %s / %s in %s, %.0f%% interval\n", a, b, b, a,
            t ? "TSC time" : cb_report_cycles_what(r), (1 - VS_LEVEL) * 100);
    fprintf(out, "  %-22s %9s %9s %6s %13s %7s %6s  %s\n", "case", t ? "A ns/op" : "A cyc/op",
            t ? "B ns/op" : "B cyc/op", "B/A", "interval", "p", "n", "verdict");
}

/* All samples of a side's cases pooled: the rank figure's per-op values. */
static size_t pooled(const struct cb_vs_side *s, double **out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const struct cb_report_series *x = cb_rank_series(s->r, s->c[i]);
        if (!x || cb_grow((void **)out, &cap, n + x->n, 64, sizeof **out) < 0)
            continue;
        memcpy(*out + n, x->v, x->n * sizeof **out);
        n += x->n;
    }
    return n;
}

/* Paired by round when both sides are the same run's rounds (a race: one
 * case per variant per round, stored in round order); pooled otherwise. */
static int compute(const struct cb_vs_side *a, const struct cb_vs_side *b, struct cb_versus *v)
{
    if (a->r == b->r && a->n > 1 && a->n == b->n) {
        double x[64], y[64];
        for (size_t i = 0; i < a->n; i++) {
            x[i] = cb_rank_median(a->r, a->c[i]);
            y[i] = cb_rank_median(b->r, b->c[i]);
        }
        int rc = cb_versus_paired(x, y, a->n, VS_LEVEL, v);
        /* The verdict is race's: the exact rank test over the round
         * medians.  The sign test's smallest p at 6 rounds is 2/64, so it
         * would call a 2x difference a tie where race is confident. */
        if (rc == 0)
            v->p = cb_mw_p(x, a->n, y, b->n);
        return rc;
    }
    double *x, *y;
    size_t nx = pooled(a, &x), ny = pooled(b, &y);
    int rc = cb_versus_unpaired(x, nx, y, ny, VS_LEVEL, v);
    free(x);
    free(y);
    return rc;
}

/* The ranking's rule (rank.h), on this comparison's p and ratio. */
static const char *verdict(const struct cb_versus *v)
{
    if (!(v->p < CB_RANK_ALPHA))
        return "tie (noise)";
    if (v->ratio * (1 - CB_RANK_MARGIN) >= 1)
        return "A faster";
    if (v->ratio <= 1 - CB_RANK_MARGIN)
        return "B faster";
    return "tie (close)";
}

static double side_median(const struct cb_vs_side *s)
{
    double m[64];
    for (size_t i = 0; i < s->n; i++)
        m[i] = cb_rank_shown(s->r, s->c[i]);
    cb_sort_doubles(m, s->n);
    return cb_quantile_sorted(m, s->n, 0.5);
}

int cb_vs_line(const struct cb_vs_side *a, const struct cb_vs_side *b, FILE *out)
{
    struct cb_versus v;
    const struct cb_case_info *g = &a->c[0]->info;
    char sz[32], name[96];
    snprintf(name, sizeof name, "%s %s %s", g->probe, cb_fmt_size(g->size, g->unit, sz, sizeof sz),
             g->mode);
    int rc = compute(a, b, &v);
    if (rc < 0) {
        fprintf(out, "  %-22.22s no ratio: %s\n", name, strerror(-rc));
        return rc;
    }
    char iv[40], n[24];
    snprintf(iv, sizeof iv, "%.3f-%.3f%s", v.lo, v.hi, v.bounded ? "" : "!");
    if (v.paired)
        snprintf(n, sizeof n, "%zur", v.na);
    else
        snprintf(n, sizeof n, "%zu/%zu", v.na, v.nb);
    fprintf(out, "  %-22.22s %9.2f %9.2f %6.3f %13s %7.2g %6s  %s\n", name, side_median(a),
            side_median(b), v.ratio, iv, v.p, n, verdict(&v));
    return 0;
}

/* 1 when an earlier case of r has c's probe, size and mode (the group was
 * already shown). */
static int seen(const struct cb_report *r, size_t k)
{
    const struct cb_case_info *c = &r->cases[k].info;
    for (size_t j = 0; j < k; j++) {
        const struct cb_case_info *d = &r->cases[j].info;
        if (!strcmp(c->probe, d->probe) && c->size == d->size && !strcmp(c->mode, d->mode))
            return 1;
    }
    return 0;
}

int cb_report_versus_text(const struct cb_report *r, const char *a, const char *b, FILE *out)
{
    size_t lines = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_case_info *c = &r->cases[k].info;
        if (seen(r, k))
            continue;
        char ka[CB_CASE_KEY_MAX], kb[CB_CASE_KEY_MAX];
        cb_case_key(ka, sizeof ka, c->probe, a, c->size, c->mode);
        cb_case_key(kb, sizeof kb, c->probe, b, c->size, c->mode);
        struct cb_vs_side sa, sb;
        if (!cb_vs_collect(r, ka, &sa) || !cb_vs_collect(r, kb, &sb))
            continue;
        if (!lines++)
            cb_vs_heading(r, a, b, out);
        cb_vs_line(&sa, &sb, out);
    }
    if (!lines) {
        fprintf(out, "\n--versus %s,%s: run %lld measured no probe, size and mode with both\n", a,
                b, (long long)r->run.id);
        return -ENOENT;
    }
    fprintf(out, "  A = %s, B = %s; n = samples A/B, or Nr: paired by round (a race).\n"
                 "  faster: p < %.2g (exact rank test, over round medians when paired) and %.0f%% apart, "
                 "as the\n  report ranks; close = under %.0f%%; ! = too few samples for a %.0f%% "
                 "interval (the full range)\n",
            a, b, CB_RANK_ALPHA, CB_RANK_MARGIN * 100, CB_RANK_MARGIN * 100,
            (1 - VS_LEVEL) * 100);
    return 0;
}
