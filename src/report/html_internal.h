/* html_internal.h — what html.c and html_charts.c share, and nothing else.
 *
 * It exists only because the report page was split in two files to keep
 * each one readable; nothing outside src/report/html*.c includes it. */
#ifndef CB_HTML_INTERNAL_H
#define CB_HTML_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

struct line_pt {
    double x, y;
    const struct cb_report_case *c;
};
struct line {
    char name[96];
    struct line_pt pt[64];
    size_t n;
};

#define MAXLINES 24

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
void cb_html_slab_view(FILE *out, const struct cb_report *r, struct line *ls);
void cb_html_rx_view(FILE *out, const struct cb_report *r, const struct cb_report_case **v);

#endif
