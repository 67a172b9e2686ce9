/* races.c — a race written in one transaction, and read back (races.h). */
#include "store/races.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/db.h"
#include "store/store.h"

struct cb_store_race_writer {
    struct cb_db *db;
    struct cb_db_stmt *res, *ent, *cas;
    int64_t race_id;
    int failed;
};

static void bind_real(struct cb_db_stmt *s, int i, double v)
{
    if (isfinite(v))
        cb_db_bind_double(s, i, v);
    else
        cb_db_bind_null(s, i);
}

static void bind_text_or_null(struct cb_db_stmt *s, int i, const char *t)
{
    if (t)
        cb_db_bind_text(s, i, t);
    else
        cb_db_bind_null(s, i);
}

int cb_store_race_begin(struct cb_store *st, struct cb_store_race *race,
                        struct cb_store_race_writer **out)
{
    struct cb_store_race_writer *w = calloc(1, sizeof *w);
    struct cb_db_stmt *sr = NULL;
    *out = NULL;
    if (!w)
        return -ENOMEM;
    w->db = cb_store_db(st);
    if (cb_db_begin(w->db) != CB_DB_OK) {
        free(w);
        return -EBUSY;
    }
    *out = w;
    if (cb_db_prepare(w->db,
                      "INSERT INTO races (run_id, mode, metric, alpha, min_margin, rounds, reps, seed,"
                      " context, fpu_charge) VALUES (?,?,?,?,?,?,?,?,?,?)", &sr) != CB_DB_OK ||
        cb_db_prepare(w->db,
                      "INSERT INTO race_results (race_id, probe, bucket, min_size, max_size, size,"
                      " decision, winner, winner_needs, winner_median, runner_up, runner_up_median,"
                      " margin, margin_lo, margin_hi, p_value, tied)"
                      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &w->res) != CB_DB_OK ||
        cb_db_prepare(w->db,
                      "INSERT INTO race_entrants (result_id, variant, verdict, n, median,"
                      " p_vs_fastest, margin_vs_fastest, beaten, detail) VALUES (?,?,?,?,?,?,?,?,?)",
                      &w->ent) != CB_DB_OK ||
        cb_db_prepare(w->db, "INSERT INTO race_cases (result_id, case_id, round) VALUES (?,?,?)",
                      &w->cas) != CB_DB_OK) {
        cb_db_finalize(sr);
        w->failed = 1;
        return -EIO;
    }
    cb_db_bind_int64(sr, 1, race->run_id);
    cb_db_bind_text(sr, 2, race->mode);
    cb_db_bind_text(sr, 3, race->metric);
    cb_db_bind_double(sr, 4, race->alpha);
    cb_db_bind_double(sr, 5, race->min_margin);
    cb_db_bind_int64(sr, 6, race->rounds);
    cb_db_bind_int64(sr, 7, race->reps);
    cb_db_bind_int64(sr, 8, race->seed);
    cb_db_bind_text(sr, 9, race->context);
    bind_real(sr, 10, race->fpu_charge);
    int rc = cb_db_step(sr);
    cb_db_finalize(sr);
    if (rc != CB_DB_DONE) {
        w->failed = 1;
        return -EIO;
    }
    race->id = w->race_id = cb_db_last_insert_id(w->db);
    return 0;
}

static int add_entrant(struct cb_store_race_writer *w, int64_t res_id,
                       const struct cb_store_race_entrant *e)
{
    struct cb_db_stmt *s = w->ent;
    cb_db_reset(s);
    cb_db_bind_int64(s, 1, res_id);
    cb_db_bind_text(s, 2, e->variant);
    cb_db_bind_text(s, 3, e->verdict);
    cb_db_bind_int64(s, 4, e->n);
    bind_real(s, 5, e->median);
    bind_real(s, 6, e->p);
    bind_real(s, 7, e->margin);
    cb_db_bind_int64(s, 8, e->beaten);
    cb_db_bind_text(s, 9, e->detail);
    if (cb_db_step(s) != CB_DB_DONE)
        return -EIO;
    for (size_t k = 0; k < e->ncases; k++) {
        cb_db_reset(w->cas);
        cb_db_bind_int64(w->cas, 1, res_id);
        cb_db_bind_int64(w->cas, 2, e->case_ids[k]);
        cb_db_bind_int64(w->cas, 3, e->rounds[k]);
        if (cb_db_step(w->cas) != CB_DB_DONE)
            return -EIO;
    }
    return 0;
}

int cb_store_race_add(struct cb_store_race_writer *w, const struct cb_store_race_result *r,
                      const struct cb_store_race_entrant *e, size_t ne)
{
    struct cb_db_stmt *s = w->res;
    if (w->failed)
        return -EIO;
    cb_db_reset(s);
    cb_db_bind_int64(s, 1, w->race_id);
    cb_db_bind_text(s, 2, r->probe);
    cb_db_bind_text(s, 3, r->bucket);
    cb_db_bind_int64(s, 4, r->min_size);
    if (r->max_size < 0)
        cb_db_bind_null(s, 5);
    else
        cb_db_bind_int64(s, 5, r->max_size);
    cb_db_bind_int64(s, 6, r->size);
    cb_db_bind_text(s, 7, r->decision);
    bind_text_or_null(s, 8, r->winner);
    cb_db_bind_text(s, 9, r->winner_needs);
    bind_real(s, 10, r->winner_median);
    bind_text_or_null(s, 11, r->runner_up);
    bind_real(s, 12, r->runner_up_median);
    bind_real(s, 13, r->margin);
    bind_real(s, 14, r->margin_lo);
    bind_real(s, 15, r->margin_hi);
    bind_real(s, 16, r->p);
    cb_db_bind_text(s, 17, r->tied);
    if (cb_db_step(s) != CB_DB_DONE) {
        w->failed = 1;
        return -EIO;
    }
    int64_t res_id = cb_db_last_insert_id(w->db);
    for (size_t i = 0; i < ne; i++)
        if (add_entrant(w, res_id, &e[i]) < 0) {
            w->failed = 1;
            return -EIO;
        }
    return 0;
}

int cb_store_race_end(struct cb_store_race_writer *w, int ok)
{
    if (!w)
        return -EIO;
    int rc = 0;
    if (!ok || w->failed || cb_db_exec(w->db, "COMMIT") != CB_DB_OK) {
        if (ok || w->failed)
            fprintf(stderr, "cyclebudget: storing the race failed: %s\n", cb_db_errmsg(w->db));
        cb_db_rollback(w->db);
        rc = -EIO;
    }
    cb_db_finalize(w->res);
    cb_db_finalize(w->ent);
    cb_db_finalize(w->cas);
    free(w);
    return rc;
}

static const char *text(struct cb_db_stmt *s, int i)
{
    const char *t = (const char *)cb_db_column_text(s, i);
    return t ? t : "";
}

static const char *text_or_null(struct cb_db_stmt *s, int i)
{
    return cb_db_column_type(s, i) == CB_DB_NULL ? NULL : text(s, i);
}

static double real(struct cb_db_stmt *s, int i)
{
    return cb_db_column_type(s, i) == CB_DB_NULL ? NAN : cb_db_column_double(s, i);
}

int cb_store_race_get(struct cb_store *st, int64_t id,
                      int (*fn)(const struct cb_store_race *race, void *ctx), void *ctx)
{
    struct cb_db_stmt *s;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT ra.id, r.id, r.started, h.hostname, h.model_name, ra.mode,"
                      " ra.metric, ra.alpha, ra.min_margin, ra.rounds, ra.reps, ra.context, ra.fpu_charge"
                      "  FROM races ra JOIN runs r ON r.id = ra.run_id"
                      "  JOIN hosts h ON h.id = r.host_id WHERE ra.id = ?1", &s) != CB_DB_OK)
        return -EIO;
    cb_db_bind_int64(s, 1, id);
    int rc = -ENOENT;
    if (cb_db_step(s) == CB_DB_ROW) {
        struct cb_store_race race = {
            .id = cb_db_column_int64(s, 0), .run_id = cb_db_column_int64(s, 1),
            .started = text(s, 2), .hostname = text(s, 3), .model_name = text(s, 4),
            .mode = text(s, 5), .metric = text(s, 6), .alpha = cb_db_column_double(s, 7),
            .min_margin = cb_db_column_double(s, 8), .rounds = cb_db_column_int64(s, 9),
            .reps = cb_db_column_int64(s, 10), .context = text(s, 11), .fpu_charge = real(s, 12),
        };
        rc = fn(&race, ctx);
    }
    cb_db_finalize(s);
    return rc;
}

int cb_store_each_race_result(struct cb_store *st, int64_t id,
                              int (*fn)(const struct cb_store_race_result *res, void *ctx),
                              void *ctx)
{
    struct cb_db_stmt *s;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT rr.probe, rr.bucket, rr.min_size, rr.max_size, rr.size, rr.decision,"
                      " rr.winner, rr.margin, rr.margin_lo, rr.margin_hi, rr.runner_up,"
                      " (SELECT rs.prev_winner FROM race_summary rs WHERE rs.race_id = rr.race_id"
                      "   AND rs.probe = rr.probe AND rs.bucket = rr.bucket),"
                      " (SELECT group_concat(variant, ',') FROM race_entrants re"
                      "   WHERE re.result_id = rr.id AND re.verdict = 'bad')"
                      "  FROM race_results rr WHERE rr.race_id = ?1 ORDER BY rr.id", &s) != CB_DB_OK)
        return -EIO;
    cb_db_bind_int64(s, 1, id);
    int rc, stop = 0;
    while (!stop && (rc = cb_db_step(s)) == CB_DB_ROW) {
        struct cb_store_race_result r = {
            .probe = text(s, 0), .bucket = text(s, 1), .min_size = cb_db_column_int64(s, 2),
            .max_size = cb_db_column_type(s, 3) == CB_DB_NULL ? -1 : cb_db_column_int64(s, 3),
            .size = cb_db_column_int64(s, 4), .decision = text(s, 5), .winner = text_or_null(s, 6),
            .margin = real(s, 7), .margin_lo = real(s, 8), .margin_hi = real(s, 9),
            .runner_up = text_or_null(s, 10), .prev_winner = text_or_null(s, 11),
            .bad = text_or_null(s, 12), .winner_median = NAN, .runner_up_median = NAN, .p = NAN,
        };
        stop = fn(&r, ctx);
    }
    cb_db_finalize(s);
    return stop ? stop : rc == CB_DB_DONE ? 0 : -EIO;
}

int cb_store_each_latest_race(struct cb_store *st, int (*fn)(int64_t id, void *ctx), void *ctx)
{
    struct cb_db *db = cb_store_db(st);
    struct cb_db_stmt *s;
    int v = cb_db_schema_version(db);
    if (v < 0)
        return -EIO;
    if (v < 4)   /* db/0004_race.sql */
        return 0;
    if (cb_db_prepare(db,
                      "SELECT MAX(ra.id) FROM races ra JOIN runs r ON r.id = ra.run_id"
                      "  JOIN hosts h ON h.id = r.host_id WHERE r.status = 'complete'"
                      " GROUP BY h.hostname, h.model_name, ra.mode, ra.context ORDER BY 1", &s) != CB_DB_OK)
        return -EIO;
    int rc, stop = 0;
    while (!stop && (rc = cb_db_step(s)) == CB_DB_ROW)
        stop = fn(cb_db_column_int64(s, 0), ctx);
    cb_db_finalize(s);
    return stop ? stop : rc == CB_DB_DONE ? 0 : -EIO;
}
