/* output.c — where every `-o FILE` writes; see output.h for why. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/output.h"
#include "cli/termout.h"

/* Each output's writes go through this cookie, which keeps the errno of the
 * first that failed: stdio's error flag alone says only "Input/output
 * error" once the errno of the failed write is gone. */
struct out_cookie {
    int fd;
    int err;
};

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
    struct out_cookie *k = cookie;
    for (size_t done = 0; done < n;) {
        ssize_t w = write(k->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (!k->err)
                k->err = errno;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int out_close(void *cookie)
{
    struct out_cookie *k = cookie;
    if (close(k->fd) != 0 && !k->err)
        k->err = errno;
    return k->err ? -1 : 0;
}

/* fd as o->f; the fd is closed when this fails. */
static int out_wrap(struct cb_output *o, int fd)
{
    struct out_cookie *k = malloc(sizeof *k);
    if (k) {
        *k = (struct out_cookie){.fd = fd};
        o->f = fopencookie(k, "w", (cookie_io_functions_t){.write = out_write, .close = out_close});
    }
    if (!k || !o->f) {
        free(k);
        close(fd);
        o->f = NULL;
        return -ENOMEM;
    }
    o->ck = k;
    return 0;
}

/* The temporary file being written, for a stop signal's handler to remove
 * (cb_output_abandon): a report killed half-way leaves nothing behind. */
static char *volatile live_tmp;

void cb_output_abandon(void)
{
    char *p = live_tmp;
    if (p)
        unlink(p);
}

/* A Unix socket cannot be open()ed: connect to it as a stream. */
static int open_socket(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return -ENAMETOOLONG;
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
}

#define FIFO_WAIT_MS 3000

/* Something that is not a regular file: written straight to, never replaced. */
static int open_special(struct cb_output *o, const char *path, const struct stat *sb, struct cb_sb *err)
{
    if (S_ISDIR(sb->st_mode)) {
        cb_sb_setf(err, "-o %s is a directory; name a file in it (e.g. %s/report.html)", o->shown,
                 o->shown);
        return -EISDIR;
    }
    if (S_ISBLK(sb->st_mode)) {
        cb_sb_setf(err, "-o %s is a block device; a report is not written onto a disk, name a file",
                 o->shown);
        return -EINVAL;
    }
    /* A FIFO with no reader would block open() forever (a CI job with a
     * pipe no one reads): O_NONBLOCK fails with ENXIO instead, tried again
     * for FIFO_WAIT_MS (a reader started beside us may not have opened it
     * yet), and is cleared again, so that writes wait for a slow reader as
     * a pipe's do. */
    int fd = -ENXIO;
    for (int waited = 0; fd == -ENXIO; waited += 50) {
        if (waited)
            nanosleep(&(struct timespec){0, 50 * 1000000L}, NULL);
        fd = S_ISSOCK(sb->st_mode) ? open_socket(path)
             : open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (S_ISFIFO(sb->st_mode) ? O_NONBLOCK : 0));
        if (fd < 0 && !S_ISSOCK(sb->st_mode))
            fd = -errno;
        if (!S_ISFIFO(sb->st_mode) || waited >= FIFO_WAIT_MS)
            break;
    }
    if (fd == -ENXIO && S_ISFIFO(sb->st_mode)) {
        cb_sb_setf(err, "-o %s is a FIFO that no process is reading (none came in %d s): "
                 "start its reader first (e.g. 'cat %s &')", o->shown, FIFO_WAIT_MS / 1000, o->shown);
        return -ENXIO;
    }
    if (fd >= 0 && S_ISFIFO(sb->st_mode))
        (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    int e = fd < 0 ? fd : out_wrap(o, fd);
    if (e < 0) {
        cb_sb_setf(err, "cannot open %s for writing: %s", o->shown, strerror(-e));
        return e;
    }
    return 0;
}

/* A regular file, or a name not there yet: a temporary file beside it, put
 * in place by cb_output_close.  An existing file keeps its permissions. */
static int open_regular(struct cb_output *o, const char *target, const struct stat *sb, struct cb_sb *err)
{
    if (!(o->target = strdup(target)) || asprintf(&o->tmp, "%s.tmp.%ld", target, (long)getpid()) < 0) {
        free(o->target);
        o->tmp = o->target = NULL;
        cb_sb_setf(err, "out of memory");
        return -ENOMEM;
    }
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, sb ? (sb->st_mode & 07777) : 0666);
    int e = fd < 0 ? -errno : 0;
    if (fd >= 0 && sb)
        (void)fchmod(fd, sb->st_mode & 07777); /* the umask may have narrowed it */
    if (fd >= 0 && (e = out_wrap(o, fd)) < 0)
        unlink(o->tmp);
    if (e < 0) {
        cb_sb_setf(err, "cannot create %s: %s; check the directory exists and is writable", o->shown,
                 strerror(-e));
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
        return e;
    }
    live_tmp = o->tmp;
    return 0;
}

/* ---- an output that would overwrite the store ------------------------- */

/* The absolute name that writing path would create or replace: symlinks
 * followed (a dangling one to where it points), the directory resolved.
 * NULL when its directory does not exist (nothing can be written there). */
static char *final_name(const char *path)
{
    struct cb_sb cur = CB_SB_INIT;
    cb_sb_adds(&cur, path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat lsb;
        char to[PATH_MAX];
        ssize_t n;
        if (lstat(cur.buf, &lsb) != 0 || !S_ISLNK(lsb.st_mode) ||
            (n = readlink(cur.buf, to, sizeof to - 1)) < 0)
            break;
        to[n] = '\0';
        char *slash = strrchr(cur.buf, '/');
        if (to[0] == '/' || !slash)
            cb_sb_reset(&cur);
        else
            cur.len = (size_t)(slash - cur.buf) + 1, cur.buf[cur.len] = '\0';
        cb_sb_adds(&cur, to);
    }
    char *slash = strrchr(cur.buf, '/');
    const char *base = slash ? slash + 1 : cur.buf;
    if (slash)
        *slash = '\0';
    char *dir = realpath(slash ? (cur.buf[0] ? cur.buf : "/") : ".", NULL);
    char *out = NULL;
    if (dir && asprintf(&out, "%s/%s", strcmp(dir, "/") ? dir : "", base) < 0)
        out = NULL;
    free(dir);
    cb_sb_release(&cur);
    return out;
}

static int same_file(const struct stat *a, const char *path)
{
    struct stat b;
    return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* Is path (resolved: name) the store, its -wal or its -shm?  By name, for
 * what SQLite would create beside the store (it resolves links the same
 * way), and by inode, for a hard link or another mount of the file. */
static const char *store_part(const char *path, const char *name, const char *store)
{
    static const char *const parts[] = {"", "-wal", "-shm"};
    static const char *const said[] = {"the store", "the store's -wal file", "the store's -shm file"};
    char *sname = final_name(store);
    struct stat osb;
    int there = stat(path, &osb) == 0;
    const char *hit = NULL;
    for (int i = 0; i < 3 && !hit; i++) {
        struct cb_sb p = CB_SB_INIT;
        cb_sb_addf(&p, "%s%s", sname ? sname : store, parts[i]);
        if ((name && strcmp(name, p.buf) == 0) || (there && same_file(&osb, p.buf)))
            hit = said[i];
        cb_sb_release(&p);
    }
    free(sname);
    return hit;
}

int cb_output_guard(const char *path, const char *store, struct cb_sb *err)
{
    if (!path || strcmp(path, "-") == 0)
        return 0;
    if (!*path) {
        cb_sb_addf(err, "-o '': give a file name, or - for standard output");
        return -EINVAL;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        cb_sb_addf(err, "%s is a directory; name a file in it (e.g. %s/report.html)", path, path);
        return -EISDIR;
    }
    char *name = final_name(path);
    if (!name) {
        cb_sb_addf(err, "cannot write %s: its directory does not exist (%s); create it or choose "
                   "another file", path, strerror(errno));
        free(name);
        return -ENOENT;
    }
    char *slash = strrchr(name, '/');
    *slash = '\0';
    int e = access(name[0] ? name : "/", W_OK | X_OK) == 0 ? 0 : errno;
    struct statfs fs;
    int pseudo = statfs(name[0] ? name : "/", &fs) == 0 &&
                 (fs.f_type == 0x9fa0 /* proc */ || fs.f_type == 0x62656572 /* sysfs */);
    *slash = '/';
    if (pseudo) {
        cb_sb_addf(err, "-o %s is in /proc or /sys, a view of the kernel, not a place for a file; "
                   "name a regular file", path);
        free(name);
        return -EINVAL;
    }
    if (e && stat(path, &sb) != 0) {
        cb_sb_addf(err, "cannot write %s: its directory is not writable (%s); choose another file",
                   path, strerror(e));
        free(name);
        return -EACCES;
    }
    const char *hit = store && *store && !strstr(store, "://") ? store_part(path, name, store) : NULL;
    free(name);
    if (hit) {
        cb_sb_addf(err, "%s is %s (--db %s): writing there would destroy it; choose another file",
                   path, hit, store);
        return -EINVAL;
    }
    return 0;
}

int cb_output_check(const char *path, const char *store, struct cb_sb *err)
{
    struct cb_sb why = CB_SB_INIT;
    int rc = cb_output_guard(path, store, &why);
    if (rc < 0)
        cb_sb_setf(err, "%s", why.buf);
    cb_sb_release(&why);
    return rc < 0 ? -EINVAL : 0;
}

int cb_output_open(struct cb_output *o, const char *path, const char *store, struct cb_sb *err)
{
    *o = (struct cb_output){.shown = path ? path : "standard output"};
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    /* Again at the moment of writing: the names may have changed since the
     * command's parse step checked them. */
    struct cb_sb why = CB_SB_INIT;
    int g = cb_output_guard(path, store, &why);
    if (g < 0) {
        cb_sb_setf(err, "%s", why.buf);
        cb_sb_release(&why);
        return g;
    }
    cb_sb_release(&why);
    struct stat sb;
    if (stat(path, &sb) < 0) {
        if (errno != ENOENT) {
            cb_sb_setf(err, "cannot write %s: %s", path, strerror(errno));
            return -errno;
        }
        /* A dangling symlink is written through, as the shell's > would. */
        struct stat lsb;
        if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode)) {
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            int e = fd < 0 ? -errno : out_wrap(o, fd);
            if (e < 0)
                cb_sb_setf(err, "cannot write through the link %s: %s", path, strerror(-e));
            return e;
        }
        return open_regular(o, path, NULL, err);
    }
    if (!S_ISREG(sb.st_mode))
        return open_special(o, path, &sb, err);
    /* Through a symlink, the file it names is replaced and the link stays. */
    char *real = realpath(path, NULL);
    if (!real) {
        cb_sb_setf(err, "cannot resolve %s: %s", path, strerror(errno));
        return -errno;
    }
    int rc = open_regular(o, real, &sb, err);
    free(real);
    return rc;
}

int cb_output_close(struct cb_output *o, int ok, struct cb_sb *err)
{
    if (!o->f)
        return 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    if (o->f != stdout && fclose(o->f) != 0)
        bad = 1;
    int e = o->ck ? o->ck->err : cb_term_errno(o->f);
    o->f = NULL;
    int rc = bad ? -(e ? e : EIO) : ok ? 0 : -EIO;
    if (o->tmp) {
        if (rc == 0 && rename(o->tmp, o->target) != 0)
            rc = -errno;
        if (rc < 0)
            unlink(o->tmp);
        live_tmp = NULL;
    }
    if (rc < 0 && (ok || bad))
        cb_sb_setf(err, "cannot write %s: %s", o->shown, cb_write_strerror(-rc));
    free(o->tmp);
    free(o->target);
    free(o->ck);
    o->tmp = o->target = NULL;
    o->ck = NULL;
    return rc;
}

/* A command with no stop handler of its own ends here: the output it was
 * writing removed (never half a file), then 130, as for SIGINT, whichever
 * of SIGINT, SIGTERM or SIGHUP came (SIGTERM's own death would be 143). */
static void on_quit_signal(int sig)
{
    (void)sig;
    cb_output_abandon();
    _exit(130);
}

void cb_catch_quit_signals(void)
{
    struct sigaction sa = {.sa_handler = on_quit_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* Past ulimit -f a write fails with EFBIG, said as such, instead of
     * killing the process with no word and a half-written file. */
    signal(SIGXFSZ, SIG_IGN);
}
