/* hoststate.h — the host's quiet figures and each run's and case's state
 * in the store (0024_hoststate.sql).
 *
 * A run's start reading of the reference set (refset.h) is kept with the
 * run, calibrate's with its calibration; the host's quiet figure of a
 * reference is a low quantile of the newest readings of that host, CPU and
 * clock backend, so that runs the host slowed (a third of them, on the VM
 * that showed it) do not raise it, and one reading never sets it alone.
 * Before migration 24 nothing is stored and every state reads unjudged. */
#ifndef CB_STORE_HOSTSTATE_H
#define CB_STORE_HOSTSTATE_H

#include <stdint.h>

#include "counters/refset.h"

struct cb_store;

/* The quantile and how many of the newest readings it is taken over. */
#define CB_QUIET_QUANTILE 0.25
#define CB_QUIET_READINGS 50

/* The run's start reading (refset.h): into its row. */
int cb_store_run_refs_set(struct cb_store *st, int64_t run_id, const struct cb_refs *r);
/* calibrate's reading on cpu and the contention meter's raw baseline there
 * (NAN none), into calibration cal_id.  A store before the memory
 * reference's migration keeps neither ref_mem nor the baseline. */
int cb_store_calibration_refs_set(struct cb_store *st, int64_t cal_id, int cpu,
                                  const struct cb_refs *r, double meter_baseline);

/* The host's quiet figures for run_id: per reference, CB_QUIET_QUANTILE of
 * the newest CB_QUIET_READINGS start readings of runs of its host, CPU and
 * clock backend (its own included), with calibrate's readings of that host
 * and CPU for a run timed by the machine.  *n: the readings of the
 * reference with the most.  -ENOENT when there are none (quiet cleared). */
int cb_store_host_quiet(struct cb_store *st, int64_t run_id, struct cb_refs *quiet, int *n);

/* A case's state, and how many times it was measured. */
int cb_store_case_state_set(struct cb_store *st, int64_t case_id, const struct cb_state *s,
                            int tries);

/* A run's state, as a whole. */
struct cb_run_state {
    struct cb_state s;           /* unjudged: NULL, or a store before migration 24 */
    int n;                       /* readings the host's quiet figures came from; -1 unknown */
    int slowed_cases;            /* cases measured in a slowed state; -1 unknown */
    double slowed_s;             /* seconds their slowed tries took; NAN unknown */
    struct cb_refs start;        /* the run's start reading */
};
int cb_store_run_state_set(struct cb_store *st, int64_t run_id, const struct cb_run_state *rs);

/* Read them back: unjudged (and tries 0, n -1) where nothing was stored.
 * What compare, the floor and the reports ask: is this case (run) quiet? */
int cb_store_case_state(struct cb_store *st, int64_t case_id, struct cb_state *out, int *tries);
int cb_store_run_state(struct cb_store *st, int64_t run_id, struct cb_run_state *out);

#endif
