/* report_html.c — one self-contained HTML page per report.
 *
 * Template, style sheet and script come from reports/ (embedded, assets.h);
 * the charts are inline SVG drawn here, so the page opens from disk and
 * makes no request (its Content-Security-Policy forbids every fetch).  Every
 * string that came from outside goes through cb_html_esc.  Views, per run:
 * header and counter sources, budget bars, throughput curves, noise, counter
 * breakdown, slab and rx_prefetch views, and the full sortable table. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "report.h"

const char *cb_asset_find(const char *name)
{
    for (size_t i = 0; i < cb_nassets; i++)
        if (strcmp(cb_assets[i].name, name) == 0)
            return cb_assets[i].text;
    return NULL;
}

static const char *const palette[] = {
    "#2f6fd0", "#e4572e", "#29a36a", "#9c55c9", "#d99a00", "#17a2b8",
    "#c2408d", "#6b7f2a", "#8c564b", "#5a6fa8", "#e07b91", "#3b3b3b",
};
#define NPAL (sizeof palette / sizeof palette[0])

/* Fit colours: 100G, 40G, 10G, over every budget. */
static const char *const fitcol[] = {"#1a9850", "#74c476", "#f0b429", "#d73027"};

static void fnum(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("–", out);
    else if (fabs(v) >= 1e6)
        fprintf(out, "%.3g", v);
    else if (fabs(v) >= 100)
        fprintf(out, "%.0f", v);
    else if (fabs(v) >= 10)
        fprintf(out, "%.1f", v);
    else
        fprintf(out, "%.2f", v);
}

/* A table cell that sorts by value: data-v carries the number. */
static void tdnum(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("<td class=\"num\" data-v=\"\">–</td>", out);
    else {
        fprintf(out, "<td class=\"num\" data-v=\"%.9g\">", v);
        fnum(out, v);
        fputs("</td>", out);
    }
}

static void tdtext(FILE *out, const char *s)
{
    fputs("<td>", out);
    cb_html_esc(out, s);
    fputs("</td>", out);
}

static int same_group(const struct cb_report_case *a, const struct cb_report_case *b)
{
    return strcmp(a->info.probe, b->info.probe) == 0 && a->info.size == b->info.size &&
           strcmp(a->info.mode, b->info.mode) == 0;
}

static int cmp_median(const void *a, const void *b)
{
    const struct cb_report_case *x = *(const struct cb_report_case *const *)a;
    const struct cb_report_case *y = *(const struct cb_report_case *const *)b;
    if (x->cyc.median != y->cyc.median)
        return x->cyc.median < y->cyc.median ? -1 : 1;
    return strcmp(x->info.variant, y->info.variant);
}

/* ---- scales -------------------------------------------------------------- */

struct scale {
    double d0, d1;     /* domain */
    double r0, r1;     /* range, pixels */
    int log;
};

static double sx(const struct scale *s, double v)
{
    double t;
    if (s->log) {
        if (v < s->d0)
            v = s->d0;
        t = (log10(v) - log10(s->d0)) / (log10(s->d1) - log10(s->d0));
    } else {
        t = (v - s->d0) / (s->d1 - s->d0);
    }
    if (t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    return s->r0 + t * (s->r1 - s->r0);
}

/* A "nice" step for about n ticks over span. */
static double nice_step(double span, int n)
{
    double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

static void size_label(FILE *out, uint64_t size, const char *unit)
{
    char b[32];
    cb_html_esc(out, cb_fmt_size(size, unit, b, sizeof b));
}

/* ---- budget view --------------------------------------------------------- */

static void budget_chart(FILE *out, const struct cb_report *r, const struct cb_report_case **v,
                         size_t n)
{
    const double gb[3] = {10, 40, 100};
    double bud[3];
    for (int i = 0; i < 3; i++)
        bud[i] = cb_report_budget_cycles(r, gb[i]);
    double lo = bud[2] > 0 ? bud[2] : 1, hi = bud[0] > 0 ? bud[0] : 10;
    for (size_t k = 0; k < n; k++) {
        if (v[k]->cyc.median > 0 && v[k]->cyc.median < lo)
            lo = v[k]->cyc.median;
        if (v[k]->cyc.median > hi)
            hi = v[k]->cyc.median;
    }
    struct scale s = {pow(10, floor(log10(lo / 1.3))), pow(10, ceil(log10(hi * 1.15))), 160, 520, 1};
    const int row = 18, top = 22, h = top + (int)n * row + 24, w = 560;
    fprintf(out, "<svg class=\"chart budget\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
    for (double t = s.d0; t <= s.d1 * 1.0001; t *= 10) {
        double x = sx(&s, t);
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, top - 4, h - 20);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>", x, h - 6, t);
    }
    for (size_t k = 0; k < n; k++) {
        const struct cb_report_case *c = v[k];
        double m = c->cyc.median, y = top + (double)k * row;
        int fit = m <= bud[2] ? 0 : m <= bud[1] ? 1 : m <= bud[0] ? 2 : 3;
        fprintf(out, "<text class=\"lab\" x=\"154\" y=\"%.1f\" text-anchor=\"end\">", y + 12);
        cb_html_esc(out, c->info.variant);
        fputs("</text>", out);
        double x1 = sx(&s, m);
        fprintf(out, "<rect x=\"160\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\">"
                "<title>", y + 2, x1 - 160 > 1 ? x1 - 160 : 1, row - 5, fitcol[fit]);
        cb_html_esc(out, c->info.variant);
        fprintf(out, ": %.1f cycles/op (median of %zu)</title></rect>", m, c->cyc.n);
        fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">", x1 + 4, y + 12);
        fnum(out, m);
        fputs("</text>", out);
    }
    static const char *const names[3] = {"10G", "40G", "100G"};
    for (int i = 0; i < 3; i++) {
        if (!(bud[i] > 0))
            continue;
        double x = sx(&s, bud[i]);
        fprintf(out, "<line class=\"bud\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>%s budget: %.1f cycles per 64-byte packet</title></line>",
                fitcol[i == 0 ? 2 : i == 1 ? 1 : 0], x, x, top - 6, h - 20, names[i], bud[i]);
        fprintf(out, "<text class=\"bl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x, top - 9, names[i]);
    }
    fputs("</svg>", out);
}

static void budget_view(FILE *out, const struct cb_report *r, const struct cb_report_case **v)
{
    fputs("<h2 id=\"budget-", out);
    fprintf(out, "%" PRId64 "\">Budget view</h2>", r->run.id);
    fprintf(out, "<p class=\"lead\">Median cycles per operation for each variant, best first, on a "
                 "log scale. Dashed lines: the per-packet budget of 64-byte frames at 10, 40 and "
                 "100 Gbit/s (%.0f, %.0f and %.0f cycles at %.2f GHz).</p>",
            cb_report_budget_cycles(r, 10), cb_report_budget_cycles(r, 40),
            cb_report_budget_cycles(r, 100), r->core_ghz);
    fprintf(out, "<div class=\"key\"><span><i style=\"background:%s\"></i>fits 100G</span>"
                 "<span><i style=\"background:%s\"></i>fits 40G</span><span><i style=\"background:%s\">"
                 "</i>fits 10G</span><span><i style=\"background:%s\"></i>over every budget</span></div>",
            fitcol[0], fitcol[1], fitcol[2], fitcol[3]);
    fputs("<div class=\"grid\">", out);
    for (size_t i = 0; i < r->ncases;) {
        size_t j = i, n = 0;
        while (j < r->ncases && same_group(&r->cases[i], &r->cases[j])) {
            if (r->cases[j].measured)
                v[n++] = &r->cases[j];
            j++;
        }
        if (n) {
            qsort(v, n, sizeof *v, cmp_median);
            const struct cb_case_info *g = &r->cases[i].info;
            fputs("<div class=\"card\"><h3>", out);
            cb_html_esc(out, g->probe);
            fputs(" · ", out);
            size_label(out, g->size, g->unit);
            fputs(" · ", out);
            cb_html_esc(out, g->mode);
            fputs(" <span class=\"pill\">cycles per ", out);
            cb_html_esc(out, g->op);
            fputs("</span></h3>", out);
            budget_chart(out, r, v, n);
            fputs("</div>", out);
        }
        i = j;
    }
    fputs("</div>", out);
}

/* ---- line charts (throughput, slab) --------------------------------------- */

struct line_pt {
    double x, y;
    const struct cb_report_case *c;
};
struct line {
    char name[96];
    struct line_pt pt[64];
    size_t n;
};

static void line_chart(FILE *out, const struct line *ls, size_t nl, const char *xlabel,
                       const char *ylabel, int xlog2)
{
    double x0 = INFINITY, x1 = -INFINITY, y1 = 0;
    for (size_t l = 0; l < nl; l++)
        for (size_t i = 0; i < ls[l].n; i++) {
            x0 = fmin(x0, ls[l].pt[i].x);
            x1 = fmax(x1, ls[l].pt[i].x);
            y1 = fmax(y1, ls[l].pt[i].y);
        }
    if (!(x1 >= x0) || !(y1 > 0))
        y1 = 1;
    if (!(x1 > x0)) {
        x0 = x0 > 1 ? x0 / 2 : 0.5;
        x1 = x1 > 0 ? x1 * 2 : 2;
    }
    const int w = 560, h = 280, L = 56, R = 16, T = 12, B = 40;
    double step = nice_step(y1 * 1.05, 5);
    y1 = ceil(y1 * 1.05 / step) * step;
    struct scale sxs = {x0, x1, L, w - R, 1}, sys = {0, y1, h - B, T, 0};
    fprintf(out, "<svg class=\"chart lines\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
    for (double t = 0; t <= y1 + step / 2; t += step) {
        double y = sx(&sys, t);
        fprintf(out, "<line class=\"gl\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", L, w - R, y, y);
        fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>", L - 5, y + 4, t);
    }
    /* x ticks at the powers of two (sizes) or of ten that fall inside. */
    double base = xlog2 ? 2 : 10;
    int every = xlog2 && log2(x1 / x0) > 12 ? 2 : 1, idx = 0;
    for (double t = pow(base, ceil(log(x0) / log(base) - 1e-9)); t <= x1 * 1.0001; t *= base, idx++) {
        if (idx % every)
            continue;
        double x = sx(&sxs, t);
        char b[32];
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, T, h - B);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x,
                h - B + 14, xlog2 ? cb_fmt_size((uint64_t)t, "B", b, sizeof b) : (snprintf(b, sizeof b, "%g", t), b));
    }
    fprintf(out, "<line class=\"ax\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", L, w - R, h - B, h - B);
    fprintf(out, "<text class=\"lab\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>", (L + w - R) / 2, h - 6, xlabel);
    fprintf(out, "<text class=\"lab\" transform=\"translate(13 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>", (T + h - B) / 2, ylabel);
    for (size_t l = 0; l < nl; l++) {
        const char *col = palette[l % NPAL];
        if (ls[l].n > 1) {
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
            for (size_t i = 0; i < ls[l].n; i++)
                fprintf(out, "%s%.1f,%.1f", i ? " " : "", sx(&sxs, ls[l].pt[i].x), sx(&sys, ls[l].pt[i].y));
            fputs("\"/>", out);
        }
        for (size_t i = 0; i < ls[l].n; i++) {
            fprintf(out, "<circle r=\"3\" fill=\"%s\" cx=\"%.1f\" cy=\"%.1f\"><title>", col,
                    sx(&sxs, ls[l].pt[i].x), sx(&sys, ls[l].pt[i].y));
            cb_html_esc(out, ls[l].name);
            fprintf(out, " at %g: %.3g</title></circle>", ls[l].pt[i].x, ls[l].pt[i].y);
        }
    }
    fputs("</svg><div class=\"legend\">", out);
    for (size_t l = 0; l < nl; l++) {
        fprintf(out, "<span style=\"--c:%s\">", palette[l % NPAL]);
        cb_html_esc(out, ls[l].name);
        fputs("</span>", out);
    }
    fputs("</div>", out);
}

static struct line *line_for(struct line *ls, size_t *nl, size_t max, const char *name)
{
    for (size_t l = 0; l < *nl; l++)
        if (strcmp(ls[l].name, name) == 0)
            return &ls[l];
    if (*nl == max)
        return NULL;
    struct line *l = &ls[(*nl)++];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->n = 0;
    return l;
}

static void add_pt(struct line *l, double x, double y, const struct cb_report_case *c)
{
    if (!l || l->n == sizeof l->pt / sizeof l->pt[0])
        return;
    size_t i = l->n++;
    while (i > 0 && l->pt[i - 1].x > x) {  /* keep x ascending */
        l->pt[i] = l->pt[i - 1];
        i--;
    }
    l->pt[i] = (struct line_pt){x, y, c};
}

#define MAXLINES 24

static int throughput_view(FILE *out, const struct cb_report *r, struct line *ls)
{
    static const char *const fams[] = {"csum", "copy", "csum_copy", "memset"};
    int any = 0;
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        int have = 0;
        for (size_t k = 0; k < r->ncases && !have; k++)
            have = strcmp(r->cases[k].info.probe, fams[f]) == 0 && !isnan(cb_report_bpc(&r->cases[k]));
        if (!have)
            continue;
        if (!any)
            fprintf(out, "<h2 id=\"throughput-%" PRId64 "\">Throughput</h2><p class=\"lead\">Bytes per "
                         "cycle against size (log scale), one line per variant; warm (data in "
                         "cache) and cold (working set beyond the last-level cache) side by side. "
                         "Higher is better.</p>",
                    r->run.id);
        any = 1;
        fprintf(out, "<h3>%s</h3><div class=\"grid\">", fams[f]);
        for (int m = 0; m < 2; m++) {
            const char *mode = m ? "cold" : "warm";
            size_t nl = 0;
            for (size_t k = 0; k < r->ncases; k++) {
                const struct cb_report_case *c = &r->cases[k];
                double b = cb_report_bpc(c);
                if (strcmp(c->info.probe, fams[f]) || strcmp(c->info.mode, mode) || isnan(b))
                    continue;
                add_pt(line_for(ls, &nl, MAXLINES, c->info.variant), (double)c->info.size, b, c);
            }
            if (!nl)
                continue;
            fprintf(out, "<div class=\"card\"><h3>%s · %s</h3>", fams[f], mode);
            line_chart(out, ls, nl, "size (bytes, log scale)", "bytes per cycle", 1);
            fputs("</div>", out);
        }
        fputs("</div>", out);
    }
    return any;
}

/* slab: cycles per object against the bulk size, one line per object size and mode. */
static void slab_view(FILE *out, const struct cb_report *r, struct line *ls)
{
    size_t nl = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        unsigned bulk;
        if (strcmp(c->info.probe, "slab") || !c->measured)
            continue;
        if (sscanf(c->info.variant, "bulk-%u", &bulk) != 1)
            continue;
        char name[64], sz[32];
        snprintf(name, sizeof name, "%s objects, %s", cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz),
                 c->info.mode);
        add_pt(line_for(ls, &nl, MAXLINES, name), bulk, c->cyc.median, c);
    }
    if (!nl)
        return;
    fprintf(out, "<h2 id=\"slab-%" PRId64 "\">slab: cycles per object against bulk size</h2>"
                 "<p class=\"lead\">kmem_cache_alloc_bulk/free_bulk shape: the cost of one "
                 "alloc+free, per object, as the bulk grows. The single and slowpath variants are in "
                 "the table below.</p><div class=\"grid\"><div class=\"card\"><h3>slab · bulk alloc+free</h3>",
            r->run.id);
    line_chart(out, ls, nl, "objects per bulk call (log scale)", "cycles per object", 0);
    fputs("</div></div>", out);
}

/* rx_prefetch: cycles per packet for each prefetch-point combination, with
 * the no-prefetch loop as the line to beat. */
static void rx_view(FILE *out, const struct cb_report *r, const struct cb_report_case **v)
{
    int head = 0;
    for (size_t i = 0; i < r->ncases;) {
        size_t j = i, n = 0;
        while (j < r->ncases && same_group(&r->cases[i], &r->cases[j])) {
            if (r->cases[j].measured && strcmp(r->cases[j].info.probe, "rx_prefetch") == 0)
                v[n++] = &r->cases[j];
            j++;
        }
        if (!n) {
            i = j;
            continue;
        }
        if (!head)
            fprintf(out, "<h2 id=\"rx-%" PRId64 "\">rx_prefetch: cycles per packet by prefetch points</h2>"
                         "<p class=\"lead\">The e1000 RX clean loop with each combination of "
                         "prefetch points, best first. The dashed line is the loop without "
                         "prefetch (<code>none</code>); the figure after each bar is the change "
                         "against it.</p><div class=\"grid\">",
                    r->run.id);
        head = 1;
        qsort(v, n, sizeof *v, cmp_median);
        double base = NAN, hi = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(v[k]->info.variant, "none") == 0)
                base = v[k]->cyc.median;
            hi = fmax(hi, v[k]->cyc.median);
        }
        const struct cb_case_info *g = &v[0]->info;
        fputs("<div class=\"card\"><h3>rx_prefetch · ", out);
        size_label(out, g->size, g->unit);
        fputs(" · ", out);
        cb_html_esc(out, g->mode);
        fputs(" <span class=\"pill\">cycles per packet</span></h3>", out);
        const int row = 16, top = 8, w = 560, h = top + (int)n * row + 24;
        double step = nice_step(hi * 1.1, 5);
        struct scale s = {0, ceil(hi * 1.1 / step) * step, 170, 480, 0};
        fprintf(out, "<svg class=\"chart rx\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
        for (double t = 0; t <= s.d1 + step / 2; t += step) {
            double x = sx(&s, t);
            fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, top, h - 20);
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>", x, h - 6, t);
        }
        for (size_t k = 0; k < n; k++) {
            double m = v[k]->cyc.median, y = top + (double)k * row, x1 = sx(&s, m);
            fprintf(out, "<text class=\"lab\" x=\"164\" y=\"%.1f\" text-anchor=\"end\">", y + 11);
            cb_html_esc(out, v[k]->info.variant);
            fprintf(out, "</text><rect x=\"170\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"><title>",
                    y + 2, fmax(x1 - 170, 1), row - 4,
                    isnan(base) ? palette[0] : m < base ? fitcol[0] : m > base ? fitcol[3] : "#888");
            cb_html_esc(out, v[k]->info.variant);
            fprintf(out, ": %.1f cycles/packet</title></rect><text class=\"val\" x=\"%.1f\" y=\"%.1f\">", m, x1 + 4, y + 11);
            fnum(out, m);
            if (!isnan(base) && base > 0 && strcmp(v[k]->info.variant, "none"))
                fprintf(out, " (%+.0f%%)", (m / base - 1) * 100);
            fputs("</text>", out);
        }
        if (!isnan(base)) {
            double x = sx(&s, base);
            fprintf(out, "<line class=\"bud\" stroke=\"#555\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, top, h - 20);
        }
        fputs("</svg></div>", out);
        i = j;
    }
    if (head)
        fputs("</div>", out);
}

/* ---- noise ----------------------------------------------------------------- */

/* Each case's samples as deviation from its own median, in %: a box for the
 * quartiles, whiskers to min and max, a dot per sample (at most 60, evenly
 * picked), so cases of any size compare on one axis. */
static void noise_view(FILE *out, const struct cb_report *r)
{
    if (r->cyc_event < 0)
        return;
    fprintf(out, "<h2 id=\"noise-%" PRId64 "\">Noise</h2><p class=\"lead\">Every sample of each "
                 "case as its deviation from the case's median (%%), box = quartiles, whiskers = "
                 "min and max, clipped at the axis ends (marked ›). Spread = IQR / median.</p>"
                 "<div class=\"grid\">",
            r->run.id);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < r->ncases;) {
            /* one card per probe and mode */
            size_t j = i;
            while (j < r->ncases && strcmp(r->cases[j].info.probe, r->cases[i].info.probe) == 0)
                j++;
            const char *mode = pass ? "cold" : "warm";
            size_t n = 0;
            double lim = 5;
            for (size_t k = i; k < j; k++) {
                const struct cb_report_case *c = &r->cases[k];
                if (!c->measured || strcmp(c->info.mode, mode) || !(c->cyc.median > 0))
                    continue;
                n++;
                lim = fmax(lim, fmax((c->cyc.max / c->cyc.median - 1) * 100,
                                     (1 - c->cyc.min / c->cyc.median) * 100));
            }
            if (!n) {
                i = j;
                continue;
            }
            lim = fmin(lim, 50);
            double step = nice_step(lim, 2);
            lim = ceil(lim / step) * step;
            const int row = 14, top = 8, w = 560, h = top + (int)n * row + 24;
            struct scale s = {-lim, lim, 200, 470, 0};
            fputs("<div class=\"card\"><h3>", out);
            cb_html_esc(out, r->cases[i].info.probe);
            fprintf(out, " · %s</h3>", mode);
            fprintf(out, "<svg class=\"chart noise\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
            for (double t = -lim; t <= lim + step / 2; t += step) {
                double x = sx(&s, t);
                fprintf(out, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>",
                        fabs(t) < step / 2 ? "ax" : "gl", x, x, top, h - 20);
                fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%+g%%</text>",
                        x, h - 6, fabs(t) < step / 2 ? 0.0 : t);
            }
            size_t rowi = 0;
            for (size_t k = i; k < j; k++) {
                const struct cb_report_case *c = &r->cases[k];
                if (!c->measured || strcmp(c->info.mode, mode) || !(c->cyc.median > 0))
                    continue;
                double med = c->cyc.median, y = top + (double)rowi++ * row + row / 2.0;
#define DEV(v) sx(&s, ((v) / med - 1) * 100)
                fprintf(out, "<text class=\"lab\" x=\"194\" y=\"%.1f\" text-anchor=\"end\">", y + 4);
                size_label(out, c->info.size, c->info.unit);
                fputs(" ", out);
                cb_html_esc(out, c->info.variant);
                fprintf(out, "</text><line stroke=\"#888\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                        DEV(c->cyc.min), DEV(c->cyc.max), y, y);
                fprintf(out, "<rect fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>",
                        palette[0], palette[0], DEV(c->cyc.p25), y - 5, fmax(DEV(c->cyc.p75) - DEV(c->cyc.p25), 1), 10);
                cb_html_esc(out, c->info.variant);
                fprintf(out, ": median %.1f, IQR %.1f..%.1f, min %.1f, max %.1f, n %zu</title></rect>",
                        med, c->cyc.p25, c->cyc.p75, c->cyc.min, c->cyc.max, c->cyc.n);
                const struct cb_report_series *se = &c->ev[r->cyc_event];
                size_t every = se->n > 60 ? (se->n + 59) / 60 : 1;
                for (size_t q = 0; q < se->n; q += every)
                    fprintf(out, "<circle r=\"1.6\" fill=\"#333\" fill-opacity=\"0.55\" cx=\"%.1f\" cy=\"%.1f\"/>",
                            DEV(se->v[q]), y + ((q * 7) % 5 - 2.0));
                if ((c->cyc.max / med - 1) * 100 > lim)
                    fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">›</text>", s.r1 + 2, y + 4);
                fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%.1f%%</text>", s.r1 + 14, y + 4,
                        c->cyc.spread_pct);
#undef DEV
            }
            fputs("</svg></div>", out);
            i = j;
        }
    }
    fputs("</div>", out);
}

/* ---- tables -------------------------------------------------------------------- */

static int is_cycle_part(const struct cb_report *r, size_t e)
{
    return (int)e == r->cyc_event || (int)e == r->tsc_event ||
           strcmp(r->events[e].part, "cycles-est") == 0 || strcmp(r->events[e].part, "cycles") == 0;
}

static void counters_view(FILE *out, const struct cb_report *r)
{
    fprintf(out, "<h2 id=\"counters-%" PRId64 "\">Counter breakdown per operation</h2>", r->run.id);
    int ins = cb_report_event(r, "instructions"), any = 0;
    for (size_t e = 0; e < r->nevents; e++)
        any |= r->events[e].supported && !is_cycle_part(r, e);
    if (!any) {
        fputs("<p class=\"note\">Nothing beyond cycles and the TSC was counted in this run.", out);
        for (size_t e = 0; e < r->nevents; e++)
            if (!r->events[e].supported) {
                fputs(" <code>", out);
                cb_html_esc(out, r->events[e].part);
                fputs("</code>: ", out);
                cb_html_esc(out, r->events[e].why);
                fputs(".", out);
            }
        fputs("</p>", out);
        return;
    }
    fputs("<p class=\"lead\">Median per operation of every event that was counted (cache misses, "
          "ineffective prefetches, instructions ...). Unsupported events are not shown as zero: "
          "they are listed under the sources above.</p><div class=\"tablewrap\"><table class=\"sortable counters\">"
          "<thead><tr><th>probe</th><th>variant</th><th class=\"num\">size</th><th>mode</th><th class=\"num\">cycles/op</th>",
          out);
    for (size_t e = 0; e < r->nevents; e++)
        if (r->events[e].supported && !is_cycle_part(r, e)) {
            fputs("<th class=\"num\">", out);
            cb_html_esc(out, r->events[e].part);
            fputs("/op</th>", out);
        }
    if (ins >= 0)
        fprintf(out, "<th class=\"num\">IPC%s</th>", strcmp(r->cyc_source, "pmu") ? " (est. cycles)" : "");
    fputs("</tr></thead><tbody>", out);
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!c->measured)
            continue;
        fputs("<tr>", out);
        tdtext(out, c->info.probe);
        tdtext(out, c->info.variant);
        fprintf(out, "<td class=\"num\" data-v=\"%" PRIu64 "\">", c->info.size);
        size_label(out, c->info.size, c->info.unit);
        fputs("</td>", out);
        tdtext(out, c->info.mode);
        tdnum(out, c->cyc.median);
        for (size_t e = 0; e < r->nevents; e++)
            if (r->events[e].supported && !is_cycle_part(r, e))
                tdnum(out, c->ev_median[e]);
        if (ins >= 0)
            tdnum(out, c->cyc.median > 0 ? c->ev_median[ins] / c->cyc.median : NAN);
        fputs("</tr>", out);
    }
    fputs("</tbody></table></div>", out);
}

static void cases_table(FILE *out, const struct cb_report *r)
{
    double b10 = cb_report_budget_cycles(r, 10);
    fprintf(out, "<h2 id=\"cases-%" PRId64 "\">All cases</h2><p class=\"lead\">Click a header to "
                 "sort. Cycles are %s.</p><div class=\"tablewrap\"><table class=\"sortable cases\">"
                 "<thead><tr><th>probe</th><th>variant</th><th class=\"num\">size</th><th>mode</th>"
                 "<th class=\"num\">cycles/op</th><th class=\"num\">min</th><th class=\"num\">p25</th>"
                 "<th class=\"num\">p75</th><th class=\"num\">spread %%</th><th class=\"num\">B/cycle</th>"
                 "<th class=\"num\">ns/op</th><th class=\"num\">10G budget %%</th><th class=\"num\">n</th>"
                 "<th>verdict</th></tr></thead><tbody>",
            r->run.id, strcmp(r->cyc_source, "pmu") == 0 ? "PMU core cycles"
                       : strcmp(r->cyc_source, "estimate") == 0 ? "ESTIMATED core cycles"
                                                                : "TSC reference cycles");
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        const struct cb_summary *s = &c->cyc;
        double nan = NAN;
        fputs("<tr>", out);
        tdtext(out, c->info.probe);
        tdtext(out, c->info.variant);
        fprintf(out, "<td class=\"num\" data-v=\"%" PRIu64 "\">", c->info.size);
        size_label(out, c->info.size, c->info.unit);
        fputs("</td>", out);
        tdtext(out, c->info.mode);
        tdnum(out, c->measured ? s->median : nan);
        tdnum(out, c->measured ? s->min : nan);
        tdnum(out, c->measured ? s->p25 : nan);
        tdnum(out, c->measured ? s->p75 : nan);
        tdnum(out, c->measured ? s->spread_pct : nan);
        tdnum(out, cb_report_bpc(c));
        tdnum(out, c->ns_per_op);
        double share = c->measured && b10 > 0 ? s->median / b10 * 100 : nan;
        if (isnan(share))
            tdnum(out, share);
        else
            fprintf(out, "<td class=\"num %s\" data-v=\"%.6g\">%.1f</td>", share <= 100 ? "fit" : "over", share, share);
        fprintf(out, "<td class=\"num\" data-v=\"%zu\">%zu%s%s</td>", c->measured ? s->n : 0,
                c->measured ? s->n : 0, c->scaled ? " scaled" : "",
                cb_report_case_shared(c) ? " shared" : "");
        int bad = strcmp(c->info.verdict, "bad") == 0;
        fprintf(out, "<td class=\"wrap%s\">", bad ? " bad" : "");
        cb_html_esc(out, bad ? "BAD" : c->info.verdict);
        if (c->info.detail[0]) {
            fputs(": ", out);
            cb_html_esc(out, c->info.detail);
        }
        fputs("</td></tr>", out);
    }
    fputs("</tbody></table></div>", out);
}

/* ---- header ---------------------------------------------------------------- */

static void dt(FILE *out, const char *k, const char *v)
{
    fprintf(out, "<dt>%s</dt><dd>", k);
    cb_html_esc(out, v);
    fputs("</dd>", out);
}

static void header(FILE *out, const struct cb_report *r, const struct cb_budget *b)
{
    const struct cb_run_info *u = &r->run;
    char buf[1600];
    fprintf(out, "<h1>Run %" PRId64, u->id);
    if (u->tag[0]) {
        fputs(" · <span class=\"tag\">", out);
        cb_html_esc(out, u->tag);
        fputs("</span>", out);
    }
    fputs("</h1><nav class=\"toc\">", out);
    static const char *const parts[][2] = {{"budget", "budget"}, {"throughput", "throughput"},
                                           {"noise", "noise"}, {"counters", "counters"},
                                           {"slab", "slab"}, {"rx", "rx_prefetch"},
                                           {"cases", "all cases"}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        fprintf(out, "<a href=\"#%s-%" PRId64 "\">%s</a>", parts[i][0], u->id, parts[i][1]);
    fputs("</nav><dl class=\"meta\">", out);
    snprintf(buf, sizeof buf, "%s (%s family %d model %d stepping %d, microcode %s)", u->model_name,
             u->vendor, u->family, u->model, u->stepping, u->microcode[0] ? u->microcode : "?");
    dt(out, "CPU", buf);
    snprintf(buf, sizeof buf, "%s, %d CPUs, %s; pinned to CPU %d", u->hostname, u->ncpus, u->kernel, u->cpu);
    dt(out, "host", buf);
    cb_report_clock_line(u, buf, sizeof buf);
    dt(out, "clocks", buf);
    cb_report_meter_line(u, buf, sizeof buf);
    if (buf[0])
        dt(out, "contention meter", buf);
    cb_report_env_line(u, buf, sizeof buf);
    dt(out, "environment", buf);
    dt(out, "PMU (libpfm4)", u->pmu[0] ? u->pmu : "none");
    dt(out, "features", u->features);
    snprintf(buf, sizeof buf, "cyclebudget %s, %s, %s", u->version, u->compiler, u->cflags);
    dt(out, "build", buf);
    if (u->commit[0]) {
        snprintf(buf, sizeof buf, "%s%s — %s (%s)", u->commit,
                 u->dirty == 1 ? " + uncommitted changes (dirty)" : u->dirty == 0 ? " (clean)" : " (dirty: unknown)",
                 u->subject, u->commit_date);
        dt(out, "commit", buf);
    } else {
        dt(out, "commit", "not measured from a git tree");
    }
    snprintf(buf, sizeof buf, "%s → %s (%s)", u->started, u->finished[0] ? u->finished : "?", u->status);
    dt(out, "time", buf);
    fputs("<dt>command</dt><dd><code>", out);
    cb_html_esc(out, u->cmdline);
    fputs("</code></dd>", out);
    double bc = cb_budget_cycles(b, r->core_ghz);
    snprintf(buf, sizeof buf, "%s = %.0f cycles per packet at %.2f GHz (10G %.0f, 40G %.0f, 100G %.0f)",
             b->label, bc, r->core_ghz, cb_report_budget_cycles(r, 10), cb_report_budget_cycles(r, 40),
             cb_report_budget_cycles(r, 100));
    dt(out, "budget", buf);
    fputs("</dl>", out);

    /* Where the figures come from, in words: TSC ticks are not core cycles. */
    fputs("<div class=\"callout\"><strong>Cycles in this report: ", out);
    cb_html_esc(out, r->cyc_label);
    fputs(".</strong> ", out);
    if (strcmp(r->cyc_source, "pmu") == 0)
        fputs("These are core clock cycles from the hardware counter.", out);
    else if (strcmp(r->cyc_source, "estimate") == 0)
        fputs("No hardware cycle counter was available, so every cycle figure is TSC ticks scaled "
              "by the measured ratio of core clock to TSC rate: an estimate, not a count.", out);
    else
        fputs("These are TSC reference ticks at a fixed rate, not core cycles: they do not follow "
              "the core clock.", out);
    fputs(" Times (ns/op) come from the TSC.</div>", out);
    if (cb_report_is_fake(&r->run))
        fputs("<div class=\"callout\"><strong>Fake clock.</strong> This run was timed on the fake "
              "clock (CB_FAKE_CLOCK, a test backend): its figures are a model, not measurements of "
              "this machine.</div>", out);
    size_t shared = cb_report_count_shared(r);
    if (shared) {
        fprintf(out, "<div class=\"callout\"><strong>A shared core.</strong> %zu of %zu cases had over "
                     "half their samples taken with ", shared, r->ncases);
        cb_html_esc(out, cb_report_shared_what(&r->run));
        fputs(", which adds cycles that are not the code's; they are marked <em>shared</em> in the n "
              "column. Rerun, or compare with runs as the unit, which counts only the quiet "
              "samples.</div>", out);
    }
    fputs("<div class=\"tablewrap\"><table class=\"events\"><thead><tr><th>event</th><th>counted as</th>"
          "<th>source</th><th>read</th><th>status</th></tr></thead><tbody>", out);
    for (size_t e = 0; e < r->nevents; e++) {
        const struct cb_event_info *ev = &r->events[e];
        fputs("<tr>", out);
        tdtext(out, ev->name);
        fputs("<td class=\"mono\">", out);
        cb_html_esc(out, ev->pfm[0] ? ev->pfm : ev->part);
        fputs("</td>", out);
        fprintf(out, "<td><span class=\"pill src-%s\">", ev->supported ? ev->source : "unsupported");
        cb_html_esc(out, ev->supported ? ev->source : "unsupported");
        fputs("</span></td>", out);
        tdtext(out, ev->read_method);
        fputs("<td class=\"wrap\">", out);
        cb_html_esc(out, ev->supported ? "counted" : ev->why);
        fputs("</td></tr>", out);
    }
    fputs("</tbody></table></div>", out);
}

/* ---- page ------------------------------------------------------------------ */

static void run_section(FILE *out, const struct cb_report *r, const struct cb_budget *b,
                        const struct cb_report_case **v, struct line *ls)
{
    fprintf(out, "<section class=\"run\" id=\"run-%" PRId64 "\">", r->run.id);
    header(out, r, b);
    budget_view(out, r, v);
    throughput_view(out, r, ls);
    noise_view(out, r);
    counters_view(out, r);
    slab_view(out, r, ls);
    rx_view(out, r, v);
    cases_table(out, r);
    fputs("</section>", out);
}

static void body(FILE *out, const struct cb_report *runs, size_t nruns, const struct cb_budget *b,
                 const struct cb_report_case **v, struct line *ls)
{
    fputs("<main>", out);
    if (nruns > 1) {
        fprintf(out, "<h1>cyclebudget: %zu runs</h1><div class=\"tablewrap\"><table class=\"sortable runs\">"
                     "<thead><tr><th class=\"num\">run</th><th>started</th><th>tag</th><th>commit</th>"
                     "<th>host</th><th>cycles</th><th class=\"num\">cases</th></tr></thead><tbody>",
                nruns);
        for (size_t i = 0; i < nruns; i++) {
            const struct cb_run_info *u = &runs[i].run;
            fprintf(out, "<tr><td class=\"num\" data-v=\"%" PRId64 "\"><a href=\"#run-%" PRId64 "\">%" PRId64 "</a></td>",
                    u->id, u->id, u->id);
            tdtext(out, u->started);
            tdtext(out, u->tag);
            char c[80];
            snprintf(c, sizeof c, "%.12s%s", u->commit, u->dirty == 1 ? " (dirty)" : "");
            tdtext(out, c);
            tdtext(out, u->hostname);
            tdtext(out, runs[i].cyc_source);
            fprintf(out, "<td class=\"num\" data-v=\"%zu\">%zu</td></tr>", runs[i].ncases, runs[i].ncases);
        }
        fputs("</tbody></table></div>", out);
    }
    for (size_t i = 0; i < nruns; i++)
        run_section(out, &runs[i], b, v, ls);
    fputs("<footer>Made by cyclebudget from the store alone. Self-contained: no script, style, "
          "font or image is loaded from anywhere. Medians are of per-operation values after "
          "subtracting the empty batch; spread is the interquartile range over the median.</footer></main>",
          out);
}

int cb_html_page(FILE *out, const char *title, void (*body_fn)(FILE *, void *), void *ctx)
{
    const char *tpl = cb_asset_find("report.html.in");
    const char *css = cb_asset_find("report.css"), *js = cb_asset_find("report.js");
    if (!tpl || !css || !js)
        return -ENOENT;
    /* The template's @@NAME@@ markers are the only thing substituted. */
    const char *p = tpl;
    for (;;) {
        const char *m = strstr(p, "@@");
        if (!m) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(m - p), out);
        const char *e = strstr(m + 2, "@@");
        if (!e) {
            fputs(m, out);
            break;
        }
        size_t len = (size_t)(e - m - 2);
        if (len == 5 && strncmp(m + 2, "STYLE", 5) == 0)
            fputs(css, out);
        else if (len == 6 && strncmp(m + 2, "SCRIPT", 6) == 0)
            fputs(js, out);
        else if (len == 5 && strncmp(m + 2, "TITLE", 5) == 0)
            cb_html_esc(out, title);
        else if (len == 4 && strncmp(m + 2, "BODY", 4) == 0)
            body_fn(out, ctx);
        p = e + 2;
    }
    return ferror(out) ? -EIO : 0;
}

struct page_ctx {
    const struct cb_report *runs;
    size_t nruns;
    const struct cb_budget *budget;
    const struct cb_report_case **v;
    struct line *ls;
};

static void page_body(FILE *out, void *ctx)
{
    struct page_ctx *pc = ctx;
    body(out, pc->runs, pc->nruns, pc->budget, pc->v, pc->ls);
}

int cb_report_html(const struct cb_report *runs, size_t nruns, const struct cb_budget *budget,
                   FILE *out)
{
    size_t maxc = 1;
    for (size_t i = 0; i < nruns; i++)
        maxc = runs[i].ncases > maxc ? runs[i].ncases : maxc;
    const struct cb_report_case **v = malloc(maxc * sizeof *v);
    struct line *ls = malloc(MAXLINES * sizeof *ls);
    if (!v || !ls) {
        free(v);
        free(ls);
        return -ENOMEM;
    }
    struct page_ctx pc = {runs, nruns, budget, v, ls};
    char title[256];
    if (nruns == 1)
        snprintf(title, sizeof title, "cyclebudget run %" PRId64 "%s%s%s", runs[0].run.id,
                 runs[0].run.tag[0] ? " (" : "", runs[0].run.tag, runs[0].run.tag[0] ? ")" : "");
    else
        snprintf(title, sizeof title, "cyclebudget: %zu runs", nruns);
    int rc = cb_html_page(out, title, page_body, &pc);
    free(v);
    free(ls);
    return rc < 0 ? rc : ferror(out) ? -EIO : 0;
}

