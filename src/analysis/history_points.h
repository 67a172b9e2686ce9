/* history_points.h — history's points: the commits with their complete
 * runs, each run's figure (compare's), the host states of a point's runs,
 * and the machines whose runs the points hold. */
#ifndef CB_ANALYSIS_HISTORY_POINTS_H
#define CB_ANALYSIS_HISTORY_POINTS_H

#include <stddef.h>

#include "analysis/history.h"
#include "analysis/sides.h"
#include "util/strbuf.h"

struct cb_store;

/* One commit of the history, with its runs. */
struct cb_hist_point {
    char hash[64], subject[256];
    char state[160];              /* its runs' host states: "quiet", "2 runs: 1 slowed 1.71x (vec)" */
    struct cb_side side;
    char fp[2048];
};

/* Each point's run figures (compare's: the log of each run's 0.1-quantile
 * of its quiet samples), point after point; start[i] is where point i's
 * begin, start[n] the total; quiet[j] whether run j had enough quiet
 * samples. */
struct cb_runvals {
    double *lv;
    int *quiet;
    size_t *start;
};

void cb_runvals_free(struct cb_runvals *rv);
/* The figures of key at the points pts[idx[0..n)]: 0 or a negative errno. */
int cb_runvals_read(const struct cb_hist_point *pts, const size_t *idx, size_t n, const char *key,
                    struct cb_runvals *rv);
/* The figures of runs [from, to) into out; their count. */
size_t cb_runvals_pick(const struct cb_runvals *rv, size_t from, size_t to, size_t need, double *out);
void cb_hist_points_free(struct cb_hist_point *pts, size_t n);
/* The host states of a point's runs, in words (runstate.h), into buf. */
void cb_hist_point_state(struct cb_store *st, const struct cb_side *side, char *buf, size_t len);
/* One point per commit from since_hash on (all when empty), each with its
 * complete runs of a clean tree (sim: the counted runs instead of the
 * timed), appended to *pts.  0, or a negative errno; -EIO with the
 * store's message in err. */
int cb_hist_points_read(struct cb_store *st, int sim, const char *since_hash,
                        struct cb_hist_point **pts, size_t *np, struct cb_sb *err);
/* The machines whose runs the points hold, in the order of their first
 * run, kept to those host names when not NULL: 0; -ESRCH when host names
 * none of them (err: the machines there are, listed); else a negative
 * errno. */
int cb_hist_machines(struct cb_store *st, const struct cb_hist_point *pts, size_t np,
                     const char *host, struct cb_machine **out, size_t *n, struct cb_sb *err);
/* The points of machine m only, from all, into *pts: 0 or a negative
 * errno. */
int cb_hist_points_of(struct cb_store *st, const struct cb_hist_point *all, size_t nall,
                      const struct cb_machine *m, struct cb_hist_point **pts, size_t *np);

/* One case's series: the points (indices into pts) that measured it, and
 * their figures.  A commit's point is the geometric mean of its runs'
 * figures, as compare's side is: run medians of all samples moved with the
 * host's load and state, and made steps of it.  idx and y are the
 * caller's, room for every point. */
struct cb_hist_series {
    size_t n, *idx;
    double *y, *a, *b;            /* a, b: scratch for the runs of two segments */
    struct cb_runvals rv;
};
/* Key's series from the points: 0, or -EINVAL when a run figure is not
 * positive or memory ran out.  Free it with cb_hist_series_free() either
 * way. */
int cb_hist_series_read(const struct cb_hist_point *pts, size_t np, const char *key,
                        struct cb_hist_series *S);
void cb_hist_series_free(struct cb_hist_series *S);
/* Welch's interval of a step over the runs of the segment before and the
 * segment after, as compare's with runs as the unit: the estimate, low and
 * high into ci; NAN when too few. */
void cb_hist_step_interval(const struct cb_hist_series *S, const struct cb_step *st, double ci[3]);

#endif
