/* db.c — the backend-neutral half of db.h: choosing a backend, the calls
 * that forward to its vtable, the migration driver both backends share, and
 * the placeholder rewriting the PostgreSQL backend needs (here, so that it is
 * tested in builds without libpq too). */
#include "store/db_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A migration that meets another writer's lock is retried this many times
 * (each try already waited the busy timeout). */
#define CB_DB_MIGRATE_TRIES 8

/* PostgreSQL takes at most 65535 parameters (SQLite's default limit is
 * 32766): a larger number is a typo. */
#define CB_DB_MAX_PARAMS 65535

static volatile sig_atomic_t *stop_flag;

void cb_db_set_stop_flag(volatile sig_atomic_t *flag)
{
    stop_flag = flag;
}

int cb_db_stopped(void)
{
    return stop_flag && *stop_flag;
}

void cb_db_msg(struct cb_db *db, struct cb_sb *err, const char *fmt, ...)
{
    struct cb_sb line = CB_SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    cb_sb_vaddf(&line, fmt, ap);
    va_end(ap);
    if (err)
        cb_sb_setf(err, "%s", line.buf);
    if (db)
        cb_sb_copy(&line, db->errmsg, sizeof db->errmsg);
    cb_sb_release(&line);
}

int cb_db_is_url(const char *target)
{
    return target && (strncmp(target, "postgresql://", 13) == 0 ||
                      strncmp(target, "postgres://", 11) == 0);
}

int cb_db_open(const char *target, int flags, struct cb_db **out, struct cb_sb *err)
{
    *out = NULL;
    if (err)
        cb_sb_reset(err);
    if (!target || !*target)
        target = getenv("CB_DB");
    if (!target || !*target) {
        cb_db_msg(NULL, err, "no database given: pass a file path or a postgresql:// URL "
                  "(or set CB_DB)");
        return -EINVAL;
    }
    if (cb_db_is_url(target))
        return cb_db_pg_open(target, flags, out, err);
    return cb_db_sqlite_open(target, flags, out, err);
}

void cb_db_close(struct cb_db *db)
{
    if (db)
        db->ops->close(db);
}

enum cb_db_kind cb_db_kind(const struct cb_db *db) { return db->ops->kind; }
const char *cb_db_errmsg(struct cb_db *db) { return db ? db->errmsg : "no database"; }

int cb_db_prepare(struct cb_db *db, const char *sql, struct cb_db_stmt **out)
{
    *out = NULL;
    return db->ops->prepare(db, sql, out);
}

int cb_db_bind_int64(struct cb_db_stmt *s, int i, int64_t v)
{
    return s->db->ops->bind_int64(s, i, v);
}

int cb_db_bind_double(struct cb_db_stmt *s, int i, double v)
{
    return s->db->ops->bind_double(s, i, v);
}

int cb_db_bind_text(struct cb_db_stmt *s, int i, const char *v)
{
    return v ? s->db->ops->bind_text(s, i, v) : s->db->ops->bind_null(s, i);
}

int cb_db_bind_null(struct cb_db_stmt *s, int i) { return s->db->ops->bind_null(s, i); }
int cb_db_clear_bindings(struct cb_db_stmt *s) { return s->db->ops->clear_bindings(s); }
int cb_db_step(struct cb_db_stmt *s) { return s->db->ops->step(s); }
int cb_db_reset(struct cb_db_stmt *s) { return s->db->ops->reset(s); }

void cb_db_finalize(struct cb_db_stmt *s)
{
    if (s)
        s->db->ops->finalize(s);
}

int cb_db_column_count(struct cb_db_stmt *s) { return s->db->ops->column_count(s); }

enum cb_db_type cb_db_column_type(struct cb_db_stmt *s, int i)
{
    return s->db->ops->column_type(s, i);
}

const char *cb_db_column_name(struct cb_db_stmt *s, int i)
{
    return s->db->ops->column_name(s, i);
}

int64_t cb_db_column_int64(struct cb_db_stmt *s, int i) { return s->db->ops->column_int64(s, i); }
double cb_db_column_double(struct cb_db_stmt *s, int i) { return s->db->ops->column_double(s, i); }

const char *cb_db_column_text(struct cb_db_stmt *s, int i)
{
    return s->db->ops->column_text(s, i);
}

int cb_db_bind_column(struct cb_db_stmt *dst, int i, struct cb_db_stmt *src, int j)
{
    switch (cb_db_column_type(src, j)) {
    case CB_DB_INTEGER: return cb_db_bind_int64(dst, i, cb_db_column_int64(src, j));
    case CB_DB_FLOAT: return cb_db_bind_double(dst, i, cb_db_column_double(src, j));
    case CB_DB_TEXT: return cb_db_bind_text(dst, i, cb_db_column_text(src, j));
    default: return cb_db_bind_null(dst, i);
    }
}

int cb_db_exec(struct cb_db *db, const char *sql) { return db->ops->exec(db, sql); }
int64_t cb_db_changes(struct cb_db *db) { return db->ops->changes(db); }
int64_t cb_db_last_insert_id(struct cb_db *db) { return db->ops->last_insert_id(db); }
int cb_db_begin(struct cb_db *db) { return db->ops->begin(db); }
int cb_db_commit(struct cb_db *db) { return db->ops->exec(db, "COMMIT"); }
int cb_db_in_tx(struct cb_db *db) { return db->ops->in_tx(db); }
int cb_db_schema_version(struct cb_db *db) { return db->ops->schema_version(db); }

/* ROLLBACK would replace the message that says why we roll back. */
int cb_db_rollback(struct cb_db *db)
{
    char keep[sizeof db->errmsg];
    memcpy(keep, db->errmsg, sizeof keep);
    int r = db->ops->exec(db, "ROLLBACK");
    memcpy(db->errmsg, keep, sizeof keep);
    return r;
}

const struct cb_migration *cb_db_migrations(const struct cb_db *db, size_t *n)
{
    if (db->ops->kind == CB_DB_POSTGRESQL) {
        *n = cb_pg_nmigrations;
        return cb_pg_migrations;
    }
    *n = cb_nmigrations;
    return cb_migrations;
}

static void backoff(int attempt)
{
    struct timespec ts = {0, (long)(20 + 30 * attempt) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Migrations [from, to) in ONE write transaction, retried while another
 * process holds the lock; each apply re-reads the version under the lock.
 * One transaction, not one each: a migration that cannot finish (a full
 * disk) must leave the database as it was, not half-way at a version
 * between (user_version 2 of 18 left behind).  *failed: the
 * one that failed. */
static int migrate_all(struct cb_db *db, const struct cb_migration *m, size_t from, size_t to,
                       size_t *failed)
{
    int r = -EBUSY;
    for (int attempt = 0; attempt < CB_DB_MIGRATE_TRIES && r == -EBUSY && !(attempt && cb_db_stopped()); attempt++) {
        if (attempt)
            backoff(attempt);
        r = cb_db_begin(db);
        if (r < 0)
            continue;
        for (size_t i = from; i < to && r == 0; i++) {
            *failed = i;
            r = db->ops->apply(db, &m[i]);
        }
        if (r == 0)
            r = cb_db_commit(db);
        if (r < 0 && cb_db_in_tx(db))
            cb_db_rollback(db);
    }
    return r;
}

int cb_db_migrate(struct cb_db *db, int upto, struct cb_sb *err)
{
    size_t n;
    const struct cb_migration *m = cb_db_migrations(db, &n);
    for (size_t i = 0; i < n; i++)
        if (m[i].version != (int)i + 1) {
            cb_db_msg(db, err, "internal error: %s migrations are not numbered 1..N",
                      db->ops->name);
            return -EINVAL;
        }
    int latest = (int)n;
    if (upto < 0 || upto > latest) {
        cb_db_msg(db, err, "schema version %d asked for, this cyclebudget knows 1..%d",
                  upto, latest);
        return -EINVAL;
    }
    int target = upto ? upto : latest;
    int cur = cb_db_schema_version(db);
    if (cur < 0) {
        cb_db_msg(db, err, "cannot read the schema version: %s", db->errmsg);
        return cur;
    }
    if (cur > latest) {
        cb_db_msg(db, err, "the database was written by a newer cyclebudget (schema %d, "
                  "this one knows %d): upgrade cyclebudget or use another --db", cur, latest);
        return -EPROTO;
    }
    size_t bad = (size_t)cur;
    int r = cur < target ? migrate_all(db, m, (size_t)cur, (size_t)target, &bad) : 0;
    if (r < 0) {
        char why[sizeof db->errmsg];
        snprintf(why, sizeof why, "%s", db->errmsg);
        cb_db_msg(db, err, "cannot apply migration %s (the database is left at schema "
                  "%d, as it was): %s%s", m[bad].name, cur, why[0] ? why : strerror(-r),
                  r == -ENOSPC ? ": disk full: free some space there and run again" : "");
    }
    return r;
}

/* ---- ? to $N ---------------------------------------------------------- */

/* Copy a quoted run starting at p (the opening quote q) into o, up to and
 * including its closing quote; a doubled quote is an escaped one. */
static const char *copy_quoted(const char *p, char **o)
{
    char q = *p;
    *(*o)++ = *p++;
    while (*p) {
        char c = *p++;
        *(*o)++ = c;
        if (c == q) {
            if (*p != q)
                break;
            *(*o)++ = *p++;
        }
    }
    return p;
}

char *cb_db_pg_placeholders(const char *sql, int *nparams)
{
    size_t len = strlen(sql);
    /* A one-character `?` becomes at most "$" and 5 digits. */
    char *out = malloc(len * 6 + 1), *o = out;
    if (!out)
        return NULL;
    long max = 0;
    const char *p = sql;
    while (*p) {
        if (*p == '\'' || *p == '"') {
            p = copy_quoted(p, &o);
        } else if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                *o++ = *p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            size_t k = end ? (size_t)(end + 2 - p) : strlen(p);
            memcpy(o, p, k);
            o += k;
            p += k;
        } else if (*p == '?') {
            long num;
            p++;
            if (*p >= '0' && *p <= '9') {
                char *end;
                num = strtol(p, &end, 10);
                p = end;
            } else {
                num = max + 1;
            }
            if (num < 1 || num > CB_DB_MAX_PARAMS) {
                free(out);
                if (nparams)
                    *nparams = -1;
                return NULL;
            }
            if (num > max)
                max = num;
            o += sprintf(o, "$%ld", num);
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    if (nparams)
        *nparams = (int)max;
    return out;
}
