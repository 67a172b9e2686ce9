/* html_roofline.c — the roofline view of the report page (see html.c):
 * each byte-moving family's bytes per TSC tick against its working set,
 * under the machine's load and store ceilings as steps. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/html_internal.h"
#include "report/report.h"

/* ---- roofline ------------------------------------------------------------- */

/* The ceiling of kind at each level as steps over the working-set axis:
 * level l's figure from the previous cache's size to its own (DRAM on to
 * the right edge).  A level without a figure is left out. */
/* The right margin: room for half the last size tick ("64 MiB") inside the
 * chart (16 px cut it, and "DRAM lo..." with it). */
#define ROOF_R 28

/* A ceiling's label starts at x; one that would run past the plot's right
 * end (x_end) ends there instead: its anchor and x, in *anchor (6 px a
 * character of the labels, 10.5 px on a phone). */
static double fit_label(double x, double x_end, size_t n, const char **anchor)
{
    *anchor = x + 6.0 * (double)n > x_end ? "end" : "start";
    return *anchor[0] == 'e' ? x_end - 2 : x;
}

static void roof_steps(FILE *out, const struct cb_ceilings *cs, const char *kind,
                       const struct scale *xs, const struct scale *ys, const char *cls)
{
    double lo = xs->d0;
    int first = 1;
    fprintf(out, "<path class=\"ceil %s\" d=\"", cls);
    for (int l = 0; l < CB_NLEVELS; l++) {
        double hi = l < 3 ? (double)cs->cache[l] : xs->d1;
        if (l < 3 && !cs->cache[l])
            continue;
        const struct cb_ceiling *c = cb_ceil_best(cs, kind, l);
        if (!c || hi <= xs->d0 || lo >= xs->d1) {
            lo = hi > lo ? hi : lo;
            continue;
        }
        double x0 = sx(xs, lo), x1 = sx(xs, hi < xs->d1 ? hi : xs->d1), y = sx(ys, c->bpt);
        fprintf(out, "%s%.1f,%.1f H%.1f", first ? "M" : " L", x0, y, x1);
        first = 0;
        lo = hi;
    }
    fputs("\"/>", out);
    /* The figures, at the left end of each step, with their meaning. */
    lo = xs->d0;
    for (int l = 0; l < CB_NLEVELS; l++) {
        double hi = l < 3 ? (double)cs->cache[l] : xs->d1;
        if (l < 3 && !cs->cache[l])
            continue;
        const struct cb_ceiling *c = cb_ceil_best(cs, kind, l);
        if (c && hi > xs->d0 && lo < xs->d1) {
            char lab[64];
            const char *anchor;
            size_t n = (size_t)snprintf(lab, sizeof lab, "%s %s %.0f", cb_ceil_level_name(l), kind, c->bpt);
            double x = fit_label(sx(xs, lo) + 3, xs->r1, n, &anchor);
            fprintf(out, "<text class=\"cl %s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"><title>%s ceiling from %s: "
                         "%.1f bytes per TSC tick (%s, %s set, best of %d, spread %.1f%%)</title>"
                         "%s %s %.0f</text>",
                    cls, x, sx(ys, c->bpt) + (strcmp(cls, "store") == 0 ? 11 : -3), anchor, kind,
                    cb_ceil_level_name(l), c->bpt,
                    c->isa, cb_ceil_level_name(l), c->trials,
                    isfinite(c->spread_pct) ? c->spread_pct : 0, cb_ceil_level_name(l), kind, c->bpt);
        }
        lo = hi > lo ? hi : lo;
    }
}

/* The roofline's grid, ticks and axis titles (both axes on log scales). */
static void roof_axes(FILE *out, const struct scale *xs_, const struct scale *ys_, int w, int h)
{
    const int L = 56, R = ROOF_R, T = 12, B = 40;
    const struct scale xs = *xs_, ys = *ys_;
    for (double t = ys.d0; t <= ys.d1 * 1.0001; t *= 10) {
        double y = sx(&ys, t);
        fprintf(out, "<line class=\"gl\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", L, w - R, y, y);
        fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>", L - 5,
                y + 4, t);
    }
    /* Every k-th size where they would crowd: a label needs about 46 px. */
    int every = (int)ceil((log2(xs.d1 / xs.d0) + 1) * 46.0 / (w - R - L)), idx = 0;
    for (double t = xs.d0; t <= xs.d1 * 1.0001; t *= 2, idx++) {
        if (idx % every)
            continue;
        char b[32];
        double x = sx(&xs, t);
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, T, h - B);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x,
                h - B + 18, cb_fmt_size((uint64_t)t, "B", b, sizeof b));
    }
    fprintf(out, "<line class=\"ax\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", L, w - R, h - B, h - B);
    fprintf(out, "<text class=\"lab\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">working set (bytes, log "
                 "scale)</text>", (L + w - R) / 2, h - 6);
    fprintf(out, "<text class=\"lab\" transform=\"translate(13 %d) rotate(-90)\" text-anchor=\"middle\">"
                 "bytes per TSC tick (log scale)</text>", (T + h - B) / 2);
}

/* Line l's variant: its name less " (cold)", n characters of it. */
static size_t variant_len(const struct line *l)
{
    const char *c = strstr(l->name, " (cold)");
    return c ? (size_t)(c - l->name) : strlen(l->name);
}

/* Which variant line l draws, counted in first-seen order: its colour, the
 * same for its warm and cold lines (apart by their dash), so that 20
 * variants, not 10, are told apart. */
static size_t variant_index(const struct line *ls, size_t l)
{
    size_t idx = 0, n = variant_len(&ls[l]);
    for (size_t k = 0; k < l; k++) {
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = variant_len(&ls[j]) == variant_len(&ls[k]) &&
                   strncmp(ls[j].name, ls[k].name, variant_len(&ls[k])) == 0;
        if (variant_len(&ls[k]) == n && strncmp(ls[k].name, ls[l].name, n) == 0)
            return idx;
        idx += !seen;
    }
    return idx;
}

/* Each variant's line and points (cold dashed, open dots), then the
 * legend: a colour per variant. */
static void roof_lines(FILE *out, const struct line *ls, size_t nl, const struct scale *xs_,
                       const struct scale *ys_, int stores)
{
    const struct scale xs = *xs_, ys = *ys_;
    for (size_t l = 0; l < nl; l++) {
        const char *col = cb_html_palette[variant_index(ls, l) % CB_HTML_NPAL];
        int cold = strstr(ls[l].name, " (cold)") != NULL;
        fprintf(out, "<polyline class=\"rl%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                cold ? " cold" : "", col);
        for (size_t i = 0; i < ls[l].n; i++)
            fprintf(out, "%s%.1f,%.1f", i ? " " : "", sx(&xs, ls[l].pt[i].x), sx(&ys, ls[l].pt[i].y));
        fputs("\"/>", out);
        for (size_t i = 0; i < ls[l].n; i++) {
            const struct cb_report_case *c = ls[l].pt[i].c;
            char sz[32];
            fprintf(out, "<circle r=\"3\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\" cx=\"%.1f\" "
                         "cy=\"%.1f\"><title>", cold ? "#fff" : col, col, sx(&xs, ls[l].pt[i].x),
                    sx(&ys, ls[l].pt[i].y));
            cb_html_esc(out, ls[l].name);
            fprintf(out, " at %s: %.2f bytes per TSC tick, %.0f%% of the %s load ceiling",
                    cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz), c->bpt,
                    100 * c->share_load, cb_ceil_level_name(c->ceil_level));
            if (stores && isfinite(c->share_store))
                fprintf(out, ", %.0f%% of its store ceiling", 100 * c->share_store);
            fputs("</title></circle>", out);
        }
    }
    fputs("</svg><div class=\"legend\">", out);
    for (size_t l = 0, next = 0; l < nl; l++) {
        size_t v = variant_index(ls, l);
        if (v < next)
            continue;
        next = v + 1;
        char name[sizeof ls[l].name];
        snprintf(name, sizeof name, "%.*s", (int)variant_len(&ls[l]), ls[l].name);
        fprintf(out, "<span style=\"--c:%s\">", cb_html_palette[v % CB_HTML_NPAL]);
        cb_html_esc(out, name);
        fputs("</span>", out);
    }
}

/* A bar's share of its ceiling, for its title. */
static const char *ceiling_note(const struct line_pt *p, char *buf, size_t len)
{
    const struct cb_report_case *c = p->c;
    snprintf(buf, len, "%.0f%% of the %s load ceiling", 100 * c->share_load, cb_ceil_level_name(c->ceil_level));
    return buf;
}

/* One family's roofline: bytes per TSC tick against the working set, both
 * on log scales, the load ceiling (and the store ceiling for the families
 * that store) as steps at the cache sizes, each variant a line: warm solid,
 * cold dashed (judged against DRAM, drawn at its buffer's working set). */
static void roofline_chart(FILE *out, const struct cb_report *r, const char *fam, struct line *ls)
{
    const struct cb_ceilings *cs = &r->ceil;
    size_t nl = 0;
    double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (strcmp(c->info.probe, fam) || !(c->bpt > 0) || c->ceil_level < 0)
            continue;
        char name[96];
        snprintf(name, sizeof name, "%s%s", c->info.variant,
                 strcmp(c->info.mode, "cold") == 0 ? " (cold)" : "");
        double ws = (double)cb_report_working_set(c->info.probe, c->info.bytes_per_op);
        cb_html_add_pt(cb_html_line_for(ls, &nl, MAXLINES, name), ws, c->bpt, c);
        x0 = fmin(x0, ws);
        x1 = fmax(x1, ws);
        y0 = fmin(y0, c->bpt);
        y1 = fmax(y1, c->bpt);
    }
    if (!nl)
        return;
    int stores = cb_report_stores(fam);
    if (cb_html_one_point_each(ls, nl)) {
        fputs("<div class=\"card\"><h3>", out);
        cb_html_esc(out, fam);
        fputs(" <span class=\"pill\">roofline, one size: each variant's share of its ceiling</span>"
              "</h3>", out);
        cb_html_bars(out, ls, nl, "roofline", "bytes per TSC tick", ceiling_note);
        fputs("</div>", out);
        return;
    }
    for (int l = 0; l < CB_NLEVELS; l++) {
        const struct cb_ceiling *c = cb_ceil_best(cs, "load", l);
        const struct cb_ceiling *s = stores ? cb_ceil_best(cs, "store", l) : NULL;
        if (c)
            y0 = fmin(y0, c->bpt), y1 = fmax(y1, c->bpt);
        if (s)
            y0 = fmin(y0, s->bpt), y1 = fmax(y1, s->bpt);
    }
    /* 400 wide, as every chart (report.css): whole in a phone's card. */
    const int w = 400, h = 280, L = 56, R = ROOF_R, T = 12, B = 40;
    struct scale xs = {pow(2, floor(log2(x0)) - 1), pow(2, ceil(log2(x1)) + 1), L, w - R, 1};
    struct scale ys = {pow(10, floor(log10(y0 / 1.2))), pow(10, ceil(log10(y1 * 1.2))), h - B, T, 1};
    fprintf(out, "<div class=\"card\"><h3>");
    cb_html_esc(out, fam);
    fprintf(out, " <span class=\"pill\">roofline</span></h3><svg class=\"chart roofline\" viewBox=\"0 0 "
                 "%d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w, h);
    roof_axes(out, &xs, &ys, w, h);
    roof_steps(out, cs, "load", &xs, &ys, "load");
    if (stores)
        roof_steps(out, cs, "store", &xs, &ys, "store");
    /* Cold cases are judged against DRAM whatever their size: its load
     * ceiling across the whole chart, when the steps do not reach it. */
    const struct cb_ceiling *dram = cb_ceil_best(cs, "load", CB_DRAM);
    int cold_any = 0;
    for (size_t l = 0; l < nl; l++)
        cold_any |= strstr(ls[l].name, " (cold)") != NULL;
    if (dram && cold_any && (!cs->cache[2] || (double)cs->cache[2] >= xs.d1)) {
        double y = sx(&ys, dram->bpt);
        fprintf(out, "<line class=\"ceil dram\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\">"
                     "<title>DRAM load ceiling: %.1f bytes per TSC tick, what cold cases are judged "
                     "against</title></line><text class=\"cl dram\" x=\"%d\" y=\"%.1f\">DRAM load "
                     "%.1f (cold cases)</text>", L, w - R, y, y, dram->bpt, L + 3, y - 3, dram->bpt);
    }
    roof_lines(out, ls, nl, &xs, &ys, stores);
    fputs("</div></div>", out);
}

int cb_html_roofline_view(FILE *out, const struct cb_report *r, struct line *ls)
{
    if (!r->has_ceil)
        return 0;
    int any = 0;
    const char *done[32];
    size_t nd = 0;
    for (size_t k = 0; k < r->ncases && nd < 32; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!(c->bpt > 0) || c->ceil_level < 0)
            continue;
        int seen = 0;
        for (size_t d = 0; d < nd && !seen; d++)
            seen = strcmp(done[d], c->info.probe) == 0;
        if (seen)
            continue;
        done[nd++] = c->info.probe;
        if (!any)
            fprintf(out, "<h2 id=\"roofline-%" PRId64 "\">Roofline</h2><p class=\"lead\">Each family "
                         "against the machine's ceilings (calibration %lld, %s): bytes per TSC tick "
                         "against the working set, both on log scales. Steps: the best load ceiling "
                         "of each cache level up to its size, then DRAM%s. Lines: a colour per variant, "
                         "warm solid, cold (judged against DRAM) dashed with open dots (where one "
                         "size was measured, a bar per variant instead, its share of the ceiling "
                         "on hover). The closer "
                         "to the step above it, the less a variant leaves on the table.</p>"
                         "<div class=\"grid\">",
                    r->run.id, (long long)r->cal_id,
                    strcmp(r->ceil.source, "model") == 0 ? "FIXED MODEL FIGURES, not this machine"
                                                         : r->cal_reused ? "reused" : "measured by this run",
                    " (dotted: the store ceiling, for the families that write their bytes)");
        any = 1;
        roofline_chart(out, r, c->info.probe, ls);
    }
    if (any)
        fputs("</div>", out);
    return any;
}
