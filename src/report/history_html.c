/* history_html.c — see history_html.h. */
#include "report/history_html.h"

#include <math.h>
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
static void commit_labels(FILE *out, const struct cb_trend *t, double xw)
{
    size_t every = (size_t)ceil((double)t->n * 56.0 / xw);
    if (every < 1)
        every = 1;
    for (size_t i = 0; i < t->n; i += every) {
        double x = L + (t->n > 1 ? xw * (double)i / (double)(t->n - 1) : xw / 2);
        char h[8];
        snprintf(h, sizeof h, "%s", t->hash[i]);
        fprintf(out, "<text class=\"tick commit\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\"><title>",
                x, T + (H - T - B) + 18);
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

static void chart(FILE *out, const struct cb_trend *t, const char *metric)
{
    if (t->n == 0) {
        fputs("<p>No measured point (every run skipped this case).</p>", out);
        return;
    }
    double lo, hi;
    y_range(t, &lo, &hi);
    double span = hi - lo;
    double xw = W - L - R, yh = H - T - B;
#define XS(i) (L + (t->n > 1 ? xw * (double)(i) / (double)(t->n - 1) : xw / 2))
#define YS(v) (T + yh * (1 - ((v) - lo) / span))
    fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"", W, H, W, H);
    cb_html_esc(out, t->key);
    fputs(" over commits\">", out);
    /* Ticks at a round step, with as many decimals as the step needs, so
     * that no two read alike (they read "219.0" five times). */
    double step = round_step(span, 4);
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    for (double v = ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) {
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", L, W - R,
                YS(v), YS(v));
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>", L - 6,
                YS(v) + 4, dec, v);
    }
    fprintf(out, "<line class=\"ax\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", L, W - R, T + yh,
            T + yh);
    fprintf(out, "<text class=\"lab unit\" transform=\"translate(12 %.1f) rotate(-90)\" "
            "text-anchor=\"middle\">%s</text>", T + yh / 2, unit_of(metric));
    fprintf(out, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">commits, oldest to "
            "newest (%zu)</text>", L + xw / 2, H - 6, t->n);
    commit_labels(out, t, xw);
    /* Each step: the segments' medians, and the first commit after it. */
    for (size_t s = 0; s < t->nsteps; s++) {
        const struct cb_trend_step *st = &t->steps[s];
        const char *col = step_colour(st);
        fprintf(out, "<line stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" x1=\"%.1f\" "
                "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", col, XS(st->from), XS(st->at - 1), YS(st->before),
                YS(st->before));
        fprintf(out, "<line stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\" x1=\"%.1f\" "
                "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", col, XS(st->at), XS(st->to - 1), YS(st->after),
                YS(st->after));
        /* On the first commit after the step, the one it names: between
         * two commits it would name neither. */
        double x = XS(st->at);
        fprintf(out, "<line class=\"step %s\" stroke=\"%s\" stroke-width=\"2\" x1=\"%.1f\" x2=\"%.1f\" "
                "y1=\"%.1f\" y2=\"%.1f\"><title>", step_class(st), col, x, x, T, T + yh);
        short_hash(out, t->hash[st->at]);
        fprintf(out, ": %+.1f%% [%+.1f%%, %+.1f%%] %s</title></line>", 100 * st->est, 100 * st->lo,
                100 * st->hi, step_class(st));
        /* Its label above the plot, where no line runs; leftward where
         * it would run past the right edge (6.8 px a character of the
         * bold 10.5 px labels). */
        char lab[48];
        int len = snprintf(lab, sizeof lab, "%+.1f%% at %.12s", 100 * st->est, t->hash[st->at]);
        int left = x + 4 + 6.8 * len > W;
        fprintf(out, "<text class=\"bl\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%+.1f%% at ",
                col, left ? x - 4 : x + 4, T - 3, left ? "end" : "start", 100 * st->est);
        short_hash(out, t->hash[st->at]);
        fputs("</text>", out);
    }
    fputs("<polyline fill=\"none\" stroke=\"#3b6fb6\" stroke-width=\"1.5\" points=\"", out);
    for (size_t i = 0; i < t->n; i++)
        fprintf(out, "%.1f,%.1f ", XS(i), YS(t->y[i]));
    fputs("\"/>", out);
    for (size_t i = 0; i < t->n; i++)
        point(out, t, i, XS(i), YS(t->y[i]));
    fputs("</svg>", out);
#undef XS
#undef YS
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
