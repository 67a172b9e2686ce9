/* history_html.c — see history_html.h. */
#include "report/history_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

struct page {
    const struct cb_history_host *h;
    size_t nh;
};

/* 400 wide, as every chart of the report (report.css): whole in a
 * phone's card, its labels at 8.5 px or more. */
#define W 400.0
#define H 230.0
#define L 64.0    /* left margin: the y labels */
#define R 28.0    /* room for half the last commit's label */
#define T 14.0
#define B 44.0    /* bottom margin: the commit labels and the axis title */

static const char *step_class(const struct cb_trend_step *s)
{
    return s->acked ? "acked" : s->est > 0 ? "regressed" : "improved";
}

static const char *step_colour(const struct cb_trend_step *s)
{
    return s->acked ? "#8a8f98" : s->est > 0 ? "#c0392b" : "#1a7f37";
}

/* A commit as people quote it: 12 hex digits, escaped like any stored text. */
static void short_hash(FILE *out, const char *hash)
{
    char buf[13];
    snprintf(buf, sizeof buf, "%s", hash);
    cb_html_esc(out, buf);
}

/* The x axis: each commit's short hash under its point (every k-th when
 * they would crowd: a label and its gap need about 56 px), its subject on
 * hover. */
static void commit_labels(FILE *out, const struct cb_trend *t, double xw, double y)
{
    size_t every = (size_t)ceil((double)t->n * 56.0 / xw);
    if (every < 1)
        every = 1;
    for (size_t i = 0; i < t->n; i += every) {
        double x = L + (t->n > 1 ? xw * (double)i / (double)(t->n - 1) : xw / 2);
        char h[8];
        snprintf(h, sizeof h, "%s", t->hash[i]);
        fprintf(out, "<text class=\"tick commit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"><title>",
                x, y);
        short_hash(out, t->hash[i]);
        fputc(' ', out);
        cb_html_esc(out, t->subject[i]);
        fputs("</title>", out);
        cb_html_esc(out, h);
        fputs("</text>", out);
    }
}

/* The y axis's unit, short enough to stand along it: from the history's
 * metric label (history.c's words). */
static const char *unit_of(const char *metric)
{
    if (!metric)
        return "per op";
    if (strstr(metric, "Ir"))
        return "Ir (simulated instructions) per op";
    if (strstr(metric, "ESTIMATED"))
        return "estimated core cycles per op";
    if (strstr(metric, "PMU"))
        return "core cycles per op";
    return "TSC ticks per op";
}

/* The least y range of a trend chart, as a share of its series' middle:
 * 5%, so that a 2% step (history's default) fills 40% of the height. */
#define CHART_MIN_SPAN 0.05

/* A round step (1, 2 or 5 times a power of ten) for about n ticks over span. */
static double round_step(double span, int n)
{
    double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

/* The y range of t's chart, [*lo, *hi].  Not from zero: a 2% step must
 * be visible.  But never less than CHART_MIN_SPAN of the series' middle
 * either, centred on it, so that a change is drawn to its scale (a 0.02%
 * change drew as a cliff); padded by 5% of the range. */
static void y_range(const struct cb_trend *t, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < t->n; i++) {
        *lo = fmin(*lo, t->y[i]);
        *hi = fmax(*hi, t->y[i]);
    }
    double span = *hi - *lo, mid = (*hi + *lo) / 2;
    if (!(span >= fabs(mid) * CHART_MIN_SPAN)) {
        span = fabs(mid) * CHART_MIN_SPAN + 1e-9;
        *lo = mid - span / 2;
        *hi = mid + span / 2;
    }
    *lo -= 0.05 * span;
    *hi += 0.05 * span;
}

/* Point i at (x, y), its commit and figure on hover; red when a slowed
 * host measured one of its runs, and the runs' states said after them. */
static void point(FILE *out, const struct cb_trend *t, size_t i, double x, double y)
{
    int slowed = t->state && strstr(t->state[i], "slowed") != NULL;
    fprintf(out, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
            slowed ? " slowed" : "", x, y, slowed ? "#c0392b" : "#3b6fb6");
    short_hash(out, t->hash[i]);
    fputc(' ', out);
    cb_html_esc(out, t->subject[i]);
    fprintf(out, ": %.1f", t->y[i]);
    if (slowed) {
        fputs("; ", out);
        cb_html_esc(out, t->state[i]);
    }
    fputs("</title></circle>", out);
}

/* x of commit i on t's chart; y of value v where the plot starts at top
 * and spans [lo, lo + span]. */
static double x_of(const struct cb_trend *t, size_t i)
{
    double xw = W - L - R;
    return L + (t->n > 1 ? xw * (double)i / (double)(t->n - 1) : xw / 2);
}

static double y_of(double v, double lo, double span, double top)
{
    return top + (H - T - B) * (1 - (v - lo) / span);
}

/* Step st's label ("+30.0% at 79ba481ad619", 6.8 px a character of the
 * bold 10.5 px labels): from *x0 to *x1, rightward of its line unless it
 * would run past the right edge.  1 when leftward. */
static int label_box(const struct cb_trend *t, const struct cb_trend_step *st, double *x0, double *x1)
{
    char lab[48];
    int len = snprintf(lab, sizeof lab, "%+.1f%% at %.12s", 100 * st->est, t->hash[st->at]);
    double x = x_of(t, st->at), wd = 6.8 * len;
    int left = x + 4 + wd > W;
    *x0 = left ? x - 4 - wd : x + 4;
    *x1 = *x0 + wd;
    return left;
}

/* The row above the plot of each step's label (row[s], 0 nearest it): the
 * first where it clears every label before it (two steps' labels drew one
 * over the other, and the script moved one down under a step line).  The
 * number of rows, at most 8. */
#define LABEL_ROW 13.0
static size_t label_rows(const struct cb_trend *t, size_t *row)
{
    double end[8];
    size_t nr = 0;
    for (size_t s = 0; s < t->nsteps; s++) {
        double a, b;
        label_box(t, &t->steps[s], &a, &b);
        size_t r = 0;
        while (r < nr && end[r] + 6 > a)
            r++;
        if (r == 8)
            r = 7;
        if (r == nr)
            end[nr++] = b;
        else
            end[r] = fmax(end[r], b);
        row[s] = r;
    }
    return nr;
}

/* Each step: the segments' medians, the first commit after it, and its
 * label above the plot in row row[s]. */
static void steps_drawn(FILE *out, const struct cb_trend *t, const size_t *row, double lo, double span,
                        double top)
{
    for (size_t s = 0; s < t->nsteps; s++) {
        const struct cb_trend_step *st = &t->steps[s];
        const char *col = step_colour(st);
        fprintf(out, "<line stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" x1=\"%.1f\" "
                "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", col, x_of(t, st->from), x_of(t, st->at - 1),
                y_of(st->before, lo, span, top), y_of(st->before, lo, span, top));
        fprintf(out, "<line stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" x1=\"%.1f\" "
                "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", col, x_of(t, st->at), x_of(t, st->to - 1),
                y_of(st->after, lo, span, top), y_of(st->after, lo, span, top));
        /* On the first commit after the step, the one it names: between
         * two commits it would name neither. */
        double x = x_of(t, st->at), x0, x1;
        fprintf(out, "<line class=\"step %s\" stroke=\"%s\" stroke-width=\"2\" x1=\"%.1f\" x2=\"%.1f\" "
                "y1=\"%.1f\" y2=\"%.1f\"><title>", step_class(st), col, x, x, top, top + H - T - B);
        short_hash(out, t->hash[st->at]);
        fprintf(out, ": %+.1f%% [%+.1f%%, %+.1f%%] %s</title></line>", 100 * st->est, 100 * st->lo,
                100 * st->hi, step_class(st));
        int left = label_box(t, st, &x0, &x1);
        fprintf(out, "<text class=\"bl\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%+.1f%% at ",
                col, left ? x1 : x0, top - 3 - LABEL_ROW * (double)row[s], left ? "end" : "start",
                100 * st->est);
        short_hash(out, t->hash[st->at]);
        fputs("</text>", out);
    }
}

static void chart(FILE *out, const struct cb_trend *t, const char *metric)
{
    if (t->n == 0) {
        fputs("<p>No measured point (every run skipped this case).</p>", out);
        return;
    }
    double lo, hi;
    y_range(t, &lo, &hi);
    double span = hi - lo;
    size_t *row = calloc(t->nsteps ? t->nsteps : 1, sizeof *row);
    if (!row)
        return;
    size_t nr = label_rows(t, row);
    /* A row of step labels more above the plot for each that crowds. */
    double xw = W - L - R, yh = H - T - B, top = T + LABEL_ROW * (double)(nr > 1 ? nr - 1 : 0);
    double h = H + (top - T);
    fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
            "aria-label=\"", W, h, W, h);
    cb_html_esc(out, t->key);
    fputs(" over commits\">", out);
    /* Ticks at a round step, with as many decimals as the step needs, so
     * that no two read alike (they read "219.0" five times). */
    double step = round_step(span, 4);
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    for (double v = ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) {
        double y = y_of(v, lo, span, top);
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", L, W - R, y, y);
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>", L - 6,
                y + 4, dec, v);
    }
    fprintf(out, "<line class=\"ax\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", L, W - R, top + yh,
            top + yh);
    fprintf(out, "<text class=\"lab unit\" transform=\"translate(12 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">%s</text>", top + yh / 2, unit_of(metric));
    fprintf(out, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commits, oldest to "
            "newest (%zu)</text>", L + xw / 2, h - 6, t->n);
    commit_labels(out, t, xw, top + yh + 18);
    steps_drawn(out, t, row, lo, span, top);
    free(row);
    fputs("<polyline fill=\"none\" stroke=\"#3b6fb6\" stroke-width=\"1.5\" points=\"", out);
    for (size_t i = 0; i < t->n; i++)
        fprintf(out, "%.1f,%.1f ", x_of(t, i), y_of(t->y[i], lo, span, top));
    fputs("\"/>", out);
    for (size_t i = 0; i < t->n; i++)
        point(out, t, i, x_of(t, i), y_of(t->y[i], lo, span, top));
    fputs("</svg>", out);
}

/* The steps of one machine's cases, with each acknowledgement's reason. */
static void steps_table(FILE *out, const struct cb_history_host *h)
{
    size_t nsteps = 0;
    for (size_t k = 0; k < h->nt; k++)
        nsteps += h->t[k].nsteps;
    if (!nsteps) {
        fputs("<p class=\"note\">No step: every case's series is flat within its noise.</p>", out);
        return;
    }
    fputs("<div class=\"tablewrap\"><table class=\"sortable steps\"><thead><tr>"
          "<th>case</th><th>commit</th><th>subject</th><th>before</th><th>after</th><th>change</th>"
          "<th>95% CI</th><th>verdict</th></tr></thead><tbody>", out);
    for (size_t k = 0; k < h->nt; k++)
        for (size_t s = 0; s < h->t[k].nsteps; s++) {
            const struct cb_trend *t = &h->t[k];
            const struct cb_trend_step *st = &t->steps[s];
            fputs("<tr data-case=\"", out);
            cb_html_esc(out, t->key);
            fputs("\"><td>", out);
            cb_html_esc(out, t->key);
            fputs("</td><td><code>", out);
            short_hash(out, t->hash[st->at]);
            fputs("</code></td><td class=\"wrap\">", out);
            cb_html_esc(out, t->subject[st->at]);
            fprintf(out, "</td><td>%.1f</td><td>%.1f</td><td>%+.1f%%</td><td>[%+.1f%%, %+.1f%%]</td>"
                    "<td class=\"%s wrap\">%s", st->before, st->after, 100 * st->est, 100 * st->lo,
                    100 * st->hi, st->est > 0 && !st->acked ? "bad" : "", step_class(st));
            if (st->acked) {
                fputs(": ", out);
                cb_html_esc(out, st->why);
            }
            fputs("</td></tr>", out);
        }
    fputs("</tbody></table></div>", out);
}

static void host_panel(FILE *out, const struct cb_history_host *h, size_t i)
{
    fprintf(out, "<section class=\"host\" id=\"host-%zu\">", i);
    if (h->label[0]) {
        fputs("<h2>", out);
        cb_html_esc(out, h->label);
        fputs("</h2>", out);
    }
    fputs("<p>", out);
    cb_html_esc(out, h->summary);
    fputs(" One point per commit: the geometric mean of its runs' 0.1-quantiles of quiet samples, in ", out);
    cb_html_esc(out, h->metric);
    fputs(".</p><h3>Steps</h3>", out);
    steps_table(out, h);
    fputs("<h3>Trends</h3><div class=\"grid\">", out);
    for (size_t k = 0; k < h->nt; k++) {
        fputs("<div class=\"card\" data-case=\"", out);
        cb_html_esc(out, h->t[k].key);
        fputs("\"><h3>", out);
        cb_html_esc(out, h->t[k].key);
        fputs("</h3>", out);
        chart(out, &h->t[k], h->metric);
        fputs("</div>", out);
    }
    fputs("</div></section>", out);
}

static void body(FILE *out, void *ctx)
{
    const struct page *pg = ctx;
    fputs("<main><h1>cyclebudget history</h1>", out);
    if (pg->nh > 1) {
        fputs("<nav class=\"toc\">", out);
        for (size_t i = 0; i < pg->nh; i++) {
            fprintf(out, "<a href=\"#host-%zu\">", i);
            cb_html_esc(out, pg->h[i].label);
            fputs("</a>", out);
        }
        fputs("</nav>", out);
    }
    fputs("<p class=\"lead\">Dashed lines are the segments' medians; a solid line marks the first commit "
          "after a step (red: regressed, green: improved, grey: acknowledged). Under each chart, the "
          "commits' short hashes (every k-th where they would crowd): hover one, or a point, for "
          "its subject.</p><p class=\"filter\"><label>Cases: "
          "<input id=\"case-filter\" type=\"search\" placeholder=\"a glob, e.g. csum/*/1500/*\" "
          "spellcheck=\"false\"></label> <span id=\"case-count\"></span></p>", out);
    for (size_t i = 0; i < pg->nh; i++)
        host_panel(out, &pg->h[i], i);
    fputs("<footer>Made by cyclebudget history from the store alone. Self-contained: nothing is "
          "loaded from anywhere.</footer></main>", out);
}

int cb_history_html(FILE *out, const struct cb_history_host *hosts, size_t nh)
{
    struct page pg = {hosts, nh};
    return cb_html_page(out, "cyclebudget history", body, &pg);
}
