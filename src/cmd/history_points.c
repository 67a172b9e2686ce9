/* history_points.c — history's points: each commit's runs, each run's
 * figure (compare's), and the machines whose runs they are. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "history_cmd.h"


void runvals_free(struct runvals *rv)
{
    free(rv->lv);
    free(rv->quiet);
    free(rv->start);
}

int run_values(struct point *pts, const size_t *idx, size_t n, const char *key,
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
size_t pick_runs(const struct runvals *rv, size_t from, size_t to, size_t need, double *out)
{
    size_t nq = 0, n = 0;
    for (size_t j = from; j < to; j++)
        nq += (size_t)rv->quiet[j];
    for (size_t j = from; j < to; j++)
        if (rv->quiet[j] || nq < need)
            out[n++] = rv->lv[j];
    return n;
}

void points_free(struct point *pts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cb_side_free(&pts[i].side);
    free(pts);
}

/* The machines whose runs the points hold (those --host names, with it),
 * in the order of their first run: 0, or the exit status to end with. */
int history_machines(struct hist *H, struct cb_machine **out, size_t *n)
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
int points_of(struct hist *H, const struct point *all, size_t nall, const struct cb_machine *m)
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

