/* history_points.h — what `cyclebudget history` reads: one point per
 * measured commit, each with its runs, and a case's series over them
 * (history.c prints and judges them; history_points.c reads them). */
#ifndef CB_CMD_HISTORY_POINTS_H
#define CB_CMD_HISTORY_POINTS_H

#include <stddef.h>

#include "history.h"
#include "history_html.h"
#include "sides.h"
#include "store.h"

struct point {
    char hash[64], subject[256];
    struct cb_side side;
    char fp[2048];
};

/* Each point's run figures (compare's: the log of each run's 0.1-quantile
 * of its quiet samples), point after point; start[i] is where point i's
 * begin, start[n] the total; quiet[j] whether run j had enough quiet
 * samples. */
struct runvals {
    double *lv;
    int *quiet;
    size_t *start;
};

/* What the command line asked for, and what the command has read. */
struct hist {
    const char *since, *db, *repo, *glob, *host;
    double min_change;
    long persist;
    int series, html;
    int sim, min_change_set;      /* --sim; --min-change was given */
    struct cb_store *st;
    struct point *pts;            /* the commits, in order, each with its runs */
    size_t np;
    const char *metric, *metric_label;
    char (*keys)[CB_CASE_KEY_MAX];  /* the case names, in the order they first appear */
    size_t nk;
    struct cb_trend *trends;      /* --format html: one per key */
    size_t nsteps, nreg, nack;
    char head[256];
};

/* One case's series: the points (indices into pts) that measured it, and
 * their figures.  A commit's point is the geometric mean of its runs'
 * figures, as compare's side is: run medians of all samples moved with the
 * host's load and state, and made steps of it. */
struct series {
    size_t n, *idx;
    double *y, *a, *b;            /* a, b: scratch for the runs of two segments */
    struct runvals rv;
};

/* The points of every machine: 0, or the exit status to end with. */
int hist_read(struct hist *H);
/* The samples and case names of the points (one machine's): 0, or 1 (said). */
int hist_load(struct hist *H);
/* The figures of runs [from, to) into out: the quiet runs when at least
 * need of them, else all, as compare leaves out runs taken on a shared
 * core only while enough others remain.  The count. */
size_t hist_pick_runs(const struct runvals *rv, size_t from, size_t to, size_t need, double *out);
/* One case's series: 0, or -EINVAL (said). */
int hist_series_read(const struct hist *H, const char *key, struct series *S);
void hist_series_free(struct series *S);
void hist_points_free(struct point *pts, size_t n);
/* What one machine's history read and made; the points go too. */
void hist_free(struct hist *H);
/* The machines whose runs the points hold (those --host names, with it),
 * in the order of their first run: 0, or the exit status to end with. */
int hist_machines(struct hist *H, struct cb_machine **out, size_t *n);
/* The points of machine m only, from all: 0 or -ENOMEM. */
int hist_points_of(struct hist *H, const struct point *all, size_t nall, const struct cb_machine *m);

#endif
