/* race_store.c — a race's rows into the collector's store, one
 * transaction: every entrant's cases and each bucket's decision, so that
 * report and the next race can read them back (see race.h). */
#include "race.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>


static void bind_real(sqlite3_stmt *s, int i, double v)
{
    if (isnan(v) || isinf(v))
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_double(s, i, v);
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *t)
{
    if (t)
        sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
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
static int store_cell(sqlite3 *db, sqlite3_stmt *sres, sqlite3_stmt *sent, sqlite3_stmt *scase,
                      int64_t race_id, const struct cb_race_cell *c)
{
    const struct cb_race_entrant *w = c->winner >= 0 ? &c->e[c->winner] : NULL;
    const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
    char needs[128], tied[1024];
    cb_cpu_feature_names(w ? w->v->needs : 0, needs, sizeof needs);
    tied_list(c, tied, sizeof tied);
    sqlite3_reset(sres);
    sqlite3_bind_int64(sres, 1, race_id);
    sqlite3_bind_text(sres, 2, c->probe->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(sres, 3, c->bucket.name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(sres, 4, (int64_t)cb_race_bucket_min(&c->bucket));
    if (c->bucket.hi == CB_RACE_UNBOUNDED)
        sqlite3_bind_null(sres, 5);
    else
        sqlite3_bind_int64(sres, 5, (int64_t)c->bucket.hi);
    sqlite3_bind_int64(sres, 6, (int64_t)c->bucket.size);
    sqlite3_bind_text(sres, 7, cb_race_decision_name(c->decision), -1, SQLITE_STATIC);
    bind_text_or_null(sres, 8, w ? w->v->name : NULL);
    sqlite3_bind_text(sres, 9, needs, -1, SQLITE_TRANSIENT);
    bind_real(sres, 10, w ? w->median : NAN);
    bind_text_or_null(sres, 11, u ? u->v->name : NULL);
    bind_real(sres, 12, u ? u->median : NAN);
    int have = !isnan(c->margin) && !isnan(c->margin_lo) && !isnan(c->margin_hi);
    bind_real(sres, 13, have ? c->margin : NAN);
    bind_real(sres, 14, have ? c->margin_lo : NAN);
    bind_real(sres, 15, have ? c->margin_hi : NAN);
    bind_real(sres, 16, c->p);
    sqlite3_bind_text(sres, 17, tied, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(sres) != SQLITE_DONE)
        return -1;
    int64_t res_id = sqlite3_last_insert_rowid(db);
    for (size_t i = 0; i < c->ne; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        sqlite3_reset(sent);
        sqlite3_bind_int64(sent, 1, res_id);
        sqlite3_bind_text(sent, 2, e->v->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(sent, 3, cb_race_verdict_name(e->verdict), -1, SQLITE_STATIC);
        sqlite3_bind_int64(sent, 4, e->verdict == CB_RACE_OK ? (int64_t)e->n : 0);
        bind_real(sent, 5, e->median);
        bind_real(sent, 6, e->p);
        bind_real(sent, 7, e->margin);
        sqlite3_bind_int(sent, 8, e->verdict == CB_RACE_OK && e->beaten);
        sqlite3_bind_text(sent, 9, e->detail, -1, SQLITE_STATIC);
        if (sqlite3_step(sent) != SQLITE_DONE)
            return -1;
        for (size_t k = 0; k < e->ncases; k++) {
            sqlite3_reset(scase);
            sqlite3_bind_int64(scase, 1, res_id);
            sqlite3_bind_int64(scase, 2, e->case_ids[k]);
            sqlite3_bind_int(scase, 3, e->rounds[k]);
            if (sqlite3_step(scase) != SQLITE_DONE)
                return -1;
        }
    }
    return 0;
}

int cb_race_store(struct cb_collector *col, struct cb_race *r)
{
    sqlite3 *db = cb_store_sqlite(col->st);
    sqlite3_stmt *sr = NULL, *sres = NULL, *sent = NULL, *scase = NULL;
    int rc = -EIO;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return -EBUSY;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO races (run_id, mode, metric, alpha, min_margin, rounds, reps, seed)"
                           " VALUES (?,?,?,?,?,?,?,?)", -1, &sr, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO race_results (race_id, probe, bucket, min_size, max_size, size,"
                           " decision, winner, winner_needs, winner_median, runner_up, runner_up_median,"
                           " margin, margin_lo, margin_hi, p_value, tied)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &sres, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO race_entrants (result_id, variant, verdict, n, median,"
                           " p_vs_fastest, margin_vs_fastest, beaten, detail) VALUES (?,?,?,?,?,?,?,?,?)",
                           -1, &sent, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO race_cases (result_id, case_id, round) VALUES (?,?,?)",
                           -1, &scase, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(sr, 1, r->run_id);
    sqlite3_bind_text(sr, 2, cb_mode_name(r->o.mode), -1, SQLITE_STATIC);
    sqlite3_bind_text(sr, 3, r->metric, -1, SQLITE_STATIC);
    sqlite3_bind_double(sr, 4, r->o.alpha);
    sqlite3_bind_double(sr, 5, r->o.min_margin);
    sqlite3_bind_int(sr, 6, r->o.rounds);
    sqlite3_bind_int(sr, 7, r->reps);
    sqlite3_bind_int64(sr, 8, (int64_t)r->o.seed);
    if (sqlite3_step(sr) != SQLITE_DONE)
        goto fail;
    r->race_id = sqlite3_last_insert_rowid(db);
    for (size_t ci = 0; ci < r->ncells; ci++)
        if (store_cell(db, sres, sent, scase, r->race_id, &r->cells[ci]) < 0)
            goto fail;
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cyclebudget: storing the race failed: %s\n", sqlite3_errmsg(db));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    r->race_id = 0;
out:
    sqlite3_finalize(sr);
    sqlite3_finalize(sres);
    sqlite3_finalize(sent);
    sqlite3_finalize(scase);
    return rc;
}
