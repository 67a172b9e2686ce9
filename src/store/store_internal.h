/* store_internal.h — what the store's pieces share, and nobody else sees.
 *
 * The store is one concept cut into files by what they do with it: store.c
 * opens, migrates and closes, write.c records runs, query.c reads them back,
 * and stmt.c holds the prepared statements and the transaction runner they
 * all go through.  struct cb_store stays opaque outside src/store/: the rest
 * of cyclebudget includes store.h only, so this header is never included from
 * outside this folder. */
#ifndef CB_STORE_INTERNAL_H
#define CB_STORE_INTERNAL_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/db.h"
#include "store/store.h"

/* cb_db_begin already waits CB_DB_BUSY_MS; these retries cover the -EBUSY
 * cases SQLite's busy handler is not called for (WAL recovery, a COMMIT
 * racing a checkpoint) and PostgreSQL's serialization failures. */
#define CB_TX_TRIES 8

/* The statement cache: one prepared statement per query, made on first use
 * (stmt.c has their SQL). */
enum {
    Q_HOST_SEL, Q_HOST_INS, Q_BUILD_SEL, Q_BUILD_INS, Q_COMMIT_SEL, Q_COMMIT_INS,
    Q_RUN_INS,
    Q_RUN_TRUTH, Q_RUN_SIM, Q_RUN_EMUL, Q_RUN_SOURCE, Q_RUN_CODE, Q_RUN_UUID, Q_RUN_STATUS, Q_RUN_FINISH, Q_EVENT_INS, Q_CASE_INS, Q_SAMPLE_INS,
    Q_REAP_SEL, Q_REAP_UPD, Q_RUN_GET, Q_EVENTS, Q_CASES, Q_VALUES,
    Q__N
};

struct cb_store {
    struct cb_db *db;
    struct cb_db_stmt *q[Q__N];
    struct cb_sb why;         /* a transaction body's own reason to fail, or "" */
    /* Tests only (CB_STORE_TEST_KILL_IN_CASE=N): SIGKILL this process in the
     * middle of writing its Nth case, inside the open transaction, to show
     * that a collector dying there loses only that case.  0: never. */
    int kill_in_case, cases_written;
    /* Space held back on the store's filesystem (reserve.c). */
    int reserve_fd, has_reserve;
    /* This open upgraded the file from that schema (0: it did not). */
    int upgraded_from;
};

/* One line for the user into err (may be NULL). */
void cb_st_msg(struct cb_sb *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The store's result codes are db.h's: CB_DB_OK (= CB_DB_DONE), CB_DB_ROW,
 * or a negative errno.  This one as 0 or a negative errno. */
int cb_st_errno_of(int rc);
/* The same for a call that failed: never 0 (-EIO where the database said OK). */
int cb_st_errno_or_eio(int rc);
/* The write/read calls have no err buffer: say what the database said on
 * stderr and return an errno. */
int cb_st_fail(struct cb_store *st, int rc, const char *what);

/* Cached statement i, reset and unbound; NULL with the error in *rc. */
struct cb_db_stmt *cb_st_stmt(struct cb_store *st, int i, int *rc);
/* NULL strings bind as "". */
int cb_st_bind_str(struct cb_db_stmt *s, int i, const char *v);
/* v[0..n) to ?first.. with cb_st_bind_str: CB_DB_OK, or the first
 * failure (the rest left unbound). */
int cb_st_bind_strs(struct cb_db_stmt *s, int first, const char *const *v, int n);
/* NAN means "not measured": store NULL, never a number. */
int cb_st_bind_real_or_null(struct cb_db_stmt *s, int i, double v);
/* Q_CASE_INS's columns that may be NULL (?14..?20): clock, CPU pair, code. */
void cb_st_bind_case_optional(struct cb_db_stmt *s, const struct cb_case_row *c);
double cb_st_col_real_or_nan(struct cb_db_stmt *s, int i);
void cb_st_col_str(struct cb_db_stmt *s, int i, char *buf, size_t len);
/* A query run once, outside the statement cache: sql prepared, the strings
 * text[0..ntext) bound to ?1.., one step; when it yields a row, row(s, ctx)
 * reads it before the statement is finalized.  The result of the
 * prepare or of the step: CB_DB_ROW with a row, CB_DB_DONE without. */
int cb_st_row_once(struct cb_store *st, const char *sql, const char *const *text, int ntext,
                   void (*row)(struct cb_db_stmt *, void *), void *ctx);
/* Step a statement that returns no rows: CB_DB_OK or the error. */
int cb_st_step_done(struct cb_db_stmt *s);
int cb_st_exec(struct cb_store *st, const char *sql);

/* The hosts row of m's host (write.c): with add, found or inserted
 * (CB_DB_OK); without, CB_DB_ROW found or CB_DB_DONE none. */
int cb_st_host_id(struct cb_store *st, const struct cb_run_meta *m, int add, int64_t *id);

/* The runs left 'running' on this host whose collector is gone (another
 * boot, no such process, or its pid reused), up to max ids into dead: how
 * many, or a negative errno (write.c; the reaper marks them aborted). */
int cb_st_dead_runs(struct cb_store *st, int64_t *dead, int max);

/* The last failure of SQLite on st was a full disk: SQLITE_FULL, ENOSPC,
 * or an I/O error with less than 256 KiB free in dir (may be NULL): 1 or 0
 * (integrity.c). */
int cb_st_disk_full(struct cb_store *st, const char *dir);

/* Hold back disk space in dir for ending a run (reserve.c): 0 (also when
 * the filesystem cannot), or -ENOSPC when not even that much is free. */
int cb_st_reserve_take(struct cb_store *st, const char *dir);
/* Give it back: 1 when there was one, else 0. */
int cb_st_reserve_release(struct cb_store *st);

/* Retrying after -EBUSY. */
void cb_st_backoff(int attempt);
int cb_st_is_busy(int rc);
/* fn inside cb_db_begin ... COMMIT, retried when busy; a db.h code. */
int cb_st_in_tx(struct cb_store *st, int (*fn)(struct cb_store *, void *), void *ctx);
/* The same as 0 or a negative errno, for the public calls. */
int cb_st_tx(struct cb_store *st, int (*fn)(struct cb_store *, void *), void *ctx);

/* The name of the VFS every store file is opened through (shmguard.c: a
 * full disk under the -shm is SQLITE_FULL, not SIGBUS), or NULL when it
 * could not be registered (the default VFS then). */
#define CB_ST_VFS "cb-shmguard"
const char *cb_st_vfs(void);

/* Who writes a run (writer.c): the start time of pid in clock ticks after
 * boot (-1 unknown, 0 faked), this boot's id and this host's name. */
long long cb_st_proc_start(pid_t pid);
void cb_st_boot_id(char *buf, size_t len);
void cb_st_hostname(char *buf, size_t len);

/* An SQLite result code as 0 or a negative errno (db_sqlite.c): the one
 * mapping, for the statements db_sqlite.c runs and for what store.c calls
 * directly (open, backup).  A unique or primary key broken is -EEXIST. */
int cb_sqlite_errno(int rc);

#endif
