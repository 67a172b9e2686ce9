/* output.c — where every `-o FILE` writes; see output.h for why. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "output.h"

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

/* Something that is not a regular file: written straight to, never replaced. */
static int open_special(struct cb_output *o, const char *path, const struct stat *sb, char *err,
                        size_t errlen)
{
    if (S_ISDIR(sb->st_mode)) {
        snprintf(err, errlen, "-o %s is a directory; name a file in it (e.g. %s/report.html)", o->shown,
                 o->shown);
        return -EISDIR;
    }
    if (S_ISBLK(sb->st_mode)) {
        snprintf(err, errlen, "-o %s is a block device; a report is not written onto a disk, name a file",
                 o->shown);
        return -EINVAL;
    }
    int fd = S_ISSOCK(sb->st_mode) ? open_socket(path) : open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && !S_ISSOCK(sb->st_mode))
        fd = -errno;
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = fd < 0 ? fd : -errno;
        if (fd >= 0)
            close(fd);
        snprintf(err, errlen, "cannot open %s for writing: %s", o->shown, strerror(-e));
        return e;
    }
    return 0;
}

/* A regular file, or a name not there yet: a temporary file beside it, put
 * in place by cb_output_close.  An existing file keeps its permissions. */
static int open_regular(struct cb_output *o, const char *target, const struct stat *sb, char *err,
                        size_t errlen)
{
    if (!(o->target = strdup(target)) || asprintf(&o->tmp, "%s.tmp.%ld", target, (long)getpid()) < 0) {
        free(o->target);
        o->tmp = o->target = NULL;
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, sb ? (sb->st_mode & 07777) : 0666);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = -errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        snprintf(err, errlen, "cannot create %s: %s; check the directory exists and is writable", o->shown,
                 strerror(-e));
        free(o->tmp);
        free(o->target);
        o->tmp = o->target = NULL;
        return e;
    }
    if (sb)
        (void)fchmod(fd, sb->st_mode & 07777); /* the umask may have narrowed it */
    return 0;
}

int cb_output_open(struct cb_output *o, const char *path, char *err, size_t errlen)
{
    *o = (struct cb_output){.shown = path ? path : "standard output"};
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat sb;
    if (stat(path, &sb) < 0) {
        if (errno != ENOENT) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -errno;
        }
        /* A dangling symlink is written through, as the shell's > would. */
        struct stat lsb;
        if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode)) {
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
                snprintf(err, errlen, "cannot write through the link %s: %s", path, strerror(errno));
                return -errno;
            }
            return 0;
        }
        return open_regular(o, path, NULL, err, errlen);
    }
    if (!S_ISREG(sb.st_mode))
        return open_special(o, path, &sb, err, errlen);
    /* Through a symlink, the file it names is replaced and the link stays. */
    char *real = realpath(path, NULL);
    if (!real) {
        snprintf(err, errlen, "cannot resolve %s: %s", path, strerror(errno));
        return -errno;
    }
    int rc = open_regular(o, real, &sb, err, errlen);
    free(real);
    return rc;
}

int cb_output_close(struct cb_output *o, int ok, char *err, size_t errlen)
{
    int rc = 0;
    if (!o->f)
        return 0;
    if (ferror(o->f) || !ok)
        rc = -EIO;
    if (o->f == stdout) {
        if (fflush(stdout) != 0 && rc == 0)
            rc = -errno;
    } else if (fclose(o->f) != 0 && rc == 0) {
        rc = -errno;
    }
    o->f = NULL;
    if (o->tmp) {
        if (rc == 0 && rename(o->tmp, o->target) != 0)
            rc = -errno;
        if (rc < 0)
            unlink(o->tmp);
    }
    if (rc < 0 && ok)
        snprintf(err, errlen, "cannot write %s: %s", o->shown, strerror(-rc));
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    return rc;
}
