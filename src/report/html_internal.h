/* html_internal.h — what html.c and html_charts.c share, and nothing else.
 *
 * It exists only because the report page was split in two files to keep
 * each one readable; nothing outside src/report/html*.c includes it. */
#ifndef CB_HTML_INTERNAL_H
#define CB_HTML_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

struct line_pt {
    double x, y;
    const struct cb_report_case *c;
};
struct line {
    char name[96];
    struct line_pt pt[64];
    size_t n;
};

/* The most lines a chart draws: a roofline has a warm and a cold line per
 * variant (memset's 15 variants are 30). */
#define MAXLINES 64

/* A linear or log10 scale from a domain to pixels, clamped. */
struct scale {
    double d0, d1;     /* domain */
    double r0, r1;     /* range, pixels */
    int log;
};

static inline double sx(const struct scale *s, double v)
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
static inline double nice_step(double span, int n)
{
    double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}


#define CB_HTML_NPAL 20
extern const char *const cb_html_palette[CB_HTML_NPAL];
/* The stroke-dasharray of line l: solid for the first ten, dashed after,
 * so that lines of similar colour still differ. */
static inline const char *cb_html_dash(size_t l)
{
    return l % (2 * CB_HTML_NPAL) < 10 ? "none" : l % 2 ? "6 3" : "2 2";
}

/* html_charts.c: the line called name among ls (a new one, while fewer
 * than max); a point added to l in x order. */
struct line *cb_html_line_for(struct line *ls, size_t *nl, size_t max, const char *name);
void cb_html_add_pt(struct line *l, double x, double y, const struct cb_report_case *c);

/* html_bars.c: 1 when every one of ls's nl lines has one point (one size
 * measured); then its chart is a bar per line, highest first, in a svg of
 * class "chart bars CLS", its figure named what, and note (may be NULL)
 * adding to each bar's title. */
int cb_html_one_point_each(const struct line *ls, size_t nl);
void cb_html_bars(FILE *out, const struct line *ls, size_t nl, const char *cls, const char *what,
                  const char *(*note)(const struct line_pt *p, char *buf, size_t len));

/* html.c: a number in the page's few digits ("–" for NaN), and a size. */
void cb_html_fnum(FILE *out, double v);
void cb_html_size_label(FILE *out, uint64_t size, const char *unit);

/* html_charts.c: the chart views of one run.  v has room for every case of
 * the run, ls for MAXLINES lines; both are scratch. */
void cb_html_budget_view(FILE *out, const struct cb_report *r, const struct cb_report_case **v);
int cb_html_throughput_view(FILE *out, const struct cb_report *r, struct line *ls);
void cb_html_noise_view(FILE *out, const struct cb_report *r);
/* One roofline picture per byte-moving family against the run's ceilings;
 * 0 when the run has none. */
int cb_html_roofline_view(FILE *out, const struct cb_report *r, struct line *ls);
/* html_summary.c: the first screen: per family, the best variant at each
 * size, its cost, budget share and change since base (NULL: none). */
struct cb_budget;
void cb_html_summary_view(FILE *out, const struct cb_report *r, const struct cb_report *base,
                          const struct cb_budget *b);
/* The bulk and bar charts the families' probe records ask for (probe.h's
 * struct cb_chart), in the registry's order. */
void cb_html_family_views(FILE *out, const struct cb_report *r, const struct cb_report_case **v,
                          struct line *ls);

#endif
