/* history_html.h — history as a page: one trend chart per case, a panel
 * per machine.
 *
 * The text of `history` lists steps; a reviewer also wants to see the
 * series, to judge a step against the noise around it: one trend chart
 * per case, with the regressing commit marked.  The page is
 * the HTML report's: self-contained, every outside string escaped. */
#ifndef CB_HISTORY_HTML_H
#define CB_HISTORY_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/sides.h"

struct cb_trend_step {
    size_t at, from, to;        /* as struct cb_step: indexes into the case's points */
    double before, after;       /* the segments' medians */
    double est, lo, hi;         /* the change and its interval, fractions */
    int acked;
    char why[256];
};

struct cb_trend {
    char key[CB_CASE_KEY_MAX];
    size_t n;
    const char **hash, **subject;   /* n each, borrowed */
    const char **state;             /* n: the host state of each point's runs, borrowed */
    double *y;                      /* n points, owned by the caller */
    struct cb_trend_step *steps;
    size_t nsteps;
};

/* One machine's history: runs of two machines are never one series. */
struct cb_history_host {
    const char *label;              /* "host vm [b217642e]: model", or "" for the only one */
    const char *metric;             /* the unit ("ESTIMATED core cycles per op") */
    const char *summary;
    const struct cb_trend *t;
    size_t nt;
};

/* Write the page: per machine, a panel with its summary line, the steps'
 * table (acknowledgements with their reasons) and one chart per case, its
 * x axis labelled with short commit hashes (the subject on hover); a case
 * glob filters the page.  0 or -errno. */
int cb_history_html(FILE *out, const struct cb_history_host *hosts, size_t nh);

#endif
