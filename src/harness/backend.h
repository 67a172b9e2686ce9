/* backend.h — where the harness's readings come from.
 *
 * The harness times batches through this interface, never through
 * counters.c or the TSC directly, so that tests can give it a fake clock
 * whose samples are known in advance (fakeclock.h): the stopping rule, the
 * contention meter's baseline, the planted-slowdown verdicts of compare and
 * bisect-check are then tested without timing the machine and hoping.  The
 * real backend is the one every measurement uses. */
#ifndef CB_BACKEND_H
#define CB_BACKEND_H

#include <stdint.h>

#include "counters/counters.h"
#include "harness/probe.h"
#include "counters/refset.h"

struct cb_backend {
    const char *name;      /* "perf_event" (the real one) or "fake" */
    void *ctx;
    double read_ticks;     /* > 0: what one reading costs, as the backend models it; 0: measure */
    int siblings;          /* >= 0: the topology the meter is to assume; -1: ask the kernel */
    int hypervisor;        /* >= 0: likewise; -1: ask cpuid */
    uint64_t batch_iters;  /* > 0: every batch has this many operations (the simulator's
                              counts need no sizing); 0: sized by the clock */
    const char *primary;   /* the counter that drives the stopping rule; NULL: PMU cycles
                              when counted, else the TSC */
    /* One reading of every counter now, at a window's start (end = 0:
     * cb_counters_read) or end (cb_counters_read_end). */
    int (*read)(void *ctx, struct cb_counters *cs, struct cb_reading *r, int end);
    /* The timed work: iters operations of c (c->probe->run for real). */
    void (*run)(void *ctx, struct cb_case *c, uint64_t iters);
    /* Core cycles per TSC tick now, by the slope of the chain the run's
     * estimate chose (imul: cb_core_est.imul; cb_chain_ratio for real);
     * side: 0 in the bracket before a case's samples, 1 in the one after
     * (caseclock.h; the fake clock can model a clock that moves). */
    double (*core_per_tick)(void *ctx, int imul, int side);
    /* The contention meter's raw reading now (cb_smt_contention). */
    double (*meter)(void *ctx);
    /* The reference set now (refset.h); NULL: timed on the machine
     * (cb_refs_measure). */
    void (*refs)(void *ctx, struct cb_refs *out);
};

/* The machine itself. */
extern const struct cb_backend cb_backend_real;

#endif
