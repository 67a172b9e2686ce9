/* race_store.c — a race's rows into the collector's store, one
 * transaction: every entrant's cases and each bucket's decision, so that
 * report and the next race can read them back (see race.h). */
#include "analysis/race.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"


static void bind_real(struct cb_db_stmt *s, int i, double v)
{
    if (isnan(v) || isinf(v))
        cb_db_bind_null(s, i);
    else
        cb_db_bind_double(s, i, v);
}

static void bind_text_or_null(struct cb_db_stmt *s, int i, const char *t)
{
    if (t)
        cb_db_bind_text(s, i, t);
    else
        cb_db_bind_null(s, i);
}

/* The variants tied with the fastest (not beaten by it), comma-separated. */
static void tied_list(const struct cb_race_cell *c, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    if (c->decision != CB_RACE_TIE && c->decision != CB_RACE_CONFIDENT && c->winner >= 0) {
        snprintf(buf, len, "%s", c->e[c->winner].v->name);
        return;
    }
    for (size_t i = 0; i < c->ne && off + 1 < len; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        if (e->verdict != CB_RACE_OK || e->n == 0 || e->beaten)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", e->v->name);
    }
}

/* One bucket's decision, its entrants and their cases: 0, or -1 when
 * SQLite refused a row (its message still in db). */
static int store_cell(struct cb_db *db, struct cb_db_stmt *sres, struct cb_db_stmt *sent, struct cb_db_stmt *scase,
                      int64_t race_id, const struct cb_race_cell *c)
{
    const struct cb_race_entrant *w = c->winner >= 0 ? &c->e[c->winner] : NULL;
    const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
    char needs[128], tied[1024];
    cb_cpu_feature_names(w ? w->v->needs : 0, needs, sizeof needs);
    tied_list(c, tied, sizeof tied);
    cb_db_reset(sres);
    cb_db_bind_int64(sres, 1, race_id);
    cb_db_bind_text(sres, 2, c->probe->name);
    cb_db_bind_text(sres, 3, c->bucket.name);
    cb_db_bind_int64(sres, 4, (int64_t)cb_race_bucket_min(&c->bucket));
    if (c->bucket.hi == CB_RACE_UNBOUNDED)
        cb_db_bind_null(sres, 5);
    else
        cb_db_bind_int64(sres, 5, (int64_t)c->bucket.hi);
    cb_db_bind_int64(sres, 6, (int64_t)c->bucket.size);
    cb_db_bind_text(sres, 7, cb_race_decision_name(c->decision));
    bind_text_or_null(sres, 8, w ? w->v->name : NULL);
    cb_db_bind_text(sres, 9, needs);
    bind_real(sres, 10, w ? w->median : NAN);
    bind_text_or_null(sres, 11, u ? u->v->name : NULL);
    bind_real(sres, 12, u ? u->median : NAN);
    int have = !isnan(c->margin) && !isnan(c->margin_lo) && !isnan(c->margin_hi);
    bind_real(sres, 13, have ? c->margin : NAN);
    bind_real(sres, 14, have ? c->margin_lo : NAN);
    bind_real(sres, 15, have ? c->margin_hi : NAN);
    bind_real(sres, 16, c->p);
    cb_db_bind_text(sres, 17, tied);
    if (cb_db_step(sres) != CB_DB_DONE)
        return -1;
    int64_t res_id = cb_db_last_insert_id(db);
    for (size_t i = 0; i < c->ne; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        cb_db_reset(sent);
        cb_db_bind_int64(sent, 1, res_id);
        cb_db_bind_text(sent, 2, e->v->name);
        cb_db_bind_text(sent, 3, cb_race_verdict_name(e->verdict));
        cb_db_bind_int64(sent, 4, e->verdict == CB_RACE_OK ? (int64_t)e->n : 0);
        bind_real(sent, 5, e->median);
        bind_real(sent, 6, e->p);
        bind_real(sent, 7, e->margin);
        cb_db_bind_int64(sent, 8, e->verdict == CB_RACE_OK && e->beaten);
        cb_db_bind_text(sent, 9, e->detail);
        if (cb_db_step(sent) != CB_DB_DONE)
            return -1;
        for (size_t k = 0; k < e->ncases; k++) {
            cb_db_reset(scase);
            cb_db_bind_int64(scase, 1, res_id);
            cb_db_bind_int64(scase, 2, e->case_ids[k]);
            cb_db_bind_int64(scase, 3, e->rounds[k]);
            if (cb_db_step(scase) != CB_DB_DONE)
                return -1;
        }
    }
    return 0;
}

int cb_race_store(struct cb_collector *col, struct cb_race *r)
{
    struct cb_db *db = cb_store_db(col->st);
    struct cb_db_stmt *sr = NULL, *sres = NULL, *sent = NULL, *scase = NULL;
    int rc = -EIO;
    if (cb_db_begin(db) != CB_DB_OK)
        return -EBUSY;
    if (cb_db_prepare(db,
                           "INSERT INTO races (run_id, mode, metric, alpha, min_margin, rounds, reps, seed,"
                           " context, fpu_charge) VALUES (?,?,?,?,?,?,?,?,?,?)", &sr) != CB_DB_OK ||
        cb_db_prepare(db,
                           "INSERT INTO race_results (race_id, probe, bucket, min_size, max_size, size,"
                           " decision, winner, winner_needs, winner_median, runner_up, runner_up_median,"
                           " margin, margin_lo, margin_hi, p_value, tied)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &sres) != CB_DB_OK ||
        cb_db_prepare(db,
                           "INSERT INTO race_entrants (result_id, variant, verdict, n, median,"
                           " p_vs_fastest, margin_vs_fastest, beaten, detail) VALUES (?,?,?,?,?,?,?,?,?)", &sent) != CB_DB_OK ||
        cb_db_prepare(db, "INSERT INTO race_cases (result_id, case_id, round) VALUES (?,?,?)", &scase) != CB_DB_OK)
        goto fail;
    cb_db_bind_int64(sr, 1, r->run_id);
    cb_db_bind_text(sr, 2, cb_mode_name(r->o.mode));
    cb_db_bind_text(sr, 3, r->metric);
    cb_db_bind_double(sr, 4, r->o.alpha);
    cb_db_bind_double(sr, 5, r->o.min_margin);
    cb_db_bind_int64(sr, 6, r->o.rounds);
    cb_db_bind_int64(sr, 7, r->reps);
    cb_db_bind_int64(sr, 8, (int64_t)r->o.seed);
    cb_db_bind_text(sr, 9, cb_context_name(r->o.context));
    double charge = r->o.context == CB_CONTEXT_KERNEL ? cb_race_kernel_charge(&r->o) : NAN;
    if (isfinite(charge))
        cb_db_bind_double(sr, 10, charge);
    else
        cb_db_bind_null(sr, 10);
    if (cb_db_step(sr) != CB_DB_DONE)
        goto fail;
    r->race_id = cb_db_last_insert_id(db);
    for (size_t ci = 0; ci < r->ncells; ci++)
        if (store_cell(db, sres, sent, scase, r->race_id, &r->cells[ci]) < 0)
            goto fail;
    if (cb_db_exec(db, "COMMIT") != CB_DB_OK)
        goto fail;
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cyclebudget: storing the race failed: %s\n", cb_db_errmsg(db));
    cb_db_rollback(db);
    r->race_id = 0;
out:
    cb_db_finalize(sr);
    cb_db_finalize(sres);
    cb_db_finalize(sent);
    cb_db_finalize(scase);
    return rc;
}
