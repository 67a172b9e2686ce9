/* history_points.c — the points of `cyclebudget history` read from the
 * store: one per commit from --since on, each with its complete runs of a
 * clean tree (timed, or --sim's), split by machine, and a case's series of
 * them (see history_points.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "db.h"
#include "fingerprint.h"
#include "history_points.h"

static void runvals_free(struct runvals *rv)
{
    free(rv->lv);
    free(rv->quiet);
    free(rv->start);
}

static int run_values(struct point *pts, const size_t *idx, size_t n, const char *key,
                      struct runvals *rv)
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
size_t hist_pick_runs(const struct runvals *rv, size_t from, size_t to, size_t need, double *out)
{
    size_t nq = 0, n = 0;
    for (size_t j = from; j < to; j++)
        nq += (size_t)rv->quiet[j];
    for (size_t j = from; j < to; j++)
        if (rv->quiet[j] || nq < need)
            out[n++] = rv->lv[j];
    return n;
}

/* One point per commit from since_hash on (all when empty), each with its
 * complete runs of a clean tree.  0, or a negative errno. */
static int read_points(struct hist *H, const char *since_hash)
{
    struct cb_db_stmt *q, *qr;
    struct cb_db *h = cb_store_db(H->st);
    if (cb_db_prepare(h, "SELECT hash, subject FROM commit_order", &q) != CB_DB_OK ||
        cb_db_prepare(h,
                           "SELECT r.id FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                           "WHERE cm.hash = ?1 AND cm.dirty <> 1 AND r.status = 'complete' "
                           "AND (CASE WHEN COALESCE(r.clock_backend, '') = 'callgrind' THEN 1 ELSE 0 END) = ?2 "
                           "ORDER BY r.id", &qr) != CB_DB_OK) {
        cb_error("cannot read %s: %s", H->db, cb_db_errmsg(h));
        return -EIO;
    }
    int started = since_hash[0] == '\0', rc = 0;
    while (cb_db_step(q) == CB_DB_ROW) {
        const char *hash = (const char *)cb_db_column_text(q, 0);
        if (!started && strcmp(hash, since_hash) == 0)
            started = 1;
        if (!started)
            continue;
        struct point *n = realloc(H->pts, (H->np + 1) * sizeof *n);
        if (!n) {
            rc = -ENOMEM;
            break;
        }
        H->pts = n;
        struct point *p = &H->pts[H->np++];
        memset(p, 0, sizeof *p);
        snprintf(p->hash, sizeof p->hash, "%s", hash);
        snprintf(p->subject, sizeof p->subject, "%s", (const char *)cb_db_column_text(q, 1));
        cb_db_reset(qr);
        cb_db_bind_text(qr, 1, hash);
        cb_db_bind_int64(qr, 2, H->sim);
        while (rc == 0 && cb_db_step(qr) == CB_DB_ROW)
            rc = cb_side_add_run(&p->side, cb_db_column_int64(qr, 0));
        snprintf(p->side.spec, sizeof p->side.spec, "%.12s", hash);
        /* A commit whose runs are all of the other kind (timed, or --sim)
         * is no point of this history. */
        if (rc == 0 && p->side.nruns == 0) {
            cb_side_free(&p->side);
            H->np--;
        }
    }
    cb_db_finalize(q);
    cb_db_finalize(qr);
    return rc;
}

/* One metric for the whole history (PMU cycles only if every run had
 * them), every point's samples in it, and each point's environment. */
static int load_samples(struct hist *H)
{
    struct cb_side all = {0};
    int rc = 0;
    for (size_t i = 0; i < H->np && rc == 0; i++)
        for (size_t k = 0; k < H->pts[i].side.nruns && rc == 0; k++)
            rc = cb_side_add_run(&all, H->pts[i].side.runs[k]);
    H->metric = cb_sides_metric(H->st, &all, NULL);
    cb_side_free(&all);
    for (size_t i = 0; i < H->np && rc == 0; i++) {
        rc = cb_side_load(H->st, &H->pts[i].side, H->metric);
        if (rc == 0)
            rc = cb_run_fingerprint(H->st, H->pts[i].side.runs[0], H->pts[i].fp, sizeof H->pts[i].fp);
    }
    if (rc < 0)
        cb_error("cannot read the samples from %s: %s", H->db, strerror(-rc));
    return rc;
}

/* The case names matching the glob, in the order they first appear. */
static int collect_keys(struct hist *H)
{
    for (size_t i = 0; i < H->np; i++)
        for (size_t k = 0; k < H->pts[i].side.ncases; k++) {
            const char *key = H->pts[i].side.cases[k].key;
            if (H->glob && fnmatch(H->glob, key, 0) != 0)
                continue;
            size_t j = 0;
            while (j < H->nk && strcmp(H->keys[j], key) != 0)
                j++;
            if (j < H->nk)
                continue;
            char (*nkeys)[CB_CASE_KEY_MAX] = realloc(H->keys, (H->nk + 1) * sizeof *nkeys);
            if (!nkeys) {
                cb_error("out of memory");
                return -ENOMEM;
            }
            H->keys = nkeys;
            snprintf(H->keys[H->nk++], CB_CASE_KEY_MAX, "%s", key);
        }
    return 0;
}

/* The points of every machine: 0, or the exit status to end with. */
int hist_read(struct hist *H)
{
    char err[1024], since_hash[64] = "";
    if (H->since &&
        cb_commit_resolve(H->st, H->since, H->repo, since_hash, sizeof since_hash, err, sizeof err) < 0) {
        cb_error("%s", err);
        return CB_EXIT_USAGE;
    }
    int rc = read_points(H, since_hash);
    if (rc == -EIO)
        return 1;
    if (since_hash[0] && H->np == 0) {
        cb_error("--since %s: commit %.12s has no complete run of a clean tree", H->since, since_hash);
        return CB_EXIT_USAGE;
    }
    if (rc < 0) {
        cb_error("cannot read the samples from %s: %s", H->db, strerror(-rc));
        return 1;
    }
    return 0;
}

/* The samples and case names of the points (one machine's): 0, or 1 (said). */
int hist_load(struct hist *H)
{
    return load_samples(H) < 0 || collect_keys(H) < 0 ? 1 : 0;
}

int hist_series_read(const struct hist *H, const char *key, struct series *S)
{
    S->n = 0;
    for (size_t i = 0; i < H->np && S->n < CB_HISTORY_MAX_POINTS; i++) {
        struct cb_side_case *c = cb_side_find(&H->pts[i].side, key);
        if (c && c->n)
            S->idx[S->n++] = i;
    }
    memset(&S->rv, 0, sizeof S->rv);
    S->a = S->b = NULL;
    if (run_values(H->pts, S->idx, S->n, key, &S->rv) < 0 ||
        !(S->a = malloc((S->rv.start[S->n] + 1) * sizeof *S->a)) ||
        !(S->b = malloc((S->rv.start[S->n] + 1) * sizeof *S->b))) {
        cb_error("cannot summarise %s: a run figure is not positive, or out of memory", key);
        return -EINVAL;
    }
    for (size_t i = 0; i < S->n; i++) {
        size_t m = hist_pick_runs(&S->rv, S->rv.start[i], S->rv.start[i + 1], 1, S->a);
        double sum = 0;
        for (size_t j = 0; j < m; j++)
            sum += S->a[j];
        S->y[i] = exp(sum / (double)m);
    }
    return 0;
}

void hist_series_free(struct series *S)
{
    runvals_free(&S->rv);
    free(S->a);
    free(S->b);
}

void hist_points_free(struct point *pts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cb_side_free(&pts[i].side);
    free(pts);
}

/* What one machine's history read and made; the points go too. */
void hist_free(struct hist *H)
{
    for (size_t k = 0; H->trends && k < H->nk; k++) {
        free(H->trends[k].hash);
        free(H->trends[k].subject);
        free(H->trends[k].y);
        free(H->trends[k].steps);
    }
    free(H->trends);
    free(H->keys);
    hist_points_free(H->pts, H->np);
    H->trends = NULL;
    H->keys = NULL;
    H->nk = 0;
    H->pts = NULL;
    H->np = 0;
    H->nsteps = H->nreg = H->nack = 0;
}

/* The machines whose runs the points hold (those --host names, with it),
 * in the order of their first run: 0, or the exit status to end with. */
int hist_machines(struct hist *H, struct cb_machine **out, size_t *n)
{
    struct cb_side all = {0};
    int rc = 0;
    for (size_t i = 0; i < H->np && rc == 0; i++)
        for (size_t k = 0; k < H->pts[i].side.nruns && rc == 0; k++)
            rc = cb_side_add_run(&all, H->pts[i].side.runs[k]);
    if (rc == 0)
        rc = cb_side_machines(H->st, &all, out, n);
    cb_side_free(&all);
    if (rc < 0) {
        cb_error("cannot read the hosts from %s: %s", H->db, strerror(-rc));
        return 1;
    }
    if (!H->host)
        return 0;
    char list[768];
    cb_machines_list(*out, *n, list, sizeof list);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (cb_machine_match(H->host, (*out)[i].id, (*out)[i].hostname))
            (*out)[kept++] = (*out)[i];
    if (kept == 0 && *n > 0) {
        cb_error("--host %s names none of the machines with a history in %s (%s)", H->host,
                   H->db, list);
        return CB_EXIT_USAGE;
    }
    *n = kept;
    return 0;
}

/* The points of machine m only, from all: 0 or -ENOMEM. */
int hist_points_of(struct hist *H, const struct point *all, size_t nall, const struct cb_machine *m)
{
    H->pts = calloc(nall ? nall : 1, sizeof *H->pts);
    if (!H->pts)
        return -ENOMEM;
    H->np = 0;
    for (size_t i = 0; i < nall; i++) {
        struct point *p = &H->pts[H->np];
        snprintf(p->hash, sizeof p->hash, "%s", all[i].hash);
        snprintf(p->subject, sizeof p->subject, "%s", all[i].subject);
        snprintf(p->side.spec, sizeof p->side.spec, "%s", all[i].side.spec);
        for (size_t k = 0; k < all[i].side.nruns; k++)
            if (cb_side_add_run(&p->side, all[i].side.runs[k]) < 0)
                return -ENOMEM;
        int rc = cb_side_keep_host(H->st, &p->side, m->id);
        if (rc < 0)
            return rc;
        if (rc == 0)
            cb_side_free(&p->side);
        else
            H->np++;
    }
    return 0;
}

