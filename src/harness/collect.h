/* collect.h — one collecting session: counters, harness and a stored run.
 *
 * `run` collects a suite, `compare --rerun` re-measures two sides
 * interleaved, and `race` runs contenders in random order: all of them open a
 * collector, measure cases one at a time, and finish the run.  The collector
 * owns the order of things that must not be got wrong: resolve events before
 * touching the database, verify a variant before it is ever timed, write each
 * case with all its samples, mark the run complete only at the end. */
#ifndef CB_COLLECT_H
#define CB_COLLECT_H

#include "util/strbuf.h"

#include <signal.h>
#include <stdint.h>

#include "harness/codehash.h"
#include "counters/counters.h"
#include "host/cpu.h"
#include "harness/fakeclock.h"
#include "harness/harness.h"
#include "harness/probe.h"
#include "harness/runstate.h"
#include "harness/simclock.h"
#include "store/store.h"
#include "counters/tsc.h"

/* CB_CEILINGS=model: a run is judged against the fixed model ceilings
 * (ceilings.h), stored with source "model", instead of measuring the
 * machine for a second; make check sets it, so that no test depends on
 * this machine's speed or spends its time.  =off: no ceilings. */
#define CB_CEILINGS_ENV "CB_CEILINGS"

#define CB_DEFAULT_EVENTS "cycles,instructions,cache-misses,task-clock"

struct cb_collect_opts {
    const char *db;
    const char *events;          /* comma-separated; NULL: CB_DEFAULT_EVENTS */
    const char *tag;             /* may be NULL */
    const char *commit, *repo;   /* may be NULL: HEAD of the current directory */
    const char *cmdline;
    int cpu;                     /* CB_CPU_DEFAULT (harness.h), CB_CPU_HERE, or a CPU */
    int quiet;
    /* The machine's ceilings (ceilings.h), for a report to judge every
     * case against: 0 none; 1 the newest stored calibration of this host
     * and environment, measured and stored when there is none; 2 measured
     * anew.  Never under --sim (nothing is timed there). */
    int ceilings;
    /* Tries a case measured with the host slowed gets (runstate.h): 0 the
     * default (CB_STATE_TRIES), 1 judged but never measured again, -1 the
     * host's state not read at all. */
    int state_tries;
    struct cb_harness_opts harness;
};

/* A variant's verdict, judged once per collector. */
struct cb_verdict_cache {
    const struct cb_variant *v;
    struct cb_verdict verdict;
};

struct cb_collector {
    struct cb_store *st;
    int64_t run_id;
    struct cb_counters cs;
    struct cb_harness h;
    int64_t event_ids[CB_MAX_COUNTERS];
    struct cb_host host;
    struct cb_clocks clk;
    double core_ghz;
    const char *core_source;     /* "pmu" or "estimate" */
    int pinned;
    int peer;                    /* a second CPU of the process's mask before pinning; -1 none */
    int quiet;
    int fake;                    /* CB_FAKE_CLOCK set: the harness times a model (tests) */
    struct cb_fake fake_clock;
    struct cb_backend fake_be;
    int sim;                     /* CB_SIM set: counted under callgrind (run --sim) */
    int sim_cold_said;           /* the long cold walk under the simulator was announced */
    struct cb_sim sim_clock;
    struct cb_backend sim_be;
    const char *side;            /* ab: the build the next cases time ("base", "head"),
                                    stored with each; NULL for a run of one build */
    unsigned buf_pages;          /* ab: where the next cases' warm buffers sit (cb_case) */
    int64_t cal_id;              /* the run's calibration of the ceilings; 0 none */
    int cal_reused;              /* 1 found stored, 0 measured by this run */
    struct cb_runstate rs;       /* the host's state through the run (runstate.h) */
    size_t nmeasured;            /* cases measured so far */
    size_t nfailed;              /* cases skipped because their setup failed */
    size_t nlacking;             /* cases skipped because this CPU lacks a feature */
    int first_fail;              /* the first one's errno */
    char first_failed[256];      /* and "probe/variant/size/mode: why" */
    struct cb_verdict_cache *vc; /* verdicts so far, one per variant */
    size_t nvc, capvc;
    char db[1024];
};

/* Resolve a comma-separated event list (aliases, libpfm4 strings; "tsc" and
 * "cycles-est" are accepted and ignored, being always recorded).  Unknown
 * names: -ENOENT with a "did you mean" message; an alias this PMU lacks is
 * kept as unsupported.  Calls cb_events_init(). */
int cb_collect_resolve_events(const char *csv, struct cb_event_spec *specs, int max, int *n,
                              struct cb_sb *err);

/* Pin, probe the host and clocks, open counters, open the store and begin a
 * run.  With CB_FAKE_CLOCK in the environment the harness is given the fake
 * clock (fakeclock.h) and the run is stored as clock backend "fake"; a bad
 * CB_FAKE_CLOCK is a usage error.  On failure returns a negative errno with a message in err, and
 * *usage is 1 when the fault is in what the user gave (exit status 2). */
int cb_collector_open(struct cb_collector *col, const struct cb_collect_opts *o, struct cb_sb *err, int *usage);

enum cb_case_outcome { CB_CASE_MEASURED, CB_CASE_SKIPPED, CB_CASE_BAD };

/* Measure one case into the run: skipped (CPU lacks a feature, or setup
 * failed), BAD (verification failed: never timed), or measured.  m (may be
 * NULL) receives the measurement, to be freed by the caller.  Returns the
 * outcome (>= 0), -EINTR when *stop was raised, or a negative errno from the
 * store. */
int cb_collector_case(struct cb_collector *col, const struct cb_probe *p,
                      const struct cb_variant *v, uint64_t size, enum cb_mode mode,
                      volatile sig_atomic_t *stop, int64_t *case_id, struct cb_measurement *m);

/* The guards around a case that runs a plugin's code (plugin_case.c).
 * case_bad: v is BAD from here on, for why (a finding after its
 * verification); said, and this case stored BAD: CB_CASE_BAD or the
 * store's negative errno.  size_bad: 1 with why set when v is wrong at
 * size, a length its verification did not try (checked now, in a child).
 * keep_cpu: after a case, the process on the run's CPU again; 0, or the
 * negative errno of pinning, said. */
int cb_collector_case_bad(struct cb_collector *col, struct cb_case_row *row,
                          const struct cb_probe *p, const struct cb_variant *v, const char *why,
                          int64_t *case_id);
int cb_collector_size_bad(const struct cb_probe *p, const struct cb_variant *v, uint64_t size,
                          char *why, size_t len);
int cb_collector_keep_cpu(struct cb_collector *col);
/* A case this CPU cannot run (v needs features it lacks): stored skipped,
 * saying which; CB_CASE_SKIPPED or the store's negative errno. */
int cb_collector_lacking(struct cb_collector *col, const struct cb_variant *v,
                         struct cb_case_row *row, int64_t *case_id);
/* Time case c (guarded: in a child, plugin.h's cb_plugin_measure_in_child),
 * then keep the run's CPU: as cb_harness_measure, or 1 with why set (the
 * plugin's code hurt the case: BAD, m empty), or -EPERM (off the run's CPU
 * for good, said; m empty). */
int cb_collector_time(struct cb_collector *col, int guarded, struct cb_case *c,
                      struct cb_measurement *m, char *why, size_t len);

/* The verdict of v (verifying it on first use). */
const struct cb_verdict *cb_collector_verdict(struct cb_collector *col, const struct cb_probe *p,
                                              const struct cb_variant *v);

/* Mark the run "complete" or "aborted", close everything. */
int cb_collector_finish(struct cb_collector *col, const char *status);

/* The variants verified so far and how many of them were BAD; names gets
 * "family/variant: detail" of the first BAD one. */
size_t cb_collector_bad(const struct cb_collector *col, size_t *verified, char *first, size_t len);

/* What identifies the code case (p, v) times, apart from where it sits
 * (plugin.h's cb_variant_code_id), for ab side side ("base", "head"; NULL
 * a run of one build): under the fake clock (fake not NULL), with its
 * planted factor for that side mixed in.  hash "" when unknown; *addr the
 * entry mod 4096. */
void cb_code_id_of(const struct cb_fake *fake, const struct cb_probe *p, const struct cb_variant *v,
                   const char *side, char hash[CB_CODE_HASH_LEN + 1], unsigned *addr);

#endif
