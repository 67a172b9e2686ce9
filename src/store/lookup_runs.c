/* lookup_runs.c — which other runs measured the same bytes (lookup.h): the
 * plugins a run loaded, the runs of the same code, host and clock, and a
 * host's recent quiet runs with their code identity.  The noise floor
 * (analysis/floor.c) and a report's peers (report/peers.c) ask them. */
#include "store/lookup.h"

#include <errno.h>
#include <math.h>

#include "store/db.h"
#include "store/store.h"

/* A statement's end: 0 when it ran to its end, else -ENOMEM, -EBUSY or -EIO. */
static int ended(int rc)
{
    if (rc == CB_DB_DONE)
        return 0;
    return rc == -ENOMEM || rc == -EBUSY ? rc : -EIO;
}

int cb_store_each_run_plugin(struct cb_store *st, int64_t run,
                             int (*fn)(const char *sha256, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_store_schema_version(st) < 11)
        return 0;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT sha256 FROM run_plugins WHERE run_id = ?1 ORDER BY sha256", &q);
    if (rc != CB_DB_OK)
        return ended(rc);
    cb_db_bind_int64(q, 1, run);
    int stop = 0;
    while (!stop && (rc = cb_db_step(q)) == CB_DB_ROW)
        stop = fn((const char *)cb_db_column_text(q, 0), ctx);
    cb_db_finalize(q);
    return stop ? stop : ended(rc);
}

int cb_store_each_same_bytes_run(struct cb_store *st, int64_t run, int64_t max,
                                 int (*fn)(int64_t id, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_store_schema_version(st) < 20)
        return 0;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT o.id FROM runs o JOIN runs r ON r.id = ?1 "
                           " WHERE o.code_id = r.code_id AND o.host_id = r.host_id AND o.id <> r.id "
                           "   AND o.status = 'complete' "
                           "   AND COALESCE(o.clock_backend, '') = COALESCE(r.clock_backend, '') "
                           " ORDER BY o.id DESC LIMIT ?2", &q);
    if (rc != CB_DB_OK)
        return ended(rc);
    cb_db_bind_int64(q, 1, run);
    cb_db_bind_int64(q, 2, max);
    int stop = 0;
    while (!stop && (rc = cb_db_step(q)) == CB_DB_ROW)
        stop = fn(cb_db_column_int64(q, 0), ctx);
    cb_db_finalize(q);
    return stop ? stop : ended(rc);
}

int cb_store_each_host_run(struct cb_store *st, int64_t ref, int64_t max,
                           int (*fn)(int64_t id, const char *code_id, const char *clock, void *ctx),
                           void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_store_schema_version(st) < 20)
        return 0;
    const char *sql = cb_store_schema_version(st) >= 24
        ? "SELECT r.id, r.code_id, COALESCE(r.clock_backend, '') FROM runs r "
          " WHERE r.host_id = (SELECT host_id FROM runs WHERE id = ?1) "
          "   AND r.status = 'complete' AND COALESCE(r.state, 'quiet') <> 'slowed' "
          " ORDER BY r.id DESC LIMIT ?2"
        : "SELECT r.id, r.code_id, COALESCE(r.clock_backend, '') FROM runs r "
          " WHERE r.host_id = (SELECT host_id FROM runs WHERE id = ?1) "
          "   AND r.status = 'complete' ORDER BY r.id DESC LIMIT ?2";
    int rc = cb_db_prepare(cb_store_db(st), sql, &q);
    if (rc != CB_DB_OK)
        return ended(rc);
    cb_db_bind_int64(q, 1, ref);
    cb_db_bind_int64(q, 2, max);
    int stop = 0;
    while (!stop && (rc = cb_db_step(q)) == CB_DB_ROW) {
        const char *code = cb_db_column_type(q, 1) == CB_DB_NULL
            ? NULL : (const char *)cb_db_column_text(q, 1);
        stop = fn(cb_db_column_int64(q, 0), code, (const char *)cb_db_column_text(q, 2), ctx);
    }
    cb_db_finalize(q);
    return stop ? stop : ended(rc);
}

int cb_store_run_host(struct cb_store *st, int64_t run,
                      int (*fn)(const struct cb_store_host *h, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT h.hostname, h.vendor, h.family, h.model, h.stepping,"
                           " h.model_name FROM runs r JOIN hosts h ON h.id = r.host_id"
                           " WHERE r.id = ?1", &q);
    if (rc != CB_DB_OK)
        return ended(rc);
    cb_db_bind_int64(q, 1, run);
    rc = cb_db_step(q);
    if (rc != CB_DB_ROW) {
        cb_db_finalize(q);
        return rc == CB_DB_DONE ? -ENOENT : ended(rc);
    }
    const char *host = (const char *)cb_db_column_text(q, 0);
    const char *vendor = (const char *)cb_db_column_text(q, 1);
    const char *model = (const char *)cb_db_column_text(q, 5);
    struct cb_store_host h = {host ? host : "", vendor ? vendor : "", cb_db_column_int(q, 2),
                              cb_db_column_int(q, 3), cb_db_column_int(q, 4), model ? model : ""};
    rc = fn(&h, ctx);
    cb_db_finalize(q);
    return rc;
}

int cb_store_each_bad_case(struct cb_store *st, int64_t run,
                           int (*fn)(const char *probe, const char *variant, uint64_t size,
                                     const char *mode, const char *verdict, void *ctx),
                           void *ctx)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT DISTINCT probe, variant, size, mode, verdict FROM cases "
                           " WHERE run_id = ?1 AND verdict <> 'ok' ORDER BY id", &q);
    if (rc != CB_DB_OK)
        return ended(rc);
    cb_db_bind_int64(q, 1, run);
    int stop = 0;
    while (!stop && (rc = cb_db_step(q)) == CB_DB_ROW)
        stop = fn((const char *)cb_db_column_text(q, 0), (const char *)cb_db_column_text(q, 1),
                  (uint64_t)cb_db_column_int64(q, 2), (const char *)cb_db_column_text(q, 3),
                  (const char *)cb_db_column_text(q, 4), ctx);
    cb_db_finalize(q);
    return stop ? stop : ended(rc);
}

int cb_store_each_run_sample(struct cb_store *st, int64_t run,
                             int (*fn)(const struct cb_store_sample *s, void *ctx), void *ctx)
{
    /* One query per run keeps a 200-run report to seconds; the per-op
     * formula is the one the sample_values view uses. */
    static const char sql[] =
        "SELECT s.case_id, s.event_id, s.iters,"
        "       (s.value - COALESCE(s.overhead, 0.0)) / CAST(s.iters AS DOUBLE PRECISION), s.scaled,"
        "       s.raw, s.enabled, s.running, s.method, s.value, s.iters"
        "  FROM cases c JOIN samples s ON s.case_id = c.id"
        " WHERE c.run_id = ?1 AND s.value IS NOT NULL"
        " ORDER BY s.case_id, s.event_id, s.seq";
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st), sql, &q) != CB_DB_OK)
        return -EIO;
    cb_db_bind_int64(q, 1, run);
    int rc, stop = 0;
    while (!stop && (rc = cb_db_step(q)) == CB_DB_ROW) {
        const char *m = (const char *)cb_db_column_text(q, 8);
        struct cb_store_sample x = {
            .case_id = cb_db_column_int64(q, 0),
            .event_id = cb_db_column_int64(q, 1),
            .iters = (uint64_t)cb_db_column_int64(q, 2),
            .per_op = cb_db_column_double(q, 3),
            .scaled = cb_db_column_int(q, 4),
            .raw = cb_db_column_type(q, 5) == CB_DB_NULL ? NAN : cb_db_column_double(q, 5),
            .enabled = (uint64_t)cb_db_column_int64(q, 6),
            .running = (uint64_t)cb_db_column_int64(q, 7),
            .method = m ? m : "",
            .damaged = cb_db_column_type(q, 9) == CB_DB_TEXT
                       || cb_db_column_type(q, 10) != CB_DB_INTEGER,
        };
        stop = fn(&x, ctx);
    }
    cb_db_finalize(q);
    return stop ? stop : rc == CB_DB_DONE ? 0 : -EIO;
}
