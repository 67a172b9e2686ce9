/* html_summary.c — the report page's first screen: for each
 * family, one chart that answers the three questions a reader opens the
 * page with: what does the best variant cost at each size, what share of
 * the packet budget is that, and what changed since the base run (the
 * first run given, when there are two or more).  The per-variant detail
 * follows further down the page. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "analysis/budget.h"
#include "report/html_internal.h"
#include "report/rank.h"
#include "report/report.h"

static int same_group(const struct cb_report_case *a, const struct cb_report_case *b)
{
    return strcmp(a->info.probe, b->info.probe) == 0 && a->info.size == b->info.size &&
           strcmp(a->info.mode, b->info.mode) == 0;
}

/* The best measured case of the group starting at i (its end in *j): the
 * rank's first, as the text report and run's summary name it. */
static const struct cb_report_case *best_of_group(const struct cb_report *r, size_t i, size_t *j)
{
    const struct cb_report_case *v[128];
    size_t n = 0;
    for (*j = i; *j < r->ncases && same_group(&r->cases[i], &r->cases[*j]); (*j)++) {
        const struct cb_report_case *c = &r->cases[*j];
        if (c->measured && c->cyc.median > 0 && n < 128)
            v[n++] = c;
    }
    return n && cb_rank_group(r, v, n, NULL) ? v[0] : NULL;
}

/* The same case (probe, variant, size, mode) in the base run, or NULL. */
static const struct cb_report_case *in_base(const struct cb_report *base, const struct cb_case_info *i)
{
    for (size_t k = 0; base && k < base->ncases; k++) {
        const struct cb_report_case *c = &base->cases[k];
        if (c->measured && c->cyc.median > 0 && !strcmp(c->info.probe, i->probe) &&
            !strcmp(c->info.variant, i->variant) && c->info.size == i->size && !strcmp(c->info.mode, i->mode))
            return c;
    }
    return NULL;
}

/* The budget of the frames c is charged to (budget.h's rule), in cycles:
 * a row's own, since a 1500-byte csum and a per-packet free are charged to
 * different frames. */
static double row_budget(const struct cb_report *r, const struct cb_report_case *c,
                         const struct cb_budget *b)
{
    double s = cb_report_share(r, c, b);
    double m = cb_report_context_cycles(r, c);
    return s > 0 && m > 0 ? m / s : NAN;
}

/* In kernel context, the group's kernel pick where it differs. */
static const struct cb_report_case *kernel_pick_of(const struct cb_report *r,
                                                   const struct cb_report_case *best)
{
    const struct cb_report_case *v[64];
    size_t n = 0;
    for (size_t i = 0; i < r->ncases && n < 64; i++) {
        const struct cb_report_case *c = &r->cases[i];
        if (c->measured && c->info.size == best->info.size && !strcmp(c->info.probe, best->info.probe) &&
            !strcmp(c->info.mode, best->info.mode))
            v[n++] = c;
    }
    return cb_report_kernel_pick(r, v, n);
}

struct fam_rows {
    const struct cb_report_case *best[64];
    size_t n;
    double lo, hi;
};

static void fam_rows(const struct cb_report *r, const char *fam, const struct cb_budget *bu,
                     struct fam_rows *fr)
{
    fr->n = 0;
    fr->lo = INFINITY;
    fr->hi = 0;
    for (size_t i = 0, j; i < r->ncases; i = j) {
        const struct cb_report_case *b = best_of_group(r, i, &j);
        if (!b || strcmp(b->info.probe, fam) || fr->n == sizeof fr->best / sizeof fr->best[0])
            continue;
        if (r->context == CB_CONTEXT_KERNEL && !(b = kernel_pick_of(r, b)))
            continue;
        fr->best[fr->n++] = b;
        double budget = row_budget(r, b, bu), m = cb_report_context_cycles(r, b);
        fr->lo = fmin(fr->lo, fmin(m, budget > 0 ? budget : INFINITY));
        fr->hi = fmax(fr->hi, fmax(m, budget > 0 ? budget : 0));
    }
}

static void text_at(FILE *out, const char *cls, double x, double y, const char *anchor, const char *s)
{
    fprintf(out, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, x, y, anchor);
    cb_html_esc(out, s);
    fputs("</text>", out);
}

/* The summary's columns: its figures end at these x; the chart is narrow
 * enough to be read whole in a 390-px window (its figures were
 * cut unless each card was scrolled sideways), two lines a row. */
#define SUM_CYC 250.0
#define SUM_SHARE 300.0
#define SUM_CHANGE 354.0
#define SUM_ROW 32

/* One row: where and the best variant on a line, then a bar on the
 * family's log scale with the budget of the row's frames, its cost, its
 * share of that budget, its change since the base. */
static void summary_row(FILE *out, const struct cb_report *r, const struct cb_report_case *c,
                        const struct cb_report *base, const struct scale *s,
                        const struct cb_budget *bu, double y)
{
    char buf[96], ch[48];
    double m = cb_report_context_cycles(r, c), share = cb_report_share(r, c, bu);
    double budget = row_budget(r, c, bu);
    struct cb_charge g;
    cb_budget_charge(c->info.probe, c->info.unit, c->info.bytes_per_op, bu->frame ? bu->frame : CB_MIN_FRAME,
                     &g);
    fprintf(out, "<text class=\"lab\" x=\"4\" y=\"%.1f\">", y + 11);
    cb_html_esc(out, cb_report_where(&c->info, " ", buf, sizeof buf));
    fputs(" <tspan class=\"var\">", out);
    cb_html_esc(out, c->info.variant);
    fputs("</tspan></text>", out);
    double x1 = sx(s, m);
    const char *fill = !(share > 0) ? "#888" : share <= 0.5 ? "#1a9850" : share <= 1 ? "#f0b429" : "#d73027";
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"11\" rx=\"2\" fill=\"%s\"><title>",
            s->r0, y + 16, fmax(x1 - s->r0, 1), fill);
    cb_html_esc(out, c->info.variant);
    fprintf(out, ": %.1f cycles per %s (median of %zu%s)</title></rect>", m, c->info.op, c->cyc.n,
            r->context == CB_CONTEXT_KERNEL ? ", in the kernel" : "");
    if (budget > 0) {
        double bx = sx(s, budget);
        fprintf(out, "<line class=\"bud\" stroke=\"#d73027\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                     "y2=\"%.1f\"><title>the %s budget of %s: %.0f cycles</title></line>", bx, bx, y + 14,
                y + 29, bu->label, cb_budget_charge_text(&g, ch, sizeof ch), budget);
    }
    snprintf(buf, sizeof buf, "%.*f", m < 100 ? 1 : 0, m);
    text_at(out, "num", SUM_CYC, y + 26, "end", buf);
    if (isfinite(share))
        snprintf(buf, sizeof buf, "%.*f%%", share < 0.1 ? 1 : 0, 100 * share);
    fprintf(out, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s<title>of the %s "
                 "budget of %s</title></text>", share > 1 ? "num over" : "num", SUM_SHARE, y + 26,
            isfinite(share) ? buf : "–", bu->label, cb_budget_charge_text(&g, ch, sizeof ch));
    if (base) {
        const struct cb_report_case *b = in_base(base, &c->info);
        double d = b ? m / b->cyc.median - 1 : NAN;
        if (b)
            snprintf(buf, sizeof buf, "%+.1f%%", 100 * d);
        text_at(out, d > 0.02 ? "num over" : d < -0.02 ? "num fit" : "num", SUM_CHANGE, y + 26, "end",
                b ? buf : "new");
    }
}

static void summary_chart(FILE *out, const struct cb_report *r, const struct cb_report *base,
                          const struct fam_rows *fr, const struct cb_budget *bu)
{
    const int top = 18, w = base ? 360 : 306, h = top + (int)fr->n * SUM_ROW + 18;
    /* The bars end before the widest cost ("2098598" at 16 MiB ran into its
     * bar): 6.7 px a digit of the 11 px figures. */
    char num[32];
    int widest = snprintf(num, sizeof num, "%.0f", fr->hi);
    double r1 = SUM_CYC - 6.7 * widest - 8;
    struct scale s = {pow(10, floor(log10(fr->lo / 1.2))), pow(10, ceil(log10(fr->hi * 1.2))), 4, r1, 1};
    fprintf(out, "<svg class=\"chart summary\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">",
            w, h, w, h);
    text_at(out, "th", 4, 12, "start", r->context == CB_CONTEXT_KERNEL ? "size, mode: kernel's pick"
                                                                       : "size, mode: best variant");
    text_at(out, "th", SUM_CYC, 12, "end", "cycles");
    text_at(out, "th", SUM_SHARE, 12, "end", "budget");
    if (base)
        text_at(out, "th", SUM_CHANGE, 12, "end", "change");
    for (size_t k = 0; k < fr->n; k++)
        summary_row(out, r, fr->best[k], base, &s, bu, top + (double)k * SUM_ROW);
    text_at(out, "bl", s.r0, h - 4, "start", "| the budget of each row's frames");
    fputs("</svg>", out);
}

void cb_html_summary_view(FILE *out, const struct cb_report *r, const struct cb_report *base,
                          const struct cb_budget *b)
{
    double budget = cb_budget_cycles(b, r->core_ghz);
    fprintf(out, "<h2 id=\"summary-%" PRId64 "\">At a glance</h2><p class=\"lead\">For each family, the "
                 "%s at each size: its median cost (%s per operation; bars on a log scale), "
                 "its share of the %s budget of the frames it is charged to (the budget rule in the "
                 "header: %.0f cycles for one %u-byte frame; more for an operation over more bytes; "
                 "green: half or less, amber: within it, red: over)",
            r->run.id,
            r->context == CB_CONTEXT_KERNEL ? "kernel's pick (its in-kernel cost: the FPU save "
                                              "charged, +kflags builds standing for the kernel's)"
                                            : "best variant (the ranking's first, as in the text report)",
            strcmp(r->cyc_source, "pmu") == 0 ? "core cycles" : strcmp(r->cyc_source, "estimate") == 0
                                                                             ? "ESTIMATED core cycles"
                                                                             : "cycles as the run counted them",
            b->label, budget, b->frame ? b->frame : CB_MIN_FRAME);
    if (base)
        fprintf(out, ", and its change since run %" PRId64 " (the base: the first run given)", base->run.id);
    fputs(". Every variant, size and chart follows below.</p><div class=\"grid\">", out);
    const char *done[32];
    size_t nd = 0;
    for (size_t k = 0; k < r->ncases && nd < 32; k++) {
        const char *fam = r->cases[k].info.probe;
        int seen = 0;
        for (size_t d = 0; d < nd && !seen; d++)
            seen = strcmp(done[d], fam) == 0;
        if (seen)
            continue;
        done[nd++] = fam;
        struct fam_rows fr;
        fam_rows(r, fam, b, &fr);
        if (!fr.n)
            continue;
        fputs("<div class=\"card\"><h3>", out);
        cb_html_esc(out, fam);
        fputs(" <span class=\"pill\">cycles per ", out);
        cb_html_esc(out, r->cases[k].info.op);
        fputs("</span></h3>", out);
        summary_chart(out, r, base, &fr, b);
        fputs("</div>", out);
    }
    fputs("</div>", out);
}
