/* shell.c — see shell.h. */
#define _GNU_SOURCE
#include "shell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -ECHILD;
}
