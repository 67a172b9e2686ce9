/* history_points.c — history's points: each commit's runs (and why there
 * are none), each run's figure (compare's), and the machines whose runs
 * they are. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "analysis/compare.h"
#include "store/db.h"
#include "cmd/history_cmd.h"
#include "store/lookup.h"
#include "store/store.h"


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
        if (rc == 0) {
            cb_side_free(&p->side);
        } else {
            point_state(H->st, &p->side, p->state, sizeof p->state);
            H->np++;
        }
    }
    return 0;
}

/* read_points' walk: where it is, and whether since_hash was passed. */
struct walk {
    struct hist *H;
    const char *since;
    int started;
};

static int add_run(int64_t run, void *ctx)
{
    return cb_side_add_run(ctx, run);
}

static int add_point(const char *hash, const char *subject, void *ctx)
{
    struct walk *w = ctx;
    struct hist *H = w->H;
    if (!w->started && strcmp(hash, w->since) == 0)
        w->started = 1;
    if (!w->started)
        return 0;
    struct point *n = realloc(H->pts, (H->np + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    H->pts = n;
    struct point *p = &H->pts[H->np++];
    memset(p, 0, sizeof *p);
    snprintf(p->hash, sizeof p->hash, "%s", hash);
    snprintf(p->subject, sizeof p->subject, "%s", subject ? subject : "");
    int rc = cb_store_each_commit_run(H->st, hash, H->sim, add_run, &p->side);
    snprintf(p->side.spec, sizeof p->side.spec, "%.12s", hash);
    /* A commit whose runs are all of the other kind (timed, or --sim) is
     * no point of this history. */
    if (rc == 0 && p->side.nruns == 0) {
        cb_side_free(&p->side);
        H->np--;
    } else if (rc == 0) {
        point_state(H->st, &p->side, p->state, sizeof p->state);
    }
    return rc;
}

void point_state(struct cb_store *st, const struct cb_side *side, char *buf, size_t len)
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

/* One point per commit from since_hash on (all when empty), each with its
 * complete runs of a clean tree.  0, or a negative errno. */
int history_read_points(struct hist *H, const char *since_hash)
{
    struct walk w = {H, since_hash, since_hash[0] == '\0'};
    int rc = cb_store_each_commit(H->st, add_point, &w);
    if (rc == -EIO)
        cb_error("cannot read %s: %s", H->db, cb_db_errmsg(cb_store_db(H->st)));
    return rc;
}

/* No commit to follow: say why, from what the store holds (five
 * runs made outside a git tree gave "0 commits" and nothing more). */
void history_say_why_empty(struct hist *H)
{
    struct cb_store_run_counts n;
    if (cb_store_count_runs(H->st, &n) < 0)
        return;
    if (n.complete == 0)
        printf("no complete run in %s yet: record some with 'cyclebudget run' at each commit\n",
               H->db);
    else if (n.in_git == 0)
        printf("none of the %lld runs in %s was measured in a git tree, and history follows "
               "commits: run from your repository (or with --repo DIR)\n",
               (long long)n.complete, H->db);
    else if (n.clean == 0)
        printf("the %lld runs measured in a git tree were all of a dirty tree, whose numbers "
               "belong to no commit: commit, then run\n", (long long)n.in_git);
    else
        printf("no run of a clean commit matches (--since, --host, --sim or the timed/counted "
               "kind leave out the %lld there are)\n", (long long)n.clean);
}
