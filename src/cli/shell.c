/* shell.c — see shell.h. */
#define _GNU_SOURCE
#include "cli/shell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "util/child.h"

char *cb_shell_join(const char *prefix, const char *const *args, size_t nargs)
{
    /* Worst case: every byte a quote, which becomes four ('\''). */
    size_t len = strlen(prefix) + 1;
    for (size_t i = 0; i < nargs; i++)
        len += 3 + 4 * strlen(args[i]);
    char *out = malloc(len), *p = out;
    if (!out)
        return NULL;
    p = stpcpy(p, prefix);
    for (size_t i = 0; i < nargs; i++) {
        *p++ = ' ';
        *p++ = '\'';
        for (const char *c = args[i]; *c; c++) {
            if (*c == '\'')
                p = stpcpy(p, "'\\''");
            else
                *p++ = *c;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

/* A command that records a run may take long, but not forever
 * (CB_EXEC_TIMEOUT seconds): child.h says why every wait has a bound. */
#define EXEC_TIMEOUT_MS (1800 * 1000)

int cb_shell_run(const char *cmd)
{
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        dup2(2, 1);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int limit = cb_child_timeout_env("CB_EXEC_TIMEOUT", EXEC_TIMEOUT_MS);
    struct cb_child c = {.pid = pid, .fd = -1, .timeout_ms = limit, .grace_ms = 10000};
    int rc = cb_child_wait(&c);
    if (rc == -ETIMEDOUT) {
        fprintf(stderr, "cyclebudget: '%.200s' did not finish in %d s: killed (CB_EXEC_TIMEOUT=SECONDS "
                "gives it longer)\n", cmd, limit / 1000);
        return 124;
    }
    if (rc == -EINTR)
        return 130;
    return rc < 0 ? rc : cb_child_exit_code(c.status);
}
