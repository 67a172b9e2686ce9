/* db.h — one statement-level interface over SQLite and PostgreSQL.
 *
 * The store's SQL is written once, with SQLite's `?` and `?NNN`
 * placeholders, and run through this interface on either backend.  It is
 * shaped like the subset of the sqlite3 API the store and its readers use
 * (prepare, bind, step, column, reset, finalize, exec, changes, last insert
 * id, errmsg), so that converting a call site is a change of names, not of
 * logic.  Where the two databases behave differently the difference is
 * decided here once (see HACKING.md, "Two SQL dialects"):
 *
 *  - cb_db_open picks the backend from the target: a path is an SQLite file;
 *    a postgresql:// or postgres:// URL is a PostgreSQL database (libpq).
 *    No target (NULL or ""): the CB_DB environment variable.
 *  - Values are NULL, 64-bit integers, doubles or text on both backends.  A
 *    NULL stays NULL (never 0): PostgreSQL's int2/4/8, oid and bool read as
 *    integers, float4/8 as doubles, numeric as an integer when it is one and
 *    a double otherwise, everything else as text.
 *  - On PostgreSQL a statement runs at its first cb_db_step (PQexecParams),
 *    so an error in its SQL text is reported there, not by cb_db_prepare.
 *  - cb_db_begin opens a write transaction that excludes every other writer
 *    of the same database, as SQLite's BEGIN IMMEDIATE does: on PostgreSQL,
 *    BEGIN and a transaction-level advisory lock.  Read-then-insert
 *    deduplication (hosts, builds, commits) then needs no retry on either.
 *  - cb_db_last_insert_id is the id the last INSERT into a table with an
 *    identity column generated: sqlite3_last_insert_rowid, or PostgreSQL's
 *    lastval() (asked only when called).
 *  - Errors are negative errnos: -EBUSY when another writer held a lock for
 *    longer than the busy timeout (or PostgreSQL gave up on a serialization
 *    failure or deadlock: retry the transaction), -EEXIST a UNIQUE or
 *    PRIMARY KEY violation, -EINVAL another constraint or bad SQL, -EIO the
 *    rest; cb_db_errmsg has the database's own words. */
#ifndef CB_DB_H
#define CB_DB_H

#include "util/strbuf.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct cb_db;
struct cb_db_stmt;
struct cb_migration;

enum cb_db_kind { CB_DB_SQLITE, CB_DB_POSTGRESQL };

/* cb_db_open flags. */
#define CB_DB_READONLY 1   /* SQLite: open read-only (PostgreSQL: a read-only session) */
#define CB_DB_CREATE   2   /* SQLite: create the file when missing */

/* cb_db_step's results; CB_DB_OK is every other call's success (the same
 * value as CB_DB_DONE, so that "rc == CB_DB_DONE ? CB_DB_OK : rc" and the
 * like read as they did with SQLite's codes). */
#define CB_DB_OK   0
#define CB_DB_DONE 0
#define CB_DB_ROW  1

enum cb_db_type { CB_DB_NULL, CB_DB_INTEGER, CB_DB_FLOAT, CB_DB_TEXT };

/* A wait for another writer's lock longer than this fails with -EBUSY. */
#define CB_DB_BUSY_MS 10000

/* The flag a stop signal raises (cmd.h's cb_stop_flag): while it is up,
 * every wait of the store ends at once, an SQLite lock held by another
 * writer (-EBUSY) as a PostgreSQL connect or statement (-EINTR).  NULL: none. */
void cb_db_set_stop_flag(volatile sig_atomic_t *flag);
/* Whether that flag is up: waits end, and busy retries are not tried again. */
int cb_db_stopped(void);

/* 1 when target names a PostgreSQL database (postgresql:// or postgres://). */
int cb_db_is_url(const char *target);
/* 1 when this build has the PostgreSQL backend (libpq). */
int cb_db_have_postgresql(void);

/* Open target (see above).  On failure a negative errno and one line for the
 * user in err: -EPROTONOSUPPORT for a URL in a build without libpq (the line
 * says how to get it: the caller exits 2), -EINVAL no target at all,
 * -ECONNREFUSED/-EACCES/-EIO what the server or file said. */
int cb_db_open(const char *target, int flags, struct cb_db **out, struct cb_sb *err);
void cb_db_close(struct cb_db *db);
enum cb_db_kind cb_db_kind(const struct cb_db *db);
/* The SQLite handle, for the steps that exist on SQLite only (the store's
 * file checks, journal mode, checkpoints, merge's snapshot of a source
 * file); NULL on PostgreSQL. */
struct sqlite3 *cb_db_sqlite(struct cb_db *db);
/* A handle the caller opened itself with sqlite3_open_v2 (the store, which
 * decides the flags, URI and checks before and after), taken over: closed by
 * cb_db_close.  Only cb_now() is added to it; its settings are left alone. */
int cb_db_sqlite_wrap(struct sqlite3 *h, struct cb_db **out);

/* The last error's message (never NULL; "" when none). */
const char *cb_db_errmsg(struct cb_db *db);

/* Statements.  Parameters are 1-based as in SQLite; an unbound one is NULL.
 * Text is copied when bound. */
int cb_db_prepare(struct cb_db *db, const char *sql, struct cb_db_stmt **out);
int cb_db_bind_int64(struct cb_db_stmt *s, int i, int64_t v);
int cb_db_bind_double(struct cb_db_stmt *s, int i, double v);
int cb_db_bind_text(struct cb_db_stmt *s, int i, const char *v);   /* NULL binds NULL */
int cb_db_bind_null(struct cb_db_stmt *s, int i);
int cb_db_clear_bindings(struct cb_db_stmt *s);
/* CB_DB_ROW, CB_DB_DONE, or a negative errno. */
int cb_db_step(struct cb_db_stmt *s);
/* Back to before the first step; the bindings are kept. */
int cb_db_reset(struct cb_db_stmt *s);
void cb_db_finalize(struct cb_db_stmt *s);
int cb_db_column_count(struct cb_db_stmt *s);
enum cb_db_type cb_db_column_type(struct cb_db_stmt *s, int i);
const char *cb_db_column_name(struct cb_db_stmt *s, int i);
/* As sqlite3_column_*: NULL reads as 0, 0.0 and NULL; text converts to a
 * number the way strtoll/strtod read it. */
int64_t cb_db_column_int64(struct cb_db_stmt *s, int i);
double cb_db_column_double(struct cb_db_stmt *s, int i);
const char *cb_db_column_text(struct cb_db_stmt *s, int i);   /* valid until the next step */
static inline int cb_db_column_int(struct cb_db_stmt *s, int i)
{
    return (int)cb_db_column_int64(s, i);
}
/* Bind column j of src's current row to parameter i of dst, as the value it
 * is (NULL, integer, double or text): a generic row copy (merge). */
int cb_db_bind_column(struct cb_db_stmt *dst, int i, struct cb_db_stmt *src, int j);

/* SQL without parameters, possibly several statements (migrations). */
int cb_db_exec(struct cb_db *db, const char *sql);
/* Rows changed by the last INSERT, UPDATE or DELETE. */
int64_t cb_db_changes(struct cb_db *db);
/* See above; 0 when nothing was inserted yet. */
int64_t cb_db_last_insert_id(struct cb_db *db);

/* Transactions (see above for cb_db_begin's lock).  cb_db_in_tx: 1 inside one. */
int cb_db_begin(struct cb_db *db);
int cb_db_commit(struct cb_db *db);
int cb_db_rollback(struct cb_db *db);
int cb_db_in_tx(struct cb_db *db);

/* The schema: the backend's own migrations (db/ for SQLite, db/pg/ for
 * PostgreSQL), each applied in its own transaction under the write lock, so
 * that many processes opening a fresh database at once apply each exactly
 * once.  SQLite keeps the version in PRAGMA user_version, PostgreSQL in the
 * table schema_version.  upto: 0 for the latest.  -EPROTO when the database
 * is newer than this binary. */
int cb_db_migrate(struct cb_db *db, int upto, struct cb_sb *err);
int cb_db_schema_version(struct cb_db *db);
const struct cb_migration *cb_db_migrations(const struct cb_db *db, size_t *n);

/* The PostgreSQL text of sql: every `?` outside string literals, quoted
 * identifiers and comments becomes $N (`?NNN` becomes $NNN, a bare `?` the
 * next number after the largest so far, as SQLite counts).  The number of
 * parameters into *nparams.  Returns the new string (malloc'd), or NULL when
 * out of memory or a number is 0 or above 65535 (*nparams = -1 then).
 * Exposed for the tests. */
char *cb_db_pg_placeholders(const char *sql, int *nparams);

#endif
