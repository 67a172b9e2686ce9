/* gitinfo.c — ask git about the measured tree, without a shell.
 *
 * git is run with fork/exec and an argument vector, so a --repo path or a
 * --commit text can never be interpreted by a shell. */
#define _GNU_SOURCE
#include "gitinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run git with argv, capture up to len-1 bytes of stdout.  Returns git's exit
 * status, or -1 when it could not run. */
static int run_git(char *const argv[], char *out, size_t len)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(pfd[1], 1);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        execvp("git", argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t got = 0;
    for (;;) {
        char tmp[4096];
        ssize_t r = read(pfd[0], tmp, sizeof tmp);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t take = (size_t)r;
        if (got + take > len - 1)
            take = len - 1 - got;
        memcpy(out + got, tmp, take);
        got += take;
    }
    out[got] = '\0';
    close(pfd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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
    if (run_git(inside, buf, sizeof buf) != 0 || strncmp(buf, "true", 4) != 0) {
        if (rev)
            snprintf(info->commit, sizeof info->commit, "%s", rev);
        return -ENOENT;
    }
    char spec[300];
    snprintf(spec, sizeof spec, "%s^{commit}", rev ? rev : "HEAD");
    char *parse[] = {"git", "-C", (char *)d, "rev-parse", "--verify", "--quiet", spec, NULL};
    if (run_git(parse, buf, sizeof buf) != 0) {
        if (rev) {
            snprintf(info->commit, sizeof info->commit, "%s", rev);
            return -EINVAL;
        }
        return -ENOENT;    /* a repository with no commits yet */
    }
    chomp(buf);
    snprintf(info->commit, sizeof info->commit, "%.63s", buf);
    char *log[] = {"git", "-C", (char *)d, "log", "-1", "--format=%aI%n%s", info->commit, NULL};
    if (run_git(log, buf, sizeof buf) == 0) {
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
    if (run_git(hp, head, sizeof head) == 0) {
        chomp(head);
        if (strcmp(head, info->commit) == 0) {
            char *st[] = {"git", "-C", (char *)d, "status", "--porcelain", "--untracked-files=no", NULL};
            if (run_git(st, buf, sizeof buf) == 0)
                info->dirty = buf[0] != '\0';
        }
    }
    return 0;
}
