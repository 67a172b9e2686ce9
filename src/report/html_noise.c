/* html_noise.c — the report page's noise view (see html.c): every sample
 * of a case as its deviation from the case's median, a box and whiskers
 * per case, a card per probe and mode. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_internal.h"
#include "report/report.h"

/* ---- noise ----------------------------------------------------------------- */

/* A case has a row on its probe's card for mode when it has a median to
 * measure deviations from. */
static int noise_shown(const struct cb_report_case *c, const char *mode)
{
    return c->measured && strcmp(c->info.mode, mode) == 0 && c->cyc.median > 0;
}

/* How many of cases [i, j) have a row, and the widest deviation among them
 * in % (at least 5, so that a quiet card still has an axis). */
static double noise_extent(const struct cb_report *r, size_t i, size_t j, const char *mode,
                           size_t *n)
{
    double lim = 5;
    *n = 0;
    for (size_t k = i; k < j; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!noise_shown(c, mode))
            continue;
        (*n)++;
        lim = fmax(lim, fmax((c->cyc.max / c->cyc.median - 1) * 100,
                             (1 - c->cyc.min / c->cyc.median) * 100));
    }
    return lim;
}

/* x of value v as its deviation from med, in %. */
static double noise_x(const struct scale *s, double v, double med)
{
    return sx(s, (v / med - 1) * 100);
}

static void noise_axis(FILE *out, const struct scale *s, double lim, double step, int top, int h)
{
    for (double t = -lim; t <= lim + step / 2; t += step) {
        double x = sx(s, t);
        fprintf(out, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>",
                fabs(t) < step / 2 ? "ax" : "gl", x, x, top, h - 20);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%+g%%</text>",
                x, h - 6, fabs(t) < step / 2 ? 0.0 : t);
    }
}

/* A row's label: its size (but a region's, which has none) and variant. */
static const char *noise_label(const struct cb_report_case *c, char *buf, size_t len)
{
    char sz[32];
    if (strcmp(c->info.probe, "region") != 0 || c->info.size != 0)
        snprintf(buf, len, "%s %s", cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz), c->info.variant);
    else
        snprintf(buf, len, "%s", c->info.variant);
    return buf;
}

/* One case whose box is at height y, its label ending at lx (or, where
 * the labels stand above their rows, starting at 4 above it): label,
 * whiskers, quartile box, sample dots, spread. */
static void noise_row(FILE *out, const struct cb_report *r, const struct cb_report_case *c,
                      const struct scale *s, double y, double lim, double lx)
{
    double med = c->cyc.median;
    char lab[160];
    if (lx > 0)
        fprintf(out, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", lx, y + 4);
    else
        fprintf(out, "<text class=\"lab\" x=\"4\" y=\"%.1f\">", y - 8);
    cb_html_esc(out, noise_label(c, lab, sizeof lab));
    fprintf(out, "</text><line stroke=\"#888\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
            noise_x(s, c->cyc.min, med), noise_x(s, c->cyc.max, med), y, y);
    double x25 = noise_x(s, c->cyc.p25, med), x75 = noise_x(s, c->cyc.p75, med);
    fprintf(out, "<rect fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>",
            cb_html_palette[0], cb_html_palette[0], x25, y - 5, fmax(x75 - x25, 1), 10);
    cb_html_esc(out, c->info.variant);
    fprintf(out, ": median %.1f, IQR %.1f..%.1f, min %.1f, max %.1f, n %zu</title></rect>",
            med, c->cyc.p25, c->cyc.p75, c->cyc.min, c->cyc.max, c->cyc.n);
    const struct cb_report_series *se = &c->ev[r->cyc_event];
    size_t every = se->n > 60 ? (se->n + 59) / 60 : 1;
    for (size_t q = 0; q < se->n; q += every)
        fprintf(out, "<circle r=\"1.6\" fill=\"#333\" fill-opacity=\"0.55\" cx=\"%.1f\" cy=\"%.1f\"/>",
                noise_x(s, se->v[q], med), y + ((q * 7) % 5 - 2.0));
    if ((1 - c->cyc.min / med) * 100 > lim)
        fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">‹</text>", s->r0 - 2,
                y + 4);
    if ((c->cyc.max / med - 1) * 100 > lim)
        fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">›</text>", s->r1 + 2, y + 4);
    fprintf(out, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f%%</text>",
            s->r1 + 53, y + 4, c->cyc.spread_pct);
}

/* Where the labels of cases [i, j) in mode end: after the longest (6.6 px
 * a character of the 11 px labels: "64 KiB kernel-2023+kflags" fits), or 0
 * when they would take over half the chart's width: then each label
 * stands above its row, which doubles the card's height. */
static double noise_label_end(const struct cb_report *r, size_t i, size_t j, const char *mode, int w)
{
    size_t longest = 0;
    char lab[160];
    for (size_t k = i; k < j; k++)
        if (noise_shown(&r->cases[k], mode)) {
            size_t n = strlen(noise_label(&r->cases[k], lab, sizeof lab));
            longest = n > longest ? n : longest;
        }
    double lx = 6 + 6.6 * (double)longest;
    return lx <= w * 0.5 ? lx : 0;
}

/* The card of one probe's cases [i, j) in one mode; nothing when none has a row. */
static void noise_card(FILE *out, const struct cb_report *r, size_t i, size_t j, const char *mode)
{
    size_t n;
    double lim = noise_extent(r, i, j, mode, &n);
    if (!n)
        return;
    lim = fmin(lim, 50);
    double step = nice_step(lim, 2);
    lim = ceil(lim / step) * step;
    /* 400 wide, as every chart (report.css); the spreads ("12.3%", and
     * "1002.8%" from a wild case) end 3 px from the right edge.  Labels above their rows take a row's height more. */
    const int w = 400;
    double lx = noise_label_end(r, i, j, mode, w);
    const int row = lx > 0 ? 14 : 28, top = lx > 0 ? 8 : 22, h = top + (int)n * row + 24 - (lx > 0 ? 0 : 14);
    struct scale s = {-lim, lim, lx > 0 ? lx + 14 : 22, w - 56, 0};
    fputs("<div class=\"card\"><h3>", out);
    cb_html_esc(out, r->cases[i].info.probe);
    fprintf(out, " · %s</h3>", mode);
    fprintf(out, "<svg class=\"chart noise\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
    noise_axis(out, &s, lim, step, top, h);
    size_t rowi = 0;
    for (size_t k = i; k < j; k++)
        if (noise_shown(&r->cases[k], mode))
            noise_row(out, r, &r->cases[k], &s, top + (double)rowi++ * row + (lx > 0 ? row / 2.0 : 7), lim, lx);
    fputs("</svg></div>", out);
}

/* Each case's samples as deviation from its own median, in %: a box for the
 * quartiles, whiskers to min and max, a dot per sample (at most 60, evenly
 * picked), so cases of any size compare on one axis; what lies past an
 * end of the axis is drawn at it, marked ‹ or ›.  One card per probe
 * and mode, every warm card before the cold ones. */
void cb_html_noise_view(FILE *out, const struct cb_report *r)
{
    if (r->cyc_event < 0)
        return;
    fprintf(out, "<h2 id=\"noise-%" PRId64 "\">Noise</h2><p class=\"lead\">Each case's samples as "
                 "their deviation from the case's median (%%): a dot per sample (at most 60, evenly "
                 "picked), box = quartiles, whiskers = min and max, clipped at the axis ends (marked "
                 "‹ or ›). Spread = IQR / median.</p>"
                 "<div class=\"grid\">",
            r->run.id);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < r->ncases;) {
            size_t j = i;
            while (j < r->ncases && strcmp(r->cases[j].info.probe, r->cases[i].info.probe) == 0)
                j++;
            noise_card(out, r, i, j, pass ? "cold" : "warm");
            i = j;
        }
    }
    fputs("</div>", out);
}
