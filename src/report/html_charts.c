/* html_charts.c — the report page's SVG chart views (see html.c).
 *
 * Budget bars, throughput and slab line charts and the rx_prefetch bars
 * (the noise boxes are html_noise.c's): each draws inline SVG from a
 * loaded run, every outside string through cb_html_esc. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_internal.h"
#include "harness/probe.h"
#include "report/rank.h"
#include "report/report.h"

/* Fit colours: 100G, 40G, 10G, over every budget. */
static const char *const fitcol[] = {"#1a9850", "#74c476", "#f0b429", "#d73027"};

static int same_group(const struct cb_report_case *a, const struct cb_report_case *b)
{
    return strcmp(a->info.probe, b->info.probe) == 0 && a->info.size == b->info.size &&
           strcmp(a->info.mode, b->info.mode) == 0;
}


/* ---- budget view --------------------------------------------------------- */

/* Where a value label of about n characters goes after a bar that ends at
 * x1: just past the bar, unless one of the dashed lines at lx[0..nl) would
 * run through it (the budget lines crossed the figures); then
 * just past that line.  6 px a character of the 10.5 px value font. */
static double clear_of(double x1, size_t n, const double *lx, int nl)
{
    double w = 6.0 * (double)n, x = x1 + 4;
    for (int pass = 0, moved = 1; moved && pass < 4; pass++) {
        moved = 0;
        for (int i = 0; i < nl; i++)
            if (lx[i] > x - 3 && lx[i] < x + w + 3) {
                x = lx[i] + 4;
                moved = 1;
            }
    }
    return x;
}

/* The same for a figure that ends at x (inside its bar): moved left of
 * any budget line that would cross it. */
static double clear_left_of(double x, size_t n, const double *lx, int nl)
{
    double w = 6.0 * (double)n;
    for (int pass = 0, moved = 1; moved && pass < 4; pass++) {
        moved = 0;
        for (int i = 0; i < nl; i++)
            if (lx[i] > x - w - 3 && lx[i] < x + 3) {
                x = lx[i] - 4;
                moved = 1;
            }
    }
    return x;
}

/* Half the width of budget line i's label ("10G", "40G", "100G"): 7.2 px
 * a character of the bold labels, 10.5 px on a phone. */
static double bl_half(int i)
{
    return 3.6 * (i == 2 ? 4 : 3);
}

/* The centres cx[] of the budget lines' labels over the lines at bud[0..3)
 * (100G's leftmost): each over its line, unless it would touch its left
 * neighbour, then just clear of it, all inside the chart's width w.  Where
 * two lines stood 20 px apart the script moved a label down, under a line. */
static void budget_label_x(const double *bud, const struct scale *s, int w, double *cx)
{
    int ord[3], n = 0;
    for (int i = 2; i >= 0; i--)
        if (bud[i] > 0)
            ord[n++] = i;
    for (int k = 0; k < n; k++) {
        double x = sx(s, bud[ord[k]]);
        if (k > 0)
            x = fmax(x, cx[ord[k - 1]] + bl_half(ord[k - 1]) + 4 + bl_half(ord[k]));
        cx[ord[k]] = fmin(x, w - bl_half(ord[k]) - 1);
    }
    for (int k = n - 2; k >= 0; k--)
        cx[ord[k]] = fmin(cx[ord[k]], cx[ord[k + 1]] - bl_half(ord[k + 1]) - 4 - bl_half(ord[k]));
}

static size_t fnum_len(double v)
{
    char b[32];
    return (size_t)snprintf(b, sizeof b, "%.1f", v);
}

static void budget_chart(FILE *out, const struct cb_report *r, const struct cb_report_case **v,
                         size_t n)
{
    const double gb[3] = {10, 40, 100};
    double bud[3];
    for (int i = 0; i < 3; i++)
        bud[i] = cb_report_case_budget_cycles(r, v[0], gb[i]);
    double lo = bud[2] > 0 ? bud[2] : 1, hi = bud[0] > 0 ? bud[0] : 10;
    for (size_t k = 0; k < n; k++) {
        if (v[k]->cyc.median > 0 && v[k]->cyc.median < lo)
            lo = v[k]->cyc.median;
        if (v[k]->cyc.median > hi)
            hi = v[k]->cyc.median;
    }
    /* 400 wide: a phone's card holds it whole with its labels at 9 px or
     * more (report.css), no sideways scrolling. */
    struct scale s = {pow(10, floor(log10(lo / 1.3))), pow(10, ceil(log10(hi * 1.15))), 160, 360, 1};
    const int row = 18, top = 22, h = top + (int)n * row + 24, w = 400;
    double lx[3];
    int nl = 0;
    for (int i = 0; i < 3; i++)
        if (bud[i] > 0)
            lx[nl++] = sx(&s, bud[i]);
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
        /* A figure that would run past the chart's edge goes inside its bar. */
        double vx = clear_of(x1, fnum_len(m), lx, nl);
        int inside = vx + 6.0 * (double)fnum_len(m) > w - 2;
        if (inside)
            vx = clear_left_of(x1 - 4, fnum_len(m), lx, nl);
        fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", vx,
                y + 12, inside ? "end" : "start");
        cb_html_fnum(out, m);
        fputs("</text>", out);
    }
    static const char *const names[3] = {"10G", "40G", "100G"};
    double cx[3];
    budget_label_x(bud, &s, w, cx);
    for (int i = 0; i < 3; i++) {
        if (!(bud[i] > 0))
            continue;
        double x = sx(&s, bud[i]);
        fprintf(out, "<line class=\"bud\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>%s budget: %.1f cycles for the frames this size is charged to</title></line>",
                fitcol[i == 0 ? 2 : i == 1 ? 1 : 0], x, x, top - 3, h - 20, names[i], bud[i]);
        fprintf(out, "<text class=\"bl\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", cx[i], top - 10, names[i]);
    }
    fputs("</svg>", out);
}

/* A chart's bars, fewest cycles first: the order of the figure it draws
 * (where the run ranks on time, the rank's order can differ from it). */
static void by_cycles(const struct cb_report_case **v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const struct cb_report_case *c = v[i];
        size_t j = i;
        for (; j > 0 && c->cyc.median < v[j - 1]->cyc.median; j--)
            v[j] = v[j - 1];
        v[j] = c;
    }
}

void cb_html_budget_view(FILE *out, const struct cb_report *r, const struct cb_report_case **v)
{
    fputs("<h2 id=\"budget-", out);
    fprintf(out, "%" PRId64 "\">Budget view</h2>", r->run.id);
    fprintf(out, "<p class=\"lead\">Median cycles per operation for each variant, lowest first, on a "
                 "log scale. Dashed lines: the budget at 10, 40 and 100 Gbit/s of the frames each "
                 "size is charged to by the budget rule in the header (for a per-packet operation, "
                 "%u-byte frames: %.0f, %.0f and %.0f cycles at %.2f GHz).</p>",
            r->budget.frame, cb_report_budget_cycles(r, 10), cb_report_budget_cycles(r, 40),
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
            by_cycles(v, n);
            const struct cb_case_info *g = &r->cases[i].info;
            fputs("<div class=\"card\"><h3>", out);
            cb_html_esc(out, g->probe);
            char where[64];
            fputs(" · ", out);
            cb_html_esc(out, cb_report_where(g, " · ", where, sizeof where));
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

/* The y axis of a line chart: linear from 0, or log10 when the values span
 * more than a decade (slab's warm 7-19 cycles beside cold 400-700 once
 * drew the warm lines flat on the floor). */
static void y_axis(FILE *out, struct scale *ys, double ylo, double yhi, int w, int L, int R, int T,
                   int B, int h)
{
    int lg = ylo > 0 && yhi / ylo > 10;
    double step = lg ? 10 : nice_step(yhi * 1.05, 5);
    *ys = lg ? (struct scale){pow(10, floor(log10(ylo))), pow(10, ceil(log10(yhi))), h - B, T, 1}
             : (struct scale){0, ceil(yhi * 1.05 / step) * step, h - B, T, 0};
    for (double t = ys->d0; t <= ys->d1 * 1.0001 + (lg ? 0 : step / 2); t = lg ? t * 10 : t + step) {
        double y = sx(ys, t);
        fprintf(out, "<line class=\"gl\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", L, w - R, y, y);
        fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>", L - 5, y + 4, t);
    }
}

static void x_axis(FILE *out, const struct scale *xs, int xlog2, int T, int B, int h)
{
    /* x ticks at the powers of two (sizes) or of ten that fall inside;
     * every k-th where they would crowd (a size label needs about 46 px). */
    double base = xlog2 ? 2 : 10, x0 = xs->d0, x1 = xs->d1;
    double ticks = floor(log(x1 / x0) / log(base) + 1e-9) + 1;
    int every = (int)ceil(ticks * 46.0 / (xs->r1 - xs->r0)), idx = 0;
    if (every < 1)
        every = 1;
    for (double t = pow(base, ceil(log(x0) / log(base) - 1e-9)); t <= x1 * 1.0001; t *= base, idx++) {
        if (idx % every)
            continue;
        double x = sx(xs, t);
        char b[32];
        const char *s = xlog2 ? cb_fmt_size((uint64_t)t, "B", b, sizeof b) : (snprintf(b, sizeof b, "%g", t), b);
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, T, h - B);
        /* The last label ends at the plot's right end rather than past the
         * chart's ("16 MiB" was cut): 6.6 px a character.  Its baseline 18
         * px below the axis, so that the first clears the y axis's "0". */
        int end = x + 3.3 * (double)strlen(s) > xs->r1 + 4;
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>",
                end ? xs->r1 + 4 : x, h - B + 18, end ? "end" : "middle", s);
    }
}

static void line_legend(FILE *out, const struct line *ls, size_t nl)
{
    fputs("<div class=\"legend\">", out);
    for (size_t l = 0; l < nl; l++) {
        fprintf(out, "<span style=\"--c:%s\">", cb_html_palette[l % CB_HTML_NPAL]);
        cb_html_esc(out, ls[l].name);
        fputs("</span>", out);
    }
    fputs("</div>", out);
}

static void line_chart(FILE *out, const struct line *ls, size_t nl, const char *xlabel,
                       const char *ylabel, int xlog2)
{
    if (cb_html_one_point_each(ls, nl)) {
        cb_html_bars(out, ls, nl, "one", ylabel, NULL);
        return;
    }
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = 0;
    for (size_t l = 0; l < nl; l++)
        for (size_t i = 0; i < ls[l].n; i++) {
            x0 = fmin(x0, ls[l].pt[i].x);
            x1 = fmax(x1, ls[l].pt[i].x);
            y0 = ls[l].pt[i].y > 0 ? fmin(y0, ls[l].pt[i].y) : y0;
            y1 = fmax(y1, ls[l].pt[i].y);
        }
    if (!(x1 >= x0) || !(y1 > 0))
        y1 = 1;
    if (!(x1 > x0)) {
        x0 = x0 > 1 ? x0 / 2 : 0.5;
        x1 = x1 > 0 ? x1 * 2 : 2;
    }
    /* 400 wide, as every chart (report.css): whole in a phone's card. */
    const int w = 400, h = 250, L = 56, R = 16, T = 12, B = 40;
    struct scale sxs = {x0, x1, L, w - R, 1}, sys;
    fprintf(out, "<svg class=\"chart lines\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
    y_axis(out, &sys, y0, y1, w, L, R, T, B, h);
    x_axis(out, &sxs, xlog2, T, B, h);
    fprintf(out, "<line class=\"ax\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", L, w - R, h - B, h - B);
    fprintf(out, "<text class=\"lab\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>", (L + w - R) / 2, h - 6, xlabel);
    fprintf(out, "<text class=\"lab\" transform=\"translate(13 %d) rotate(-90)\" text-anchor=\"middle\">%s%s</text>",
            (T + h - B) / 2, ylabel, sys.log ? " (log scale)" : "");
    for (size_t l = 0; l < nl; l++) {
        const char *col = cb_html_palette[l % CB_HTML_NPAL];
        fprintf(out, "<g class=\"series\">");
        if (ls[l].n > 1) {
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-dasharray=\"%s\" stroke-width=\"2\" points=\"",
                    col, cb_html_dash(l));
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
        fputs("</g>", out);
    }
    fputs("</svg>", out);
    line_legend(out, ls, nl);
}

struct line *cb_html_line_for(struct line *ls, size_t *nl, size_t max, const char *name)
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

int cb_html_throughput_view(FILE *out, const struct cb_report *r, struct line *ls)
{
    int any = 0;
    for (size_t f = 0; f < cb_probe_count(); f++) {
        const struct cb_probe *fam = cb_probe_at(f);
        if (fam->chart.kind != CB_CHART_THROUGHPUT)
            continue;
        int have = 0;
        for (size_t k = 0; k < r->ncases && !have; k++)
            have = strcmp(r->cases[k].info.probe, fam->name) == 0 && !isnan(cb_report_bpc(&r->cases[k]));
        if (!have)
            continue;
        if (!any)
            fprintf(out, "<h2 id=\"throughput-%" PRId64 "\">Throughput</h2><p class=\"lead\">Bytes per "
                         "cycle against size (log scale), one line per variant (a bar per variant "
                         "where one size was measured); warm (data in "
                         "cache) and cold (working set beyond the last-level cache) in cards of "
                         "their own. "
                         "Higher is better.</p>",
                    r->run.id);
        any = 1;
        fputs("<h3>", out);
        cb_html_esc(out, fam->name);
        fputs("</h3><div class=\"grid\">", out);
        for (int m = 0; m < 2; m++) {
            const char *mode = m ? "cold" : "warm";
            size_t nl = 0;
            for (size_t k = 0; k < r->ncases; k++) {
                const struct cb_report_case *c = &r->cases[k];
                double b = cb_report_bpc(c);
                if (strcmp(c->info.probe, fam->name) || strcmp(c->info.mode, mode) || isnan(b))
                    continue;
                cb_html_add_pt(cb_html_line_for(ls, &nl, MAXLINES, c->info.variant), (double)c->info.size, b, c);
            }
            if (!nl)
                continue;
            fputs("<div class=\"card\"><h3>", out);
            cb_html_esc(out, fam->name);
            fprintf(out, " · %s</h3>", mode);
            line_chart(out, ls, nl, "size (bytes, log scale)", "bytes per cycle", 1);
            fputs("</div>", out);
        }
        fputs("</div>", out);
    }
    return any;
}

/* A family's head of chart: "<h2 id=NAME-RUN>NAME: title</h2><p>lead</p>"
 * (a family's name is an identifier: -p takes it). */
static void chart_head(FILE *out, const struct cb_report *r, const struct cb_probe *fam)
{
    fprintf(out, "<h2 id=\"%s-%" PRId64 "\">%s: ", fam->name, r->run.id, fam->name);
    cb_html_esc(out, fam->chart.title ? fam->chart.title : "");
    fprintf(out, "</h2><p class=\"lead\">%s</p><div class=\"grid\">",
            fam->chart.lead ? fam->chart.lead : "");
}

/* A bulk family (CB_CHART_BULK): cost per op against the bulk count of its
 * "bulk-N" variants, one line per size; warm and cold in panels of their
 * own (slab: 7-19 against 400-700 cycles). */
static void bulk_view(FILE *out, const struct cb_report *r, struct line *ls, const struct cb_probe *fam)
{
    int any = 0;
    for (int m = 0; m < 2; m++) {
        const char *mode = m ? "cold" : "warm";
        size_t nl = 0;
        for (size_t k = 0; k < r->ncases; k++) {
            const struct cb_report_case *c = &r->cases[k];
            unsigned bulk;
            if (strcmp(c->info.probe, fam->name) || !c->measured || strcmp(c->info.mode, mode) ||
                sscanf(c->info.variant, "bulk-%u", &bulk) != 1)
                continue;
            char name[64], sz[32];
            snprintf(name, sizeof name, "%s objects", cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz));
            cb_html_add_pt(cb_html_line_for(ls, &nl, MAXLINES, name), bulk, c->cyc.median, c);
        }
        if (!nl)
            continue;
        if (!any)
            chart_head(out, r, fam);
        any = 1;
        fputs("<div class=\"card\"><h3>", out);
        cb_html_esc(out, fam->name);
        fprintf(out, " · bulk · %s</h3>", mode);
        char yl[64];
        snprintf(yl, sizeof yl, "cycles per %s", fam->op);
        line_chart(out, ls, nl, "bulk count: N of bulk-N (log scale)", yl, 0);
        fputs("</div>", out);
    }
    if (any)
        fputs("</div>", out);
}

/* A family of ranked bars (CB_CHART_BARS): cycles per op for each variant,
 * with the baseline variant as the line to beat. */
static void bars_view(FILE *out, const struct cb_report *r, const struct cb_report_case **v,
                      const struct cb_probe *fam)
{
    const char *baseline = fam->chart.baseline ? fam->chart.baseline : "";
    int head = 0;
    for (size_t i = 0; i < r->ncases;) {
        size_t j = i, n = 0;
        while (j < r->ncases && same_group(&r->cases[i], &r->cases[j])) {
            if (r->cases[j].measured && strcmp(r->cases[j].info.probe, fam->name) == 0)
                v[n++] = &r->cases[j];
            j++;
        }
        if (!n) {
            i = j;
            continue;
        }
        if (!head)
            chart_head(out, r, fam);
        head = 1;
        by_cycles(v, n);
        double base = NAN, hi = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(v[k]->info.variant, baseline) == 0)
                base = v[k]->cyc.median;
            hi = fmax(hi, v[k]->cyc.median);
        }
        const struct cb_case_info *g = &v[0]->info;
        fputs("<div class=\"card\"><h3>", out);
        cb_html_esc(out, fam->name);
        fputs(" · ", out);
        cb_html_size_label(out, g->size, g->unit);
        fputs(" · ", out);
        cb_html_esc(out, g->mode);
        fprintf(out, " <span class=\"pill\">cycles per %s</span></h3>", fam->op);
        /* 400 wide (report.css): the names end at L (6.6 px a character
         * of the 11 px labels), the bars end 78 px before the right edge,
         * room for a figure and its change ("123.4 (+12%)"). */
        size_t longest = 4;
        for (size_t k = 0; k < n; k++)
            longest = strlen(v[k]->info.variant) > longest ? strlen(v[k]->info.variant) : longest;
        const int row = 16, top = 8, w = 400, h = top + (int)n * row + 24;
        double L = 8 + 6.6 * (double)(longest < 24 ? longest : 24);
        double step = nice_step(hi * 1.1, 4);
        struct scale s = {0, ceil(hi * 1.1 / step) * step, L + 6, w - 78, 0};
        fprintf(out, "<svg class=\"chart rx\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
        for (double t = 0; t <= s.d1 + step / 2; t += step) {
            double x = sx(&s, t);
            fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, top, h - 20);
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>", x, h - 6, t);
        }
        for (size_t k = 0; k < n; k++) {
            double m = v[k]->cyc.median, y = top + (double)k * row, x1 = sx(&s, m);
            fprintf(out, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", L, y + 11);
            cb_html_esc(out, v[k]->info.variant);
            fprintf(out, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" fill=\"%s\"><title>",
                    s.r0, y + 2, fmax(x1 - s.r0, 1), row - 4,
                    isnan(base) ? cb_html_palette[0] : m < base ? fitcol[0] : m > base ? fitcol[3] : "#888");
            cb_html_esc(out, v[k]->info.variant);
            double bx = isnan(base) ? -100 : sx(&s, base);
            fprintf(out, ": %.1f cycles/%s</title></rect><text class=\"val\" x=\"%.1f\" y=\"%.1f\">", m, fam->op,
                    clear_of(x1, fnum_len(m) + (isnan(base) ? 0 : 7), &bx, 1), y + 11);
            cb_html_fnum(out, m);
            if (!isnan(base) && base > 0 && strcmp(v[k]->info.variant, baseline))
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

/* The charts the families' probe records ask for (enum cb_chart_kind). */
void cb_html_family_views(FILE *out, const struct cb_report *r, const struct cb_report_case **v,
                          struct line *ls)
{
    for (size_t f = 0; f < cb_probe_count(); f++) {
        const struct cb_probe *fam = cb_probe_at(f);
        if (fam->chart.kind == CB_CHART_BULK)
            bulk_view(out, r, ls, fam);
        else if (fam->chart.kind == CB_CHART_BARS)
            bars_view(out, r, v, fam);
    }
}
