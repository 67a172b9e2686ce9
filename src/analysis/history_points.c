/* history_points.c — history's points: each commit's runs, each run's
 * figure (compare's), and the machines whose runs they are
 * (history_points.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/history_points.h"
#include "host/machine.h"
#include "store/db.h"
#include "store/lookup.h"
#include "store/store.h"

void cb_runvals_free(struct cb_runvals *rv)
{
    free(rv->lv);
    free(rv->quiet);
    free(rv->start);
}

int cb_runvals_read(const struct cb_hist_point *pts, const size_t *idx, size_t n, const char *key,
                      struct cb_runvals *rv)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += cb_side_find(&pts[idx[i]].side, key)->nruns;
    rv->lv = malloc((total ? total : 1) * sizeof *rv->lv);
    rv->quiet = malloc((total ? total : 1) * sizeof *rv->quiet);
    rv->start = malloc((n + 1) * sizeof *rv->start);
    if (!rv->lv || !rv->quiet || !rv->start)
        return -ENOMEM;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cb_side_case *c = cb_side_find(&pts[idx[i]].side, key);
        rv->start[i] = at;
        int rc = cb_run_log_values(c->v, c->smt, c->ends, c->nruns, CB_RUN_QUANTILE_DEFAULT,
                                   rv->lv + at, rv->quiet + at);
        if (rc < 0)
            return rc;
        at += c->nruns;
    }
    rv->start[n] = at;
    return 0;
}

/* The figures of runs [from, to) into out: the quiet runs when at least
 * need of them, else all, as compare leaves out runs taken on a shared
 * core only while enough others remain. */
size_t cb_runvals_pick(const struct cb_runvals *rv, size_t from, size_t to, size_t need, double *out)
{
    size_t nq = 0, n = 0;
    for (size_t j = from; j < to; j++)
        nq += (size_t)rv->quiet[j];
    for (size_t j = from; j < to; j++)
        if (rv->quiet[j] || nq < need)
            out[n++] = rv->lv[j];
    return n;
}

void cb_hist_points_free(struct cb_hist_point *pts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cb_side_free(&pts[i].side);
    free(pts);
}

/* The machines whose runs the points hold (those host names, with it),
 * in the order of their first run. */
int cb_hist_machines(struct cb_store *st, const struct cb_hist_point *pts, size_t np,
                     const char *host, struct cb_machine **out, size_t *n, struct cb_sb *err)
{
    struct cb_side all = {0};
    int rc = 0;
    for (size_t i = 0; i < np && rc == 0; i++)
        for (size_t k = 0; k < pts[i].side.nruns && rc == 0; k++)
            rc = cb_side_add_run(&all, pts[i].side.runs[k]);
    if (rc == 0)
        rc = cb_side_machines(st, &all, out, n);
    cb_side_free(&all);
    if (rc < 0 || !host)
        return rc;
    char list[768];
    cb_machines_list(*out, *n, list, sizeof list);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (cb_machine_match(host, (*out)[i].id, (*out)[i].hostname))
            (*out)[kept++] = (*out)[i];
    if (kept == 0 && *n > 0) {
        cb_sb_setf(err, "%s", list);
        return -ESRCH;
    }
    *n = kept;
    return 0;
}

int cb_hist_points_of(struct cb_store *st, const struct cb_hist_point *all, size_t nall,
                      const struct cb_machine *m, struct cb_hist_point **pts, size_t *np)
{
    *pts = calloc(nall ? nall : 1, sizeof **pts);
    if (!*pts)
        return -ENOMEM;
    *np = 0;
    for (size_t i = 0; i < nall; i++) {
        struct cb_hist_point *p = &(*pts)[*np];
        snprintf(p->hash, sizeof p->hash, "%s", all[i].hash);
        snprintf(p->subject, sizeof p->subject, "%s", all[i].subject);
        snprintf(p->side.spec, sizeof p->side.spec, "%s", all[i].side.spec);
        for (size_t k = 0; k < all[i].side.nruns; k++)
            if (cb_side_add_run(&p->side, all[i].side.runs[k]) < 0)
                return -ENOMEM;
        int rc = cb_side_keep_host(st, &p->side, m->id);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            cb_side_free(&p->side);
        } else {
            cb_hist_point_state(st, &p->side, p->state, sizeof p->state);
            (*np)++;
        }
    }
    return 0;
}

/* The walk over the commits: where it is, and whether since was passed. */
struct walk {
    struct cb_store *st;
    struct cb_hist_point **pts;
    size_t *np;
    const char *since;
    int sim, started;
};

static int add_run(int64_t run, void *ctx)
{
    return cb_side_add_run(ctx, run);
}

static int add_point(const char *hash, const char *subject, void *ctx)
{
    struct walk *w = ctx;
    if (!w->started && strcmp(hash, w->since) == 0)
        w->started = 1;
    if (!w->started)
        return 0;
    struct cb_hist_point *n = realloc(*w->pts, (*w->np + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    *w->pts = n;
    struct cb_hist_point *p = &n[(*w->np)++];
    memset(p, 0, sizeof *p);
    snprintf(p->hash, sizeof p->hash, "%s", hash);
    snprintf(p->subject, sizeof p->subject, "%s", subject ? subject : "");
    int rc = cb_store_each_commit_run(w->st, hash, w->sim, add_run, &p->side);
    snprintf(p->side.spec, sizeof p->side.spec, "%.12s", hash);
    /* A commit whose runs are all of the other kind (timed, or --sim) is
     * no point of this history. */
    if (rc == 0 && p->side.nruns == 0) {
        cb_side_free(&p->side);
        (*w->np)--;
    } else if (rc == 0) {
        cb_hist_point_state(w->st, &p->side, p->state, sizeof p->state);
    }
    return rc;
}
void cb_hist_point_state(struct cb_store *st, const struct cb_side *side, char *buf, size_t len)
{
    size_t quiet = 0, slowed = 0;
    struct cb_state worst = {.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    for (size_t i = 0; i < side->nruns; i++) {
        struct cb_run_state rs;
        if (cb_store_run_state(st, side->runs[i], &rs) < 0)
            continue;
        quiet += rs.s.kind == CB_STATE_QUIET;
        slowed += rs.s.kind == CB_STATE_SLOWED_KIND;
        cb_state_worse(&worst, &rs.s);
    }
    char what[64];
    cb_state_text(&worst, what, sizeof what);
    if (!quiet && !slowed)
        snprintf(buf, len, "host state not judged");
    else if (!slowed)
        snprintf(buf, len, "%zu run%s quiet", quiet, quiet == 1 ? "" : "s");
    else
        snprintf(buf, len, "%zu run%s: %zu %s", side->nruns, side->nruns == 1 ? "" : "s", slowed,
                 what);
}

int cb_hist_points_read(struct cb_store *st, int sim, const char *since_hash,
                        struct cb_hist_point **pts, size_t *np, struct cb_sb *err)
{
    struct walk w = {st, pts, np, since_hash, sim, since_hash[0] == '\0'};
    int rc = cb_store_each_commit(st, add_point, &w);
    if (rc == -EIO)
        cb_sb_setf(err, "%s", cb_db_errmsg(cb_store_db(st)));
    return rc;
}

int cb_hist_series_read(const struct cb_hist_point *pts, size_t np, const char *key,
                        struct cb_hist_series *S)
{
    S->n = 0;
    for (size_t i = 0; i < np && S->n < CB_HISTORY_MAX_POINTS; i++) {
        struct cb_side_case *c = cb_side_find(&pts[i].side, key);
        if (c && c->n)
            S->idx[S->n++] = i;
    }
    memset(&S->rv, 0, sizeof S->rv);
    S->a = S->b = NULL;
    if (cb_runvals_read(pts, S->idx, S->n, key, &S->rv) < 0 ||
        !(S->a = malloc((S->rv.start[S->n] + 1) * sizeof *S->a)) ||
        !(S->b = malloc((S->rv.start[S->n] + 1) * sizeof *S->b))) {
        return -EINVAL;
    }
    for (size_t i = 0; i < S->n; i++) {
        size_t m = cb_runvals_pick(&S->rv, S->rv.start[i], S->rv.start[i + 1], 1, S->a);
        double sum = 0;
        for (size_t j = 0; j < m; j++)
            sum += S->a[j];
        S->y[i] = exp(sum / (double)m);
    }
    return 0;
}

void cb_hist_series_free(struct cb_hist_series *S)
{
    cb_runvals_free(&S->rv);
    free(S->a);
    free(S->b);
}

void cb_hist_step_interval(const struct cb_hist_series *S, const struct cb_step *st, double ci[3])
{
    size_t na = cb_runvals_pick(&S->rv, S->rv.start[st->from], S->rv.start[st->at], 2, S->a);
    size_t nb = cb_runvals_pick(&S->rv, S->rv.start[st->at], S->rv.start[st->to], 2, S->b);
    struct cb_yuen w;
    ci[0] = ci[1] = ci[2] = NAN;
    if (na >= 2 && nb >= 2 && cb_yuen(S->a, na, S->b, nb, 0.0, 0.95, &w) == 0) {
        ci[0] = expm1(w.est);
        ci[1] = expm1(w.lo);
        ci[2] = expm1(w.hi);
    }
}
