/* query.c — reading runs back for reports (see store.h): which run a spec
 * names, a run's row, its events and cases, and one case's values. */
#include "store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ------------------------------------------------------------ */

static int one_id(struct cb_store *st, const char *sql, const char *text, int64_t *id)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    if (text)
        sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc;
}

int cb_store_run_resolve(struct cb_store *st, const char *spec, int64_t *run_id,
                         char *err, size_t errlen)
{
    return cb_store_run_resolve_status(st, spec, 0, run_id, err, errlen);
}

int cb_store_run_resolve_status(struct cb_store *st, const char *spec, int include_aborted,
                                int64_t *run_id, char *err, size_t errlen)
{
    int64_t id = 0, other = 0;
    int rc;
    if (err && errlen)
        err[0] = '\0';
    if (!st || !spec || !*spec) {
        cb_st_msg(err, errlen, "no run given: say latest, a run id or a tag");
        return -EINVAL;
    }
    if (strcmp(spec, "latest") == 0) {
        rc = one_id(st, include_aborted
                        ? "SELECT id FROM runs WHERE status IN ('complete', 'aborted')"
                          " ORDER BY started DESC, id DESC LIMIT 1"
                        : "SELECT id FROM runs WHERE status = 'complete'"
                          " ORDER BY started DESC, id DESC LIMIT 1", NULL, &id);
        if (rc == SQLITE_ROW) {
            *run_id = id;
            return 0;
        }
        if (rc != SQLITE_DONE)
            goto sqlfail;
        rc = one_id(st, "SELECT COUNT(*) FROM runs", NULL, &other);
        cb_st_msg(err, errlen, "latest: no complete run in this database (%lld runs, none "
            "complete; see runs_overview)", (long long)other);
        return -ENOENT;
    }
    /* All digits: a run id.  An explicit id is an explicit request, so its
     * status does not matter here; the caller can look at it. */
    if (strspn(spec, "0123456789") == strlen(spec)) {
        char *end;
        errno = 0;
        long long v = strtoll(spec, &end, 10);
        if (errno == 0) {
            rc = one_id(st, "SELECT id FROM runs WHERE id = CAST(?1 AS INTEGER)", spec, &id);
            if (rc == SQLITE_ROW && id == v) {
                *run_id = id;
                return 0;
            }
            if (rc != SQLITE_DONE && rc != SQLITE_ROW)
                goto sqlfail;
        }
        int64_t lo = 0, hi = 0;
        one_id(st, "SELECT MIN(id) FROM runs", NULL, &lo);
        one_id(st, "SELECT MAX(id) FROM runs", NULL, &hi);
        if (hi)
            cb_st_msg(err, errlen, "no run %s (run ids here are %lld..%lld)", spec, (long long)lo,
                (long long)hi);
        else
            cb_st_msg(err, errlen, "no run %s (the database has no runs)", spec);
        return -ENOENT;
    }
    rc = one_id(st, include_aborted
                    ? "SELECT id FROM runs WHERE tag = ?1 AND status IN ('complete', 'aborted')"
                      " ORDER BY started DESC, id DESC LIMIT 1"
                    : "SELECT id FROM runs WHERE tag = ?1 AND status = 'complete'"
                      " ORDER BY started DESC, id DESC LIMIT 1", spec, &id);
    if (rc == SQLITE_ROW) {
        *run_id = id;
        return 0;
    }
    if (rc != SQLITE_DONE)
        goto sqlfail;
    rc = one_id(st, "SELECT id FROM runs WHERE tag = ?1 ORDER BY id DESC LIMIT 1", spec, &other);
    if (rc == SQLITE_ROW)
        cb_st_msg(err, errlen, "tag %s: no complete run (run %lld has it but is running or "
            "aborted; give its id to look at it anyway)", spec, (long long)other);
    else
        cb_st_msg(err, errlen, "no run tagged %s (say latest, a run id or a tag; see runs_overview)",
            spec);
    return -ENOENT;

sqlfail:
    cb_st_msg(err, errlen, "cannot look up run %s: %s", spec, sqlite3_errmsg(st->db));
    return cb_st_errno_or_eio(rc);
}

int cb_store_run_get(struct cb_store *st, int64_t run_id, struct cb_run_info *o)
{
    int rc;
    if (!st || !o)
        return -EINVAL;
    sqlite3_stmt *s = cb_st_stmt(st, Q_RUN_GET, &rc);
    if (!s)
        return cb_st_fail(st, rc, "reading a run");
    sqlite3_bind_int64(s, 1, run_id);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(s);
        return rc == SQLITE_DONE ? -ENOENT : cb_st_fail(st, rc, "reading a run");
    }
    memset(o, 0, sizeof *o);
    o->id = sqlite3_column_int64(s, 0);
    cb_st_col_str(s, 1, o->status, sizeof o->status);
    cb_st_col_str(s, 2, o->started, sizeof o->started);
    cb_st_col_str(s, 3, o->finished, sizeof o->finished);
    cb_st_col_str(s, 4, o->cmdline, sizeof o->cmdline);
    cb_st_col_str(s, 5, o->tag, sizeof o->tag);
    o->cpu = sqlite3_column_int(s, 6);
    cb_st_col_str(s, 7, o->commit, sizeof o->commit);
    cb_st_col_str(s, 8, o->subject, sizeof o->subject);
    cb_st_col_str(s, 9, o->commit_date, sizeof o->commit_date);
    o->dirty = sqlite3_column_int(s, 10);
    cb_st_col_str(s, 11, o->hostname, sizeof o->hostname);
    cb_st_col_str(s, 12, o->vendor, sizeof o->vendor);
    cb_st_col_str(s, 13, o->model_name, sizeof o->model_name);
    cb_st_col_str(s, 14, o->microcode, sizeof o->microcode);
    cb_st_col_str(s, 15, o->kernel, sizeof o->kernel);
    o->family = sqlite3_column_int(s, 16);
    o->model = sqlite3_column_int(s, 17);
    o->stepping = sqlite3_column_int(s, 18);
    o->ncpus = sqlite3_column_int(s, 19);
    cb_st_col_str(s, 20, o->features, sizeof o->features);
    o->tsc_ghz = sqlite3_column_double(s, 21);
    cb_st_col_str(s, 22, o->tsc_source, sizeof o->tsc_source);
    o->core_ghz = sqlite3_column_double(s, 23);
    o->core_ghz_spread = sqlite3_column_double(s, 24);
    cb_st_col_str(s, 25, o->core_ghz_source, sizeof o->core_ghz_source);
    cb_st_col_str(s, 26, o->pmu, sizeof o->pmu);
    cb_st_col_str(s, 27, o->version, sizeof o->version);
    cb_st_col_str(s, 28, o->compiler, sizeof o->compiler);
    cb_st_col_str(s, 29, o->cflags, sizeof o->cflags);
    cb_st_col_str(s, 30, o->clock_backend, sizeof o->clock_backend);
    cb_st_col_str(s, 31, o->core_est_method, sizeof o->core_est_method);
    o->core_est_ghz = cb_st_col_real_or_nan(s, 32);
    o->core_est_spread = cb_st_col_real_or_nan(s, 33);
    o->core_est_add_ghz = cb_st_col_real_or_nan(s, 34);
    o->core_est_imul_ghz = cb_st_col_real_or_nan(s, 35);
    cb_st_col_str(s, 36, o->meter_kind, sizeof o->meter_kind);
    o->meter_baseline = cb_st_col_real_or_nan(s, 37);
    o->meter_spread = cb_st_col_real_or_nan(s, 38);
    cb_st_col_str(s, 39, o->meter_why, sizeof o->meter_why);
    cb_st_col_str(s, 40, o->fingerprint, sizeof o->fingerprint);
    sqlite3_reset(s);
    return 0;
}

/* Grow *arr (of elem bytes) to hold one more; 0 or -ENOMEM. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = nc;
    return 0;
}

/* Every row query q yields for run_id, each filled into one element of a
 * malloc'd array by fill.  The events and cases readers differ only in fill. */
static int read_run_rows(struct cb_store *st, int q, int64_t run_id, const char *what,
                         size_t elem, void (*fill)(sqlite3_stmt *s, void *row), void **out,
                         size_t *n)
{
    int rc;
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s = cb_st_stmt(st, q, &rc);
    if (!s)
        return cb_st_fail(st, rc, what);
    sqlite3_bind_int64(s, 1, run_id);
    void *a = NULL;
    size_t cap = 0, k = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (grow(&a, &cap, k, elem) < 0) {
            sqlite3_reset(s);
            free(a);
            return -ENOMEM;
        }
        void *row = (char *)a + k++ * elem;
        memset(row, 0, elem);
        fill(s, row);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        free(a);
        return cb_st_fail(st, rc, what);
    }
    *out = a;
    *n = k;
    return 0;
}

static void fill_event(sqlite3_stmt *s, void *row)
{
    struct cb_event_info *e = row;
    e->id = sqlite3_column_int64(s, 0);
    cb_st_col_str(s, 1, e->name, sizeof e->name);
    cb_st_col_str(s, 2, e->part, sizeof e->part);
    cb_st_col_str(s, 3, e->pfm, sizeof e->pfm);
    cb_st_col_str(s, 4, e->encoding, sizeof e->encoding);
    cb_st_col_str(s, 5, e->source, sizeof e->source);
    cb_st_col_str(s, 6, e->read_method, sizeof e->read_method);
    cb_st_col_str(s, 7, e->why, sizeof e->why);
    e->supported = sqlite3_column_int(s, 8);
}

static void fill_case(sqlite3_stmt *s, void *row)
{
    struct cb_case_info *c = row;
    c->id = sqlite3_column_int64(s, 0);
    cb_st_col_str(s, 1, c->probe, sizeof c->probe);
    cb_st_col_str(s, 2, c->variant, sizeof c->variant);
    cb_st_col_str(s, 3, c->unit, sizeof c->unit);
    cb_st_col_str(s, 4, c->op, sizeof c->op);
    cb_st_col_str(s, 5, c->mode, sizeof c->mode);
    cb_st_col_str(s, 6, c->verdict, sizeof c->verdict);
    cb_st_col_str(s, 7, c->detail, sizeof c->detail);
    c->size = (uint64_t)sqlite3_column_int64(s, 8);
    c->bytes_per_op = (uint64_t)sqlite3_column_int64(s, 9);
    c->nsamples = sqlite3_column_int(s, 10);
    c->contention = sqlite3_column_type(s, 11) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 11);
    c->contended_share = sqlite3_column_type(s, 12) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 12);
}

int cb_store_events(struct cb_store *st, int64_t run_id, struct cb_event_info **out, size_t *n)
{
    return read_run_rows(st, Q_EVENTS, run_id, "reading events", sizeof **out, fill_event,
                         (void **)out, n);
}

int cb_store_cases(struct cb_store *st, int64_t run_id, struct cb_case_info **out, size_t *n)
{
    return read_run_rows(st, Q_CASES, run_id, "reading cases", sizeof **out, fill_case,
                         (void **)out, n);
}

int cb_store_case_values(struct cb_store *st, int64_t case_id, int64_t event_id,
                         double **values, int **scaled, double **smt, size_t *n)
{
    int rc;
    *values = NULL;
    if (scaled)
        *scaled = NULL;
    if (smt)
        *smt = NULL;
    *n = 0;
    sqlite3_stmt *s = cb_st_stmt(st, Q_VALUES, &rc);
    if (!s)
        return cb_st_fail(st, rc, "reading samples");
    sqlite3_bind_int64(s, 1, case_id);
    sqlite3_bind_int64(s, 2, event_id);
    double *v = NULL, *sm = NULL;
    int *sc = NULL;
    size_t cap = 0, capsc = 0, capsm = 0, k = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (grow((void **)&v, &cap, k, sizeof *v) < 0 ||
            (scaled && grow((void **)&sc, &capsc, k, sizeof *sc) < 0) ||
            (smt && grow((void **)&sm, &capsm, k, sizeof *sm) < 0)) {
            sqlite3_reset(s);
            free(v);
            free(sc);
            free(sm);
            return -ENOMEM;
        }
        v[k] = sqlite3_column_double(s, 0);
        if (scaled)
            sc[k] = sqlite3_column_int(s, 1);
        if (smt)
            sm[k] = sqlite3_column_type(s, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 2);
        k++;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        free(v);
        free(sc);
        free(sm);
        return cb_st_fail(st, rc, "reading samples");
    }
    *values = v;
    if (scaled)
        *scaled = sc;
    if (smt)
        *smt = sm;
    *n = k;
    return 0;
}
