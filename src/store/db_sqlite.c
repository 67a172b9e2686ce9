/* db_sqlite.c — db.h over SQLite: each call is the sqlite3 call of the same
 * name, with result codes turned into CB_DB_ROW/CB_DB_DONE or a negative
 * errno and the message kept in the handle.  The file checks that the store
 * makes before opening (header, schema version, quick_check) stay in
 * store.c; this is the statement layer only. */
#include "store/db_internal.h"
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

struct sq_db {
    struct cb_db base;
    sqlite3 *h;
    double busy_since, busy_last;   /* the wait for another writer's lock (on_busy) */
    int gave_up;
};

struct sq_stmt {
    struct cb_db_stmt base;
    sqlite3_stmt *s;
};

static sqlite3 *H(struct cb_db *db) { return ((struct sq_db *)db)->h; }
static sqlite3_stmt *S(struct cb_db_stmt *s) { return ((struct sq_stmt *)s)->s; }

int cb_sqlite_errno(int rc)
{
    switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE: case SQLITE_CONSTRAINT_PRIMARYKEY: return -EEXIST;
    default: break;
    }
    switch (rc & 0xff) {
    case SQLITE_OK: case SQLITE_ROW: case SQLITE_DONE: return 0;
    case SQLITE_BUSY: case SQLITE_LOCKED: return -EBUSY;
    case SQLITE_NOMEM: return -ENOMEM;
    case SQLITE_READONLY: return -EROFS;
    case SQLITE_PERM: case SQLITE_AUTH: case SQLITE_CANTOPEN: return -EACCES;
    case SQLITE_FULL: return -ENOSPC;
    case SQLITE_CONSTRAINT: case SQLITE_MISMATCH: case SQLITE_RANGE: case SQLITE_TOOBIG:
    case SQLITE_ERROR: case SQLITE_CORRUPT: case SQLITE_NOTADB:
        return -EINVAL;
    default: return -EIO;
    }
}

/* rc from a call on db: 0 or the errno, with SQLite's message kept. */
static int result(struct cb_db *db, int rc)
{
    int e = cb_sqlite_errno(rc);
    if (e == -EBUSY && cb_db_stopped())
        cb_db_msg(db, NULL, "interrupted while waiting for another writer's lock");
    else if (e)
        cb_db_msg(db, NULL, "%s", sqlite3_errmsg(H(db)));
    return e;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* SQLite's busy handler: wait for another writer's lock up to CB_DB_BUSY_MS
 * in all, in sleeps of at most 50 ms, and not at all once the stop flag is
 * up (SIGINT ends the wait).  "In all": the store retries a transaction
 * that stayed busy (CB_TX_TRIES), and each retry used to wait the whole
 * timeout again (a stopped lock holder kept `run` 81 s where the docs say
 * 10); a retry that comes right after a wait gave up gives up at once. */
static int on_busy(void *arg, int count)
{
    struct sq_db *d = arg;
    double t = now_s();
    if (count == 0 && !(d->gave_up && t - d->busy_last < 1.0)) {
        d->busy_since = t;
        d->gave_up = 0;
    }
    d->busy_last = t;
    if (d->gave_up || cb_db_stopped() || (t - d->busy_since) * 1000 >= CB_DB_BUSY_MS) {
        d->gave_up = 1;
        return 0;
    }
    long ms = count < 4 ? 1L << count : 50;
    nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
    d->busy_last = now_s();
    return 1;
}

static void sq_close(struct cb_db *db)
{
    sqlite3_close(H(db));
    free(db);
}

static int sq_prepare(struct cb_db *db, const char *sql, struct cb_db_stmt **out)
{
    struct sq_stmt *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    st->base.db = db;
    int rc = sqlite3_prepare_v2(H(db), sql, -1, &st->s, NULL);
    if (rc != SQLITE_OK) {
        free(st);
        return result(db, rc);
    }
    if (!st->s) {   /* only white space or comments */
        free(st);
        cb_db_msg(db, NULL, "empty statement");
        return -EINVAL;
    }
    *out = &st->base;
    return 0;
}

static int sq_bind_int64(struct cb_db_stmt *s, int i, int64_t v)
{
    return result(s->db, sqlite3_bind_int64(S(s), i, v));
}

static int sq_bind_double(struct cb_db_stmt *s, int i, double v)
{
    return result(s->db, sqlite3_bind_double(S(s), i, v));
}

static int sq_bind_text(struct cb_db_stmt *s, int i, const char *v)
{
    return result(s->db, sqlite3_bind_text(S(s), i, v, -1, SQLITE_TRANSIENT));
}

static int sq_bind_null(struct cb_db_stmt *s, int i)
{
    return result(s->db, sqlite3_bind_null(S(s), i));
}

static int sq_clear_bindings(struct cb_db_stmt *s)
{
    return result(s->db, sqlite3_clear_bindings(S(s)));
}

static int sq_step(struct cb_db_stmt *s)
{
    int rc = sqlite3_step(S(s));
    if (rc == SQLITE_ROW)
        return CB_DB_ROW;
    if (rc == SQLITE_DONE)
        return CB_DB_DONE;
    return result(s->db, rc);
}

/* sqlite3_reset repeats the last step's error: that one was reported. */
static int sq_reset(struct cb_db_stmt *s)
{
    sqlite3_reset(S(s));
    return 0;
}

static void sq_finalize(struct cb_db_stmt *s)
{
    sqlite3_finalize(S(s));
    free(s);
}

static int sq_column_count(struct cb_db_stmt *s) { return sqlite3_column_count(S(s)); }

static enum cb_db_type sq_column_type(struct cb_db_stmt *s, int i)
{
    switch (sqlite3_column_type(S(s), i)) {
    case SQLITE_INTEGER: return CB_DB_INTEGER;
    case SQLITE_FLOAT: return CB_DB_FLOAT;
    case SQLITE_NULL: return CB_DB_NULL;
    default: return CB_DB_TEXT;   /* text, and blobs, which the store never writes */
    }
}

static const char *sq_column_name(struct cb_db_stmt *s, int i)
{
    return sqlite3_column_name(S(s), i);
}

static int64_t sq_column_int64(struct cb_db_stmt *s, int i)
{
    return sqlite3_column_int64(S(s), i);
}

static double sq_column_double(struct cb_db_stmt *s, int i)
{
    return sqlite3_column_double(S(s), i);
}

static const char *sq_column_text(struct cb_db_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(S(s), i);
}

static int sq_exec(struct cb_db *db, const char *sql)
{
    return result(db, sqlite3_exec(H(db), sql, NULL, NULL, NULL));
}

static int64_t sq_changes(struct cb_db *db) { return sqlite3_changes(H(db)); }
static int64_t sq_last_insert_id(struct cb_db *db) { return sqlite3_last_insert_rowid(H(db)); }

/* IMMEDIATE takes the write lock up front: a deferred transaction that
 * reads and then writes can fail on the upgrade without the busy handler
 * ever being called. */
static int sq_begin(struct cb_db *db) { return sq_exec(db, "BEGIN IMMEDIATE"); }
static int sq_in_tx(struct cb_db *db) { return !sqlite3_get_autocommit(H(db)); }

static int sq_schema_version(struct cb_db *db)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(H(db), "PRAGMA user_version", -1, &s, NULL);
    if (rc != SQLITE_OK)
        return result(db, rc);
    rc = sqlite3_step(s);
    int v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : result(db, rc);
    sqlite3_finalize(s);
    return v;
}

/* The same steps as store.c's migrate_one: the SQL, then user_version (and
 * application_id with the first), in the caller's transaction. */
static int sq_apply(struct cb_db *db, const struct cb_migration *m)
{
    int cur = sq_schema_version(db);
    if (cur < 0 || cur >= m->version)
        return cur < 0 ? cur : 0;
    int r = sq_exec(db, m->sql);
    char pragma[96];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
    if (r == 0)
        r = sq_exec(db, pragma);
    snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d", CB_DB_APP_ID);
    if (r == 0 && m->version == 1)
        r = sq_exec(db, pragma);
    return r;
}

static const struct cb_db_ops sq_ops = {
    .name = "sqlite", .kind = CB_DB_SQLITE,
    .close = sq_close, .prepare = sq_prepare,
    .bind_int64 = sq_bind_int64, .bind_double = sq_bind_double, .bind_text = sq_bind_text,
    .bind_null = sq_bind_null, .clear_bindings = sq_clear_bindings, .step = sq_step,
    .reset = sq_reset, .finalize = sq_finalize, .column_count = sq_column_count,
    .column_type = sq_column_type, .column_name = sq_column_name,
    .column_int64 = sq_column_int64, .column_double = sq_column_double,
    .column_text = sq_column_text, .exec = sq_exec, .changes = sq_changes,
    .last_insert_id = sq_last_insert_id, .begin = sq_begin, .in_tx = sq_in_tx,
    .schema_version = sq_schema_version, .apply = sq_apply,
};

/* cb_now(): the current time as the store writes it,
 * strftime('%Y-%m-%dT%H:%M:%fZ', 'now'); db/pg/0001_init.sql defines the
 * same function for PostgreSQL, so that SQL in C can use it on both. */
static void fn_now(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    (void)argv;
    struct timespec ts;
    struct tm tm;
    char buf[40];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof buf - n, ".%03ldZ", ts.tv_nsec / 1000000);
    sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

int cb_db_sqlite_open(const char *path, int flags, struct cb_db **out, struct cb_sb *err)
{
    struct sq_db *db = calloc(1, sizeof *db);
    if (!db) {
        cb_db_msg(NULL, err, "out of memory");
        return -ENOMEM;
    }
    db->base.ops = &sq_ops;
    int oflags = SQLITE_OPEN_NOMUTEX |
                 (flags & CB_DB_READONLY ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
                 (flags & CB_DB_CREATE && !(flags & CB_DB_READONLY) ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path, &db->h, oflags, cb_st_vfs());
    if (rc != SQLITE_OK) {
        cb_db_msg(NULL, err, "%s: cannot open: %s", path,
                  db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
        sqlite3_close(db->h);
        free(db);
        return cb_sqlite_errno(rc) ? cb_sqlite_errno(rc) : -EIO;
    }
    sqlite3_extended_result_codes(db->h, 1);
    sqlite3_busy_handler(db->h, on_busy, db);
    sqlite3_create_function(db->h, "cb_now", 0, SQLITE_UTF8, NULL, fn_now, NULL, NULL);
    /* PostgreSQL always enforces foreign keys; SQLite only when asked. */
    sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    *out = &db->base;
    return 0;
}

struct sqlite3 *cb_db_sqlite(struct cb_db *db)
{
    return db->ops->kind == CB_DB_SQLITE ? H(db) : NULL;
}

int cb_db_sqlite_wrap(struct sqlite3 *h, struct cb_db **out)
{
    struct sq_db *db = calloc(1, sizeof *db);
    *out = NULL;
    if (!db)
        return -ENOMEM;
    db->base.ops = &sq_ops;
    db->h = h;
    sqlite3_busy_handler(h, on_busy, db);
    sqlite3_create_function(h, "cb_now", 0, SQLITE_UTF8, NULL, fn_now, NULL, NULL);
    *out = &db->base;
    return 0;
}
