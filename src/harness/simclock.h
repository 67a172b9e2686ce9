/* simclock.h — counting under callgrind: the backend of `run --sim`.
 *
 * On a host without a PMU, timings of the same build move by a few percent
 * between runs; callgrind's counts of instructions and of simulated cache
 * misses repeat exactly, so a change of 0.1% is seen (SQLite's
 * cachegrind practice, iai-callgrind).  `run --sim` re-executes cyclebudget
 * under valgrind (cli/sim.c) with CB_SIM set; this backend then replaces
 * the counters: each timed batch is wrapped in client requests (zero the
 * stats and switch collection on at its start; switch it off and dump at
 * its end), and the batch's figures are read back from the dump callgrind
 * just wrote.  Set-up, verification, the harness and the store run with
 * collection off, so they are never counted; the cache simulator still sees
 * their accesses, so warm and cold buffers stay warm and cold.
 *
 * The events are callgrind's (Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr,
 * DLmw, Bc, Bcm, Bi, Bim) plus "cycles-sim", the estimate of callgrind.h,
 * all with source "simulated": never mixed with timed figures.  Each batch
 * has a fixed number of operations, and the empty batch's counts (the
 * client requests and the call) are subtracted as for timed runs. */
#ifndef CB_SIMCLOCK_H
#define CB_SIMCLOCK_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#include "harness/backend.h"
#include "counters/counters.h"

#define CB_SIM_ENV "CB_SIM"             /* callgrind's --callgrind-out-file, set by run --sim */
#define CB_SIM_MODEL_ENV "CB_SIM_MODEL" /* the simulated machine in words, for the run's record */
#define CB_SIM_GHZ_ENV "CB_SIM_GHZ"     /* the host's TSC rate, for budget shares */
#define CB_SIM_COLD_ENV "CB_SIM_COLD_BYTES" /* cold working set: twice the simulated LL */
#define CB_SIM_BATCH 16                 /* operations per counted batch */
#define CB_SIM_REPS 3                   /* samples per case by default: they repeat exactly */
#define CB_SIM_CYCLES "cycles-sim"

struct cb_sim {
    char out[1024];                     /* the dump file's name; dump N is OUT.N */
    char model[256];
    double ghz;                         /* 0 unknown */
    size_t cold_bytes;                  /* 0: the timed runs' default */
    unsigned dumps;                     /* dumps so far */
    int event_of[CB_MAX_COUNTERS];      /* per counter: enum cb_cg_event, or -1 for cycles-sim */
    int failed;                         /* a dump could not be read: the run must stop */
    char why[1500];
};

/* In a process started by run --sim: 1 when CB_SIM is set. */
int cb_sim_requested(void);

/* Check that this process runs under valgrind as run --sim started it, and
 * fill be with the backend.  -ENOTSUP (built without valgrind's headers) or
 * -EINVAL (CB_SIM set outside valgrind), with a message. */
int cb_sim_init(struct cb_sim *s, struct cb_backend *be, struct cb_sb *err);

/* The simulated events, as counters: every one supported, read through the
 * backend only. */
void cb_sim_counters(struct cb_sim *s, struct cb_counters *cs);

#endif
