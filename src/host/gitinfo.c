/* gitinfo.c — ask git about the measured tree, without a shell.
 *
 * git is run with fork/exec and an argument vector, so a --repo path or a
 * --commit text can never be interpreted by a shell. */
#define _GNU_SOURCE
#include "host/gitinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/child.h"

/* How long git may take to answer (CB_GIT_TIMEOUT seconds): a hung git (seen
 * under an emulator) once hung the run with it. */
#define GIT_TIMEOUT_MS 60000

/* Run git with argv, capture up to len-1 bytes of stdout.  Returns git's exit
 * status, -1 when it could not run, or -ETIMEDOUT / -EINTR (killed: it did
 * not answer in time, or the wait was interrupted by SIGINT/SIGTERM). */
static int run_git(char *const argv[], char *out, size_t len)
{
    struct cb_sb got = CB_SB_INIT;
    int rc = cb_child_run(argv, &got, len - 1, cb_child_timeout_env("CB_GIT_TIMEOUT", GIT_TIMEOUT_MS));
    snprintf(out, len, "%s", got.buf);
    cb_sb_release(&got);
    if (rc == -ETIMEDOUT || rc == -EINTR)
        return rc;
    return rc < 0 || rc >= 128 ? -1 : rc;
}

/* A wait that was cut short: the whole read ends with it. */
static int cut(int rc)
{
    return rc == -ETIMEDOUT || rc == -EINTR;
}

int cb_gitinfo_cut(int rc, const char *dir, struct cb_sb *err)
{
    if (!cut(rc))
        return 0;
    if (err && rc == -EINTR)
        cb_sb_setf(err, "interrupted while git was asked for the measured commit: nothing "
                 "was recorded");
    else if (err)
        cb_sb_setf(err, "git did not answer in time when asked for the measured commit (in "
                 "%s): killed, nothing recorded; fix git there, or give it longer with "
                 "CB_GIT_TIMEOUT=SECONDS", dir ? dir : ".");
    return 1;
}

static void chomp(char *s)
{
    s[strcspn(s, "\n")] = '\0';
}

int cb_gitinfo_read(const char *dir, const char *rev, struct cb_gitinfo *info)
{
    memset(info, 0, sizeof *info);
    info->dirty = -1;
    const char *d = dir ? dir : ".";
    char buf[1024];
    char *inside[] = {"git", "-C", (char *)d, "rev-parse", "--is-inside-work-tree", NULL};
    int rc = run_git(inside, buf, sizeof buf);
    if (cut(rc))
        return rc;
    if (rc != 0 || strncmp(buf, "true", 4) != 0) {
        if (rev)
            snprintf(info->commit, sizeof info->commit, "%s", rev);
        return -ENOENT;
    }
    char spec[300];
    snprintf(spec, sizeof spec, "%s^{commit}", rev ? rev : "HEAD");
    char *parse[] = {"git", "-C", (char *)d, "rev-parse", "--verify", "--quiet", spec, NULL};
    if (cut(rc = run_git(parse, buf, sizeof buf)))
        return rc;
    if (rc != 0) {
        if (rev) {
            snprintf(info->commit, sizeof info->commit, "%s", rev);
            return -EINVAL;
        }
        return -ENOENT;    /* a repository with no commits yet */
    }
    chomp(buf);
    snprintf(info->commit, sizeof info->commit, "%.63s", buf);
    char *log[] = {"git", "-C", (char *)d, "log", "-1", "--format=%aI%n%s", info->commit, NULL};
    if (cut(rc = run_git(log, buf, sizeof buf)))
        return rc;
    if (rc == 0) {
        char *nl = strchr(buf, '\n');
        if (nl) {
            *nl = '\0';
            snprintf(info->date, sizeof info->date, "%.39s", buf);
            chomp(nl + 1);
            snprintf(info->subject, sizeof info->subject, "%s", nl + 1);
        }
    }
    /* Dirty only makes sense for the checked-out commit. */
    char head[64] = "";
    char *hp[] = {"git", "-C", (char *)d, "rev-parse", "--verify", "--quiet", "HEAD", NULL};
    if (cut(rc = run_git(hp, head, sizeof head)))
        return rc;
    if (rc == 0) {
        chomp(head);
        if (strcmp(head, info->commit) == 0) {
            char *st[] = {"git", "-C", (char *)d, "status", "--porcelain", "--untracked-files=no", NULL};
            if (cut(rc = run_git(st, buf, sizeof buf)))
                return rc;
            if (rc == 0)
                info->dirty = buf[0] != '\0';
        }
    }
    return 0;
}
