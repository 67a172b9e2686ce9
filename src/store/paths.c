/* paths.c — path_results written and read back (paths.h). */
#include "store/paths.h"

#include <errno.h>
#include <math.h>

#include "store/db.h"
#include "store/store.h"

static void bind_real(struct cb_db_stmt *s, int i, double v)
{
    if (isfinite(v))
        cb_db_bind_double(s, i, v);
    else
        cb_db_bind_null(s, i);
}

static double real(struct cb_db_stmt *s, int i)
{
    return cb_db_column_type(s, i) == CB_DB_NULL ? NAN : cb_db_column_double(s, i);
}

static const char *text(struct cb_db_stmt *s, int i)
{
    const char *t = (const char *)cb_db_column_text(s, i);
    return t ? t : "";
}

int cb_store_path_put(struct cb_store *st, const struct cb_store_path_row *row)
{
    struct cb_db *db = cb_store_db(st);
    struct cb_db_stmt *s = NULL;
    int rc = -EIO;
    if (cb_db_begin(db) != CB_DB_OK)
        return -EBUSY;
    if (cb_db_prepare(db, "INSERT INTO path_results (run_id, path, size, context, frame, charged_frame,"
                          " charged_frames, cycles, cycles_lo, cycles_hi, ns, steps, missing, detail)"
                          " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                          " ON CONFLICT (run_id, path, size, context) DO UPDATE SET"
                          " frame = excluded.frame, charged_frame = excluded.charged_frame,"
                          " charged_frames = excluded.charged_frames, cycles = excluded.cycles,"
                          " cycles_lo = excluded.cycles_lo, cycles_hi = excluded.cycles_hi,"
                          " ns = excluded.ns, steps = excluded.steps, missing = excluded.missing,"
                          " detail = excluded.detail", &s) != CB_DB_OK)
        goto out;
    cb_db_bind_int64(s, 1, row->run_id);
    cb_db_bind_text(s, 2, row->path);
    cb_db_bind_int64(s, 3, row->size);
    cb_db_bind_text(s, 4, row->context);
    cb_db_bind_int64(s, 5, row->frame);
    cb_db_bind_int64(s, 6, row->charged_frame);
    cb_db_bind_int64(s, 7, row->charged_frames);
    bind_real(s, 8, row->cycles);
    bind_real(s, 9, row->cycles_lo);
    bind_real(s, 10, row->cycles_hi);
    bind_real(s, 11, row->ns);
    cb_db_bind_int64(s, 12, row->steps);
    cb_db_bind_int64(s, 13, row->missing);
    cb_db_bind_text(s, 14, row->detail);
    if (cb_db_step(s) == CB_DB_DONE && cb_db_exec(db, "COMMIT") == CB_DB_OK)
        rc = 0;
out:
    if (rc < 0)
        cb_db_rollback(db);
    cb_db_finalize(s);
    return rc;
}

int cb_store_each_path_run(struct cb_store *st, const char *path, uint64_t size,
                           const char *context,
                           int (*fn)(const struct cb_store_path_row *row, void *ctx), void *ctx)
{
    struct cb_db_stmt *s = NULL;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT pr.run_id, r.started, COALESCE(cm.hash, ''), COALESCE(cm.dirty, -1),"
                      " pr.cycles, pr.cycles_lo, pr.cycles_hi, pr.missing, pr.detail"
                      " FROM path_results pr JOIN runs r ON r.id = pr.run_id"
                      " LEFT JOIN commits cm ON cm.id = r.commit_id"
                      " WHERE pr.path = ?1 AND pr.size = ?2 AND pr.context = ?3"
                      " AND r.status = 'complete' ORDER BY pr.run_id", &s) != CB_DB_OK)
        return -EIO;
    cb_db_bind_text(s, 1, path);
    cb_db_bind_int64(s, 2, (int64_t)size);
    cb_db_bind_text(s, 3, context);
    int rc, stop = 0;
    while (!stop && (rc = cb_db_step(s)) == CB_DB_ROW) {
        struct cb_store_path_row row = {
            .run_id = cb_db_column_int64(s, 0), .path = path, .context = context,
            .size = (int64_t)size, .started = text(s, 1), .commit = text(s, 2),
            .dirty = (int)cb_db_column_int64(s, 3), .cycles = real(s, 4),
            .cycles_lo = real(s, 5), .cycles_hi = real(s, 6), .ns = NAN,
            .missing = cb_db_column_int64(s, 7), .detail = text(s, 8),
        };
        stop = fn(&row, ctx);
    }
    cb_db_finalize(s);
    return stop ? stop : rc == CB_DB_DONE ? 0 : -EIO;
}

int cb_store_each_path_total(struct cb_store *st, int64_t run,
                             int (*fn)(const struct cb_store_path_row *row, void *ctx), void *ctx)
{
    struct cb_db_stmt *s = NULL;
    if (cb_db_prepare(cb_store_db(st), "SELECT path, size, context, cycles, missing, detail"
                      " FROM path_results WHERE run_id = ?1 AND cycles IS NOT NULL AND missing = 0",
                      &s) != CB_DB_OK)
        return -EIO;
    cb_db_bind_int64(s, 1, run);
    int rc, stop = 0;
    while (!stop && (rc = cb_db_step(s)) == CB_DB_ROW) {
        struct cb_store_path_row row = {
            .run_id = run, .path = text(s, 0), .size = cb_db_column_int64(s, 1),
            .context = text(s, 2), .cycles = real(s, 3), .cycles_lo = NAN, .cycles_hi = NAN,
            .ns = NAN, .missing = cb_db_column_int64(s, 4), .detail = text(s, 5), .started = "",
            .commit = "", .dirty = -1,
        };
        stop = fn(&row, ctx);
    }
    cb_db_finalize(s);
    return stop ? stop : rc == CB_DB_DONE ? 0 : -EIO;
}
