/* plugin_child.c — a plugin's code run in a forked child (plugin_internal.h):
 * its verification, so that a variant that crashes on an input is BAD by
 * name with the signal instead of ending the run. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/plugin_internal.h"
#include "util/child.h"
#include "util/strbuf.h"

#define VERIFY_SECONDS 300

void cb_plugin_default_faults(void)
{
    static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        signal(faults[i], SIG_DFL);
}

/* verify(v) in a forked child: the user's code is run on thousands of
 * inputs before it is ever timed, and a variant that crashes there (reads
 * past its buffer, divides by zero) must be BAD by name with the signal,
 * not end the run.  Returns verify's result, with its verdict in *out. */
int cb_plugin_verify_in_child(int (*verify)(const struct cb_variant *, struct cb_verdict *),
                           const struct cb_variant *v, struct cb_verdict *out)
{
    struct {
        int rc;
        struct cb_verdict vd;
    } r;
    memset(out, 0, sizeof *out);
    int fd[2];
    if (pipe(fd) < 0)
        return -errno;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fd[0]);
        close(fd[1]);
        return -e;
    }
    if (pid == 0) {
        close(fd[0]);
        cb_plugin_default_faults();
        alarm(VERIFY_SECONDS);
        memset(&r, 0, sizeof r);
        r.rc = verify(v, &r.vd);
        _exit(write(fd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    struct cb_sb got = CB_SB_INIT;
    struct cb_child c = {.pid = pid, .fd = fd[0], .out = &got, .max_out = sizeof r,
                         .timeout_ms = (VERIFY_SECONDS + 5) * 1000};
    int wrc = cb_child_wait(&c);
    size_t n = got.len;
    if (n == sizeof r)
        memcpy(&r, got.buf, sizeof r);
    cb_sb_release(&got);
    if (wrc == -EINTR)
        return -EINTR;
    int st = wrc == -ETIMEDOUT ? (int)SIGALRM : c.status;   /* as if its alarm had fired */
    if (wrc == 0 && n == sizeof r && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        *out = r.vd;
        return r.rc;
    }
    out->ok = 0;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
        snprintf(out->detail, sizeof out->detail, "did not finish verification in %d s",
                 VERIFY_SECONDS);
    else if (WIFSIGNALED(st))
        snprintf(out->detail, sizeof out->detail, "crashed while being verified (signal %d: %s)",
                 WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(out->detail, sizeof out->detail, "exited (status %d) while being verified",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
