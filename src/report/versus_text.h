/* versus_text.h — one variant against another, as report --versus and
 * compare RUN:CASE RUN:CASE print it (versus.h has the statistics).
 *
 * The figure is the one the run ranks on (rank.h): TSC time where cycles
 * are estimated.  The verdict is the ranking's: one side is faster only at
 * p < CB_RANK_ALPHA and CB_RANK_MARGIN apart, otherwise a tie, so that
 * versus never contradicts the report's order or its tie marks. */
#ifndef CB_VERSUS_TEXT_H
#define CB_VERSUS_TEXT_H

#include <stdio.h>

#include "report/report.h"

/* One side: the cases of one variant at one probe, size and mode in run r
 * (several when the run measured it in rounds, one case a round). */
struct cb_vs_side {
    const struct cb_report *r;
    const struct cb_report_case *c[64];
    size_t n;
};

/* The cases of r whose key (probe/variant/size/mode, as compare's --cases
 * names them) is key, into s.  Returns s->n. */
size_t cb_vs_collect(const struct cb_report *r, const char *key, struct cb_vs_side *s);

/* The table's heading, then one line for a against b. */
void cb_vs_heading(const struct cb_report *r, const char *a, const char *b, FILE *out);
int cb_vs_line(const struct cb_vs_side *a, const struct cb_vs_side *b, FILE *out);

/* report --versus A,B: every probe, size and mode of r where both variants
 * were measured.  0, or -ENOENT when they share none (said on out). */
int cb_report_versus_text(const struct cb_report *r, const char *a, const char *b, FILE *out);

#endif
