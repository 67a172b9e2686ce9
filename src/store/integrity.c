/* integrity.c — when a store file is read whole for damage, and how.
 *
 * SQLite notices damage only on the pages a query touches, and a collector
 * appending to a damaged b-tree could spread the damage into the runs it
 * writes; PRAGMA quick_check finds it, but reads every page: 0.49 s on a
 * 42 MB store, growing with every run kept, too much for every open.  So
 * the check runs where damage may have come in or would travel:
 *
 *  - before a writer writes into a store in which a collector ended
 *    uncleanly: a run left 'running' whose process is gone (the reaper's
 *    own test, write.c).  Such a run is the store's unclean-shutdown
 *    marker: every collector ends its run 'complete' or 'aborted' when it
 *    ends cleanly, the reaper clears the marker, and an unclean end is when
 *    a disk, a power cut or a crash mid-write could have left damage;
 *  - before a migration rewrites the schema (once per upgrade);
 *  - on every merge source (its rows are copied whole into another store);
 *  - on `cyclebudget check`, with PRAGMA integrity_check (index contents
 *    too), whenever the user asks.
 *
 * A reader (report, compare, history) never reads the whole file: it writes
 * nothing, so it cannot spread damage, and SQLite refuses the damaged pages
 * it touches.  Every open reads the first row of each table (its root page
 * and the way down to its first leaf, a few pages per table whatever the
 * file's size): damage there, where a small store keeps most of its rows,
 * starts the full check, whose message says the file is damaged and what
 * to do.  A writer's open now costs
 * the same on a 1 MB and on a 1 GB store (bench/store-scale.sh). */
#include "store/store_open.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include <sqlite3.h>

int cb_st_needs_check(struct cb_store *st, const struct cb_st_open *o)
{
    if (o->nobj == 0 || o->mode == CB_STORE_READ)
        return 0;
    if (o->mode == CB_STORE_SNAPSHOT || o->uv < o->target)
        return 1;
    /* The reaper's query needs this binary's schema: it has it here. */
    int64_t dead[1];
    int n = cb_st_dead_runs(st, dead, 1);
    return n != 0;   /* an error reading runs: check, it will say why */
}

/* The first row of every table (each b-tree's root page and the pages down
 * to its first leaf): a read whose cost does not grow with the file, done
 * at every open, so that damage where an open or a small store's every
 * query reads first is said at once and by name.  1 when SQLite finds a
 * page damaged, else 0. */
int cb_st_roots_damaged(struct cb_store *st)
{
    sqlite3 *h = cb_db_sqlite(st->db);
    sqlite3_stmt *tables = NULL;
    if (!h || sqlite3_prepare_v2(h, "SELECT name FROM sqlite_schema WHERE type = 'table'"
                                 " AND name NOT LIKE 'sqlite_%'", -1, &tables, NULL) != SQLITE_OK)
        return 0;
    int damaged = 0, rc;
    while (!damaged && (rc = sqlite3_step(tables)) == SQLITE_ROW) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" LIMIT 1",
                 (const char *)sqlite3_column_text(tables, 0));
        sqlite3_stmt *first = NULL;
        int r = sqlite3_prepare_v2(h, sql, -1, &first, NULL);
        if (r == SQLITE_OK)
            r = sqlite3_step(first);
        sqlite3_finalize(first);
        damaged = (r & 0xff) == SQLITE_CORRUPT || (r & 0xff) == SQLITE_NOTADB;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        damaged |= (rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB;
    sqlite3_finalize(tables);
    return damaged;
}

#define QC_FIRST 200 /* what is kept of quick_check's first line */

static void read_first(struct cb_db_stmt *s, void *first)
{
    cb_st_col_str(s, 0, first, QC_FIRST);
}

/* quick_check: every page read, b-tree structure and free list checked;
 * integrity_check adds the index contents, at several times the cost. */
int cb_st_quick_check(struct cb_store *st, const char *path, int full, struct cb_sb *err)
{
    char first[QC_FIRST] = "";
    int rc = cb_st_row_once(st, full ? "PRAGMA integrity_check(1)" : "PRAGMA quick_check(1)",
                            NULL, 0, read_first, first);
    if (rc == CB_DB_ROW)
        rc = CB_DB_OK;
    if (rc == CB_DB_OK && strcmp(first, "ok") == 0)
        return 0;
    /* SQLite's own code says which failures are damage. */
    int code = rc < 0 ? sqlite3_errcode(cb_db_sqlite(st->db)) & 0xff : SQLITE_OK;
    if (rc != CB_DB_OK && !cb_st_is_busy(rc) && code != SQLITE_CORRUPT &&
        code != SQLITE_NOTADB && code != SQLITE_IOERR) {
        cb_st_msg(err, "%s: cannot check it: %s", path, cb_db_errmsg(st->db));
        return cb_st_errno_or_eio(rc);
    }
    if (cb_st_is_busy(rc)) {
        cb_st_msg(err, "%s: cannot check it: busy for %d s (a stuck writer?)", path,
            CB_BUSY_MS / 1000);
        return -EBUSY;
    }
    /* One line: SQLite's first complaint can span several. */
    if (!first[0])
        snprintf(first, sizeof first, "%s", cb_db_errmsg(st->db));
    first[strcspn(first, "\n")] = '\0';
    cb_st_msg(err, "%s is damaged (%s): restore it from a backup; 'sqlite3 %s .recover' "
        "may save its rows", path, first, path);
    return -EBADMSG;
}

/* Less than CB_DISK_FULL_BYTES free where dir is. */
static int space_low(const char *dir)
{
    struct statvfs vs;
    return dir && statvfs(dir, &vs) == 0 &&
           (unsigned long long)vs.f_bavail * vs.f_frsize < CB_DISK_FULL_BYTES;
}

int cb_st_disk_full(struct cb_store *st, const char *dir)
{
    sqlite3 *h = st && st->db ? cb_db_sqlite(st->db) : NULL;
    if (!h)
        return 0;
    int code = sqlite3_extended_errcode(h) & 0xff;
    if (code == SQLITE_FULL || sqlite3_system_errno(h) == ENOSPC)
        return 1;
    /* Growing the -shm file on a full disk fails as a plain I/O error
     * ("disk I/O error", SQLITE_IOERR_SHMSIZE) without ENOSPC: ask the
     * filesystem what is left. */
    return code == SQLITE_IOERR && space_low(dir);
}

static void read_count(struct cb_db_stmt *s, void *n)
{
    *(long long *)n = cb_db_column_int64(s, 0);
}

/* Every declared foreign key: a run whose host was deleted, a sample of a
 * deleted event (the sqlite3 shell does not enforce them).  -EBADMSG with
 * the first broken row said. */
static int foreign_keys_hold(sqlite3 *h, const char *path, struct cb_sb *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(h, "SELECT \"table\", rowid, parent, "
                           "(SELECT COUNT(*) FROM pragma_foreign_key_check) FROM pragma_foreign_key_check"
                           " LIMIT 1", -1, &q, NULL) != SQLITE_OK) {
        sqlite3_finalize(q);
        return 0;
    }
    int rc = 0;
    if (sqlite3_step(q) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(q, 0);
        char row[96];
        if (sqlite3_column_type(q, 1) != SQLITE_NULL)
            snprintf(row, sizeof row, "%s row %lld", t, (long long)sqlite3_column_int64(q, 1));
        else
            snprintf(row, sizeof row, "a %s row", t);
        cb_st_msg(err, "%s is damaged: %lld rows name a row that is not there (the first: %s "
                  "names a missing row of %s); the reports cannot read such runs: restore it "
                  "from a backup", path, (long long)sqlite3_column_int64(q, 3), row,
                  (const char *)sqlite3_column_text(q, 2));
        rc = -EBADMSG;
    }
    sqlite3_finalize(q);
    return rc;
}

/* The types allowed in a column of declared type decl (SQLite stores any
 * value in any column): "" when any goes. */
static const char *allowed_types(const char *decl)
{
    if (strstr(decl, "INT"))
        return "'integer', 'null'";
    if (strstr(decl, "REAL") || strstr(decl, "DOUB") || strstr(decl, "FLOA"))
        return "'integer', 'real', 'null'";
    if (strstr(decl, "TEXT") || strstr(decl, "CHAR"))
        return "'text', 'null'";
    return "";
}

/* One table's columns against their declared types, in one scan: a text
 * in samples.value gave a negative ns/op.  -EBADMSG with the first. */
static int table_types_hold(sqlite3 *h, const char *path, const char *table, struct cb_sb *err)
{
    struct cb_sb sql = CB_SB_INIT, cols = CB_SB_INIT;
    sqlite3_stmt *q = NULL;
    cb_sb_addf(&sql, "SELECT name, type FROM pragma_table_info('%s')", table);
    if (sqlite3_prepare_v2(h, sql.buf, -1, &q, NULL) == SQLITE_OK)
        while (sqlite3_step(q) == SQLITE_ROW) {
            const char *ok = allowed_types((const char *)sqlite3_column_text(q, 1));
            if (*ok)
                cb_sb_addf(&cols, "%s WHEN typeof(\"%s\") NOT IN (%s) THEN '%s'",
                           cols.len ? "" : "CASE", (const char *)sqlite3_column_text(q, 0), ok,
                           (const char *)sqlite3_column_text(q, 0));
        }
    sqlite3_finalize(q);
    int rc = 0;
    if (cols.len) {
        cb_sb_reset(&sql);
        /* A WITHOUT ROWID table (samples) has no rowid to name. */
        for (int with_rowid = 1; with_rowid >= 0 && !rc; with_rowid--) {
            cb_sb_reset(&sql);
            cb_sb_addf(&sql, "SELECT * FROM (SELECT %s, %s END AS bad FROM \"%s\") WHERE bad IS NOT "
                       "NULL LIMIT 1", with_rowid ? "rowid" : "NULL", cols.buf, table);
            q = NULL;
            int p = sqlite3_prepare_v2(h, sql.buf, -1, &q, NULL);
            if (p == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
                char row[96];
                if (sqlite3_column_type(q, 0) != SQLITE_NULL)
                    snprintf(row, sizeof row, "%s row %lld", table, (long long)sqlite3_column_int64(q, 0));
                else
                    snprintf(row, sizeof row, "a %s row", table);
                cb_st_msg(err, "%s is damaged: %s holds a value of the wrong type in %s (the "
                          "reports would make a figure of it): restore it from a backup", path, row,
                          (const char *)sqlite3_column_text(q, 1));
                rc = -EBADMSG;
            }
            sqlite3_finalize(q);
            if (p == SQLITE_OK)
                break;
        }
        q = NULL;
        sqlite3_finalize(q);
    }
    cb_sb_release(&sql);
    cb_sb_release(&cols);
    return rc;
}

static int types_hold(sqlite3 *h, const char *path, struct cb_sb *err)
{
    sqlite3_stmt *t = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(h, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE"
                           " 'sqlite_%'", -1, &t, NULL) == SQLITE_OK)
        while (rc == 0 && sqlite3_step(t) == SQLITE_ROW)
            rc = table_types_hold(h, path, (const char *)sqlite3_column_text(t, 0), err);
    sqlite3_finalize(t);
    return rc;
}

int cb_store_integrity(struct cb_store *st, const char *path, long long *pages, struct cb_sb *err)
{
    *pages = 0;
    if (!cb_db_sqlite(st->db)) {
        cb_st_msg(err, "%s: a PostgreSQL database: the server checks its own pages "
                  "(see pg_amcheck); nothing to check here", path);
        return -EOPNOTSUPP;
    }
    cb_st_row_once(st, "PRAGMA page_count", NULL, 0, read_count, pages);
    int rc = cb_st_quick_check(st, path, 1, err);
    if (rc == 0)
        rc = foreign_keys_hold(cb_db_sqlite(st->db), path, err);
    if (rc == 0)
        rc = types_hold(cb_db_sqlite(st->db), path, err);
    return rc;
}

int cb_st_open_fail(struct cb_store *st, const struct cb_st_open *o, int rc, const char *what)
{
    /* rc too: after a rollback SQLite's own code says only that it went well. */
    if (rc == -ENOSPC || cb_st_disk_full(st, o->dir) || (rc == -EIO && space_low(o->dir))) {
        cb_st_msg(o->err, "%s: %s: disk full (the filesystem of %s has no space left): "
                  "free some space there, or give --db a file on another filesystem, and run "
                  "again", o->path, what, o->dir);
        return -ENOSPC;
    }
    cb_st_msg(o->err, "%s: %s: %s", o->path, what, cb_db_errmsg(st->db));
    return cb_st_errno_or_eio(rc);
}

const char *cb_store_strerror(int rc)
{
    if (rc == -EBADMSG)
        return "the store is damaged (a row naming one that is not there, or a value that is not a "
               "number): 'cyclebudget check' says where";
    return strerror(-rc);
}
