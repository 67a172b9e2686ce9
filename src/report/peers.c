/* peers.c — the other runs of the same bytes a report's claims rest on
 * (rank.h): one run of `run -p csum -s 1500` can say "best avx2 61.0,
 * avx512 67.0 not a tie" and the next, identical one "avx512 48.7 best".  A within-run test takes samples of one process for independent,
 * and they are not: the layout and the host's state of that process move
 * them together.  Where the store holds other runs of the same bytes
 * (runs.code_id, the same host, clock and plugins), each case's figure in
 * each of them is loaded beside the report's own, so that best, tie and
 * crossover can use runs as the unit. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "store/db.h"
#include "report/rank.h"
#include "analysis/sides.h"
#include "util/strbuf.h"

/* A run's plugin hashes, sorted and joined, into out. */
static void plugins_of(struct cb_store *st, int64_t run, struct cb_sb *out)
{
    struct cb_db_stmt *q;
    if (cb_store_schema_version(st) < 11 ||
        cb_db_prepare(cb_store_db(st), "SELECT sha256 FROM run_plugins WHERE run_id = ?1 ORDER BY sha256",
                      &q) != CB_DB_OK)
        return;
    cb_db_bind_int64(q, 1, run);
    while (cb_db_step(q) == CB_DB_ROW)
        cb_sb_addf(out, "%s,", (const char *)cb_db_column_text(q, 0));
    cb_db_finalize(q);
}

/* The newest runs of r's bytes, host and clock, r's own left out, with the
 * same plugins: up to CB_RANK_PEERS_MAX ids into ids. */
static size_t same_bytes(struct cb_store *st, const struct cb_report *r, int64_t *ids)
{
    struct cb_db_stmt *q;
    size_t n = 0;
    if (cb_store_schema_version(st) < 20 ||
        cb_db_prepare(cb_store_db(st),
                      "SELECT o.id FROM runs o JOIN runs r ON r.id = ?1 "
                      " WHERE o.code_id = r.code_id AND o.host_id = r.host_id AND o.id <> r.id "
                      "   AND o.status = 'complete' "
                      "   AND COALESCE(o.clock_backend, '') = COALESCE(r.clock_backend, '') "
                      " ORDER BY o.id DESC LIMIT ?2", &q) != CB_DB_OK)
        return 0;
    cb_db_bind_int64(q, 1, r->run.id);
    cb_db_bind_int64(q, 2, 4 * CB_RANK_PEERS_MAX);
    struct cb_sb mine = CB_SB_INIT, theirs = CB_SB_INIT;
    plugins_of(st, r->run.id, &mine);
    while (n < CB_RANK_PEERS_MAX && cb_db_step(q) == CB_DB_ROW) {
        int64_t id = cb_db_column_int64(q, 0);
        cb_sb_reset(&theirs);
        plugins_of(st, id, &theirs);
        if (strcmp(mine.buf, theirs.buf) == 0)
            ids[n++] = id;
    }
    cb_db_finalize(q);
    cb_sb_release(&mine);
    cb_sb_release(&theirs);
    return n;
}

/* The median of one case's values in side s (one run), or NAN. */
static double case_median(const struct cb_side *s, const struct cb_report_case *c)
{
    char key[CB_CASE_KEY_MAX];
    cb_case_key(key, sizeof key, c->info.probe, c->info.variant, c->info.size, c->info.mode);
    struct cb_side_case *x = cb_side_find(s, key);
    if (!x || !x->n)
        return NAN;
    double *v = malloc(x->n * sizeof *v);
    if (!v)
        return NAN;
    memcpy(v, x->v, x->n * sizeof *v);
    double m = cb_median_inplace(v, x->n);
    free(v);
    return m;
}

int cb_report_load_peers(struct cb_store *st, struct cb_report *r)
{
    int64_t ids[CB_RANK_PEERS_MAX];
    size_t n = same_bytes(st, r, ids);
    int e = cb_rank_by_time(r) ? r->tsc_event : r->cyc_event;
    if (!n || e < 0)
        return 0;
    const char *metric = r->events[e].part;
    for (size_t k = 0; k < r->ncases; k++)
        if (!(r->cases[k].peer = malloc(n * sizeof(double))))
            return -ENOMEM;
    int rc = 0;
    for (size_t p = 0; p < n && rc == 0; p++) {
        struct cb_side s;
        memset(&s, 0, sizeof s);
        if ((rc = cb_side_add_run(&s, ids[p])) == 0 && (rc = cb_side_load(st, &s, metric)) == 0)
            for (size_t k = 0; k < r->ncases; k++)
                r->cases[k].peer[p] = case_median(&s, &r->cases[k]);
        cb_side_free(&s);
    }
    r->npeers = rc == 0 ? n : 0;
    return rc;
}
