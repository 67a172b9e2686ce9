/* harness.h — how a case is run: pinned, warmed, batched, sampled.
 *
 * Each sample is one batch of iterations between two counter reads.  The
 * batch is sized so the reads cost under 1% of it, the empty batch's cost is
 * measured and kept (the store subtracts it), and sampling goes on until the
 * median is known to +-1% (95% CI) or the case's time cap is reached.  Every
 * sample is kept: the store gets all of them, never a mean. */
#ifndef CB_HARNESS_H
#define CB_HARNESS_H

#include "util/strbuf.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/backend.h"
#include "harness/caseclock.h"
#include "counters/counters.h"
#include "counters/meter.h"
#include "harness/probe.h"

/* Rounds: on this project's VM a process draws a host state (which host
 * core, what its other thread runs) that adds a fixed 0, 35 or 70 cycles to
 * every call of even a plain add loop, and keeps it until the vCPU idles.
 * Samples taken back to back all see the same state, so more of them do not
 * help; an idle pause of ~20 ms lets the host place the vCPU again.  Each
 * round re-runs setup too, so buffers are placed anew. */
#define CB_MAX_ROUNDS 64
#define CB_ROUND_PAUSE_MS 20.0

struct cb_core_est; /* tsc.h */

struct cb_harness_opts {
    int reps;               /* > 0: exactly this many samples; 0: adaptive */
    double case_seconds;    /* adaptive: time cap per case */
    double target_ci_pct;   /* adaptive: stop when the median's 95% CI half-width is within this % */
    int min_samples;        /* adaptive: never fewer */
    int max_samples;        /* never more */
    double min_batch_us;    /* a batch lasts at least this long */
    size_t cold_bytes;      /* cold-mode working set; 0: cb_workset_cold_bytes() */
    int rounds;             /* 1..CB_MAX_ROUNDS: the case is set up and sampled this many
                               times, with an idle pause before each round after the first */
    double pause_ms;        /* that pause */
    const struct cb_backend *backend; /* NULL: the machine (cb_backend_real) */
    const struct cb_core_est *core_est; /* the run's core-clock estimate, whose chain is timed
                                           beside each sample; NULL: init estimates one */
};
void cb_harness_defaults(struct cb_harness_opts *o);

struct cb_harness {
    struct cb_harness_opts o;
    struct cb_counters *cs;
    double read_ticks;      /* median cost of one cb_counters_read(), TSC ticks */
    int primary;            /* counter index that drives the stopping rule */
    const struct cb_backend *be;
    struct cb_meter meter;  /* the contention meter and its baseline, taken at init */
    int chain_imul;         /* the estimate chose the imul chain (adds are folded here) */
    double run_ghz;         /* the run's core-clock estimate; 0 none */
    volatile sig_atomic_t *stop; /* set by a signal handler: finish the sample, return -EINTR */
};

enum cb_stop_reason { CB_STOP_REPS, CB_STOP_CI, CB_STOP_TIME, CB_STOP_MAX };

struct cb_harness_opts;
/* The stopping rule of a timed loop after its nth sample: 0 to go on, or
 * why it stops: CB_STOP_CI once the median's interval is within
 * o->target_ci_pct (ci_pct(ctx) is asked at the minimum and every 8th
 * sample), CB_STOP_TIME once elapsed passed cap.  Neither before
 * o->min_samples, nor ever with fixed reps (o->reps > 0). */
int cb_stop_after(const struct cb_harness_opts *o, int n, double elapsed, double cap,
                  double (*ci_pct)(void *ctx), void *ctx);

struct cb_measurement {
    size_t n;                           /* samples taken, all rounds */
    int rounds;                         /* rounds taken */
    uint64_t iters[CB_MAX_ROUNDS];      /* iterations per batch, per round */
    double overhead[CB_MAX_ROUNDS][CB_MAX_COUNTERS]; /* per round: median empty-batch delta
                                           per counter; NAN unsupported */
    struct cb_delta *d;                 /* n deltas */
    int *round;                         /* n: the round each sample belongs to */
    size_t cap;
    enum cb_stop_reason why;
    double ci_pct;                      /* the primary counter's CI half-width at the end, % */
    double core_per_tick;               /* core cycles per TSC tick the estimated cycles were
                                           converted at (clock.used_ghz / TSC GHz), 0 when none */
    struct cb_case_clock clock;         /* the case's bracketed clock and the choice made;
                                           ghz and run_ghz 0 when no clock was estimated */
    double *smt;                        /* n: the contention meter beside each sample, relative
                                           to the run's baseline (the larger reading of just
                                           before and just after); NAN when not read */
    double contention;                  /* median of smt; NAN none */
    double contended_share;             /* share of samples whose meter read over
                                           CB_METER_SHIFT; NAN none */
};

/* Pin the calling thread to cpu (CB_CPU_HERE: the CPU it is on now;
 * CB_CPU_FIRST: the lowest allowed one, for runs that must not depend on
 * where the scheduler happened to start them; CB_CPU_DEFAULT: a run's
 * default, the highest allowed CPU of the fastest core type, cpuclass.h).  On success
 * *pinned gets the CPU.  -EINVAL with a message when the CPU does not exist
 * or is not allowed for this process. */
#define CB_CPU_HERE (-1)
#define CB_CPU_FIRST (-2)
#define CB_CPU_DEFAULT (-3)
int cb_pin_cpu(int cpu, int *pinned, struct cb_sb *err);

/* Measure the cost of reading cs (for batch sizing), the fixed cost of a
 * core-clock chain, and the contention meter's baseline on the CPU the
 * caller is pinned to.  Chooses the primary counter: PMU cycles when
 * counted, else the TSC. */
int cb_harness_init(struct cb_harness *h, struct cb_counters *cs, const struct cb_harness_opts *o);

/* Per round: set up c, warm up, size the batch, measure the empty batch,
 * sample, tear down; pause between rounds.  With reps, each round takes
 * ceil(reps / rounds) samples; adaptive, each round gets 1/rounds of the
 * time cap and of the sample limits, and stops on its own CI.  c->probe,
 * variant, size and mode must be set.  Returns 0, -EINTR when *h->stop was
 * raised (m holds what was taken), or the setup's error. */
int cb_harness_measure(struct cb_harness *h, struct cb_case *c, struct cb_measurement *m);
void cb_measurement_free(struct cb_measurement *m);

/* Per-operation value of counter i in sample k: (delta - overhead) / iters,
 * with the overhead and iters of the sample's round. */
double cb_measurement_per_op(const struct cb_measurement *m, size_t k, int i);
uint64_t cb_measurement_iters(const struct cb_measurement *m, size_t k);
double cb_measurement_overhead(const struct cb_measurement *m, size_t k, int i);

#endif
