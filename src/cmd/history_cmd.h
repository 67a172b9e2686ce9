/* history_cmd.h — what history.c and history_points.c share: the points
 * (commits with their runs), each run's figure, and the machines. */
#ifndef CB_HISTORY_CMD_H
#define CB_HISTORY_CMD_H

#include <stddef.h>

#include "report/history_html.h"
#include "analysis/sides.h"

struct point {
    char hash[64], subject[256];
    char state[160];              /* its runs' host states: "quiet", "2 runs: 1 slowed 1.71x (vec)" */
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

/* One machine's history kept for the page: its trends borrow from its
 * points, so both stay until the page is written. */
struct hist_kept {
    struct cb_trend *trends;
    size_t nk;
    struct point *pts;
    size_t np;
    const char *metric;
    char label[400], summary[448];
};

/* What the command line asked for, and what the command has read. */
struct hist {
    const char *since, *db, *repo, *glob, *host;
    const char *path;             /* --path: a per-packet path's stored totals instead */
    const char *outpath;          /* -o: the page's file (html only); NULL stdout */
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
    /* --format html over many machines: each one's panel, kept for the page. */
    struct hist_kept *kept;
    size_t nkept;
    char label[400];              /* the machine's, when the page has several */
};

void runvals_free(struct runvals *rv);
int run_values(struct point *pts, const size_t *idx, size_t n, const char *key, struct runvals *rv);
/* The figures of runs [from, to) into out; their count. */
size_t pick_runs(const struct runvals *rv, size_t from, size_t to, size_t need, double *out);
void points_free(struct point *pts, size_t n);
/* The host states of a point's runs, in words (runstate.h), into buf. */
void point_state(struct cb_store *st, const struct cb_side *side, char *buf, size_t len);
/* One point per commit from since_hash on (all when empty), each with its
 * complete runs of a clean tree, into H.  0, or a negative errno. */
int history_read_points(struct hist *H, const char *since_hash);
/* A history with no point: say why, from what the store holds. */
void history_say_why_empty(struct hist *H);
/* The machines whose runs the points hold (those --host names): 0, or the
 * exit status to end with (said). */
int history_machines(struct hist *H, struct cb_machine **out, size_t *n);
/* The points of machine m only, from all: 0 or -ENOMEM. */
int points_of(struct hist *H, const struct point *all, size_t nall, const struct cb_machine *m);

#endif
