/* query.c — reading runs back for reports (see store.h): which run a spec
 * names, a run's row, its events and cases, and one case's values. */
#include "store/secret.h"
#include "store/store_internal.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- which run ---------------------------------------------------------- */

static void read_id(struct cb_db_stmt *s, void *id)
{
    *(int64_t *)id = cb_db_column_int64(s, 0);
}

static int one_id(struct cb_store *st, const char *sql, const char *text, int64_t *id)
{
    return cb_st_row_once(st, sql, &text, text ? 1 : 0, read_id, id);
}

/* One run spec being resolved; each resolver returns 0 with *run_id set,
 * -ENOENT saying why in err, or the errno of a failed lookup. */
struct resolve_ctx {
    struct cb_store *st;
    const char *spec;
    int include_aborted;
    int64_t *run_id;
    struct cb_sb *err;
};

static int lookup_failed(const struct resolve_ctx *c, int rc)
{
    cb_st_msg(c->err, "cannot look up run %s: %s", c->spec,
              cb_db_errmsg(c->st->db));
    return cb_st_errno_or_eio(rc);
}

static int resolve_latest(const struct resolve_ctx *c)
{
    int64_t id = 0, other = 0;
    int rc = one_id(c->st, c->include_aborted
                               ? "SELECT id FROM runs WHERE status IN ('complete', 'aborted')"
                                 " ORDER BY started DESC, id DESC LIMIT 1"
                               : "SELECT id FROM runs WHERE status = 'complete'"
                                 " ORDER BY started DESC, id DESC LIMIT 1", NULL, &id);
    if (rc == CB_DB_ROW) {
        *c->run_id = id;
        return 0;
    }
    if (rc != CB_DB_DONE)
        return lookup_failed(c, rc);
    one_id(c->st, "SELECT COUNT(*) FROM runs", NULL, &other);
    cb_st_msg(c->err, "latest: no complete run in this database (%lld runs, none "
              "complete; see runs_overview)", (long long)other);
    return -ENOENT;
}

/* An explicit id is an explicit request, so its status does not matter
 * here; the caller can look at it. */
static int resolve_id(const struct resolve_ctx *c)
{
    int64_t id = 0, lo = 0, hi = 0;
    char *end;
    errno = 0;
    long long v = strtoll(c->spec, &end, 10);
    if (errno == 0) {
        /* The number strtoll read, which is what SQLite's CAST of the text
         * gave; PostgreSQL's CAST refuses text that is not all digits. */
        char sql[80];
        snprintf(sql, sizeof sql, "SELECT id FROM runs WHERE id = %lld", v);
        int rc = one_id(c->st, sql, NULL, &id);
        if (rc == CB_DB_ROW && id == v) {
            *c->run_id = id;
            return 0;
        }
        if (rc != CB_DB_DONE && rc != CB_DB_ROW)
            return lookup_failed(c, rc);
    }
    one_id(c->st, "SELECT MIN(id) FROM runs", NULL, &lo);
    one_id(c->st, "SELECT MAX(id) FROM runs", NULL, &hi);
    if (hi)
        cb_st_msg(c->err, "no run %s (run ids here are %lld..%lld)", c->spec,
                  (long long)lo, (long long)hi);
    else
        cb_st_msg(c->err, "no run %s (the database has no runs)", c->spec);
    return -ENOENT;
}

static int resolve_tag(const struct resolve_ctx *c)
{
    int64_t id = 0, other = 0;
    int rc = one_id(c->st, c->include_aborted
                               ? "SELECT id FROM runs WHERE tag = ?1"
                                 " AND status IN ('complete', 'aborted')"
                                 " ORDER BY started DESC, id DESC LIMIT 1"
                               : "SELECT id FROM runs WHERE tag = ?1 AND status = 'complete'"
                                 " ORDER BY started DESC, id DESC LIMIT 1", c->spec, &id);
    if (rc == CB_DB_ROW) {
        *c->run_id = id;
        return 0;
    }
    if (rc != CB_DB_DONE)
        return lookup_failed(c, rc);
    rc = one_id(c->st, "SELECT id FROM runs WHERE tag = ?1 ORDER BY id DESC LIMIT 1", c->spec,
                &other);
    if (rc == CB_DB_ROW)
        cb_st_msg(c->err, "tag %s: no complete run (run %lld has it but is running "
                  "or aborted; give its id to look at it anyway)", c->spec, (long long)other);
    else
        cb_st_msg(c->err, "no run tagged %s (say latest, a run id or a tag; see "
                  "runs_overview)", c->spec);
    return -ENOENT;
}

int cb_store_run_resolve(struct cb_store *st, const char *spec, int64_t *run_id,
                         struct cb_sb *err)
{
    return cb_store_run_resolve_status(st, spec, 0, run_id, err);
}

int cb_store_run_resolve_status(struct cb_store *st, const char *spec, int include_aborted,
                                int64_t *run_id, struct cb_sb *err)
{
    struct resolve_ctx c = {st, spec, include_aborted, run_id, err};
    if (err)
        cb_sb_reset(err);
    if (!st || !spec || !*spec) {
        cb_st_msg(err, "no run given: say latest, a run id or a tag");
        return -EINVAL;
    }
    if (strcmp(spec, "latest") == 0)
        return resolve_latest(&c);
    /* All digits: a run id. */
    if (strspn(spec, "0123456789") == strlen(spec))
        return resolve_id(&c);
    return resolve_tag(&c);
}

/* ---- rows into structs -------------------------------------------------- */

/* Where each column of a query goes in the struct it fills: the i-th entry
 * of a table is the query's i-th column, so a table and its SQL in stmt.c
 * change together.  COL_NDBL: a real that is NAN where the column is NULL
 * (not measured). */
enum col_kind { COL_I64, COL_U64, COL_INT, COL_DBL, COL_NDBL, COL_STR };
struct col {
    enum col_kind kind;
    size_t off, len;
};
#define COL(type, kind, f) {COL_##kind, offsetof(type, f), sizeof(((type *)0)->f)}

static void read_cols(struct cb_db_stmt *s, void *row, const struct col *cols, size_t ncols)
{
    for (size_t i = 0; i < ncols; i++) {
        char *p = (char *)row + cols[i].off;
        int c = (int)i;
        switch (cols[i].kind) {
        case COL_I64: *(int64_t *)p = cb_db_column_int64(s, c); break;
        case COL_U64: *(uint64_t *)p = (uint64_t)cb_db_column_int64(s, c); break;
        case COL_INT: *(int *)p = cb_db_column_int(s, c); break;
        case COL_DBL: *(double *)p = cb_db_column_double(s, c); break;
        case COL_NDBL: *(double *)p = cb_st_col_real_or_nan(s, c); break;
        case COL_STR: cb_st_col_str(s, c, p, cols[i].len); break;
        }
    }
}

/* Q_RUN_GET's columns: the run, its commit, its host, its build, migration
 * 7's clock and meter columns, 8's model, 9's UUID, 17's emulation, 19's source. */
#define R(kind, f) COL(struct cb_run_info, kind, f)
static const struct col run_cols[] = {
    R(I64, id), R(STR, status), R(STR, started), R(STR, finished), R(STR, cmdline),
    R(STR, tag), R(INT, cpu),
    R(STR, commit), R(STR, subject), R(STR, commit_date), R(INT, dirty),
    R(STR, hostname), R(STR, vendor), R(STR, model_name), R(STR, microcode),
    R(STR, kernel), R(INT, family), R(INT, model), R(INT, stepping), R(INT, ncpus),
    R(STR, features), R(DBL, tsc_ghz), R(STR, tsc_source), R(DBL, core_ghz),
    R(DBL, core_ghz_spread), R(STR, core_ghz_source), R(STR, pmu),
    R(STR, version), R(STR, compiler), R(STR, cflags),
    R(STR, clock_backend), R(STR, core_est_method), R(NDBL, core_est_ghz),
    R(NDBL, core_est_spread), R(NDBL, core_est_add_ghz), R(NDBL, core_est_imul_ghz),
    R(STR, meter_kind), R(NDBL, meter_baseline), R(NDBL, meter_spread), R(STR, meter_why),
    R(STR, fingerprint), R(STR, sim_model), R(STR, uuid), R(STR, plugins), R(STR, emulated),
    R(STR, source),
};
#undef R

/* Q_EVENTS' columns. */
#define E(kind, f) COL(struct cb_event_info, kind, f)
static const struct col event_cols[] = {
    E(I64, id), E(STR, name), E(STR, part), E(STR, pfm), E(STR, encoding),
    E(STR, source), E(STR, read_method), E(STR, why), E(INT, supported),
};
#undef E

/* Q_CASES' columns. */
#define C(kind, f) COL(struct cb_case_info, kind, f)
static const struct col case_cols[] = {
    C(I64, id), C(STR, probe), C(STR, variant), C(STR, unit), C(STR, op), C(STR, mode),
    C(STR, verdict), C(STR, detail), C(U64, size), C(U64, bytes_per_op),
    C(INT, nsamples), C(NDBL, contention), C(NDBL, contended_share),
    C(NDBL, clock_ghz), C(NDBL, clock_spread_pct), C(STR, clock_used), C(INT, clock_flagged), C(STR, cpu_pair),
    C(STR, code_hash), C(INT, code_addr),
};
#undef C

#define NCOLS(t) (sizeof t / sizeof t[0])

/* ---- reading ------------------------------------------------------------ */

int cb_store_run_get(struct cb_store *st, int64_t run_id, struct cb_run_info *o)
{
    int rc;
    if (!st || !o)
        return -EINVAL;
    struct cb_db_stmt *s = cb_st_stmt(st, Q_RUN_GET, &rc);
    if (!s)
        return cb_st_fail(st, rc, "reading a run");
    cb_db_bind_int64(s, 1, run_id);
    rc = cb_db_step(s);
    if (rc != CB_DB_ROW) {
        cb_db_reset(s);
        return rc == CB_DB_DONE ? -ENOENT : cb_st_fail(st, rc, "reading a run");
    }
    memset(o, 0, sizeof *o);
    read_cols(s, o, run_cols, NCOLS(run_cols));
    cb_db_reset(s);
    /* A password an older cyclebudget stored with a --db URL is not shown. */
    struct cb_sb clean = CB_SB_INIT;
    if (cb_secret_strip(o->cmdline, &clean, 0))
        cb_sb_copy(&clean, o->cmdline, sizeof o->cmdline);
    cb_sb_release(&clean);
    return cb_store_run_state(st, run_id, &o->hs) == -ENOENT ? -ENOENT : 0;
}

int cb_store_runs_emulated(struct cb_store *st, const int64_t *runs, size_t n, int64_t *which,
                           struct cb_sb *why)
{
    struct cb_run_info *u = malloc(sizeof *u);
    if (!u)
        return -ENOMEM;
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        if ((r = cb_store_run_get(st, runs[i], u)) < 0 || !u->emulated[0])
            continue;
        if (which)
            *which = runs[i];
        cb_sb_setf(why, "%s", u->emulated);
        r = 1;
    }
    free(u);
    return r;
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

/* Every row query q yields for run_id, each read into one element of a
 * malloc'd array by its column table.  The events and cases readers differ
 * only in the table. */
static int read_run_rows(struct cb_store *st, int q, int64_t run_id, const char *what,
                         size_t elem, const struct col *cols, size_t ncols, void **out,
                         size_t *n)
{
    int rc;
    *out = NULL;
    *n = 0;
    struct cb_db_stmt *s = cb_st_stmt(st, q, &rc);
    if (!s)
        return cb_st_fail(st, rc, what);
    cb_db_bind_int64(s, 1, run_id);
    void *a = NULL;
    size_t cap = 0, k = 0;
    while ((rc = cb_db_step(s)) == CB_DB_ROW) {
        if (grow(&a, &cap, k, elem) < 0) {
            cb_db_reset(s);
            free(a);
            return -ENOMEM;
        }
        void *row = (char *)a + k++ * elem;
        memset(row, 0, elem);
        read_cols(s, row, cols, ncols);
    }
    cb_db_reset(s);
    if (rc != CB_DB_DONE) {
        free(a);
        return cb_st_fail(st, rc, what);
    }
    *out = a;
    *n = k;
    return 0;
}

int cb_store_events(struct cb_store *st, int64_t run_id, struct cb_event_info **out, size_t *n)
{
    return read_run_rows(st, Q_EVENTS, run_id, "reading events", sizeof **out, event_cols,
                         NCOLS(event_cols), (void **)out, n);
}

int cb_store_cases(struct cb_store *st, int64_t run_id, struct cb_case_info **out, size_t *n)
{
    return read_run_rows(st, Q_CASES, run_id, "reading cases", sizeof **out, case_cols,
                         NCOLS(case_cols), (void **)out, n);
}

/* The arrays cb_store_case_values fills; scaled and smt only when asked. */
struct values {
    double *v, *sm;
    int *sc;
    size_t cap, capsc, capsm, k;
};

static int add_value(struct values *a, struct cb_db_stmt *s, int scaled, int smt)
{
    if (grow((void **)&a->v, &a->cap, a->k, sizeof *a->v) < 0 ||
        (scaled && grow((void **)&a->sc, &a->capsc, a->k, sizeof *a->sc) < 0) ||
        (smt && grow((void **)&a->sm, &a->capsm, a->k, sizeof *a->sm) < 0))
        return -ENOMEM;
    a->v[a->k] = cb_db_column_double(s, 0);
    if (scaled)
        a->sc[a->k] = cb_db_column_int(s, 1);
    if (smt)
        a->sm[a->k] = cb_st_col_real_or_nan(s, 2);
    a->k++;
    return 0;
}

static void free_values(struct values *a)
{
    free(a->v);
    free(a->sc);
    free(a->sm);
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
    struct cb_db_stmt *s = cb_st_stmt(st, Q_VALUES, &rc);
    if (!s)
        return cb_st_fail(st, rc, "reading samples");
    cb_db_bind_int64(s, 1, case_id);
    cb_db_bind_int64(s, 2, event_id);
    struct values a = {0};
    while ((rc = cb_db_step(s)) == CB_DB_ROW) {
        if (cb_db_column_type(s, 3) == CB_DB_TEXT || cb_db_column_type(s, 4) != CB_DB_INTEGER) {
            cb_db_reset(s);     /* not a number (SQLite takes any type): damage */
            free_values(&a);
            cb_st_msg(&st->why, "case %lld: a sample's value or count is not a number: the store "
                      "is damaged ('cyclebudget check' says where)", (long long)case_id);
            return -EBADMSG;
        }
        if (add_value(&a, s, scaled != NULL, smt != NULL) < 0) {
            cb_db_reset(s);
            free_values(&a);
            return -ENOMEM;
        }
    }
    cb_db_reset(s);
    if (rc != CB_DB_DONE) {
        free_values(&a);
        return cb_st_fail(st, rc, "reading samples");
    }
    *values = a.v;
    if (scaled)
        *scaled = a.sc;
    if (smt)
        *smt = a.sm;
    *n = a.k;
    return 0;
}
