/* precheck.c — what is decided about a store file before SQLite opens it
 * (store_open.h): that it is there or may be made, readable and writable
 * as asked, an SQLite file and ours, whole, and not from a newer
 * cyclebudget.  A refused file must be left byte-for-byte as it was, and
 * SQLite may write (a -shm, a checkpoint) as soon as it opens a file. */
#include "store/store_open.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cb_st_newer_msg(const char *path, long have, int latest, struct cb_sb *err)
{
    cb_st_msg(err,
        "%s was written by a newer cyclebudget (schema %ld, this one knows %d): "
        "upgrade cyclebudget or use another --db", path, have, latest);
    return -EPROTO;
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

/* No file there: fine for a writer whose directory lets it create one. */
static int precheck_missing(struct cb_st_open *o, int e)
{
    const char *path = o->path;
    if (e != ENOENT) {
        cb_st_msg(o->err, "%s: %s", path, strerror(e));
        return -e;
    }
    if (o->mode != CB_STORE_WRITE) {
        cb_st_msg(o->err, "%s: no such database (nothing has been recorded there "
                  "yet; check --db)", path);
        return -ENOENT;
    }
    struct stat db;
    if (stat(o->dir, &db) != 0 || !S_ISDIR(db.st_mode)) {
        cb_st_msg(o->err, "%s: directory %s does not exist", path, o->dir);
        return -ENOENT;
    }
    if (access(o->dir, W_OK | X_OK) != 0) {
        cb_st_msg(o->err, "%s: cannot create the database: directory %s is not "
                  "writable", path, o->dir);
        return -EACCES;
    }
    o->fresh = 1;
    o->writable = 1;
    return 0;
}

/* A file is there: is it one we may read, and write when asked to? */
static int precheck_access(struct cb_st_open *o, const struct stat *sb)
{
    const char *path = o->path;
    if (S_ISDIR(sb->st_mode)) {
        cb_st_msg(o->err, "%s is a directory: give --db a file name, e.g. "
                  "%s/cyclebudget.db", path, path);
        return -EISDIR;
    }
    if (!S_ISREG(sb->st_mode)) {
        cb_st_msg(o->err, "%s: not a regular file, so not a cyclebudget database",
                  path);
        return -EINVAL;
    }
    if (access(path, R_OK) != 0) {
        cb_st_msg(o->err, "%s: cannot read it (%s)", path, strerror(errno));
        return -EACCES;
    }
    /* WAL needs the -wal and -shm files beside the database. */
    o->writable = access(path, W_OK) == 0 && access(o->dir, W_OK | X_OK) == 0;
    if (o->mode == CB_STORE_WRITE && !o->writable) {
        cb_st_msg(o->err, "%s: cannot write it (or its directory %s, where SQLite "
                  "keeps the -wal and -shm files)", o->path, o->dir);
        return -EACCES;
    }
    return 0;
}

/* Truncated: the header's page count (valid when "version-valid-for"
 * matches the change counter) says the file should be longer.  Not
 * while a -wal file has frames: a checkpoint cut short by a crash can
 * leave the main file short, and SQLite finishes it from the WAL. */
static int precheck_truncated(struct cb_st_open *o, const unsigned char *h, off_t size)
{
    uint32_t pgsz = (uint32_t)h[16] << 8 | h[17], npages = be32(h + 28);
    if (pgsz == 1)
        pgsz = 65536;
    if (npages && be32(h + 24) == be32(h + 92) && (off_t)pgsz * npages > size) {
        struct stat wb;
        if (stat(o->wal, &wb) != 0 || wb.st_size == 0) {
            cb_st_msg(o->err, "%s is truncated (%lld of %lld bytes): restore it "
                      "from a backup; 'sqlite3 %s .recover' may save the rows left", o->path,
                      (long long)size, (long long)pgsz * npages, o->path);
            return -EBADMSG;
        }
    }
    return 0;
}

/* The 100-byte SQLite header: ours, whole, and not from a newer schema? */
static int precheck_header(struct cb_st_open *o, const struct stat *sb)
{
    const char *path = o->path;
    unsigned char h[100];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        cb_st_msg(o->err, "%s: %s", path, strerror(e));
        return e == EACCES || e == EPERM ? -EACCES : -e;
    }
    ssize_t n = read(fd, h, sizeof h);
    /* The size now, not at the stat before: another collector creating the
     * database may have written its first page in between, and that header
     * against the old size 0 would read as a truncated file. */
    struct stat now;
    off_t size = fstat(fd, &now) == 0 ? now.st_size : sb->st_size;
    close(fd);
    if (n == 0 && size == 0) {
        if (o->mode != CB_STORE_WRITE) {
            cb_st_msg(o->err, "%s: empty file, nothing recorded there (check --db)",
                      path);
            return -EINVAL;
        }
        o->fresh = 1;
        return 0;
    }
    if (n < (ssize_t)sizeof h || memcmp(h, "SQLite format 3", 16) != 0) {
        cb_st_msg(o->err, "%s: not an SQLite database, so not a cyclebudget "
                  "database (give --db another file)", path);
        return -EINVAL;
    }
    uint32_t app = be32(h + 68);
    if (app != 0 && app != CB_APP_ID) {
        cb_st_msg(o->err, "%s: an SQLite database of another program "
                  "(application_id 0x%08x), not cyclebudget's", path, app);
        return -EINVAL;
    }
    int r = precheck_truncated(o, h, size);
    if (r < 0)
        return r;
    o->size = size;
    /* The header's copy of user_version: current unless a WAL holds newer
     * pages, which the check after opening covers. */
    int32_t uv = (int32_t)be32(h + 60);
    if (uv > o->latest)
        return cb_st_newer_msg(path, uv, o->latest, o->err);
    return 0;
}

/* SQLite opens a file by its absolute name, and its own names beside it
 * (the name and "-journal") must fit in 512 bytes: a longer --db, or a
 * short one under a deep working directory, failed as "unable to open
 * database file".  Said here by what it is. */
#define CB_ST_PATH_MAX (512 - 8)

static int precheck_length(struct cb_st_open *o)
{
    size_t n = strlen(o->path);
    char cwd[PATH_MAX];
    if (o->path[0] != '/' && getcwd(cwd, sizeof cwd))
        n += strlen(cwd) + 1;
    else if (o->path[0] != '/')
        n = (size_t)PATH_MAX;   /* a working directory too deep to name */
    if (n <= CB_ST_PATH_MAX)
        return 0;
    cb_st_msg(o->err, "%.60s...: the store's path is %zu bytes long%s, and SQLite opens a file by a "
              "path of at most %d: give --db a shorter path (a symlink to it, or a nearer working "
              "directory)", o->path, n, o->path[0] == '/' ? "" : " from the working directory",
              CB_ST_PATH_MAX);
    return -EINVAL;
}

int cb_st_precheck(struct cb_st_open *o)
{
    struct stat sb;
    int r0 = precheck_length(o);
    if (r0 < 0)
        return r0;
    dir_of(o->path, o->dir, sizeof o->dir);
    snprintf(o->wal, sizeof o->wal, "%s-wal", o->path);
    o->fresh = 0;
    o->writable = 0;
    o->size = 0;
    if (stat(o->path, &sb) != 0)
        return precheck_missing(o, errno);
    int r = precheck_access(o, &sb);
    return r < 0 ? r : precheck_header(o, &sb);
}
