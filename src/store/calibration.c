/* calibration.c — the machine's ceilings in the store (0010_ceilings.sql).
 *
 * A calibration is written in one transaction with all its ceilings, so a
 * reader never finds one half-written; its statements are prepared per
 * call (a run writes one calibration at most). */
#include "store/store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define CAL_SCHEMA 9
#define FPU_SCHEMA 15

static int have_schema(struct cb_store *st)
{
    return cb_store_schema_version(st) >= CAL_SCHEMA;
}

/* The FPU columns (0015_fpu.sql), when measured: NULL otherwise. */
static int fpu_add(struct cb_store *st, int64_t id, const struct cb_fpu_cost *f)
{
    if (!f->supported || cb_store_schema_version(st) < FPU_SCHEMA)
        return CB_DB_OK;
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(st->db,
                           "UPDATE calibrations SET fpu_state_bytes=?2, fpu_xcr0=?3, fpu_save_insn=?4,"
                           " fpu_first_ticks=?5, fpu_later_ticks=?6, fpu_save_ticks=?7,"
                           " fpu_restore_ticks=?8 WHERE id=?1", &s);
    if (rc != CB_DB_OK)
        return rc;
    cb_db_bind_int64(s, 1, id);
    cb_db_bind_int64(s, 2, f->state_bytes);
    cb_db_bind_int64(s, 3, (int64_t)f->xcr0);
    cb_st_bind_str(s, 4, f->save_insn);
    cb_db_bind_double(s, 5, f->first_ticks);
    cb_db_bind_double(s, 6, f->later_ticks);
    cb_db_bind_double(s, 7, f->save_ticks);
    cb_db_bind_double(s, 8, f->restore_ticks);
    rc = cb_db_step(s);
    cb_db_finalize(s);
    return rc == CB_DB_DONE ? CB_DB_OK : rc;
}

/* Read them back into cs->fpu; supported stays 0 where they are NULL. */
static int fpu_get(struct cb_store *st, int64_t id, struct cb_ceilings *cs)
{
    if (cb_store_schema_version(st) < FPU_SCHEMA)
        return 0;
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(st->db,
                           "SELECT fpu_state_bytes, fpu_xcr0, fpu_save_insn, fpu_first_ticks,"
                           " fpu_later_ticks, fpu_save_ticks, fpu_restore_ticks FROM calibrations"
                           " WHERE id=?1 AND fpu_first_ticks IS NOT NULL", &s);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading a calibration's FPU figures");
    cb_db_bind_int64(s, 1, id);
    struct cb_fpu_cost *f = &cs->fpu;
    if ((rc = cb_db_step(s)) == CB_DB_ROW) {
        f->supported = 1;
        f->state_bytes = (uint32_t)cb_db_column_int64(s, 0);
        f->xcr0 = f->saved_mask = (uint64_t)cb_db_column_int64(s, 1);
        f->saved_mask &= ~((1ull << 17) | (1ull << 18));
        cb_st_col_str(s, 2, f->save_insn, sizeof f->save_insn);
        f->first_ticks = cb_db_column_double(s, 3);
        f->later_ticks = cb_db_column_double(s, 4);
        f->save_ticks = cb_db_column_double(s, 5);
        f->restore_ticks = cb_db_column_double(s, 6);
        snprintf(f->source, sizeof f->source, "%s", cs->source);
    }
    cb_db_finalize(s);
    return rc == CB_DB_ROW || rc == CB_DB_DONE ? 0 : cb_st_fail(st, rc, "reading FPU figures");
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
    if (rc != CB_DB_OK)
        return rc;
    struct cb_db_stmt *s;
    rc = cb_db_prepare(st->db,
                            "INSERT INTO calibrations (host_id, fingerprint, source, tsc_ghz,"
                            " core_ghz, core_method, l1_bytes, l2_bytes, l3_bytes, note)"
                            " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)", &s);
    if (rc != CB_DB_OK)
        return rc;
    cb_db_bind_int64(s, 1, host);
    cb_st_bind_str(s, 2, c->fp);
    cb_st_bind_str(s, 3, cs->source);
    cb_db_bind_double(s, 4, cs->tsc_ghz);
    cb_st_bind_real_or_null(s, 5, cs->core_ghz > 0 ? cs->core_ghz : NAN);
    cb_st_bind_str(s, 6, cs->core_method);
    for (int i = 0; i < 3; i++)
        cb_db_bind_int64(s, 7 + i, (int64_t)cs->cache[i]);
    cb_st_bind_str(s, 10, cs->note);
    rc = cb_db_step(s);
    cb_db_finalize(s);
    if (rc != CB_DB_DONE)
        return rc;
    c->id = cb_db_last_insert_id(st->db);
    if ((rc = fpu_add(st, c->id, &cs->fpu)) != CB_DB_OK)
        return rc;
    rc = cb_db_prepare(st->db,
                            "INSERT INTO ceilings (calibration_id, kind, level, isa, set_bytes,"
                            " bytes_per_tick, bytes_per_cycle, spread_pct, trials)"
                            " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)", &s);
    if (rc != CB_DB_OK)
        return rc;
    for (size_t i = 0; i < cs->n && rc == CB_DB_OK; i++) {
        const struct cb_ceiling *e = &cs->c[i];
        cb_db_bind_int64(s, 1, c->id);
        cb_st_bind_str(s, 2, e->kind);
        cb_st_bind_str(s, 3, cb_ceil_level_name(e->level));
        cb_st_bind_str(s, 4, e->isa);
        cb_db_bind_int64(s, 5, (int64_t)e->set_bytes);
        cb_db_bind_double(s, 6, e->bpt);
        cb_st_bind_real_or_null(s, 7, e->bpc > 0 ? e->bpc : NAN);
        cb_st_bind_real_or_null(s, 8, e->spread_pct);
        cb_db_bind_int64(s, 9, e->trials);
        rc = cb_st_step_done(s);
        cb_db_clear_bindings(s);
    }
    cb_db_finalize(s);
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
    if (rc == CB_DB_DONE)
        return -ENOENT;
    if (rc != CB_DB_ROW)
        return cb_st_fail(st, rc, "looking up the host");
    struct cb_db_stmt *s;
    rc = cb_db_prepare(st->db,
                            "SELECT id FROM calibrations WHERE host_id=?1 AND fingerprint=?2 AND source=?3"
                            " ORDER BY id DESC LIMIT 1", &s);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "looking up a calibration");
    cb_db_bind_int64(s, 1, host);
    cb_st_bind_str(s, 2, fp ? fp : "");
    cb_st_bind_str(s, 3, source ? source : "measured");
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW)
        *id = cb_db_column_int64(s, 0);
    cb_db_finalize(s);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT
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
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(st->db,
                                "SELECT source, tsc_ghz, core_ghz, core_method, l1_bytes, l2_bytes,"
                                " l3_bytes, note, taken FROM calibrations WHERE id=?1", &s);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading a calibration");
    cb_db_bind_int64(s, 1, id);
    rc = cb_db_step(s);
    if (rc != CB_DB_ROW) {
        cb_db_finalize(s);
        return rc == CB_DB_DONE ? -ENOENT : cb_st_fail(st, rc, "reading a calibration");
    }
    cb_st_col_str(s, 0, cs->source, sizeof cs->source);
    cs->tsc_ghz = cb_db_column_double(s, 1);
    double core = cb_st_col_real_or_nan(s, 2);
    cs->core_ghz = core > 0 ? core : 0;
    cb_st_col_str(s, 3, cs->core_method, sizeof cs->core_method);
    for (int i = 0; i < 3; i++)
        cs->cache[i] = (uint64_t)cb_db_column_int64(s, 4 + i);
    cb_st_col_str(s, 7, cs->note, sizeof cs->note);
    if (taken)
        cb_st_col_str(s, 8, taken, takenlen);
    cb_db_finalize(s);
    if ((rc = fpu_get(st, id, cs)) < 0)
        return rc;
    rc = cb_db_prepare(st->db,
                            "SELECT kind, level, isa, set_bytes, bytes_per_tick, bytes_per_cycle,"
                            " spread_pct, trials FROM ceilings WHERE calibration_id=?1 ORDER BY id", &s);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading ceilings");
    cb_db_bind_int64(s, 1, id);
    while ((rc = cb_db_step(s)) == CB_DB_ROW && cs->n < CB_CEIL_MAX) {
        struct cb_ceiling *e = &cs->c[cs->n++];
        char level[8];
        cb_st_col_str(s, 0, e->kind, sizeof e->kind);
        cb_st_col_str(s, 1, level, sizeof level);
        e->level = cb_ceil_level_by_name(level);
        cb_st_col_str(s, 2, e->isa, sizeof e->isa);
        e->set_bytes = (uint64_t)cb_db_column_int64(s, 3);
        e->bpt = cb_db_column_double(s, 4);
        e->bpc = cb_st_col_real_or_nan(s, 5);
        e->spread_pct = cb_st_col_real_or_nan(s, 6);
        e->trials = cb_db_column_int(s, 7);
        if (e->level >= 0 && e->level < CB_NLEVELS && e->set_bytes)
            cs->set[e->level] = e->set_bytes;
    }
    cb_db_finalize(s);
    return rc == CB_DB_DONE || rc == CB_DB_ROW ? 0 : cb_st_fail(st, rc, "reading ceilings");
}

struct link_ctx {
    int64_t run_id, cal_id;
    int reused;
};

static int link_fn(struct cb_store *st, void *vctx)
{
    struct link_ctx *c = vctx;
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(st->db,
                                "UPDATE runs SET calibration_id=?2, calibration_reused=?3 WHERE id=?1", &s);
    if (rc != CB_DB_OK)
        return rc;
    cb_db_bind_int64(s, 1, c->run_id);
    cb_db_bind_int64(s, 2, c->cal_id);
    cb_db_bind_int64(s, 3, c->reused ? 1 : 0);
    rc = cb_db_step(s);
    cb_db_finalize(s);
    return rc == CB_DB_DONE ? CB_DB_OK : rc;
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
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(st->db,
                                "SELECT calibration_id, COALESCE(calibration_reused, 0) FROM runs"
                                " WHERE id=?1 AND calibration_id IS NOT NULL", &s);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading a run's calibration");
    cb_db_bind_int64(s, 1, run_id);
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW) {
        *cal_id = cb_db_column_int64(s, 0);
        if (reused)
            *reused = cb_db_column_int(s, 1);
    }
    cb_db_finalize(s);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT
                                                     : cb_st_fail(st, rc, "reading a run's calibration");
}
