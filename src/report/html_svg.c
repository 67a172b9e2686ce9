/* html_svg.c — what every HTML view draws with (html_internal.h): numbers
 * and sizes as text, the series palette, a line's points kept in x order. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "report/html_internal.h"
#include "report/report.h"

/* Kelly's colours of maximum contrast (1965), less white and black, with
 * the first ten kept for the first lines: 20 series told apart, and lines
 * past the tenth dashed as well (cb_html_dash). */
const char *const cb_html_palette[CB_HTML_NPAL] = {
    "#0067a5", "#e25822", "#008856", "#875692", "#f3c300", "#be0032", "#a1caf1", "#654522",
    "#e68fac", "#8db600", "#604e97", "#f6a600", "#2b3d26", "#b3446c", "#848482", "#882d17",
    "#f99379", "#c2b280", "#dcd300", "#3b3b3b",
};

void cb_html_fnum(FILE *out, double v)
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

void cb_html_size_label(FILE *out, uint64_t size, const char *unit)
{
    char b[32];
    cb_html_esc(out, cb_fmt_size(size, unit, b, sizeof b));
}

void cb_html_add_pt(struct line *l, double x, double y, const struct cb_report_case *c)
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
