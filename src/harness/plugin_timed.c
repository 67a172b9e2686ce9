/* plugin_timed.c — a plugin's case timed in a forked child, so that its
 * code cannot hurt the run.
 *
 * A plugin's function runs thousands of times while timed.  In the
 * collector's own process, one that crashed, called exit(), forked, looped,
 * moved the process to another CPU, set an alarm, took SIGINT or changed the
 * locale ended or bent the whole run: a run left "running", cases measured
 * twice by a forked copy, Ctrl-C ignored, later cases on another CPU.  Here
 * the case (setup, warm-up, batches, teardown: cb_harness_measure) runs in a
 * child in a process group of its own, pinned as its parent is (affinity is
 * inherited) and counting with counters of its own (perf_event counts the
 * thread that opened it); its measurement comes back through a pipe, whole
 * or not at all, and is stored by the parent as any other.  The parent
 * waits in slices: a signal that stops the command, or no progress in the
 * child for CB_PLUGIN_STALL seconds, kills the child's group.  A child that
 * dies, exits, forks, or leaves its CPU, an alarm, SIGINT's handling or the
 * locale changed ends its own case as BAD with the reason. */
#define _GNU_SOURCE
#include "harness/plugin.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/child.h"
#include "counters/counters.h"
#include "counters/events.h"

#define STALL_DEFAULT_MS 30000
#define MAGIC 0x63625450u   /* "cbTP" */

/* What the child and the parent share: the child's progress, and whether
 * a copy of it was forked. */
struct shared {
    volatile uint64_t beats;
    volatile int forked;
};

/* The child's result, then n deltas, n rounds and n meter readings. */
struct result {
    unsigned magic;
    int rc;
    char why[200];               /* a reason for BAD, "" none */
    uint64_t bytes_per_op;
    char pair[64];
    struct cb_measurement m;     /* its pointers meaningless here */
};

static struct shared *sh;
static pid_t child_pid;
static const struct cb_backend *inner;

static int beat_read(void *ctx, struct cb_counters *cs, struct cb_reading *r, int end)
{
    (void)ctx;
    sh->beats++;
    return inner->read(inner->ctx, cs, r, end);
}

static void beat_run(void *ctx, struct cb_case *c, uint64_t iters)
{
    (void)ctx;
    inner->run(inner->ctx, c, iters);
    sh->beats++;
}

static double beat_per_tick(void *ctx, int imul, int side)
{
    (void)ctx;
    return inner->core_per_tick(inner->ctx, imul, side);
}

static double beat_meter(void *ctx)
{
    (void)ctx;
    return inner->meter(inner->ctx);
}

/* A copy of the timing child made by the plugin's fork(): it ends at
 * once (no fork bomb, no second measurement), and the case is BAD. */
static void forked_copy(void)
{
    if (getpid() != child_pid) {
        sh->forked = 1;
        _exit(0);
    }
}

/* The counters again, as the child's own: the inherited descriptors count
 * the parent, and closing them is all the child may do with them (an
 * ioctl would disable the parent's group).  0 or a negative errno. */
static int reopen_counters(struct cb_counters *cs)
{
    struct cb_event_spec specs[CB_MAX_COUNTERS];
    struct cb_counters old = *cs;
    long pagesz = sysconf(_SC_PAGESIZE);
    int n = 0;
    for (int i = 0; i < cs->n; i++) {
        if (cs->c[i].page)
            munmap(cs->c[i].page, (size_t)pagesz);
        if (cs->c[i].fd >= 0)
            close(cs->c[i].fd);
        if (cs->c[i].spec.source == CB_SRC_PMU || cs->c[i].spec.source == CB_SRC_SOFTWARE)
            specs[n++] = cs->c[i].spec;
    }
    int rc = cb_counters_open(cs, specs, n, old.tsc_ghz, old.core_ghz);
    if (rc < 0)
        return rc;
    if (cs->n != old.n)
        return -EPROTO;
    for (int i = 0; i < cs->n; i++)
        if (strcmp(cs->c[i].spec.name, old.c[i].spec.name) != 0 ||
            cs->c[i].supported != old.c[i].supported)
            return -EPROTO;
    return 0;
}

/* What the timed code changed that a case must not: why, or "". */
static void changed_state(int pinned, const char *locale, char *why, size_t len)
{
    cpu_set_t set;
    struct sigaction sa;
    sigset_t mask;
    struct itimerval it;
    why[0] = 0;
    if (sh->forked || waitpid(-1, NULL, WNOHANG) >= 0) {
        snprintf(why, len, "forked a process while being timed (fork): a copy of the case "
                 "would have been measured and stored twice");
    } else if (sched_getaffinity(0, sizeof set, &set) < 0 || CPU_COUNT(&set) != 1 ||
               !CPU_ISSET(pinned, &set) || sched_getcpu() != pinned) {
        snprintf(why, len, "changed its CPU affinity while being timed (sched_setaffinity): "
                 "its samples were not all taken on CPU %d, the run's", pinned);
    } else if (alarm(0) != 0 || (getitimer(ITIMER_REAL, &it) == 0 &&
                                 (it.it_value.tv_sec || it.it_value.tv_usec))) {
        snprintf(why, len, "set an alarm while being timed (alarm/setitimer): its signal would "
                 "have ended the run");
    } else if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL) {
        snprintf(why, len, "changed the handling of SIGINT while being timed: Ctrl-C would no "
                 "longer end the run");
    } else if (sigprocmask(SIG_BLOCK, NULL, &mask) == 0 &&
               (sigismember(&mask, SIGINT) || sigismember(&mask, SIGTERM))) {
        snprintf(why, len, "blocked SIGINT or SIGTERM while being timed: Ctrl-C would no "
                 "longer end the run");
    } else {
        const char *now = setlocale(LC_ALL, NULL);
        if (!now || strcmp(now, locale) != 0)
            snprintf(why, len, "changed the locale while being timed (setlocale to %.40s): "
                     "the run's numbers would be printed in it", now ? now : "?");
    }
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The child: the case, then the checks, then the result down the pipe. */
static __attribute__((noreturn)) void timing_child(struct cb_harness *h, struct cb_case *c,
                                                   int pinned, const struct cb_timed_work *w,
                                                   int fd)
{
    static const int dfl[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM, SIGINT,
                              SIGTERM, SIGXFSZ};
    child_pid = getpid();
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
        signal(dfl[i], SIG_DFL);
    pthread_atfork(NULL, NULL, forked_copy);
    char locale[256];
    const char *l = setlocale(LC_ALL, NULL);
    snprintf(locale, sizeof locale, "%s", l ? l : "C");
    static struct result r;
    r.magic = MAGIC;
    inner = h->be;
    struct cb_backend beat = *h->be;
    beat.read = beat_read;
    beat.run = beat_run;
    beat.core_per_tick = beat_per_tick;
    beat.meter = beat_meter;
    h->be = &beat;
    h->stop = NULL;
    int rc = inner == &cb_backend_real ? reopen_counters(h->cs) : 0;
    if (rc < 0) {
        snprintf(r.why, sizeof r.why, "its counters could not be opened in the timing "
                 "child: %s", strerror(-rc));
        r.rc = -EFAULT;
    } else {
        r.rc = w && w->measure ? w->measure(w->ctx, h, c, &r.m) : cb_harness_measure(h, c, &r.m);
        forked_copy();
        if (r.rc == 0)
            changed_state(pinned, locale, r.why, sizeof r.why);
    }
    r.bytes_per_op = c->bytes_per_op;
    memcpy(r.pair, c->pair, sizeof r.pair);
    size_t n = r.rc == 0 && !r.why[0] ? r.m.n : 0;
    int bad = write_all(fd, &r, sizeof r) < 0 ||
              (n && (write_all(fd, r.m.d, n * sizeof *r.m.d) < 0 ||
                     write_all(fd, r.m.round, n * sizeof *r.m.round) < 0 ||
                     write_all(fd, r.m.smt, n * sizeof *r.m.smt) < 0)) ||
              (w && w->ctx_size && write_all(fd, w->ctx, w->ctx_size) < 0);
    _exit(bad ? 3 : 0);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read what the pipe holds into out; 1 at EOF, else 0. */
static int drain(int fd, struct cb_sb *out)
{
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r > 0) {
            cb_sb_add(out, buf, (size_t)r);
            continue;
        }
        return r == 0 || (errno != EAGAIN && errno != EINTR);
    }
}

/* The child and any process it left in its group: killed and reaped. */
static void end_group(pid_t pid, int *status, int reaped)
{
    kill(-pid, SIGKILL);
    if (!reaped) {
        kill(pid, SIGKILL);
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
    }
}

/* Wait for the child: 0 reaped (*status), -EINTR stopped, -ETIMEDOUT no
 * progress for stall_ms.  Its output goes to out as it comes. */
static int wait_child(pid_t pid, int fd, struct cb_sb *out, volatile sig_atomic_t *stop,
                      int stall_ms, int *status)
{
    uint64_t seen = sh->beats;
    long last = now_ms();
    int eof = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (!eof && poll(&p, 1, 20) > 0)
            eof = drain(fd, out);
        else if (eof) {
            struct timespec tick = {0, 20000000L};
            nanosleep(&tick, NULL);
        }
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) {
            drain(fd, out);
            end_group(pid, status, 1);
            return 0;
        }
        if (stop && *stop) {
            end_group(pid, status, 0);
            return -EINTR;
        }
        if (sh->beats != seen) {
            seen = sh->beats;
            last = now_ms();
        } else if (now_ms() - last > stall_ms) {
            end_group(pid, status, 0);
            return -ETIMEDOUT;
        }
    }
}

/* The child's result into m; 0, or -EFAULT with why set. */
static int take_result(const struct cb_sb *got, int status, struct cb_case *c,
                       struct cb_measurement *m, const struct cb_timed_work *w, char *why,
                       size_t len)
{
    size_t ctx = w ? w->ctx_size : 0;
    struct result r;
    if (got->len < sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            snprintf(why, len, "crashed while being timed (signal %d: %s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else
            snprintf(why, len, "exited while being timed (exit status %d): a timed function "
                     "must return", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -EFAULT;
    }
    memcpy(&r, got->buf, sizeof r);
    if (r.magic != MAGIC)
        return snprintf(why, len, "its timing child sent no result"), -EFAULT;
    if (r.why[0] || r.rc == -EFAULT)
        return snprintf(why, len, "%s", r.why), -EFAULT;
    c->bytes_per_op = r.bytes_per_op;
    memcpy(c->pair, r.pair, sizeof c->pair);
    *m = r.m;
    m->d = NULL, m->round = NULL, m->smt = NULL, m->cap = 0;
    size_t n = r.rc == 0 ? r.m.n : 0;
    m->n = n;
    size_t need = sizeof r + n * (sizeof *m->d + sizeof *m->round + sizeof *m->smt) + ctx;
    if (got->len != need)
        return snprintf(why, len, "its timing child sent a short result"), -EFAULT;
    if (ctx)
        memcpy(w->ctx, got->buf + need - ctx, ctx);
    if (!n)
        return r.rc;
    m->d = malloc(n * sizeof *m->d);
    m->round = malloc(n * sizeof *m->round);
    m->smt = malloc(n * sizeof *m->smt);
    if (!m->d || !m->round || !m->smt) {
        cb_measurement_free(m);
        return -ENOMEM;
    }
    m->cap = n;
    const char *at = got->buf + sizeof r;
    memcpy(m->d, at, n * sizeof *m->d);
    at += n * sizeof *m->d;
    memcpy(m->round, at, n * sizeof *m->round);
    at += n * sizeof *m->round;
    memcpy(m->smt, at, n * sizeof *m->smt);
    return r.rc;
}

int cb_plugin_measure_in_child(struct cb_harness *h, struct cb_case *c, struct cb_measurement *m,
                               int pinned, const struct cb_timed_work *w, char *why, size_t len)
{
    memset(m, 0, sizeof *m);
    why[0] = 0;
    int stall_ms = cb_child_timeout_env("CB_PLUGIN_STALL", STALL_DEFAULT_MS);
    int fd[2];
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return -errno;
    memset((void *)sh, 0, sizeof *sh);
    if (pipe2(fd, O_CLOEXEC) < 0) {
        int e = errno;
        munmap(sh, sizeof *sh);
        return -e;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        timing_child(h, c, pinned, w, fd[1]);
    }
    int e = errno;
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        munmap(sh, sizeof *sh);
        return -e;
    }
    setpgid(pid, pid);   /* as the child does: whichever runs first */
    fcntl(fd[0], F_SETFL, O_NONBLOCK);
    struct cb_sb got = CB_SB_INIT;
    int status = 0;
    int rc = wait_child(pid, fd[0], &got, h->stop, stall_ms, &status);
    close(fd[0]);
    int forked = sh->forked;
    munmap(sh, sizeof *sh);
    if (rc == -ETIMEDOUT)
        snprintf(why, len, "did not return while being timed: no call ended in %d s (it loops "
                 "or blocks; CB_PLUGIN_STALL sets the limit)", stall_ms / 1000);
    else if (rc == 0 && forked)
        snprintf(why, len, "forked a process while being timed (fork): a copy of the case "
                 "would have been measured and stored twice");
    else if (rc == 0)
        rc = take_result(&got, status, c, m, w, why, len);
    cb_sb_release(&got);
    return rc == -ETIMEDOUT ? -EFAULT : rc == 0 && forked ? -EFAULT : rc;
}
