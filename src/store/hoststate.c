/* hoststate.c — the reference readings and the states in the store (see
 * hoststate.h).  Each write is one UPDATE in its own write transaction,
 * retried when busy; the reads are prepared per call. */
#include "store/hoststate.h"
#include "store/store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

/* The migration that added the columns, and the one that added the
 * memory reference's (ref_mem) and state_ref 'mem'. */
#define HOSTSTATE_SCHEMA 24
#define MEMREF_SCHEMA 26

static int have_schema(struct cb_store *st)
{
    return cb_store_schema_version(st) >= HOSTSTATE_SCHEMA;
}

/* How many references the store keeps: a store of schema 24 or 25 has no
 * column for the memory reference, the last one. */
static int nrefs(struct cb_store *st)
{
    return cb_store_schema_version(st) >= MEMREF_SCHEMA ? CB_NREFS : CB_REF_MEM;
}

/* The columns of the references, in enum cb_ref's order. */
static const char *const ref_cols[CB_NREFS] = {"ref_chain", "ref_vec", "ref_load", "ref_copy",
                                               "ref_mem"};

/* One UPDATE: its SQL and what to bind, in a write transaction.  Its
 * parameters are numbered without a gap (PostgreSQL types each one from
 * its use): ?1 the row's id, then the references (when refs), then the
 * state's name, ratio and reference (when s), then the whole numbers,
 * then the real (when has_real). */
struct update {
    const char *sql;
    int64_t id;
    const struct cb_refs *refs;
    int nrefs;                       /* how many of refs (the store's columns) */
    const struct cb_state *s;
    int64_t ints[2];                 /* < 0: NULL */
    int nints;
    int has_real;
    double real;
};

static void bind_state(struct cb_db_stmt *q, int at, const struct cb_state *s)
{
    const char *name = cb_state_name(s);
    if (name)
        cb_db_bind_text(q, at, name);
    else
        cb_db_bind_null(q, at);
    cb_st_bind_real_or_null(q, at + 1, name ? s->ratio : NAN);
    if (name && s->ref >= 0)
        cb_db_bind_text(q, at + 2, cb_ref_name(s->ref));
    else
        cb_db_bind_null(q, at + 2);
}

static int update_tx(struct cb_store *st, void *ctx)
{
    const struct update *u = ctx;
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(st->db, u->sql, &q);
    if (rc != CB_DB_OK)
        return rc;
    int at = 1;
    cb_db_bind_int64(q, at++, u->id);
    for (int i = 0; u->refs && i < u->nrefs; i++)
        cb_st_bind_real_or_null(q, at++, u->refs->v[i] > 0 ? u->refs->v[i] : NAN);
    if (u->s) {
        bind_state(q, at, u->s);
        at += 3;
    }
    for (int i = 0; i < u->nints; i++, at++) {
        if (u->ints[i] < 0)
            cb_db_bind_null(q, at);
        else
            cb_db_bind_int64(q, at, u->ints[i]);
    }
    if (u->has_real)
        cb_st_bind_real_or_null(q, at, u->real);
    rc = cb_st_step_done(q);
    cb_db_finalize(q);
    return rc;
}

/* A store before migration 24 has nowhere to keep it: nothing is written. */
static int update(struct cb_store *st, const struct update *u)
{
    return have_schema(st) ? cb_st_tx(st, update_tx, (void *)u) : 0;
}

int cb_store_run_refs_set(struct cb_store *st, int64_t run_id, const struct cb_refs *r)
{
    int n = nrefs(st);
    struct update u = {.sql = n == CB_NREFS
                                  ? "UPDATE runs SET ref_chain = ?2, ref_vec = ?3, ref_load = ?4,"
                                    " ref_copy = ?5, ref_mem = ?6 WHERE id = ?1"
                                  : "UPDATE runs SET ref_chain = ?2, ref_vec = ?3, ref_load = ?4,"
                                    " ref_copy = ?5 WHERE id = ?1",
                       .id = run_id, .refs = r, .nrefs = n};
    return update(st, &u);
}

int cb_store_calibration_refs_set(struct cb_store *st, int64_t cal_id, int cpu,
                                  const struct cb_refs *r, double meter_baseline)
{
    int n = nrefs(st);
    struct update u = {.sql = n == CB_NREFS
                                  ? "UPDATE calibrations SET ref_chain = ?2, ref_vec = ?3, ref_load = ?4,"
                                    " ref_copy = ?5, ref_mem = ?6, ref_cpu = ?7, meter_baseline = ?8"
                                    " WHERE id = ?1"
                                  : "UPDATE calibrations SET ref_chain = ?2, ref_vec = ?3, ref_load = ?4,"
                                    " ref_copy = ?5, ref_cpu = ?6 WHERE id = ?1",
                       .id = cal_id, .refs = r, .nrefs = n, .ints = {cpu}, .nints = 1,
                       .has_real = n == CB_NREFS, .real = meter_baseline > 0 ? meter_baseline : NAN};
    return update(st, &u);
}

int cb_store_case_state_set(struct cb_store *st, int64_t case_id, const struct cb_state *s,
                            int tries)
{
    struct update u = {.sql = "UPDATE cases SET state = ?2, state_ratio = ?3, state_ref = ?4,"
                              " tries = ?5 WHERE id = ?1",
                       .id = case_id, .s = s, .ints = {tries >= 1 ? tries : -1}, .nints = 1};
    return update(st, &u);
}

int cb_store_run_state_set(struct cb_store *st, int64_t run_id, const struct cb_run_state *rs)
{
    struct update u = {.sql = "UPDATE runs SET state = ?2, state_ratio = ?3, state_ref = ?4,"
                              " state_n = ?5, slowed_cases = ?6, slowed_s = ?7 WHERE id = ?1",
                       .id = run_id, .s = &rs->s, .ints = {rs->n, rs->slowed_cases}, .nints = 2,
                       .has_real = 1, .real = rs->slowed_s};
    return update(st, &u);
}

/* The readings of one reference, newest first: the runs' and calibrate's
 * of run_id's host and CPU (calibrate's only for a machine-timed run). */
static int readings(struct cb_store *st, int64_t run_id, const char *col, double *v, int max,
                    int *n)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT x FROM ("
             " SELECT o.%1$s AS x, o.started AS at FROM runs o JOIN runs r ON r.id = ?1"
             "  WHERE o.host_id = r.host_id AND o.cpu = r.cpu AND o.%1$s IS NOT NULL"
             "   AND COALESCE(o.clock_backend, 'perf_event') = COALESCE(r.clock_backend, 'perf_event')"
             "   AND o.id <= r.id"
             " UNION ALL"
             " SELECT c.%1$s AS x, c.taken AS at FROM calibrations c JOIN runs r ON r.id = ?1"
             "  WHERE c.host_id = r.host_id AND c.ref_cpu = r.cpu AND c.%1$s IS NOT NULL"
             "   AND c.source = 'measured' AND COALESCE(r.clock_backend, 'perf_event') = 'perf_event'"
             ") t ORDER BY at DESC LIMIT ?2", col);
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(st->db, sql, &q);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading the host's reference readings");
    cb_db_bind_int64(q, 1, run_id);
    cb_db_bind_int64(q, 2, max);
    *n = 0;
    while ((rc = cb_db_step(q)) == CB_DB_ROW && *n < max) {
        double x = cb_db_column_double(q, 0);
        if (x > 0)
            v[(*n)++] = x;
    }
    cb_db_finalize(q);
    return rc == CB_DB_DONE || rc == CB_DB_ROW ? 0 : cb_st_fail(st, rc, "reading references");
}

int cb_store_host_quiet(struct cb_store *st, int64_t run_id, struct cb_refs *quiet, int *n)
{
    cb_refs_clear(quiet);
    *n = 0;
    if (!have_schema(st))
        return -ENOENT;
    double v[CB_QUIET_READINGS];
    for (int i = 0; i < nrefs(st); i++) {
        int k = 0, rc = readings(st, run_id, ref_cols[i], v, CB_QUIET_READINGS, &k);
        if (rc < 0)
            return rc;
        if (!k)
            continue;
        cb_sort_doubles(v, (size_t)k);
        /* The quantile by linear interpolation between order statistics. */
        double pos = CB_QUIET_QUANTILE * (k - 1);
        int lo = (int)pos;
        quiet->v[i] = lo + 1 < k ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
        if (k > *n)
            *n = k;
    }
    return *n ? 0 : -ENOENT;
}

static void state_cols(struct cb_db_stmt *q, int at, struct cb_state *s)
{
    char name[16] = "", ref[16] = "";
    cb_st_col_str(q, at, name, sizeof name);
    cb_st_col_str(q, at + 2, ref, sizeof ref);
    *s = (struct cb_state){.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    if (strcmp(name, "quiet") == 0)
        s->kind = CB_STATE_QUIET;
    else if (strcmp(name, "slowed") == 0)
        s->kind = CB_STATE_SLOWED_KIND;
    s->ratio = cb_st_col_real_or_nan(q, at + 1);
    s->ref = cb_ref_parse(ref);
}

int cb_store_case_state(struct cb_store *st, int64_t case_id, struct cb_state *out, int *tries)
{
    *out = (struct cb_state){.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    if (tries)
        *tries = 0;
    if (!have_schema(st))
        return 0;
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(st->db, "SELECT state, state_ratio, state_ref, tries FROM cases"
                                   " WHERE id = ?1", &q);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading a case's state");
    cb_db_bind_int64(q, 1, case_id);
    if ((rc = cb_db_step(q)) == CB_DB_ROW) {
        state_cols(q, 0, out);
        if (tries && cb_db_column_type(q, 3) != CB_DB_NULL)
            *tries = (int)cb_db_column_int64(q, 3);
    }
    cb_db_finalize(q);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT : cb_st_fail(st, rc, "a case's state");
}

int cb_store_run_state(struct cb_store *st, int64_t run_id, struct cb_run_state *out)
{
    memset(out, 0, sizeof *out);
    out->s = (struct cb_state){.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    out->n = out->slowed_cases = -1;
    out->slowed_s = NAN;
    cb_refs_clear(&out->start);
    if (!have_schema(st))
        return 0;
    struct cb_db_stmt *q;
    int n = nrefs(st);
    int rc = cb_db_prepare(st->db,
                           n == CB_NREFS
                               ? "SELECT state, state_ratio, state_ref, state_n, slowed_cases,"
                                 " slowed_s, ref_chain, ref_vec, ref_load, ref_copy, ref_mem FROM runs"
                                 " WHERE id = ?1"
                               : "SELECT state, state_ratio, state_ref, state_n, slowed_cases,"
                                 " slowed_s, ref_chain, ref_vec, ref_load, ref_copy FROM runs"
                                 " WHERE id = ?1",
                           &q);
    if (rc != CB_DB_OK)
        return cb_st_fail(st, rc, "reading a run's state");
    cb_db_bind_int64(q, 1, run_id);
    if ((rc = cb_db_step(q)) == CB_DB_ROW) {
        state_cols(q, 0, &out->s);
        if (cb_db_column_type(q, 3) != CB_DB_NULL)
            out->n = (int)cb_db_column_int64(q, 3);
        if (cb_db_column_type(q, 4) != CB_DB_NULL)
            out->slowed_cases = (int)cb_db_column_int64(q, 4);
        out->slowed_s = cb_st_col_real_or_nan(q, 5);
        for (int i = 0; i < n; i++)
            out->start.v[i] = cb_st_col_real_or_nan(q, 6 + i);
    }
    cb_db_finalize(q);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT : cb_st_fail(st, rc, "a run's state");
}
