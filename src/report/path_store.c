/* path_store.c — a composed path kept with its run (db/0022_paths.sql), and
 * its series over runs for history (path.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "store/db.h"
#include "report/path.h"

static void bind_real(struct cb_db_stmt *s, int i, double v)
{
    if (isfinite(v))
        cb_db_bind_double(s, i, v);
    else
        cb_db_bind_null(s, i);
}

/* "label=variant:cycles;..." in the path's order, "label=-" for a step
 * not measured. */
static void detail_of(const struct cb_path_result *res, struct cb_sb *sb)
{
    for (size_t k = 0; k < res->nparts; k++) {
        const struct cb_path_part *pt = &res->parts[k];
        if (pt->c)
            cb_sb_addf(sb, "%s%s=%s:%.2f", k ? ";" : "", pt->step->label, pt->c->info.variant, pt->cyc);
        else
            cb_sb_addf(sb, "%s%s=-", k ? ";" : "", pt->step->label);
    }
}

int cb_path_store(struct cb_store *st, const struct cb_report *r, const struct cb_path *p,
                  const struct cb_path_result *res)
{
    struct cb_db *db = cb_store_db(st);
    struct cb_db_stmt *s = NULL;
    struct cb_sb detail = CB_SB_INIT;
    detail_of(res, &detail);
    int rc = -EIO;
    if (cb_db_begin(db) != CB_DB_OK) {
        cb_sb_release(&detail);
        return -EBUSY;
    }
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
    /* A path with a step missing has no total: its steps are kept, its
     * figures are NULL, and neither history nor compare reads one. */
    int some = res->missing == 0;
    cb_db_bind_int64(s, 1, r->run.id);
    cb_db_bind_text(s, 2, p->name);
    cb_db_bind_int64(s, 3, (int64_t)res->size);
    cb_db_bind_text(s, 4, cb_context_name(r->context));
    cb_db_bind_int64(s, 5, r->budget.frame ? r->budget.frame : CB_MIN_FRAME);
    cb_db_bind_int64(s, 6, res->charge.frame);
    cb_db_bind_int64(s, 7, (int64_t)res->charge.frames);
    bind_real(s, 8, some ? res->cyc : NAN);
    bind_real(s, 9, some ? res->lo : NAN);
    bind_real(s, 10, some ? res->hi : NAN);
    bind_real(s, 11, some ? res->ns : NAN);
    cb_db_bind_int64(s, 12, (int64_t)res->nparts);
    cb_db_bind_int64(s, 13, (int64_t)res->missing);
    cb_db_bind_text(s, 14, detail.buf);
    if (cb_db_step(s) == CB_DB_DONE && cb_db_exec(db, "COMMIT") == CB_DB_OK)
        rc = 0;
out:
    if (rc < 0)
        cb_db_rollback(db);
    cb_db_finalize(s);
    cb_sb_release(&detail);
    return rc;
}

int cb_path_history(struct cb_store *st, const char *path, uint64_t size, enum cb_context ctx, FILE *out)
{
    struct cb_db *db = cb_store_db(st);
    struct cb_db_stmt *s = NULL;
    if (cb_db_prepare(db, "SELECT pr.run_id, r.started, COALESCE(cm.hash, ''), COALESCE(cm.dirty, -1),"
                          " pr.cycles, pr.cycles_lo, pr.cycles_hi, pr.missing, pr.detail"
                          " FROM path_results pr JOIN runs r ON r.id = pr.run_id"
                          " LEFT JOIN commits cm ON cm.id = r.commit_id"
                          " WHERE pr.path = ?1 AND pr.size = ?2 AND pr.context = ?3"
                          " AND r.status = 'complete' ORDER BY pr.run_id", &s) != CB_DB_OK)
        return -EIO;
    cb_db_bind_text(s, 1, path);
    cb_db_bind_int64(s, 2, (int64_t)size);
    cb_db_bind_text(s, 3, cb_context_name(ctx));
    int n = 0, rc;
    while ((rc = cb_db_step(s)) == CB_DB_ROW) {
        if (n++ == 0)
            fprintf(out, "path %s, %" PRIu64 "-byte packets, %s context: each run that stored it\n"
                         "  %6s %-24s %-14s %10s %21s  %s\n", path, size, cb_context_name(ctx), "run",
                    "started", "commit", "cycles", "interval", "steps (variant:cycles)");
        const char *hash = (const char *)cb_db_column_text(s, 2);
        char iv[48], commit[24], cyc[24];
        int whole = cb_db_column_int64(s, 7) == 0 && cb_db_column_type(s, 4) != CB_DB_NULL;
        snprintf(iv, sizeof iv, whole ? "[%.1f, %.1f]" : "-", cb_db_column_double(s, 5),
                 cb_db_column_double(s, 6));
        snprintf(cyc, sizeof cyc, whole ? "%.1f" : "no total", cb_db_column_double(s, 4));
        snprintf(commit, sizeof commit, "%.12s%s", hash[0] ? hash : "-",
                 cb_db_column_int64(s, 3) == 1 ? "+" : "");
        fprintf(out, "  %6" PRId64 " %-24.24s %-14s %10s %21s  ", cb_db_column_int64(s, 0),
                (const char *)cb_db_column_text(s, 1), commit, cyc, iv);
        cb_text_puts(out, (const char *)cb_db_column_text(s, 8));
        fprintf(out, "%s\n", whole ? "" : " (steps not measured: '-')");
    }
    cb_db_finalize(s);
    if (rc < 0)
        return -EIO;
    if (n == 0)
        fprintf(out, "no run stored path %s at %" PRIu64 " bytes in %s context ('cyclebudget run' "
                     "stores rx and fwd at 1500)\n",
                path, size, cb_context_name(ctx));
    return n;
}
