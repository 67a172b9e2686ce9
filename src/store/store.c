/* store.c — every sample, with where it came from, in SQLite (see store.h).
 *
 * The order of cb_store_open matters more than anything else here: a file we
 * refuse (a newer schema, not a database, someone else's database) must be
 * left byte-for-byte as it was, so everything that can be decided from
 * stat(2) and the 100-byte header is decided before SQLite opens the file,
 * and nothing that writes (journal_mode, migrations, reaping) runs until
 * every check has passed.  Checkpoint-on-close stays disabled until then,
 * because closing the last connection of a WAL database checkpoints the WAL
 * into the main file. */
#include "store/store_open.h"
#include "util/strbuf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

int cb_store_schema_latest(void)
{
    int v = 0;
    for (size_t i = 0; i < cb_nmigrations; i++)
        if (cb_migrations[i].version > v)
            v = cb_migrations[i].version;
    return v;
}

int cb_store_schema_version(struct cb_store *st)
{
    int v = cb_db_schema_version(st->db);
    return v < 0 ? -EIO : v;
}

/* ---- opening ---------------------------------------------------------- */

struct migrate_ctx {
    const struct cb_migration *m;
    int target;
};

static int migrate_one(struct cb_store *st, const struct cb_migration *m)
{
    /* Re-read inside the write lock: another process may have migrated
     * between our check and our BEGIN. */
    int cur = cb_store_schema_version(st);
    if (cur < 0)
        return -EIO;
    if (cur >= m->version)
        return CB_DB_OK;
    int rc = cb_st_exec(st, m->sql);
    if (rc != CB_DB_OK)
        return rc;
    char pragma[96];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
    rc = cb_st_exec(st, pragma);
    if (rc == CB_DB_OK && m->version == 1) {
        snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d", CB_APP_ID);
        rc = cb_st_exec(st, pragma);
    }
    return rc;
}

/* Every migration up to the target, in ONE transaction: one that cannot
 * finish (a full disk) leaves the file at the version it had, never
 * half-way (a fresh store on a nearly full disk was left at
 * user_version 2 of 18, with "database or disk is full" and no remedy). */
static int migrate_all(struct cb_store *st, void *vctx)
{
    struct migrate_ctx *c = vctx;
    for (size_t i = 0; i < cb_nmigrations && cb_migrations[i].version <= c->target; i++) {
        c->m = &cb_migrations[i];
        int rc = migrate_one(st, c->m);
        if (rc != CB_DB_OK)
            return rc;
    }
    return CB_DB_OK;
}

static int migrate(struct cb_store *st, const struct cb_st_open *o)
{
    struct migrate_ctx c = {&cb_migrations[0], o->target};
    int rc = cb_st_in_tx(st, migrate_all, &c);
    if (rc == CB_DB_OK)
        return 0;
    struct cb_sb what = CB_SB_INIT;
    cb_sb_addf(&what, "cannot migrate it to schema %d (at %s); it is left at schema %ld, as it "
               "was", o->target, c.m->name, o->uv);
    int r = cb_st_open_fail(st, o, rc, what.buf);
    cb_sb_release(&what);
    return r;
}

/* Migrations must be 1, 2, 3 ... in order: embed.sh numbers them from the
 * file names, and a gap would leave a database at a version no file made. */
static int migrations_sane(void)
{
    for (size_t i = 0; i < cb_nmigrations; i++)
        if (cb_migrations[i].version != (int)i + 1)
            return 0;
    return cb_nmigrations > 0;
}

/* "file:PATH?immutable=1", PATH %-escaped where URIs need it. */
static int immutable_uri(const char *path, char *uri, size_t len)
{
    size_t o = (size_t)snprintf(uri, len, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (o + 4 >= len)
            return -ENAMETOOLONG;
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
            o += (size_t)snprintf(uri + o, len - o, "%%%02X", *p);
        else
            uri[o++] = (char)*p;
    }
    if (o + 16 >= len)
        return -ENAMETOOLONG;
    snprintf(uri + o, len - o, "?immutable=1");
    return 0;
}

static int set_wal(struct cb_store *st)
{
    int rc = -EBUSY;
    for (int attempt = 0; attempt < CB_TX_TRIES && !(attempt && cb_db_stopped()) && cb_st_is_busy(rc); attempt++) {
        if (attempt)
            cb_st_backoff(attempt);
        rc = cb_st_exec(st, "PRAGMA journal_mode = WAL");
    }
    return rc;
}

/* What the caller asked for, before looking at any file. */
static int check_args(struct cb_st_open *o, int upto_version)
{
    if (!migrations_sane()) {
        cb_st_msg(o->err, "internal error: migrations are not numbered 1..N");
        return -EINVAL;
    }
    if (upto_version < 0 || upto_version > o->latest) {
        cb_st_msg(o->err, "schema version %d asked for, this cyclebudget knows 1..%d",
                  upto_version, o->latest);
        return -EINVAL;
    }
    o->target = upto_version ? upto_version : o->latest;
    if (!o->path || !*o->path) {
        cb_st_msg(o->err, "no database path given (--db)");
        return -EINVAL;
    }
    return 0;
}

static int open_db(struct cb_store *st, struct cb_st_open *o)
{
    int flags = SQLITE_OPEN_NOMUTEX |
                (o->writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
                (o->mode == CB_STORE_WRITE ? SQLITE_OPEN_CREATE : 0);
    /* A WAL database is read through its -shm file, which a reader must be
     * able to create.  Where nobody can have written a -wal and we cannot
     * create the -shm (a read-only directory: an archive, a CD, someone
     * else's home), the file is as it will stay: open it immutable. */
    struct stat wb;
    o->wal_frames = stat(o->wal, &wb) == 0 && wb.st_size > 0;
    char uri[3 * PATH_MAX + 32];
    const char *name = o->path;
    /* A snapshot with no -wal file beside it (no writer has it open: a
     * WAL writer keeps one while it is connected) is read the same way, so
     * that reading leaves no -wal and -shm beside a file merge only reads. */
    int quiet = o->mode == CB_STORE_SNAPSHOT ? stat(o->wal, &wb) != 0
                : !o->wal_frames && stat(o->wal, &wb) != 0 && access(o->dir, W_OK) != 0;
    if (!o->writable && quiet && immutable_uri(o->path, uri, sizeof uri) == 0) {
        name = uri;
        flags |= SQLITE_OPEN_URI;
    }
    sqlite3 *h = NULL;
    int rc = sqlite3_open_v2(name, &h, flags, cb_st_vfs());
    if (rc != SQLITE_OK) {
        cb_st_msg(o->err, "%s: cannot open: %s", o->path,
                  h ? sqlite3_errmsg(h) : sqlite3_errstr(rc));
        sqlite3_close(h);
        return cb_sqlite_errno(rc);
    }
    /* Until every check has passed: closing must not checkpoint (write). */
    sqlite3_db_config(h, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    sqlite3_extended_result_codes(h, 1);
    sqlite3_busy_timeout(h, CB_BUSY_MS);
    int r = cb_db_sqlite_wrap(h, &st->db);
    if (r < 0) {
        sqlite3_close(h);
        cb_st_msg(o->err, "out of memory");
    }
    return r;
}

static void read_identity_row(struct cb_db_stmt *s, void *vctx)
{
    struct cb_st_open *o = vctx;
    o->uv = cb_db_column_int64(s, 0);
    o->app = cb_db_column_int64(s, 1);
    o->nobj = cb_db_column_int64(s, 2);
    o->hasruns = cb_db_column_int64(s, 3);
}

/* The database's own word on its schema version, owner and contents. */
static int read_identity(struct cb_store *st, struct cb_st_open *o)
{
    int rc = cb_st_row_once(st,
        "SELECT (SELECT user_version FROM pragma_user_version),"
        " (SELECT application_id FROM pragma_application_id),"
        " (SELECT COUNT(*) FROM sqlite_schema),"
        " (SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'runs')",
        NULL, 0, read_identity_row, o);
    if (rc == CB_DB_ROW)
        rc = CB_DB_OK;
    if (rc == CB_DB_OK)
        return 0;
    int code = sqlite3_errcode(cb_db_sqlite(st->db)) & 0xff;
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
        cb_st_msg(o->err, "%s: not an SQLite database, or a damaged one (%s)",
                  o->path, cb_db_errmsg(st->db));
        return -EINVAL;
    }
    return cb_st_open_fail(st, o, rc, "cannot read");
}

/* Refuse what is not ours, from a newer cyclebudget, or too old to read. */
static int check_identity(const struct cb_st_open *o)
{
    const char *path = o->path;
    if (o->uv > o->latest)
        return cb_st_newer_msg(path, o->uv, o->latest, o->err);
    if (o->app != 0 && o->app != CB_APP_ID) {
        cb_st_msg(o->err, "%s: an SQLite database of another program, not "
                  "cyclebudget's", path);
        return -EINVAL;
    }
    if (o->uv == 0 && o->nobj > 0) {
        cb_st_msg(o->err, "%s: an SQLite database, but not cyclebudget's (it has "
                  "tables and no schema version); give --db another file", path);
        return -EINVAL;
    }
    if (o->uv > 0 && !o->hasruns) {
        cb_st_msg(o->err, "%s: claims schema %ld but has no runs table: damaged, "
                  "or not cyclebudget's", path, o->uv);
        return -EINVAL;
    }
    if (o->uv < o->target && !o->writable && o->mode != CB_STORE_SNAPSHOT) {
        cb_st_msg(o->err, "%s: schema %ld is older than this cyclebudget's %d and "
                  "the file is read-only: open it once where it is writable to upgrade it",
                  path, o->uv, o->target);
        return -ESTALE;
    }
    return 0;
}

/* CB_STORE_SNAPSHOT: everything the file holds, copied into a private
 * temporary database (SQLite's "" file name: on disk under the temporary
 * directory, deleted when closed), which from here on is the store.  The
 * file itself was opened read-only and is closed again without a write;
 * the migrations that follow change the copy only. */
static int snapshot(struct cb_store *st, const struct cb_st_open *o)
{
    sqlite3 *copy = NULL;
    int rc = sqlite3_open_v2("", &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                             SQLITE_OPEN_NOMUTEX, NULL);
    sqlite3_backup *b = rc == SQLITE_OK ?
        sqlite3_backup_init(copy, "main", cb_db_sqlite(st->db), "main") : NULL;
    if (b) {
        rc = sqlite3_backup_step(b, -1);
        sqlite3_backup_finish(b);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    } else if (rc == SQLITE_OK) {
        rc = sqlite3_errcode(copy);
    }
    if (rc != SQLITE_OK) {
        cb_st_msg(o->err, "%s: cannot copy it to read: %s", o->path,
                  copy ? sqlite3_errmsg(copy) : sqlite3_errstr(rc));
        sqlite3_close(copy);
        return cb_sqlite_errno(rc) ? cb_sqlite_errno(rc) : -EIO;
    }
    sqlite3_extended_result_codes(copy, 1);
    struct cb_db *db;
    int r = cb_db_sqlite_wrap(copy, &db);
    if (r < 0) {
        sqlite3_close(copy);
        cb_st_msg(o->err, "out of memory");
        return r;
    }
    cb_db_close(st->db);
    st->db = db;
    return 0;
}

/* Every check has passed: the journal mode, the pragmas, the migrations. */
static int prepare_writes(struct cb_store *st, const struct cb_st_open *o)
{
    if (o->mode == CB_STORE_WRITE) {
        int rc = set_wal(st);
        if (rc != CB_DB_OK)
            return cb_st_open_fail(st, o, rc, "cannot switch to WAL mode");
        /* NORMAL is durable across application crashes in WAL mode; only
         * a power loss may lose the last transactions. */
        cb_st_exec(st, "PRAGMA synchronous = NORMAL");
    }
    cb_st_exec(st, "PRAGMA foreign_keys = ON");
    if (o->uv < o->target) {
        int r = migrate(st, o);
        if (r == 0 && o->uv > 0 && o->mode != CB_STORE_SNAPSHOT)
            st->upgraded_from = (int)o->uv;
        return r;
    }
    return 0;
}

/* The store is ours now: closing may checkpoint, and a writer reaps the
 * runs whose collectors died. */
static int go_live(struct cb_store *st, const struct cb_st_open *o)
{
    if (cb_db_sqlite(st->db))
        sqlite3_db_config(cb_db_sqlite(st->db), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
    const char *kill_at = getenv("CB_STORE_TEST_KILL_IN_CASE");
    st->kill_in_case = kill_at ? atoi(kill_at) : 0;
    if (o->mode == CB_STORE_WRITE && cb_db_sqlite(st->db) &&
        cb_st_reserve_take(st, o->dir) == -ENOSPC) {
        cb_st_msg(o->err, "%s: disk full (the filesystem of %s has no space left): "
                  "free some space there, or give --db a file on another filesystem, and run "
                  "again", o->path, o->dir);
        return -ENOSPC;
    }
    if (o->mode == CB_STORE_WRITE) {
        int r = cb_store_reap_aborted(st);
        if (r < 0)
            return cb_st_open_fail(st, o, r, "cannot check for abandoned runs");
    }
    return 0;
}

/* CB_STORE_SNAPSHOT of a PostgreSQL database (merge's source): a read-only
 * session inside one REPEATABLE READ transaction, so that every query sees
 * the database as it was at the first, whatever collectors add meanwhile.
 * Nothing is written, so its schema must already be this binary's. */
static int pg_snapshot(struct cb_store *st, const struct cb_st_open *o)
{
    int v = cb_db_schema_version(st->db);
    if (v < 0) {
        cb_st_msg(o->err, "%s: cannot read the schema version: %s", o->path,
                  cb_db_errmsg(st->db));
        return v;
    }
    if (v > o->latest)
        return cb_st_newer_msg(o->path, v, o->latest, o->err);
    if (v < o->latest) {
        cb_st_msg(o->err, "%s: schema %d is older than this cyclebudget's %d, and a "
                  "merge never writes its source: run a command that writes it (e.g. 'cyclebudget "
                  "run --db ...') once to upgrade it", o->path, v, o->latest);
        return -ESTALE;
    }
    int r = cb_db_exec(st->db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (r < 0)
        cb_st_msg(o->err, "%s: cannot begin a snapshot: %s", o->path,
                  cb_db_errmsg(st->db));
    return r;
}

/* A PostgreSQL database: no file to check, so the server's word is taken
 * (db.h's open) and the schema is db/pg/'s. */
static int open_pg(struct cb_st_open *o, int upto_version, struct cb_store **out)
{
    struct cb_db *db = NULL;
    int r = cb_db_open(o->path, o->mode == CB_STORE_SNAPSHOT ? CB_DB_READONLY : 0, &db, o->err);
    if (r < 0)
        return r == -EPROTONOSUPPORT ? -EINVAL : r;
    struct cb_store *st = calloc(1, sizeof *st);
    if (!st) {
        cb_db_close(db);
        cb_st_msg(o->err, "out of memory");
        return -ENOMEM;
    }
    cb_sb_init(&st->why);
    st->db = db;
    if (o->mode != CB_STORE_WRITE && cb_db_schema_version(db) == 0) {
        cb_st_msg(o->err, "%s: no cyclebudget schema there (nothing has been "
                  "recorded there yet; check --db)", o->path);
        r = -ENOENT;
    }
    if (r == 0 && o->mode == CB_STORE_SNAPSHOT)
        r = pg_snapshot(st, o);
    else if (r == 0)
        r = cb_db_migrate(db, upto_version, o->err);
    if (r == 0)
        r = go_live(st, o);
    if (r < 0) {
        cb_store_close(st);
        return r;
    }
    *out = st;
    return 0;
}

int cb_store_open(const char *path, enum cb_store_mode mode, int upto_version,
                  struct cb_store **out, struct cb_sb *err)
{
    struct cb_st_open o = {.path = path, .mode = mode, .latest = cb_store_schema_latest(),
                         .err = err};
    *out = NULL;
    if (err)
        cb_sb_reset(err);
    if (cb_db_is_url(path))
        return open_pg(&o, upto_version, out);
    int r = check_args(&o, upto_version);
    if (r == 0)
        r = cb_st_precheck(&o);
    if (mode == CB_STORE_SNAPSHOT)
        o.writable = 0;
    if (r < 0)
        return r;

    struct cb_store *st = calloc(1, sizeof *st);
    if (!st) {
        cb_st_msg(err, "out of memory");
        return -ENOMEM;
    }
    cb_sb_init(&st->why);
    r = open_db(st, &o);
    if (r == 0)
        r = read_identity(st, &o);
    if (r == 0)
        r = check_identity(&o);
    /* Only where damage may have come in or would travel, or where the
     * first rows already show it (integrity.c). */
    if (r == 0 && o.nobj > 0 && (cb_st_needs_check(st, &o) || cb_st_roots_damaged(st)))
        r = cb_st_quick_check(st, path, 0, err);
    if (r == 0 && mode == CB_STORE_SNAPSHOT)
        r = snapshot(st, &o);
    /* From here on we may write (a snapshot: its copy only). */
    if (r == 0)
        r = prepare_writes(st, &o);
    if (r == 0)
        r = go_live(st, &o);
    if (r == 0) {
        *out = st;
        return 0;
    }
    /* A WAL that had no frames has nothing to write back: let close remove
     * the empty -wal and the -shm that opening made, so a refused file is
     * left as it was found, without litter. */
    if (st->db && !o.wal_frames)
        sqlite3_db_config(cb_db_sqlite(st->db), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
    cb_store_close(st);
    return r;
}

void cb_store_close(struct cb_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < Q__N; i++)
        cb_db_finalize(st->q[i]);
    cb_db_close(st->db);
    cb_st_reserve_release(st);
    cb_sb_release(&st->why);
    free(st);
}

int cb_store_refused(int rc)
{
    switch (-rc) {
    case ENOENT: case ENOTDIR: case EISDIR: case EINVAL: case EPROTO: case ESTALE: case EACCES:
    case EPERM: case EBADMSG: case ENAMETOOLONG: case ELOOP:
        return 1;
    default:
        return 0;
    }
}

int cb_store_upgraded_from(const struct cb_store *st)
{
    return st->upgraded_from;
}

struct cb_db *cb_store_db(struct cb_store *st)
{
    return st->db;
}
