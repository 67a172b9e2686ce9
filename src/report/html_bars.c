/* html_bars.c — a chart of lines that have one point each, drawn as a bar
 * per line (html_internal.h).
 *
 * With one size measured, the throughput and roofline charts were a
 * column of dots at one x, in colours too alike to tell apart: a bar per
 * variant, named, with its figure, carries what the dots could not. */
#include <math.h>
#include <string.h>

#include "report/html_internal.h"

int cb_html_one_point_each(const struct line *ls, size_t nl)
{
    if (nl == 0)
        return 0;
    for (size_t l = 0; l < nl; l++)
        if (ls[l].n != 1)
            return 0;
    return 1;
}

void cb_html_bars(FILE *out, const struct line *ls, size_t nl, const char *cls, const char *what,
                  const char *(*note)(const struct line_pt *p, char *buf, size_t len))
{
    size_t order[MAXLINES], n = nl < MAXLINES ? nl : MAXLINES, longest = 0;
    double hi = 0;
    for (size_t l = 0; l < n; l++) {
        size_t j = l;
        for (; j > 0 && ls[order[j - 1]].pt[0].y < ls[l].pt[0].y; j--)
            order[j] = order[j - 1];
        order[j] = l;
        hi = fmax(hi, ls[l].pt[0].y);
        longest = strlen(ls[l].name) > longest ? strlen(ls[l].name) : longest;
    }
    /* Names end at L (6.6 px a character of the 11 px labels, at most 26);
     * the figures after the bars, 6.2 px a character of 10.5 px. */
    const int row = 18, top = 8, w = 400, h = top + (int)n * row + 34;
    double L = 8 + 6.6 * (double)(longest < 22 ? longest : 22), R = w - 44;
    if (!(hi > 0))
        hi = 1;
    double step = nice_step(hi * 1.05, 4);
    struct scale s = {0, ceil(hi * 1.05 / step) * step, L + 6, R, 0};
    fprintf(out, "<svg class=\"chart bars %s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                 "role=\"img\">", cls, w, h, w, h);
    for (double t = 0; t <= s.d1 + step / 2; t += step) {
        double x = sx(&s, t);
        fprintf(out, "<line class=\"gl\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>",
                x, x, top, h - 30, x, h - 18, t);
    }
    fprintf(out, "<text class=\"lab\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", (s.r0 + s.r1) / 2, h - 5);
    cb_html_esc(out, what);
    fputs("</text>", out);
    for (size_t k = 0; k < n; k++) {
        const struct line *l = &ls[order[k]];
        double y = top + (double)k * row, x1 = sx(&s, l->pt[0].y);
        char buf[160];
        fprintf(out, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", L, y + 12);
        cb_html_esc(out, l->name);
        fprintf(out, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
                     "fill=\"%s\"><title>", s.r0, y + 2, fmax(x1 - s.r0, 1), row - 5,
                strstr(l->name, " (cold)") ? "#7fa7d9" : "#2457a6");
        cb_html_esc(out, l->name);
        fprintf(out, ": %.3g %s", l->pt[0].y, what);
        if (note && note(&l->pt[0], buf, sizeof buf))
            fprintf(out, ", %s", buf);
        fprintf(out, "</title></rect><text class=\"val\" x=\"%.1f\" y=\"%.1f\">", x1 + 4, y + 12);
        cb_html_fnum(out, l->pt[0].y);
        fputs("</text>", out);
    }
    fputs("</svg>", out);
}
