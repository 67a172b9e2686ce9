/* sim.c — run --sim: re-execute under callgrind (see sim.h). */
#define _GNU_SOURCE
#include "cli/sim.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/caches.h"
#include "util/child.h"
#include "cli/cmd.h"
#include "config.h"
#include "harness/simclock.h"
#include "counters/tsc.h"

static int find_valgrind(char *path, size_t len)
{
    const char *env = getenv("CB_SIM_VALGRIND");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        return access(path, X_OK) == 0 ? 0 : -ENOENT;
    }
    const char *p = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", p && *p ? p : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/valgrind", d);
        if (access(path, X_OK) == 0)
            return 0;
    }
    return -ENOENT;
}

int cb_sim_check(struct cb_sb *err)
{
#if defined(__SANITIZE_ADDRESS__)
    cb_sb_setf(err, "--sim: this build has AddressSanitizer, which cannot run under valgrind: "
                          "use a build configured without --enable-sanitizers");
    return -ENOTSUP;
#elif !defined(HAVE_VALGRIND_CALLGRIND_H)
    cb_sb_setf(err, "--sim: this cyclebudget was built without valgrind's headers: "
                          "apt-get install valgrind, then ./configure && make");
    return -ENOTSUP;
#else
    char path[PATH_MAX];
    if (find_valgrind(path, sizeof path) == 0)
        return 0;
    if (getenv("CB_SIM_VALGRIND") && *getenv("CB_SIM_VALGRIND"))
        cb_sb_setf(err, "--sim: CB_SIM_VALGRIND=%s is not an executable valgrind",
                 getenv("CB_SIM_VALGRIND"));
    else
        cb_sb_setf(err, "--sim counts under valgrind's callgrind, and no valgrind is on "
                              "PATH: apt-get install valgrind (or set CB_SIM_VALGRIND)");
    return -ENOENT;
#endif
}

/* "valgrind-3.19.0", or "valgrind" when it will not say (in 10 s). */
static void valgrind_version(const char *vg, char *buf, size_t len)
{
    char *argv[] = {(char *)vg, "--version", NULL};
    struct cb_sb out = CB_SB_INIT;
    if (cb_child_run(argv, &out, len - 1, 10000) == 0 && out.len)
        snprintf(buf, len, "%.*s", (int)strcspn(out.buf, "\n"), out.buf);
    else
        snprintf(buf, len, "valgrind");
    cb_sb_release(&out);
}

/* The dump files callgrind leaves (the end-of-program one, and any batch
 * a stopped run did not read), then the directory. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[PATH_MAX + 256];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* valgrind's log, after a failure: why the child died (an instruction
 * valgrind cannot run, for one). */
static void show_log(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strstr(line, "cache found") && !strstr(line, "LL cache:") && n++ < 40)
            fprintf(stderr, "valgrind: %s", line);
    if (f)
        fclose(f);
}

int cb_sim_model(const char *spec, struct cb_cache_model *m, struct cb_sb *err)
{
    int known = cb_caches_read(m) == 0;
    if (!known)
        memset(m, 0, sizeof *m);
    if (spec && cb_caches_override(m, spec, err) < 0)
        return -EINVAL;
    return known || spec ? 0 : 1;
}

/* The environment the child reads (simclock.h), and the model's line. */
static int child_env(const char *out, const char *vg, const char *spec, char cache_args[3][64],
                     int *ncache)
{
    struct cb_cache_model m;
    char desc[220], model[360], version[64], ghz[32], cold[32];
    struct cb_sb err = CB_SB_INIT;
    valgrind_version(vg, version, sizeof version);
    *ncache = 0;
    int rc = cb_sim_model(spec, &m, &err);
    if (rc < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return rc;
    }
    if (rc == 0) {
        cb_caches_args(&m, cache_args);
        *ncache = 3;
        cb_caches_describe(&m, desc, sizeof desc);
        /* Cold buffers must miss the simulated last level: the set is twice
         * its size, not the timed runs' default (capped at 128 MiB for VMs
         * that report a socket's L3: a 480 MiB LL would keep it all). */
        unsigned long long want = 2ull * (unsigned long long)m.sll.size;
        snprintf(cold, sizeof cold, "%llu", want);
        setenv(CB_SIM_COLD_ENV, cold, 1);
    } else {
#if defined(__x86_64__)
        snprintf(desc, sizeof desc, "valgrind's default caches (neither cpuid nor sysfs gives this CPU's caches)");
#else
        snprintf(desc, sizeof desc, "valgrind's default caches (sysfs does not give this CPU's caches)");
#endif
        unsetenv(CB_SIM_COLD_ENV);
    }
    snprintf(model, sizeof model, "%s %s branch-sim=yes", version, desc);
    snprintf(ghz, sizeof ghz, "%.6f", cb_tsc_ghz(NULL));
    setenv(CB_SIM_ENV, out, 1);
    setenv(CB_SIM_MODEL_ENV, model, 1);
    setenv(CB_SIM_GHZ_ENV, ghz, 1);
    cb_sb_release(&err);
    return 0;
}

/* Counting under callgrind is slow, but a wait still has a bound
 * (CB_SIM_TIMEOUT seconds; child.h says why). */
#define SIM_TIMEOUT_MS (7200 * 1000)

/* vg with av, waited for: its exit status (128 + the signal that ended
 * it).  The child is in our process group: a ^C reaches it, and it ends
 * its run as aborted; a SIGTERM sent to us alone (a CI's timeout) is
 * passed on to it after a grace period (cb_child_wait), where this process
 * once ignored it and waited on. */
static int run_child(const char *vg, char **av)
{
    struct sigaction old_int, old_term;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    pid_t pid = fork();
    if (pid == 0) {
        execv(vg, av);
        fprintf(stderr, "cyclebudget: --sim: cannot start %s: %s\n", vg, strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        cb_error("--sim: cannot fork: %s", strerror(errno));
        return 1;
    }
    cb_catch_stop_signals(0);
    int limit = cb_child_timeout_env("CB_SIM_TIMEOUT", SIM_TIMEOUT_MS);
    struct cb_child c = {.pid = pid, .fd = -1, .timeout_ms = limit, .grace_ms = 30000,
                         .stop = cb_stop_flag()};
    int rc = cb_child_wait(&c), status = rc == 0 ? cb_child_exit_code(c.status) : 1;
    if (rc == -ETIMEDOUT)
        cb_error("--sim: callgrind did not finish in %d s: killed (CB_SIM_TIMEOUT=SECONDS gives "
                 "it longer); its run is marked aborted by the next writer", limit / 1000);
    else if (rc == -EINTR)
        status = 130;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return status;
}

int cb_sim_exec(int argc, char **argv, int quiet, const char *spec)
{
    char vg[PATH_MAX], self[PATH_MAX], dir[PATH_MAX], out[PATH_MAX + 32], outarg[PATH_MAX + 64];
    char log[PATH_MAX + 32], logarg[PATH_MAX + 64];
    char cache_args[3][64];
    int ncache;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *tmp = getenv("TMPDIR");
    if (find_valgrind(vg, sizeof vg) < 0 || n <= 0) {
        cb_error("--sim: cannot find %s", n <= 0 ? "this program's own file (/proc/self/exe)"
                                                  : "valgrind: apt-get install valgrind");
        return n <= 0 ? 1 : CB_EXIT_USAGE;
    }
    self[n] = 0;
    snprintf(dir, sizeof dir, "%s/cyclebudget-sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        cb_error("--sim: cannot make a directory for callgrind's dumps (%s): %s", dir,
                   strerror(errno));
        return 1;
    }
    snprintf(out, sizeof out, "%s/callgrind.out", dir);
    snprintf(outarg, sizeof outarg, "--callgrind-out-file=%s", out);
    /* valgrind's own messages (among them warnings about the cache model
     * its cpuid reading would have chosen, which --I1/--D1/--LL replace)
     * go to a log that is shown only when the run fails. */
    snprintf(log, sizeof log, "%s/valgrind.log", dir);
    snprintf(logarg, sizeof logarg, "--log-file=%s", log);
    if (child_env(out, vg, spec, cache_args, &ncache) < 0) {
        remove_dir(dir);
        return CB_EXIT_USAGE;
    }
    if (!quiet)
        fprintf(stderr, "cyclebudget: --sim: counting under callgrind (%s); verification and "
                        "every batch run on the simulator, far slower than a timed run\n", getenv(CB_SIM_MODEL_ENV));
    const char *fixed[] = {vg, "--tool=callgrind", "--quiet", "--collect-atstart=no",
                           "--cache-sim=yes", "--branch-sim=yes", outarg, logarg};
    size_t nf = sizeof fixed / sizeof fixed[0];
    char **av = calloc(nf + 3 + 1 + (size_t)argc + 1, sizeof *av);
    if (!av) {
        remove_dir(dir);
        return 1;
    }
    size_t k = 0;
    for (size_t i = 0; i < nf; i++)
        av[k++] = (char *)fixed[i];
    for (int i = 0; i < ncache; i++)
        av[k++] = cache_args[i];
    av[k++] = self;
    for (int i = 0; i < argc; i++)
        av[k++] = argv[i];
    av[k] = NULL;

    int status = run_child(vg, av);
    free(av);
    if (status != 0 && status != 130)
        show_log(log);
    remove_dir(dir);
    return status;
}
