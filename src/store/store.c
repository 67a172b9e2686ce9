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
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

/* PRAGMA application_id: 'CyBu'.  Lets us tell our database from another
 * program's SQLite file before touching it. */
#define CB_APP_ID 0x43794275

/* A writer waits this long for another writer's transaction; the collectors
 * write one case at a time, so a wait longer than this means a stuck writer. */
#define CB_BUSY_MS 10000
/* BEGIN IMMEDIATE already waits CB_BUSY_MS; these retries cover the
 * SQLITE_BUSY cases the busy handler is not called for (WAL recovery, a
 * COMMIT racing a checkpoint). */
#define CB_TX_TRIES 8

enum {
    Q_HOST_SEL, Q_HOST_INS, Q_BUILD_SEL, Q_BUILD_INS, Q_COMMIT_SEL, Q_COMMIT_INS,
    Q_RUN_INS,
    Q_RUN_TRUTH, Q_RUN_STATUS, Q_RUN_FINISH, Q_EVENT_INS, Q_CASE_INS, Q_SAMPLE_INS,
    Q_REAP_SEL, Q_REAP_UPD, Q_RUN_GET, Q_EVENTS, Q_CASES, Q_VALUES,
    Q__N
};

static const char *const q_sql[Q__N] = {
    [Q_HOST_SEL] =
        "SELECT id FROM hosts WHERE hostname=?1 AND vendor=?2 AND family=?3 AND model=?4"
        " AND stepping=?5 AND model_name=?6 AND microcode=?7 AND features=?8 AND ncpus=?10"
        " AND llc_bytes=?11 AND kernel=?12 AND tsc_ghz=?13 AND tsc_source=?14 AND pmu=?15",
    [Q_HOST_INS] =
        "INSERT INTO hosts (hostname, vendor, family, model, stepping, model_name, microcode,"
        " features, feature_mask, ncpus, llc_bytes, kernel, tsc_ghz, tsc_source, pmu)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
    [Q_BUILD_SEL] = "SELECT id FROM builds WHERE version=?1 AND compiler=?2 AND cflags=?3",
    [Q_BUILD_INS] = "INSERT INTO builds (version, compiler, cflags) VALUES (?1,?2,?3)",
    [Q_COMMIT_SEL] = "SELECT id FROM commits WHERE hash=?1 AND dirty=?4",
    [Q_COMMIT_INS] =
        "INSERT INTO commits (hash, subject, author_date, dirty) VALUES (?1,?2,?3,?4)",
    [Q_RUN_INS] =
        "INSERT INTO runs (host_id, build_id, commit_id, cmdline, tag, cpu, tsc_ghz,"
        " core_ghz, core_ghz_spread, core_ghz_source, pid, pid_start, boot_id)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
    /* Migration 7's columns, in their own statement so that a store held
     * at an older schema (tests) can still begin a run. */
    [Q_RUN_TRUTH] =
        "UPDATE runs SET clock_backend=?2, core_est_method=?3, core_est_ghz=?4,"
        " core_est_spread=?5, core_est_add_ghz=?6, core_est_imul_ghz=?7, meter_kind=?8,"
        " meter_baseline=?9, meter_spread=?10, meter_why=?11, fingerprint=?12 WHERE id=?1",
    [Q_RUN_STATUS] = "SELECT status FROM runs WHERE id=?1",
    [Q_RUN_FINISH] =
        "UPDATE runs SET status=?2, finished=strftime('%Y-%m-%dT%H:%M:%fZ','now')"
        " WHERE id=?1 AND status='running'",
    [Q_EVENT_INS] =
        "INSERT INTO events (run_id, name, part, pfm, encoding, source, read_method,"
        " supported, why) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    [Q_CASE_INS] =
        "INSERT INTO cases (run_id, probe, variant, size, unit, op, mode, bytes_per_op,"
        " verdict, detail, contention, contended_share) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,"
        "?11,?12)",
    [Q_SAMPLE_INS] =
        "INSERT INTO samples (case_id, event_id, seq, iters, value, overhead, enabled,"
        " running, scaled, smt, round, raw, method)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
    [Q_REAP_SEL] =
        "SELECT r.id, r.pid, r.pid_start, r.boot_id FROM runs r JOIN hosts h ON h.id = r.host_id"
        " WHERE r.status = 'running' AND h.hostname = ?1",
    [Q_REAP_UPD] = "UPDATE runs SET status='aborted' WHERE id=?1 AND status='running'",
    [Q_RUN_GET] =
        "SELECT r.id, r.status, r.started, COALESCE(r.finished,''), r.cmdline,"
        " COALESCE(r.tag,''), r.cpu, COALESCE(cm.hash,''), COALESCE(cm.subject,''),"
        " COALESCE(cm.author_date,''), COALESCE(cm.dirty,-1), h.hostname, h.vendor,"
        " h.model_name, h.microcode, h.kernel, h.family, h.model, h.stepping, h.ncpus,"
        " h.features, r.tsc_ghz, h.tsc_source, r.core_ghz, r.core_ghz_spread,"
        " r.core_ghz_source, h.pmu, b.version, b.compiler, b.cflags,"
        " COALESCE(r.clock_backend,''), COALESCE(r.core_est_method,''), r.core_est_ghz,"
        " r.core_est_spread, r.core_est_add_ghz, r.core_est_imul_ghz, COALESCE(r.meter_kind,''),"
        " r.meter_baseline, r.meter_spread, COALESCE(r.meter_why,''), COALESCE(r.fingerprint,'')"
        " FROM runs r JOIN hosts h ON h.id = r.host_id JOIN builds b ON b.id = r.build_id"
        " LEFT JOIN commits cm ON cm.id = r.commit_id WHERE r.id = ?1",
    [Q_EVENTS] =
        "SELECT id, name, part, pfm, encoding, source, read_method, why, supported"
        " FROM events WHERE run_id=?1 ORDER BY id",
    [Q_CASES] =
        "SELECT c.id, c.probe, c.variant, c.unit, c.op, c.mode, c.verdict, c.detail, c.size,"
        " c.bytes_per_op, (SELECT COUNT(DISTINCT s.seq) FROM samples s WHERE s.case_id = c.id),"
        " c.contention, c.contended_share FROM cases c WHERE c.run_id=?1 ORDER BY c.id",
    [Q_VALUES] =
        "SELECT (value - COALESCE(overhead, 0.0)) / CAST(iters AS REAL), scaled, smt FROM samples"
        " WHERE case_id=?1 AND event_id=?2 AND value IS NOT NULL ORDER BY seq",
};

struct cb_store {
    sqlite3 *db;
    sqlite3_stmt *q[Q__N];
    char why[512];            /* a transaction body's own reason to fail, or "" */
    /* Tests only (CB_STORE_TEST_KILL_IN_CASE=N): SIGKILL this process in the
     * middle of writing its Nth case, inside the open transaction, to show
     * that a collector dying there loses only that case.  0: never. */
    int kill_in_case, cases_written;
};

/* Files up to this size are checked with PRAGMA quick_check when opened:
 * SQLite notices damage only on the pages a query happens to touch, and a
 * collector appending to a damaged b-tree could spread the damage into the
 * runs it writes.  quick_check reads every page, a cost that grows with the
 * file, so larger files are checked only for truncation; `sqlite3 FILE
 * 'PRAGMA integrity_check'` checks them fully. */
#define CB_QUICK_CHECK_MAX ((off_t)512 << 20)

static void msg(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void msg(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int errno_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK: case SQLITE_ROW: case SQLITE_DONE: return 0;
    case SQLITE_BUSY: case SQLITE_LOCKED: return -EBUSY;
    case SQLITE_NOMEM: return -ENOMEM;
    case SQLITE_READONLY: return -EROFS;
    case SQLITE_PERM: case SQLITE_AUTH: case SQLITE_CANTOPEN: return -EACCES;
    case SQLITE_FULL: return -ENOSPC;
    case SQLITE_CONSTRAINT: case SQLITE_MISMATCH: case SQLITE_RANGE: case SQLITE_TOOBIG:
        return -EINVAL;
    case SQLITE_CORRUPT: case SQLITE_NOTADB: return -EINVAL;
    default: return -EIO;
    }
}

/* The write/read calls have no err buffer: say what SQLite said on stderr
 * (a failed CHECK names the column and the rule) and return an errno. */
static int fail(struct cb_store *st, int rc, const char *what)
{
    fprintf(stderr, "cyclebudget: store: %s: %s\n", what,
            st && st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
    return errno_of(rc);
}

static sqlite3_stmt *stmt(struct cb_store *st, int i, int *rc)
{
    if (!st->q[i]) {
        *rc = sqlite3_prepare_v3(st->db, q_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->q[i], NULL);
        if (*rc != SQLITE_OK)
            return NULL;
    }
    sqlite3_reset(st->q[i]);
    sqlite3_clear_bindings(st->q[i]);
    *rc = SQLITE_OK;
    return st->q[i];
}

static int bind_str(sqlite3_stmt *s, int i, const char *v)
{
    return sqlite3_bind_text(s, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

/* NAN means "not measured": store NULL, never a number. */
static int bind_real_or_null(sqlite3_stmt *s, int i, double v)
{
    return isnan(v) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v);
}

static double col_real_or_nan(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static void col_str(sqlite3_stmt *s, int i, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static int exec(struct cb_store *st, const char *sql)
{
    return sqlite3_exec(st->db, sql, NULL, NULL, NULL);
}

static void backoff(int attempt)
{
    struct timespec ts = {0, (long)(20 + 30 * attempt) * 1000000L};
    nanosleep(&ts, NULL);
}

static int is_busy(int rc)
{
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* Run fn inside BEGIN IMMEDIATE ... COMMIT, the whole of it again when
 * SQLite says busy.  IMMEDIATE takes the write lock up front: a deferred
 * transaction that reads and then writes can get SQLITE_BUSY on the upgrade
 * without the busy handler ever being called.  Returns an SQLite code. */
static int in_tx(struct cb_store *st, int (*fn)(struct cb_store *, void *), void *ctx)
{
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < CB_TX_TRIES; attempt++) {
        if (attempt)
            backoff(attempt);
        st->why[0] = '\0';
        rc = exec(st, "BEGIN IMMEDIATE");
        if (is_busy(rc))
            continue;
        if (rc != SQLITE_OK)
            return rc;
        rc = fn(st, ctx);
        if (rc == SQLITE_OK || rc == SQLITE_DONE) {
            rc = exec(st, "COMMIT");
            if (rc == SQLITE_OK)
                return SQLITE_OK;
        }
        /* Keep fn's error message: ROLLBACK would replace it with "not an
         * error". */
        char keep[512];
        snprintf(keep, sizeof keep, "%s", st->why[0] ? st->why : sqlite3_errmsg(st->db));
        if (!sqlite3_get_autocommit(st->db))
            exec(st, "ROLLBACK");
        if (!is_busy(rc)) {
            if (rc == SQLITE_OK || rc == SQLITE_DONE)
                rc = SQLITE_ERROR;
            fprintf(stderr, "cyclebudget: store: %s\n", keep);
            snprintf(st->why, sizeof st->why, "%s", keep);
            return rc;
        }
    }
    return rc;
}

/* Step a statement that returns no rows. */
static int step_done(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

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
    sqlite3_stmt *s;
    int v = -EIO;
    if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
        return -EIO;
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* ---- opening ---------------------------------------------------------- */

struct migrate_ctx {
    const struct cb_migration *m;
};

static int migrate_one(struct cb_store *st, void *vctx)
{
    struct migrate_ctx *c = vctx;
    /* Re-read inside the write lock: another process may have migrated
     * between our check and our BEGIN. */
    int cur = cb_store_schema_version(st);
    if (cur < 0)
        return SQLITE_IOERR;
    if (cur >= c->m->version)
        return SQLITE_OK;
    int rc = exec(st, c->m->sql);
    if (rc != SQLITE_OK)
        return rc;
    char pragma[96];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", c->m->version);
    rc = exec(st, pragma);
    if (rc == SQLITE_OK && c->m->version == 1) {
        snprintf(pragma, sizeof pragma, "PRAGMA application_id = %d", CB_APP_ID);
        rc = exec(st, pragma);
    }
    return rc;
}

static int migrate(struct cb_store *st, int target, char *err, size_t errlen)
{
    for (size_t i = 0; i < cb_nmigrations; i++) {
        struct migrate_ctx c = {&cb_migrations[i]};
        if (c.m->version > target)
            break;
        int rc = in_tx(st, migrate_one, &c);
        if (rc != SQLITE_OK) {
            msg(err, errlen, "cannot apply migration %s: %s", c.m->name,
                st->why[0] ? st->why : sqlite3_errstr(rc));
            return errno_of(rc) ? errno_of(rc) : -EIO;
        }
    }
    return 0;
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

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static int newer_msg(const char *path, long have, int latest, char *err, size_t errlen)
{
    msg(err, errlen,
        "%s was written by a newer cyclebudget (schema %ld, this one knows %d): "
        "upgrade cyclebudget or use another --db", path, have, latest);
    return -EPROTO;
}

/* Everything decidable without SQLite.  *fresh: the file is missing or
 * empty (SQLite will make it a database; nothing to refuse); *writable: we
 * may write it. */
static int precheck(const char *path, enum cb_store_mode mode, int latest, int *fresh,
                    int *writable, off_t *size, char *err, size_t errlen)
{
    struct stat sb;
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    *fresh = 0;
    *writable = 0;
    *size = 0;

    if (stat(path, &sb) != 0) {
        int e = errno;
        if (e != ENOENT) {
            msg(err, errlen, "%s: %s", path, strerror(e));
            return -e;
        }
        if (mode == CB_STORE_READ) {
            msg(err, errlen, "%s: no such database (nothing has been recorded there yet; "
                "check --db)", path);
            return -ENOENT;
        }
        struct stat db;
        if (stat(dir, &db) != 0 || !S_ISDIR(db.st_mode)) {
            msg(err, errlen, "%s: directory %s does not exist", path, dir);
            return -ENOENT;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            msg(err, errlen, "%s: cannot create the database: directory %s is not writable",
                path, dir);
            return -EACCES;
        }
        *fresh = 1;
        *writable = 1;
        return 0;
    }
    if (S_ISDIR(sb.st_mode)) {
        msg(err, errlen, "%s is a directory: give --db a file name, e.g. %s/cyclebudget.db",
            path, path);
        return -EISDIR;
    }
    if (!S_ISREG(sb.st_mode)) {
        msg(err, errlen, "%s: not a regular file, so not a cyclebudget database", path);
        return -EINVAL;
    }
    if (access(path, R_OK) != 0) {
        msg(err, errlen, "%s: cannot read it (%s)", path, strerror(errno));
        return -EACCES;
    }
    /* WAL needs the -wal and -shm files beside the database. */
    *writable = access(path, W_OK) == 0 && access(dir, W_OK | X_OK) == 0;
    if (mode == CB_STORE_WRITE && !*writable) {
        msg(err, errlen, "%s: cannot write it (or its directory %s, where SQLite keeps "
            "the -wal and -shm files)", path, dir);
        return -EACCES;
    }

    unsigned char h[100];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        msg(err, errlen, "%s: %s", path, strerror(e));
        return e == EACCES || e == EPERM ? -EACCES : -e;
    }
    ssize_t n = read(fd, h, sizeof h);
    close(fd);
    if (n == 0 && sb.st_size == 0) {
        if (mode == CB_STORE_READ) {
            msg(err, errlen, "%s: empty file, nothing recorded there (check --db)", path);
            return -EINVAL;
        }
        *fresh = 1;
        return 0;
    }
    if (n < (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0) {
        msg(err, errlen, "%s: not an SQLite database, so not a cyclebudget database "
            "(give --db another file)", path);
        return -EINVAL;
    }
    uint32_t app = be32(h + 68);
    if (app != 0 && app != CB_APP_ID) {
        msg(err, errlen, "%s: an SQLite database of another program (application_id "
            "0x%08x), not cyclebudget's", path, app);
        return -EINVAL;
    }
    /* Truncated: the header's page count (valid when "version-valid-for"
     * matches the change counter) says the file should be longer.  Not
     * while a -wal file has frames: a checkpoint cut short by a crash can
     * leave the main file short, and SQLite finishes it from the WAL. */
    uint32_t pgsz = (uint32_t)h[16] << 8 | h[17], npages = be32(h + 28);
    if (pgsz == 1)
        pgsz = 65536;
    if (npages && be32(h + 24) == be32(h + 92) && (off_t)pgsz * npages > sb.st_size) {
        char wal[PATH_MAX + 8];
        struct stat wb;
        snprintf(wal, sizeof wal, "%s-wal", path);
        if (stat(wal, &wb) != 0 || wb.st_size == 0) {
            msg(err, errlen, "%s is truncated (%lld of %lld bytes): restore it from a backup; "
                "'sqlite3 %s .recover' may save the rows left", path, (long long)sb.st_size,
                (long long)pgsz * npages, path);
            return -EINVAL;
        }
    }
    *size = sb.st_size;
    /* The header's copy of user_version: current unless a WAL holds newer
     * pages, which the check after opening covers. */
    int32_t uv = (int32_t)be32(h + 60);
    if (uv > latest)
        return newer_msg(path, uv, latest, err, errlen);
    return 0;
}

/* PRAGMA quick_check: every page read, b-tree structure and free list
 * checked (not the index contents, which integrity_check adds at several
 * times the cost). */
static int quick_check(struct cb_store *st, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &s, NULL);
    char first[200] = "";
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            const unsigned char *t = sqlite3_column_text(s, 0);
            snprintf(first, sizeof first, "%s", t ? (const char *)t : "");
            rc = SQLITE_OK;
        }
        sqlite3_finalize(s);
    }
    if (rc == SQLITE_OK && strcmp(first, "ok") == 0)
        return 0;
    if (rc != SQLITE_OK && !is_busy(rc) && (rc & 0xff) != SQLITE_CORRUPT &&
        (rc & 0xff) != SQLITE_NOTADB && (rc & 0xff) != SQLITE_IOERR) {
        msg(err, errlen, "%s: cannot check it: %s", path, sqlite3_errmsg(st->db));
        return errno_of(rc) ? errno_of(rc) : -EIO;
    }
    if (is_busy(rc)) {
        msg(err, errlen, "%s: cannot check it: busy for %d s (a stuck writer?)", path,
            CB_BUSY_MS / 1000);
        return -EBUSY;
    }
    /* One line: SQLite's first complaint can span several. */
    if (!first[0])
        snprintf(first, sizeof first, "%s", sqlite3_errmsg(st->db));
    first[strcspn(first, "\n")] = '\0';
    msg(err, errlen, "%s is damaged (%s): restore it from a backup; 'sqlite3 %s .recover' "
        "may save its rows", path, first, path);
    return -EINVAL;
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
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < CB_TX_TRIES && is_busy(rc); attempt++) {
        if (attempt)
            backoff(attempt);
        rc = exec(st, "PRAGMA journal_mode = WAL");
    }
    return rc;
}

int cb_store_open(const char *path, enum cb_store_mode mode, int upto_version,
                  struct cb_store **out, char *err, size_t errlen)
{
    int latest = cb_store_schema_latest(), fresh, writable, r;
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!migrations_sane()) {
        msg(err, errlen, "internal error: migrations are not numbered 1..N");
        return -EINVAL;
    }
    if (upto_version < 0 || upto_version > latest) {
        msg(err, errlen, "schema version %d asked for, this cyclebudget knows 1..%d",
            upto_version, latest);
        return -EINVAL;
    }
    int target = upto_version ? upto_version : latest;
    if (!path || !*path) {
        msg(err, errlen, "no database path given (--db)");
        return -EINVAL;
    }

    off_t size;
    r = precheck(path, mode, latest, &fresh, &writable, &size, err, errlen);
    if (r < 0)
        return r;
    (void)fresh;

    struct cb_store *st = calloc(1, sizeof *st);
    if (!st) {
        msg(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int flags = SQLITE_OPEN_NOMUTEX |
                (writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
                (mode == CB_STORE_WRITE ? SQLITE_OPEN_CREATE : 0);
    /* A WAL database is read through its -shm file, which a reader must be
     * able to create.  Where nobody can have written a -wal and we cannot
     * create the -shm (a read-only directory: an archive, a CD, someone
     * else's home), the file is as it will stay: open it immutable. */
    char wal[PATH_MAX + 8], dir[PATH_MAX];
    struct stat wb;
    snprintf(wal, sizeof wal, "%s-wal", path);
    int wal_frames = stat(wal, &wb) == 0 && wb.st_size > 0;
    dir_of(path, dir, sizeof dir);
    char uri[3 * PATH_MAX + 32];
    const char *name = path;
    if (!writable && !wal_frames && stat(wal, &wb) != 0 && access(dir, W_OK) != 0 &&
        immutable_uri(path, uri, sizeof uri) == 0) {
        name = uri;
        flags |= SQLITE_OPEN_URI;
    }
    int rc = sqlite3_open_v2(name, &st->db, flags, NULL);
    if (rc != SQLITE_OK) {
        msg(err, errlen, "%s: cannot open: %s", path,
            st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
        r = errno_of(rc);
        goto fail;
    }
    /* Until every check has passed: closing must not checkpoint (write). */
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, CB_BUSY_MS);

    sqlite3_stmt *s;
    rc = sqlite3_prepare_v2(st->db,
        "SELECT (SELECT user_version FROM pragma_user_version),"
        " (SELECT application_id FROM pragma_application_id),"
        " (SELECT COUNT(*) FROM sqlite_schema),"
        " (SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'runs')",
        -1, &s, NULL);
    long uv = 0, app = 0, nobj = 0, hasruns = 0;
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            uv = sqlite3_column_int64(s, 0);
            app = sqlite3_column_int64(s, 1);
            nobj = sqlite3_column_int64(s, 2);
            hasruns = sqlite3_column_int64(s, 3);
            rc = SQLITE_OK;
        }
        sqlite3_finalize(s);
    }
    if (rc != SQLITE_OK) {
        int code = rc & 0xff;
        if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
            msg(err, errlen, "%s: not an SQLite database, or a damaged one (%s)", path,
                sqlite3_errmsg(st->db));
            r = -EINVAL;
        } else {
            msg(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(st->db));
            r = errno_of(rc) ? errno_of(rc) : -EIO;
        }
        goto fail;
    }
    if (uv > latest) {
        r = newer_msg(path, uv, latest, err, errlen);
        goto fail;
    }
    if (app != 0 && app != CB_APP_ID) {
        msg(err, errlen, "%s: an SQLite database of another program, not cyclebudget's", path);
        r = -EINVAL;
        goto fail;
    }
    if (uv == 0 && nobj > 0) {
        msg(err, errlen, "%s: an SQLite database, but not cyclebudget's (it has tables and "
            "no schema version); give --db another file", path);
        r = -EINVAL;
        goto fail;
    }
    if (uv > 0 && !hasruns) {
        msg(err, errlen, "%s: claims schema %ld but has no runs table: damaged, or not "
            "cyclebudget's", path, uv);
        r = -EINVAL;
        goto fail;
    }
    if (uv < target && !writable) {
        msg(err, errlen, "%s: schema %ld is older than this cyclebudget's %d and the file "
            "is read-only: open it once where it is writable to upgrade it", path, uv, target);
        r = -ESTALE;
        goto fail;
    }
    if (nobj > 0 && size <= CB_QUICK_CHECK_MAX) {
        r = quick_check(st, path, err, errlen);
        if (r < 0)
            goto fail;
    }
    /* From here on we may write. */
    if (mode == CB_STORE_WRITE) {
        rc = set_wal(st);
        if (rc != SQLITE_OK) {
            msg(err, errlen, "%s: cannot switch to WAL mode: %s", path, sqlite3_errmsg(st->db));
            r = errno_of(rc) ? errno_of(rc) : -EIO;
            goto fail;
        }
        /* NORMAL is durable across application crashes in WAL mode; only
         * a power loss may lose the last transactions. */
        exec(st, "PRAGMA synchronous = NORMAL");
    }
    exec(st, "PRAGMA foreign_keys = ON");
    if (uv < target) {
        r = migrate(st, target, err, errlen);
        if (r < 0)
            goto fail;
    }
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
    const char *kill_at = getenv("CB_STORE_TEST_KILL_IN_CASE");
    st->kill_in_case = kill_at ? atoi(kill_at) : 0;

    if (mode == CB_STORE_WRITE) {
        r = cb_store_reap_aborted(st);
        if (r < 0) {
            msg(err, errlen, "%s: cannot check for abandoned runs", path);
            goto fail;
        }
    }
    *out = st;
    return 0;

fail:
    /* A WAL that had no frames has nothing to write back: let close remove
     * the empty -wal and the -shm that opening made, so a refused file is
     * left as it was found, without litter. */
    if (st->db && !wal_frames)
        sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
    cb_store_close(st);
    return r;
}

void cb_store_close(struct cb_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < Q__N; i++)
        sqlite3_finalize(st->q[i]);
    sqlite3_close(st->db);
    free(st);
}

/* ---- who is writing ----------------------------------------------------- */

/* Start time of pid in clock ticks after boot (/proc/PID/stat field 22), or
 * -1.  A pid that is alive but started at another time is a reused pid. */
static long long proc_start(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* comm may contain spaces and ')': fields restart after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    /* After ')' come field 3 (state) ... field 22 (starttime). */
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    return strtoll(p + 1, NULL, 10);
}

static void boot_id(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static void my_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

int cb_store_boot_tsc(struct cb_store *st, double *ghz)
{
    char host[256], boot[64];
    my_hostname(host, sizeof host);
    boot_id(boot, sizeof boot);
    *ghz = 0;
    if (!boot[0])
        return -ENOENT;
    sqlite3_stmt *s;
    int rc = sqlite3_prepare_v2(st->db,
                                "SELECT r.tsc_ghz FROM runs r JOIN hosts h ON h.id = r.host_id"
                                " WHERE h.hostname = ?1 AND r.boot_id = ?2"
                                "   AND h.tsc_source = 'calibrated' AND r.tsc_ghz > 0"
                                " ORDER BY r.id DESC LIMIT 1",
                                -1, &s, NULL);
    if (rc != SQLITE_OK)
        return -EIO;
    sqlite3_bind_text(s, 1, host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, boot, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *ghz = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

/* ---- writing ------------------------------------------------------------ */

struct begin_ctx {
    const struct cb_run_meta *m;
    int64_t run_id;
};

static int find_or_add(struct cb_store *st, int qsel, int qins,
                       int (*bind)(sqlite3_stmt *, const void *), const void *arg, int64_t *id)
{
    int rc;
    sqlite3_stmt *s = stmt(st, qsel, &rc);
    if (!s || (rc = bind(s, arg)) != SQLITE_OK)
        return rc;
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
        return SQLITE_OK;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return rc;
    s = stmt(st, qins, &rc);
    if (!s || (rc = bind(s, arg)) != SQLITE_OK)
        return rc;
    rc = step_done(s);
    if (rc == SQLITE_OK)
        *id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

/* The SELECTs use the INSERTs' ?N numbers, so one binder serves both; a
 * number a statement does not mention is within range and ignored. */
static int bind_host(sqlite3_stmt *s, const void *arg)
{
    const struct cb_run_meta *m = arg;
    const struct cb_host *h = m->host;
    char feat[256];
    cb_cpu_feature_names(h->features, feat, sizeof feat);
    /* Rounded to 1 MHz: see hosts.tsc_ghz in 0001_init.sql. */
    double tsc = isfinite(m->tsc_ghz) && m->tsc_ghz > 0 ? (double)(long long)(m->tsc_ghz * 1000.0 + 0.5) / 1000.0 : 0;
    int rc = SQLITE_OK;
#define B(i, call) if (rc == SQLITE_OK) rc = (call)
    B(1, bind_str(s, 1, h->hostname));
    B(2, bind_str(s, 2, h->vendor));
    B(3, sqlite3_bind_int(s, 3, h->family));
    B(4, sqlite3_bind_int(s, 4, h->model));
    B(5, sqlite3_bind_int(s, 5, h->stepping));
    B(6, bind_str(s, 6, h->model_name));
    B(7, bind_str(s, 7, h->microcode));
    B(8, bind_str(s, 8, feat));
    B(9, sqlite3_bind_int64(s, 9, h->features));
    B(10, sqlite3_bind_int(s, 10, h->ncpus));
    B(11, sqlite3_bind_int64(s, 11, (int64_t)h->llc_bytes));
    B(12, bind_str(s, 12, h->kernel));
    B(13, sqlite3_bind_double(s, 13, tsc));
    B(14, bind_str(s, 14, m->tsc_source));
    B(15, bind_str(s, 15, m->pmu));
#undef B
    return rc;
}

static int bind_build(sqlite3_stmt *s, const void *arg)
{
    const struct cb_run_meta *m = arg;
    int rc = bind_str(s, 1, m->version);
    if (rc == SQLITE_OK)
        rc = bind_str(s, 2, m->compiler);
    if (rc == SQLITE_OK)
        rc = bind_str(s, 3, m->cflags);
    return rc;
}

static int bind_commit(sqlite3_stmt *s, const void *arg)
{
    const struct cb_run_meta *m = arg;
    int rc = bind_str(s, 1, m->commit);
    if (rc == SQLITE_OK)
        rc = bind_str(s, 2, m->subject);
    if (rc == SQLITE_OK)
        rc = bind_str(s, 3, m->commit_date);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(s, 4, m->dirty < 0 ? -1 : m->dirty > 0);
    return rc;
}

static int begin_fn(struct cb_store *st, void *vctx)
{
    struct begin_ctx *c = vctx;
    const struct cb_run_meta *m = c->m;
    int64_t host, build, commit = 0;
    int rc = find_or_add(st, Q_HOST_SEL, Q_HOST_INS, bind_host, m, &host);
    if (rc == SQLITE_OK)
        rc = find_or_add(st, Q_BUILD_SEL, Q_BUILD_INS, bind_build, m, &build);
    if (rc == SQLITE_OK && m->commit && *m->commit)
        rc = find_or_add(st, Q_COMMIT_SEL, Q_COMMIT_INS, bind_commit, m, &commit);
    if (rc != SQLITE_OK)
        return rc;

    char boot[64];
    boot_id(boot, sizeof boot);
    long long start = proc_start(getpid());
    sqlite3_stmt *s = stmt(st, Q_RUN_INS, &rc);
    if (!s)
        return rc;
    sqlite3_bind_int64(s, 1, host);
    sqlite3_bind_int64(s, 2, build);
    if (commit)
        sqlite3_bind_int64(s, 3, commit);
    bind_str(s, 4, m->cmdline);
    if (m->tag && *m->tag)
        bind_str(s, 5, m->tag);
    sqlite3_bind_int(s, 6, m->cpu);
    sqlite3_bind_double(s, 7, isfinite(m->tsc_ghz) ? m->tsc_ghz : 0);
    sqlite3_bind_double(s, 8, isfinite(m->core_ghz) ? m->core_ghz : 0);
    sqlite3_bind_double(s, 9, isfinite(m->core_ghz_spread) ? m->core_ghz_spread : 0);
    bind_str(s, 10, m->core_ghz_source);
    sqlite3_bind_int64(s, 11, getpid());
    if (start >= 0)
        sqlite3_bind_int64(s, 12, start);
    bind_str(s, 13, boot);
    rc = step_done(s);
    if (rc != SQLITE_OK)
        return rc;
    c->run_id = sqlite3_last_insert_rowid(st->db);
    if (cb_store_schema_version(st) < 7)
        return rc;
    if (!(s = stmt(st, Q_RUN_TRUTH, &rc)))
        return rc;
    sqlite3_bind_int64(s, 1, c->run_id);
    bind_str(s, 2, m->clock_backend ? m->clock_backend : "perf_event");
    if (m->core_est_method) {
        bind_str(s, 3, m->core_est_method);
        bind_real_or_null(s, 4, m->core_est_ghz);
        bind_real_or_null(s, 5, m->core_est_spread);
        bind_real_or_null(s, 6, m->core_est_add_ghz > 0 ? m->core_est_add_ghz : NAN);
        bind_real_or_null(s, 7, m->core_est_imul_ghz > 0 ? m->core_est_imul_ghz : NAN);
    }
    if (m->meter_kind) {
        bind_str(s, 8, m->meter_kind);
        bind_real_or_null(s, 9, m->meter_baseline > 0 ? m->meter_baseline : NAN);
        bind_real_or_null(s, 10, m->meter_spread);
        bind_str(s, 11, m->meter_why ? m->meter_why : "");
    }
    if (m->fingerprint)
        bind_str(s, 12, m->fingerprint);
    return step_done(s);
}

int cb_store_run_begin(struct cb_store *st, const struct cb_run_meta *m, int64_t *run_id)
{
    if (!st || !m || !m->host || !run_id)
        return -EINVAL;
    struct begin_ctx c = {m, 0};
    int rc = in_tx(st, begin_fn, &c);
    if (rc != SQLITE_OK)
        return errno_of(rc) ? errno_of(rc) : -EIO;
    *run_id = c.run_id;
    return 0;
}

struct event_ctx {
    int64_t run_id;
    const struct cb_event_row *e;
    int64_t id;
};

static int event_fn(struct cb_store *st, void *vctx)
{
    struct event_ctx *c = vctx;
    const struct cb_event_row *e = c->e;
    int rc;
    sqlite3_stmt *s = stmt(st, Q_EVENT_INS, &rc);
    if (!s)
        return rc;
    sqlite3_bind_int64(s, 1, c->run_id);
    bind_str(s, 2, e->name);
    bind_str(s, 3, e->part && *e->part ? e->part : e->name);
    bind_str(s, 4, e->pfm);
    bind_str(s, 5, e->encoding);
    bind_str(s, 6, e->source);
    bind_str(s, 7, e->read_method);
    sqlite3_bind_int(s, 8, e->supported ? 1 : 0);
    bind_str(s, 9, e->why);
    rc = step_done(s);
    if (rc == SQLITE_OK)
        c->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int cb_store_event_add(struct cb_store *st, int64_t run_id, const struct cb_event_row *e,
                       int64_t *event_id)
{
    if (!st || !e)
        return -EINVAL;
    struct event_ctx c = {run_id, e, 0};
    int rc = in_tx(st, event_fn, &c);
    if (rc != SQLITE_OK)
        return errno_of(rc) ? errno_of(rc) : -EIO;
    if (event_id)
        *event_id = c.id;
    return 0;
}

/* 1 running, 0 exists but not running, -1 no such run; or an SQLite error
 * code through *rc. */
static int run_running(struct cb_store *st, int64_t run_id, int *rc)
{
    sqlite3_stmt *s = stmt(st, Q_RUN_STATUS, rc);
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, run_id);
    int r = sqlite3_step(s), res = -1;
    if (r == SQLITE_ROW)
        res = strcmp((const char *)sqlite3_column_text(s, 0), "running") == 0;
    else if (r != SQLITE_DONE)
        *rc = r;
    sqlite3_reset(s);
    return res;
}

struct case_ctx {
    int64_t run_id;
    const struct cb_case_row *c;
    const struct cb_sample_row *s;
    size_t ns;
    int64_t id;
};

static int case_fn(struct cb_store *st, void *vctx)
{
    struct case_ctx *x = vctx;
    const struct cb_case_row *c = x->c;
    int rc = SQLITE_OK;
    int running = run_running(st, x->run_id, &rc);
    if (rc != SQLITE_OK)
        return rc;
    if (running != 1) {
        /* A run reaped as aborted or already finished takes no more cases. */
        snprintf(st->why, sizeof st->why, "run %lld: %s", (long long)x->run_id,
                 running < 0 ? "no such run" : "not running (finished, or reaped as aborted)");
        return SQLITE_CONSTRAINT;
    }
    sqlite3_stmt *s = stmt(st, Q_CASE_INS, &rc);
    if (!s)
        return rc;
    sqlite3_bind_int64(s, 1, x->run_id);
    bind_str(s, 2, c->probe);
    bind_str(s, 3, c->variant);
    sqlite3_bind_int64(s, 4, (int64_t)c->size);
    bind_str(s, 5, c->unit);
    bind_str(s, 6, c->op);
    bind_str(s, 7, c->mode);
    sqlite3_bind_int64(s, 8, (int64_t)c->bytes_per_op);
    bind_str(s, 9, c->verdict);
    bind_str(s, 10, c->detail);
    bind_real_or_null(s, 11, c->metered ? c->contention : NAN);
    bind_real_or_null(s, 12, c->metered ? c->contended_share : NAN);
    rc = step_done(s);
    if (rc != SQLITE_OK)
        return rc;
    x->id = sqlite3_last_insert_rowid(st->db);

    s = stmt(st, Q_SAMPLE_INS, &rc);
    if (!s)
        return rc;
    for (size_t i = 0; i < x->ns; i++) {
        const struct cb_sample_row *r = &x->s[i];
        sqlite3_reset(s);
        sqlite3_bind_int64(s, 1, x->id);
        sqlite3_bind_int64(s, 2, r->event_id);
        sqlite3_bind_int(s, 3, r->seq);
        sqlite3_bind_int64(s, 4, (int64_t)r->iters);
        bind_real_or_null(s, 5, r->value);
        bind_real_or_null(s, 6, r->overhead);
        sqlite3_bind_int64(s, 7, (int64_t)r->enabled);
        sqlite3_bind_int64(s, 8, (int64_t)r->running);
        sqlite3_bind_int(s, 9, r->scaled ? 1 : 0);
        bind_real_or_null(s, 10, r->smt > 0 ? r->smt : NAN);
        sqlite3_bind_int(s, 11, r->round);
        bind_real_or_null(s, 12, r->raw);
        if (r->method)
            bind_str(s, 13, r->method);
        else
            sqlite3_bind_null(s, 13);
        rc = step_done(s);
        if (rc != SQLITE_OK)
            return rc;
        if (i == x->ns / 2 && st->kill_in_case && ++st->cases_written == st->kill_in_case)
            raise(SIGKILL);
    }
    return SQLITE_OK;
}

int cb_store_case_add(struct cb_store *st, int64_t run_id, const struct cb_case_row *c,
                      const struct cb_sample_row *s, size_t ns, int64_t *case_id)
{
    if (!st || !c || (ns && !s))
        return -EINVAL;
    struct case_ctx x = {run_id, c, s, ns, 0};
    int rc = in_tx(st, case_fn, &x);
    if (rc != SQLITE_OK)
        return errno_of(rc) ? errno_of(rc) : -EIO;
    if (case_id)
        *case_id = x.id;
    return 0;
}

int cb_store_run_finish(struct cb_store *st, int64_t run_id, const char *status)
{
    if (!st || !status || (strcmp(status, "complete") && strcmp(status, "aborted")))
        return -EINVAL;
    int rc;
    for (int attempt = 0; attempt < CB_TX_TRIES; attempt++) {
        if (attempt)
            backoff(attempt);
        sqlite3_stmt *s = stmt(st, Q_RUN_FINISH, &rc);
        if (!s)
            return fail(st, rc, "finishing the run");
        sqlite3_bind_int64(s, 1, run_id);
        bind_str(s, 2, status);
        rc = step_done(s);
        if (is_busy(rc))
            continue;
        if (rc != SQLITE_OK)
            return fail(st, rc, "finishing the run");
        if (sqlite3_changes(st->db) == 1)
            return 0;
        int running = run_running(st, run_id, &rc);
        if (running < 0) {
            fprintf(stderr, "cyclebudget: store: no run %lld to finish\n", (long long)run_id);
            return -ENOENT;
        }
        fprintf(stderr, "cyclebudget: store: run %lld was no longer running (reaped as "
                "aborted?)\n", (long long)run_id);
        return -EINVAL;
    }
    return fail(st, rc, "finishing the run");
}

/* ---- reaping ------------------------------------------------------------ */

struct reap_ctx {
    int n;
};

static int reap_fn(struct cb_store *st, void *vctx)
{
    struct reap_ctx *c = vctx;
    char host[256], boot[64];
    int rc;
    my_hostname(host, sizeof host);
    boot_id(boot, sizeof boot);
    c->n = 0;

    /* Collect first, update after: the update must not run while the
     * SELECT over the same table is still stepping. */
    int64_t dead[256];
    int ndead = 0;
    sqlite3_stmt *s = stmt(st, Q_REAP_SEL, &rc);
    if (!s)
        return rc;
    bind_str(s, 1, host);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && ndead < (int)(sizeof dead / sizeof dead[0])) {
        int64_t id = sqlite3_column_int64(s, 0);
        pid_t pid = (pid_t)sqlite3_column_int64(s, 1);
        int known_start = sqlite3_column_type(s, 2) != SQLITE_NULL;
        long long start = sqlite3_column_int64(s, 2);
        const char *rboot = (const char *)sqlite3_column_text(s, 3);
        int is_dead;
        /* Same hostname is taken to mean this machine.  Another boot: every
         * process of that boot is gone, whatever its pid is now. */
        if (*boot && rboot && *rboot && strcmp(boot, rboot) != 0)
            is_dead = 1;
        else if (kill(pid, 0) != 0 && errno == ESRCH)
            is_dead = 1;
        else if (known_start) {
            /* Alive, but is it the same process, or a reused pid? */
            long long now = proc_start(pid);
            is_dead = now >= 0 && now != start;
        } else
            is_dead = 0;
        if (is_dead)
            dead[ndead++] = id;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return rc;

    for (int i = 0; i < ndead; i++) {
        s = stmt(st, Q_REAP_UPD, &rc);
        if (!s)
            return rc;
        sqlite3_bind_int64(s, 1, dead[i]);
        rc = step_done(s);
        if (rc != SQLITE_OK)
            return rc;
        c->n += sqlite3_changes(st->db);
    }
    return SQLITE_OK;
}

int cb_store_reap_aborted(struct cb_store *st)
{
    if (!st)
        return -EINVAL;
    struct reap_ctx c = {0};
    int rc = in_tx(st, reap_fn, &c);
    if (rc != SQLITE_OK)
        return errno_of(rc) ? errno_of(rc) : -EIO;
    return c.n;
}

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
        msg(err, errlen, "no run given: say latest, a run id or a tag");
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
        msg(err, errlen, "latest: no complete run in this database (%lld runs, none "
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
            msg(err, errlen, "no run %s (run ids here are %lld..%lld)", spec, (long long)lo,
                (long long)hi);
        else
            msg(err, errlen, "no run %s (the database has no runs)", spec);
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
        msg(err, errlen, "tag %s: no complete run (run %lld has it but is running or "
            "aborted; give its id to look at it anyway)", spec, (long long)other);
    else
        msg(err, errlen, "no run tagged %s (say latest, a run id or a tag; see runs_overview)",
            spec);
    return -ENOENT;

sqlfail:
    msg(err, errlen, "cannot look up run %s: %s", spec, sqlite3_errmsg(st->db));
    return errno_of(rc) ? errno_of(rc) : -EIO;
}

int cb_store_run_get(struct cb_store *st, int64_t run_id, struct cb_run_info *o)
{
    int rc;
    if (!st || !o)
        return -EINVAL;
    sqlite3_stmt *s = stmt(st, Q_RUN_GET, &rc);
    if (!s)
        return fail(st, rc, "reading a run");
    sqlite3_bind_int64(s, 1, run_id);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(s);
        return rc == SQLITE_DONE ? -ENOENT : fail(st, rc, "reading a run");
    }
    memset(o, 0, sizeof *o);
    o->id = sqlite3_column_int64(s, 0);
    col_str(s, 1, o->status, sizeof o->status);
    col_str(s, 2, o->started, sizeof o->started);
    col_str(s, 3, o->finished, sizeof o->finished);
    col_str(s, 4, o->cmdline, sizeof o->cmdline);
    col_str(s, 5, o->tag, sizeof o->tag);
    o->cpu = sqlite3_column_int(s, 6);
    col_str(s, 7, o->commit, sizeof o->commit);
    col_str(s, 8, o->subject, sizeof o->subject);
    col_str(s, 9, o->commit_date, sizeof o->commit_date);
    o->dirty = sqlite3_column_int(s, 10);
    col_str(s, 11, o->hostname, sizeof o->hostname);
    col_str(s, 12, o->vendor, sizeof o->vendor);
    col_str(s, 13, o->model_name, sizeof o->model_name);
    col_str(s, 14, o->microcode, sizeof o->microcode);
    col_str(s, 15, o->kernel, sizeof o->kernel);
    o->family = sqlite3_column_int(s, 16);
    o->model = sqlite3_column_int(s, 17);
    o->stepping = sqlite3_column_int(s, 18);
    o->ncpus = sqlite3_column_int(s, 19);
    col_str(s, 20, o->features, sizeof o->features);
    o->tsc_ghz = sqlite3_column_double(s, 21);
    col_str(s, 22, o->tsc_source, sizeof o->tsc_source);
    o->core_ghz = sqlite3_column_double(s, 23);
    o->core_ghz_spread = sqlite3_column_double(s, 24);
    col_str(s, 25, o->core_ghz_source, sizeof o->core_ghz_source);
    col_str(s, 26, o->pmu, sizeof o->pmu);
    col_str(s, 27, o->version, sizeof o->version);
    col_str(s, 28, o->compiler, sizeof o->compiler);
    col_str(s, 29, o->cflags, sizeof o->cflags);
    col_str(s, 30, o->clock_backend, sizeof o->clock_backend);
    col_str(s, 31, o->core_est_method, sizeof o->core_est_method);
    o->core_est_ghz = col_real_or_nan(s, 32);
    o->core_est_spread = col_real_or_nan(s, 33);
    o->core_est_add_ghz = col_real_or_nan(s, 34);
    o->core_est_imul_ghz = col_real_or_nan(s, 35);
    col_str(s, 36, o->meter_kind, sizeof o->meter_kind);
    o->meter_baseline = col_real_or_nan(s, 37);
    o->meter_spread = col_real_or_nan(s, 38);
    col_str(s, 39, o->meter_why, sizeof o->meter_why);
    col_str(s, 40, o->fingerprint, sizeof o->fingerprint);
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
    sqlite3_stmt *s = stmt(st, q, &rc);
    if (!s)
        return fail(st, rc, what);
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
        return fail(st, rc, what);
    }
    *out = a;
    *n = k;
    return 0;
}

static void fill_event(sqlite3_stmt *s, void *row)
{
    struct cb_event_info *e = row;
    e->id = sqlite3_column_int64(s, 0);
    col_str(s, 1, e->name, sizeof e->name);
    col_str(s, 2, e->part, sizeof e->part);
    col_str(s, 3, e->pfm, sizeof e->pfm);
    col_str(s, 4, e->encoding, sizeof e->encoding);
    col_str(s, 5, e->source, sizeof e->source);
    col_str(s, 6, e->read_method, sizeof e->read_method);
    col_str(s, 7, e->why, sizeof e->why);
    e->supported = sqlite3_column_int(s, 8);
}

static void fill_case(sqlite3_stmt *s, void *row)
{
    struct cb_case_info *c = row;
    c->id = sqlite3_column_int64(s, 0);
    col_str(s, 1, c->probe, sizeof c->probe);
    col_str(s, 2, c->variant, sizeof c->variant);
    col_str(s, 3, c->unit, sizeof c->unit);
    col_str(s, 4, c->op, sizeof c->op);
    col_str(s, 5, c->mode, sizeof c->mode);
    col_str(s, 6, c->verdict, sizeof c->verdict);
    col_str(s, 7, c->detail, sizeof c->detail);
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
    sqlite3_stmt *s = stmt(st, Q_VALUES, &rc);
    if (!s)
        return fail(st, rc, "reading samples");
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
        return fail(st, rc, "reading samples");
    }
    *values = v;
    if (scaled)
        *scaled = sc;
    if (smt)
        *smt = sm;
    *n = k;
    return 0;
}

sqlite3 *cb_store_sqlite(struct cb_store *st)
{
    return st->db;
}
