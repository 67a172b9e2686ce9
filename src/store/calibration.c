/* calibration.c — the machine's ceilings in the store (0010_ceilings.sql).
 *
 * A calibration is written in one transaction with all its ceilings, so a
 * reader never finds one half-written; its statements are prepared per
 * call (a run writes one calibration at most). */
#include "store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CAL_SCHEMA 9

static int have_schema(struct cb_store *st)
{
    return cb_store_schema_version(st) >= CAL_SCHEMA;
}

struct add_ctx {
    const struct cb_run_meta *m;
    const char *fp;
    const struct cb_ceilings *cs;
    int64_t id;
};

static int add_fn(struct cb_store *st, void *vctx)
{
    struct add_ctx *c = vctx;
    const struct cb_ceilings *cs = c->cs;
    int64_t host;
    int rc = cb_st_host_id(st, c->m, 1, &host);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *s;
    rc = sqlite3_prepare_v2(st->db,
                            "INSERT INTO calibrations (host_id, fingerprint, source, tsc_ghz,"
                            " core_ghz, core_method, l1_bytes, l2_bytes, l3_bytes, note)"
                            " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                            -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(s, 1, host);
    cb_st_bind_str(s, 2, c->fp);
    cb_st_bind_str(s, 3, cs->source);
    sqlite3_bind_double(s, 4, cs->tsc_ghz);
    cb_st_bind_real_or_null(s, 5, cs->core_ghz > 0 ? cs->core_ghz : NAN);
    cb_st_bind_str(s, 6, cs->core_method);
    for (int i = 0; i < 3; i++)
        sqlite3_bind_int64(s, 7 + i, (int64_t)cs->cache[i]);
    cb_st_bind_str(s, 10, cs->note);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return rc;
    c->id = sqlite3_last_insert_rowid(st->db);
    rc = sqlite3_prepare_v2(st->db,
                            "INSERT INTO ceilings (calibration_id, kind, level, isa, set_bytes,"
                            " bytes_per_tick, bytes_per_cycle, spread_pct, trials)"
                            " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
                            -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    for (size_t i = 0; i < cs->n && rc == SQLITE_OK; i++) {
        const struct cb_ceiling *e = &cs->c[i];
        sqlite3_bind_int64(s, 1, c->id);
        cb_st_bind_str(s, 2, e->kind);
        cb_st_bind_str(s, 3, cb_ceil_level_name(e->level));
        cb_st_bind_str(s, 4, e->isa);
        sqlite3_bind_int64(s, 5, (int64_t)e->set_bytes);
        sqlite3_bind_double(s, 6, e->bpt);
        cb_st_bind_real_or_null(s, 7, e->bpc > 0 ? e->bpc : NAN);
        cb_st_bind_real_or_null(s, 8, e->spread_pct);
        sqlite3_bind_int(s, 9, e->trials);
        rc = cb_st_step_done(s);
        sqlite3_clear_bindings(s);
    }
    sqlite3_finalize(s);
    return rc;
}

int cb_store_calibration_add(struct cb_store *st, const struct cb_run_meta *m, const char *fp,
                             const struct cb_ceilings *cs, int64_t *id)
{
    if (!st || !m || !m->host || !cs || !id)
        return -EINVAL;
    if (!have_schema(st))
        return -ENOSYS;
    struct add_ctx c = {m, fp ? fp : "", cs, 0};
    int r = cb_st_tx(st, add_fn, &c);
    if (r == 0)
        *id = c.id;
    return r;
}

int cb_store_calibration_find(struct cb_store *st, const struct cb_run_meta *m, const char *fp,
                              const char *source, int64_t *id)
{
    if (!st || !m || !m->host || !id)
        return -EINVAL;
    if (!have_schema(st))
        return -ENOENT;
    int64_t host;
    int rc = cb_st_host_id(st, m, 0, &host);
    if (rc == SQLITE_DONE)
        return -ENOENT;
    if (rc != SQLITE_ROW)
        return cb_st_fail(st, rc, "looking up the host");
    sqlite3_stmt *s;
    rc = sqlite3_prepare_v2(st->db,
                            "SELECT id FROM calibrations WHERE host_id=?1 AND fingerprint=?2 AND source=?3"
                            " ORDER BY id DESC LIMIT 1",
                            -1, &s, NULL);
    if (rc != SQLITE_OK)
        return cb_st_fail(st, rc, "looking up a calibration");
    sqlite3_bind_int64(s, 1, host);
    cb_st_bind_str(s, 2, fp ? fp : "");
    cb_st_bind_str(s, 3, source ? source : "measured");
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT
                                                     : cb_st_fail(st, rc, "looking up a calibration");
}

int cb_store_calibration_get(struct cb_store *st, int64_t id, struct cb_ceilings *cs, char *taken,
                             size_t takenlen)
{
    if (!st || !cs)
        return -EINVAL;
    memset(cs, 0, sizeof *cs);
    if (taken && takenlen)
        taken[0] = 0;
    if (!have_schema(st))
        return -ENOENT;
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(st->db,
                                "SELECT source, tsc_ghz, core_ghz, core_method, l1_bytes, l2_bytes,"
                                " l3_bytes, note, taken FROM calibrations WHERE id=?1",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return cb_st_fail(st, rc, "reading a calibration");
    sqlite3_bind_int64(s, 1, id);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(s);
        return rc == SQLITE_DONE ? -ENOENT : cb_st_fail(st, rc, "reading a calibration");
    }
    cb_st_col_str(s, 0, cs->source, sizeof cs->source);
    cs->tsc_ghz = sqlite3_column_double(s, 1);
    double core = cb_st_col_real_or_nan(s, 2);
    cs->core_ghz = core > 0 ? core : 0;
    cb_st_col_str(s, 3, cs->core_method, sizeof cs->core_method);
    for (int i = 0; i < 3; i++)
        cs->cache[i] = (uint64_t)sqlite3_column_int64(s, 4 + i);
    cb_st_col_str(s, 7, cs->note, sizeof cs->note);
    if (taken)
        cb_st_col_str(s, 8, taken, takenlen);
    sqlite3_finalize(s);
    rc = sqlite3_prepare_v2(st->db,
                            "SELECT kind, level, isa, set_bytes, bytes_per_tick, bytes_per_cycle,"
                            " spread_pct, trials FROM ceilings WHERE calibration_id=?1 ORDER BY id",
                            -1, &s, NULL);
    if (rc != SQLITE_OK)
        return cb_st_fail(st, rc, "reading ceilings");
    sqlite3_bind_int64(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && cs->n < CB_CEIL_MAX) {
        struct cb_ceiling *e = &cs->c[cs->n++];
        char level[8];
        cb_st_col_str(s, 0, e->kind, sizeof e->kind);
        cb_st_col_str(s, 1, level, sizeof level);
        e->level = cb_ceil_level_by_name(level);
        cb_st_col_str(s, 2, e->isa, sizeof e->isa);
        e->set_bytes = (uint64_t)sqlite3_column_int64(s, 3);
        e->bpt = sqlite3_column_double(s, 4);
        e->bpc = cb_st_col_real_or_nan(s, 5);
        e->spread_pct = cb_st_col_real_or_nan(s, 6);
        e->trials = sqlite3_column_int(s, 7);
        if (e->level >= 0 && e->level < CB_NLEVELS && e->set_bytes)
            cs->set[e->level] = e->set_bytes;
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : cb_st_fail(st, rc, "reading ceilings");
}

struct link_ctx {
    int64_t run_id, cal_id;
    int reused;
};

static int link_fn(struct cb_store *st, void *vctx)
{
    struct link_ctx *c = vctx;
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(st->db,
                                "UPDATE runs SET calibration_id=?2, calibration_reused=?3 WHERE id=?1",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(s, 1, c->run_id);
    sqlite3_bind_int64(s, 2, c->cal_id);
    sqlite3_bind_int(s, 3, c->reused ? 1 : 0);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int cb_store_run_calibration_set(struct cb_store *st, int64_t run_id, int64_t cal_id, int reused)
{
    if (!st)
        return -EINVAL;
    if (!have_schema(st))
        return -ENOSYS;
    struct link_ctx c = {run_id, cal_id, reused};
    return cb_st_tx(st, link_fn, &c);
}

int cb_store_run_calibration(struct cb_store *st, int64_t run_id, int64_t *cal_id, int *reused)
{
    if (!st || !cal_id)
        return -EINVAL;
    if (!have_schema(st))
        return -ENOENT;
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(st->db,
                                "SELECT calibration_id, COALESCE(calibration_reused, 0) FROM runs"
                                " WHERE id=?1 AND calibration_id IS NOT NULL",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return cb_st_fail(st, rc, "reading a run's calibration");
    sqlite3_bind_int64(s, 1, run_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *cal_id = sqlite3_column_int64(s, 0);
        if (reused)
            *reused = sqlite3_column_int(s, 1);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT
                                                     : cb_st_fail(st, rc, "reading a run's calibration");
}
