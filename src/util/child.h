/* child.h — every child process cyclebudget starts (git, the plugin checks,
 * callgrind, compare --rerun's commands, valgrind --version) is waited for
 * here, with a bound.
 *
 * Why: each was waited for with waitpid() and no limit.  git
 * hung under an emulator and hung the run with it, and a SIGTERM during the
 * wait only restarted the read (the stop handler returns, EINTR, retry), so
 * neither ^C nor a CI job's timeout ended the command.  Here a wait ends
 * when the child exits, when its time is up (the child is killed and the
 * caller says so), or when a signal this process handles arrives (SIGINT,
 * SIGTERM: the child is asked to stop with SIGTERM, given a grace period,
 * then killed), so that the command can end cleanly and mark its run. */
#ifndef CB_CHILD_H
#define CB_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/strbuf.h"

struct cb_child {
    pid_t pid;                  /* the child, already started */
    int fd;                     /* its output, read to EOF while waiting (closed); -1 none */
    struct cb_sb *out;          /* where that output goes; NULL: read and dropped */
    size_t max_out;             /* keep at most this much of it (0: all) */
    int timeout_ms;             /* then it is killed; <= 0: no limit */
    int grace_ms;               /* after SIGTERM on an interruption, before SIGKILL */
    /* Set by the stop handler (cmd.h's cb_stop_flag): a signal interrupts
     * the wait only when it set this.  NULL: any handled signal does. */
    volatile sig_atomic_t *stop;
    int status;                 /* waitpid's status, once reaped */
};

/* Wait for c->pid as above: 0 (reaped; c->status), -ETIMEDOUT (killed when
 * its time was up, and reaped), -EINTR (interrupted: stopped, reaped), or
 * another negative errno. */
int cb_child_wait(struct cb_child *c);

/* Run argv (execvp: no shell) with stdin and stderr on /dev/null and its
 * stdout into out, for at most timeout_ms: its exit status (0..255; 128 + N
 * for a signal N), or -ETIMEDOUT, -EINTR, -ENOENT (could not be started:
 * 127 from the child), or another negative errno. */
int cb_child_run(char *const argv[], struct cb_sb *out, size_t max_out, int timeout_ms);

/* The exit status as a shell would show it: 0..255, 128 + N for signal N. */
int cb_child_exit_code(int status);

/* Milliseconds from the environment variable name (a number of seconds),
 * or def_ms when it is unset or not a positive number. */
int cb_child_timeout_env(const char *name, int def_ms);

#endif
