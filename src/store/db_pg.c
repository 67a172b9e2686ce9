/* db_pg.c — db.h over PostgreSQL (libpq).
 *
 * A statement keeps its SQL with `?` rewritten to $N and its bound values as
 * text; the first cb_db_step runs it with PQexecParams and later steps walk
 * the rows of the one PGresult (a store query returns at most a run's
 * samples, which fit in memory).  Parameters are typed by how they were
 * bound, int8, float8 or text, so that PostgreSQL resolves `? + 1` or
 * `SELECT ?` as SQLite would; a double is sent with 17 significant digits
 * and read back with extra_float_digits = 3, so it round-trips exactly.
 *
 * Without libpq (configure --without-postgresql, or libpq-dev missing) only
 * cb_db_pg_open is built, and it says how to get PostgreSQL support. */
#include "config.h"
#include "store/db_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAVE_LIBPQ

int cb_db_have_postgresql(void) { return 0; }

int cb_db_pg_open(const char *url, int flags, struct cb_db **out, struct cb_sb *err)
{
    (void)url;
    (void)flags;
    *out = NULL;
    cb_db_msg(NULL, err, "this cyclebudget was built without PostgreSQL support "
              "(libpq): apt-get install libpq-dev, then ./configure && make");
    return -EPROTONOSUPPORT;
}

#else

#include <math.h>
#include <inttypes.h>

#include <libpq-fe.h>

#include "store/db_pg_wait.h"
#include "store/secret.h"

/* The type OIDs of pg_type.h that the store meets; libpq has no header with
 * them for clients. */
#define OID_BOOL 16
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_OID 26
#define OID_FLOAT4 700
#define OID_FLOAT8 701
#define OID_NUMERIC 1700
#define OID_TEXT 25

struct pg_db {
    struct cb_db base;
    PGconn *c;
    int64_t changes;
    int lost;             /* a wait that ended (-EINTR, -ETIMEDOUT): unusable */
    char lost_why[256];   /* and why, said again by every later statement */
};

struct pg_stmt {
    struct cb_db_stmt base;
    char *sql;            /* with $N */
    int nparams;
    char **vals;          /* [nparams], NULL: SQL NULL */
    Oid *types;
    PGresult *res;        /* of the first step, until reset */
    int row, nrows;
};

static PGconn *C(struct cb_db *db) { return ((struct pg_db *)db)->c; }
static struct pg_stmt *P(struct cb_db_stmt *s) { return (struct pg_stmt *)s; }

int cb_db_have_postgresql(void) { return 1; }

/* libpq's messages end in a newline, and may have several lines. */
static void keep_msg(struct cb_db *db, const char *m)
{
    cb_db_msg(db, NULL, "%s", m && *m ? m : "unknown PostgreSQL error");
    char *e = db->errmsg;
    size_t n = strlen(e);
    while (n && (e[n - 1] == '\n' || e[n - 1] == ' '))
        e[--n] = '\0';
    for (char *p = e; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

/* Every statement goes through here: bounded and interruptible waits
 * (db_pg_wait.h); after one that ended, nothing more is sent. */
static PGresult *xq(struct cb_db *db, const char *sql, int params, int n, const Oid *types,
                    const char *const *vals)
{
    struct pg_db *p = (struct pg_db *)db;
    if (p->lost) {
        keep_msg(db, p->lost_why);
        return NULL;
    }
    struct cb_sb why = CB_SB_INIT;
    PGresult *r = cb_pg_exec(p->c, sql, params, n, types, vals, &p->lost, &why);
    if (!r && p->lost) {
        keep_msg(db, why.buf);
        cb_sb_copy(&why, p->lost_why, sizeof p->lost_why);
    }
    cb_sb_release(&why);
    return r;
}

/* SQLSTATE to errno (see db.h). */
static int errno_of_state(const char *st)
{
    if (!st)
        return -EIO;   /* no SQLSTATE: the connection itself failed */
    if (!strcmp(st, "40001") || !strcmp(st, "40P01") || !strcmp(st, "55P03"))
        return -EBUSY;
    if (!strcmp(st, "23505"))
        return -EEXIST;
    if (!strncmp(st, "23", 2) || !strncmp(st, "42", 2) || !strncmp(st, "22", 2) ||
        !strcmp(st, "P0001"))   /* RAISE EXCEPTION: the store's triggers */
        return -EINVAL;
    if (!strcmp(st, "25006"))
        return -EROFS;
    if (!strncmp(st, "28", 2))
        return -EACCES;
    if (!strncmp(st, "53", 2))
        return -ENOSPC;
    return -EIO;
}

/* A finished PGresult as 0 or a negative errno; frees it unless kept. */
static int check(struct cb_db *db, PGresult *r, int keep)
{
    if (!r && ((struct pg_db *)db)->lost)
        return ((struct pg_db *)db)->lost;     /* said by xq */
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) {
        const char *cmd = PQcmdStatus(r);
        if (!strncmp(cmd, "INSERT", 6) || !strncmp(cmd, "UPDATE", 6) ||
            !strncmp(cmd, "DELETE", 6) || !strncmp(cmd, "MERGE", 5))
            ((struct pg_db *)db)->changes = strtoll(PQcmdTuples(r), NULL, 10);
        if (!keep)
            PQclear(r);
        return 0;
    }
    /* The primary message is one line; the full one adds ERROR:, CONTEXT
     * and the PL/pgSQL line that raised it. */
    const char *m = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    keep_msg(db, m ? m : r ? PQresultErrorMessage(r) : PQerrorMessage(C(db)));
    int e = errno_of_state(r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL);
    PQclear(r);
    return e;
}

static void pg_close(struct cb_db *db)
{
    PQfinish(C(db));
    free(db);
}

static int pg_exec(struct cb_db *db, const char *sql)
{
    return check(db, xq(db, sql, 0, 0, NULL, NULL), 0);
}

static int pg_prepare(struct cb_db *db, const char *sql, struct cb_db_stmt **out)
{
    struct pg_stmt *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->base.db = db;
    s->sql = cb_db_pg_placeholders(sql, &s->nparams);
    if (!s->sql) {
        int bad = s->nparams < 0;
        free(s);
        cb_db_msg(db, NULL, bad ? "a parameter number is 0 or above 65535"
                                   : "out of memory");
        return bad ? -EINVAL : -ENOMEM;
    }
    if (s->nparams) {
        s->vals = calloc((size_t)s->nparams, sizeof *s->vals);
        s->types = calloc((size_t)s->nparams, sizeof *s->types);
        if (!s->vals || !s->types) {
            free(s->vals);
            free(s->types);
            free(s->sql);
            free(s);
            return -ENOMEM;
        }
    }
    *out = &s->base;
    return 0;
}

/* Bind text v (copied; NULL: SQL NULL) of type t to ?i. */
static int bind(struct cb_db_stmt *st, int i, const char *v, Oid t)
{
    struct pg_stmt *s = P(st);
    if (i < 1 || i > s->nparams) {
        cb_db_msg(st->db, NULL, "parameter %d out of range (the statement has %d)", i,
                  s->nparams);
        return -EINVAL;
    }
    char *copy = NULL;
    if (v && !(copy = strdup(v)))
        return -ENOMEM;
    free(s->vals[i - 1]);
    s->vals[i - 1] = copy;
    s->types[i - 1] = t;
    return 0;
}

static int pg_bind_int64(struct cb_db_stmt *s, int i, int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return bind(s, i, buf, OID_INT8);
}

/* %.17g round-trips every double.  SQLite stores a NaN as NULL, and so do we. */
static int pg_bind_double(struct cb_db_stmt *s, int i, double v)
{
    char buf[32];
    if (isnan(v))
        return bind(s, i, NULL, 0);
    if (isinf(v))
        snprintf(buf, sizeof buf, "%sInfinity", v < 0 ? "-" : "");
    else
        snprintf(buf, sizeof buf, "%.17g", v);
    return bind(s, i, buf, OID_FLOAT8);
}

static int pg_bind_text(struct cb_db_stmt *s, int i, const char *v)
{
    return bind(s, i, v, OID_TEXT);
}

/* Untyped: PostgreSQL takes the type from where the NULL goes. */
static int pg_bind_null(struct cb_db_stmt *s, int i)
{
    return bind(s, i, NULL, 0);
}

static int pg_clear_bindings(struct cb_db_stmt *st)
{
    struct pg_stmt *s = P(st);
    for (int i = 0; i < s->nparams; i++) {
        free(s->vals[i]);
        s->vals[i] = NULL;
        s->types[i] = 0;
    }
    return 0;
}

static int pg_step(struct cb_db_stmt *st)
{
    struct pg_stmt *s = P(st);
    if (!s->res) {
        PGresult *r = xq(st->db, s->sql, 1, s->nparams, s->types, (const char *const *)s->vals);
        int e = check(st->db, r, 1);
        if (e)
            return e;
        s->res = r;
        s->row = -1;
        s->nrows = PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) : 0;
    }
    if (s->row < s->nrows)
        s->row++;
    return s->row < s->nrows ? CB_DB_ROW : CB_DB_DONE;
}

static int pg_reset(struct cb_db_stmt *st)
{
    struct pg_stmt *s = P(st);
    PQclear(s->res);
    s->res = NULL;
    s->row = s->nrows = 0;
    return 0;
}

static void pg_finalize(struct cb_db_stmt *st)
{
    struct pg_stmt *s = P(st);
    pg_reset(st);
    pg_clear_bindings(st);
    free(s->vals);
    free(s->types);
    free(s->sql);
    free(s);
}

static int pg_column_count(struct cb_db_stmt *st)
{
    return P(st)->res ? PQnfields(P(st)->res) : 0;
}

/* The cell's text, or NULL for SQL NULL or no such cell. */
static const char *cell(struct pg_stmt *s, int i)
{
    if (!s->res || s->row < 0 || s->row >= s->nrows || i < 0 || i >= PQnfields(s->res) ||
        PQgetisnull(s->res, s->row, i))
        return NULL;
    return PQgetvalue(s->res, s->row, i);
}

static enum cb_db_type pg_column_type(struct cb_db_stmt *st, int i)
{
    struct pg_stmt *s = P(st);
    const char *v = cell(s, i);
    if (!v)
        return CB_DB_NULL;
    switch (PQftype(s->res, i)) {
    case OID_BOOL: case OID_INT2: case OID_INT4: case OID_INT8: case OID_OID:
        return CB_DB_INTEGER;
    case OID_FLOAT4: case OID_FLOAT8:
        return CB_DB_FLOAT;
    case OID_NUMERIC:   /* SUM() of integers is numeric: an integer when it has no point */
        return strpbrk(v, ".eEN") ? CB_DB_FLOAT : CB_DB_INTEGER;
    default:
        return CB_DB_TEXT;
    }
}

static const char *pg_column_name(struct cb_db_stmt *st, int i)
{
    struct pg_stmt *s = P(st);
    return s->res && i >= 0 && i < PQnfields(s->res) ? PQfname(s->res, i) : NULL;
}

/* A bool reads as 1 or 0, as SQLite's comparisons return. */
static const char *pg_column_text(struct cb_db_stmt *st, int i)
{
    struct pg_stmt *s = P(st);
    const char *v = cell(s, i);
    if (v && PQftype(s->res, i) == OID_BOOL)
        return *v == 't' ? "1" : "0";
    return v;
}

static int64_t pg_column_int64(struct cb_db_stmt *st, int i)
{
    const char *v = pg_column_text(st, i);
    if (!v)
        return 0;
    if (pg_column_type(st, i) == CB_DB_FLOAT) {
        double d = strtod(v, NULL);
        return isnan(d) ? 0 : d >= 9.2233720368547758e18 ? INT64_MAX
             : d <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)d;
    }
    return strtoll(v, NULL, 10);
}

static double pg_column_double(struct cb_db_stmt *st, int i)
{
    const char *v = pg_column_text(st, i);
    return v ? strtod(v, NULL) : 0.0;
}

static int64_t pg_changes(struct cb_db *db) { return ((struct pg_db *)db)->changes; }

static int pg_in_tx(struct cb_db *db)
{
    return PQtransactionStatus(C(db)) != PQTRANS_IDLE;
}

/* lastval() fails when no sequence was used in this session; inside a
 * transaction that failure would abort it, so it is asked under a
 * savepoint there.  Every store table with an id has an identity column
 * and no trigger inserts elsewhere, so the last sequence used is the last
 * INSERT's id. */
static int64_t pg_last_insert_id(struct cb_db *db)
{
    int tx = pg_in_tx(db);
    int64_t id = 0;
    char keep[sizeof db->errmsg];
    memcpy(keep, db->errmsg, sizeof keep);
    if (tx && pg_exec(db, "SAVEPOINT cb_lastval") < 0)
        return 0;
    PGresult *r = xq(db, "SELECT lastval()", 0, 0, NULL, NULL);
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (ok)
        id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    if (tx) {
        if (!ok)
            pg_exec(db, "ROLLBACK TO SAVEPOINT cb_lastval");
        pg_exec(db, "RELEASE SAVEPOINT cb_lastval");
    }
    memcpy(db->errmsg, keep, sizeof keep);
    return id;
}

/* BEGIN, then the lock that makes this the only writer, as SQLite's BEGIN
 * IMMEDIATE is: waits up to lock_timeout, then -EBUSY with nothing open. */
static int pg_begin(struct cb_db *db)
{
    char sql[96];
    /* PostgreSQL only warns about a BEGIN inside a transaction; SQLite
     * refuses it, and so do we, so that the mistake shows on both. */
    if (pg_in_tx(db)) {
        cb_db_msg(db, NULL, "cannot start a transaction within a transaction");
        return -EINVAL;
    }
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock(%d)", CB_DB_APP_ID);
    int r = pg_exec(db, sql);
    if (r < 0 && pg_in_tx(db))
        cb_db_rollback(db);
    return r;
}

static int pg_schema_version(struct cb_db *db)
{
    PGresult *r = xq(db, "SELECT to_regclass('schema_version') IS NOT NULL", 0, 0, NULL, NULL);
    int e = check(db, r, 1);
    if (e)
        return e;
    int have = PQntuples(r) == 1 && *PQgetvalue(r, 0, 0) == 't';
    PQclear(r);
    if (!have)
        return 0;
    r = xq(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version", 0, 0, NULL, NULL);
    if ((e = check(db, r, 1)))
        return e;
    int v = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return v;
}

/* Under the lock pg_begin took: the bookkeeping table (created here, not
 * before, so that two first openers never race on CREATE TABLE), a fresh
 * look at the version, the SQL, and its row. */
static int pg_apply(struct cb_db *db, const struct cb_migration *m)
{
    int r = pg_exec(db, "CREATE TABLE IF NOT EXISTS schema_version ("
                        " version integer PRIMARY KEY,"
                        " name text NOT NULL,"
                        " applied timestamptz NOT NULL DEFAULT now())");
    if (r < 0)
        return r;
    int cur = pg_schema_version(db);
    if (cur < 0 || cur >= m->version)
        return cur < 0 ? cur : 0;
    if ((r = pg_exec(db, m->sql)) < 0)
        return r;
    char v[16];
    snprintf(v, sizeof v, "%d", m->version);
    const char *vals[2] = {v, m->name};
    return check(db, xq(db, "INSERT INTO schema_version (version, name)"
                           " VALUES ($1::integer, $2::text)", 1, 2, NULL, vals), 0);
}

static const struct cb_db_ops pg_ops = {
    .name = "postgresql", .kind = CB_DB_POSTGRESQL,
    .close = pg_close, .prepare = pg_prepare,
    .bind_int64 = pg_bind_int64, .bind_double = pg_bind_double, .bind_text = pg_bind_text,
    .bind_null = pg_bind_null, .clear_bindings = pg_clear_bindings, .step = pg_step,
    .reset = pg_reset, .finalize = pg_finalize, .column_count = pg_column_count,
    .column_type = pg_column_type, .column_name = pg_column_name,
    .column_int64 = pg_column_int64, .column_double = pg_column_double,
    .column_text = pg_column_text, .exec = pg_exec, .changes = pg_changes,
    .last_insert_id = pg_last_insert_id, .begin = pg_begin, .in_tx = pg_in_tx,
    .schema_version = pg_schema_version, .apply = pg_apply,
};

/* The URL for messages: a password in it is not printed. */
static void redact(const char *url, char *out, size_t len)
{
    const char *rest = strstr(url, "://");
    const char *at = rest ? strchr(rest + 3, '@') : NULL;
    const char *colon = rest ? strchr(rest + 3, ':') : NULL;
    const char *slash = rest ? strchr(rest + 3, '/') : NULL;
    if (at && colon && colon < at && (!slash || at < slash))
        snprintf(out, len, "%.*s:***%s", (int)(colon - url), url, at);
    else
        snprintf(out, len, "%s", url);
}

int cb_db_pg_open(const char *url, int flags, struct cb_db **out, struct cb_sb *err)
{
    char shown[256];
    redact(url, shown, sizeof shown);
    struct pg_db *db = calloc(1, sizeof *db);
    if (!db) {
        cb_db_msg(NULL, err, "out of memory");
        return -ENOMEM;
    }
    db->base.ops = &pg_ops;
    struct cb_sb why = CB_SB_INIT;
    int e = 0;
    db->c = cb_pg_connect(url, cb_secret_for(url), &e, &why);
    if (!db->c) {
        cb_db_msg(NULL, err, "%s: cannot connect: %s", shown, why.buf);
        cb_sb_release(&why);
        free(db);
        return e;
    }
    cb_sb_release(&why);
    /* UTC, as SQLite's date functions; every double in full; no NOTICEs
     * on stderr ("relation already exists, skipping"). */
    char sql[256];
    snprintf(sql, sizeof sql, "SET TimeZone = 'UTC'; SET extra_float_digits = 3;"
             " SET client_min_messages = warning; SET client_encoding = 'UTF8';"
             " SET lock_timeout = %d%s", CB_DB_BUSY_MS,
             flags & CB_DB_READONLY ? "; SET default_transaction_read_only = on" : "");
    int r = pg_exec(&db->base, sql);
    if (r < 0) {
        cb_db_msg(NULL, err, "%s: cannot set up the session: %s", shown,
                  db->base.errmsg);
        pg_close(&db->base);
        return r;
    }
    *out = &db->base;
    return 0;
}

#endif
