/* lookup_runs.c — which other runs measured the same bytes (lookup.h): the
 * plugins a run loaded, the runs of the same code, host and clock, and a
 * host's recent quiet runs with their code identity.  The noise floor
 * (analysis/floor.c) and a report's peers (report/peers.c) ask them. */
#include "store/lookup.h"

#include <errno.h>

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
