/* child.c — bounded waits for child processes; see child.h for why. */
#define _GNU_SOURCE
#include "util/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define TICK_MS 20

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reap the child, waiting at most ms: 1 reaped, 0 still there. */
static int reap_within(struct cb_child *c, long ms)
{
    long end = now_ms() + ms;
    for (;;) {
        pid_t w = waitpid(c->pid, &c->status, WNOHANG);
        if (w == c->pid || (w < 0 && errno == ECHILD))
            return 1;
        if (now_ms() >= end)
            return 0;
        struct timespec tick = {0, TICK_MS * 1000000L};
        nanosleep(&tick, NULL);
    }
}

/* End the child, always reaped.  Gently (an interruption): a child in our
 * process group got the terminal's ^C too and may be marking its run
 * aborted, so it has grace_ms to end by itself; then SIGTERM (a CI's TERM
 * reached only us) and grace_ms more; then SIGKILL.  A second signal at
 * once would kill a collector before it marked its run. */
static void end_child(struct cb_child *c, int gently)
{
    if (gently && c->grace_ms > 0) {
        if (reap_within(c, c->grace_ms))
            return;
        kill(c->pid, SIGTERM);
        if (reap_within(c, c->grace_ms))
            return;
    }
    kill(c->pid, SIGKILL);
    while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
        ;
}

static void close_fd(struct cb_child *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

/* Read what is there; 1 at EOF or on an error (the fd is closed), else 0. */
static int drain(struct cb_child *c)
{
    char tmp[4096];
    ssize_t r = read(c->fd, tmp, sizeof tmp);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0) {
        close_fd(c);
        return 1;
    }
    if (c->out) {
        size_t take = (size_t)r;
        if (c->max_out && c->out->len + take > c->max_out)
            take = c->out->len < c->max_out ? c->max_out - c->out->len : 0;
        cb_sb_add(c->out, tmp, take);
    }
    return 0;
}

int cb_child_wait(struct cb_child *c)
{
    long end = c->timeout_ms > 0 ? now_ms() + c->timeout_ms : 0;
    for (;;) {
        long left = end ? end - now_ms() : TICK_MS;
        if (end && left <= 0) {
            close_fd(c);
            end_child(c, 0);
            return -ETIMEDOUT;
        }
        int wait_ms = left < TICK_MS ? (int)left : TICK_MS, intr = 0;
        if (c->fd >= 0) {
            struct pollfd p = {.fd = c->fd, .events = POLLIN};
            int r = poll(&p, 1, wait_ms);
            intr = r < 0 && errno == EINTR;
            if (r > 0)
                drain(c);
        } else {
            pid_t w = waitpid(c->pid, &c->status, WNOHANG);
            if (w == c->pid)
                return 0;
            if (w < 0 && errno != EINTR)
                return -errno;
            struct timespec tick = {0, wait_ms * 1000000L};
            intr = (w < 0 && errno == EINTR) || nanosleep(&tick, NULL) < 0;
        }
        if ((intr && !c->stop) || (c->stop && *c->stop)) {
            close_fd(c);
            end_child(c, 1);
            return -EINTR;
        }
    }
}

int cb_child_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

int cb_child_run(char *const argv[], struct cb_sb *out, size_t max_out, int timeout_ms)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = -errno;
        close(pfd[0]);
        close(pfd[1]);
        return e;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(pfd[1], 1);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    struct cb_child c = {.pid = pid, .fd = pfd[0], .out = out, .max_out = max_out,
                         .timeout_ms = timeout_ms, .grace_ms = 500};
    int rc = cb_child_wait(&c);
    if (rc < 0)
        return rc;
    rc = cb_child_exit_code(c.status);
    return rc == 127 ? -ENOENT : rc;
}

int cb_child_timeout_env(const char *name, int def_ms)
{
    const char *v = getenv(name);
    char *end;
    double s = v && *v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || !(s > 0) || s > 86400)
        return def_ms;
    return (int)(s * 1000);
}
