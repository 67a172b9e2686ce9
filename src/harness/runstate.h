/* runstate.h — the host's state through a run, and what the run does
 * about it.
 *
 * At its start a run times the reference set (refset.h) on its CPU, keeps
 * the reading with the run and judges it against the host's quiet figures
 * (store/hoststate.h), which that reading has just joined.  Each case is
 * then read before and after it is measured; a case either reading finds
 * slowed is measured again, after an idle pause that lets the host's state
 * change (it lasted seconds at a time where it was seen), up to a bounded
 * number of tries: the first quiet try is kept, or, when none was, the
 * last, labelled with its state.  So a case is compared with what this
 * host does when quiet, and a slowed figure is never taken for a quiet one
 * without a word.  The run's state is the worst of the cases it kept.
 *
 * A case whose clock disagreed with the run's, so that its cycles were
 * converted at the run's clock (caseclock.h), is in a host state too: the
 * verdict and the floor leave such a run out (sides.h).  It is measured
 * again at once, within the same tries, while the time those tries took
 * stays within a share of the run's (below): on this project's Xeon guest
 * the scalar callee case read that way in 15 of 64 runs and 2.6-7.4% off,
 * and its next try mostly agreed, while a vector case whose own work
 * moves the clock reads the same on every try. */
#ifndef CB_RUNSTATE_H
#define CB_RUNSTATE_H

#include <stdint.h>

#include "harness/backend.h"
#include "harness/harness.h"
#include "counters/refset.h"
#include "store/store.h"
#include "store/hoststate.h"

/* Tries a case gets by default (run --state-tries), and the idle pause
 * before try k + 1, k x this (the real machine only). */
#define CB_STATE_TRIES 3
#define CB_STATE_PAUSE_MS 250.0

/* The tries for a case's clock take at most this share of the time the
 * run has spent measuring so far, or CB_CLOCK_AGAIN_MIN_S where that is
 * more (a run of one case gets its tries): one more try for every such
 * case made the quick suite 45% longer on the Xeon guest. */
#define CB_CLOCK_AGAIN_SHARE 0.2
#define CB_CLOCK_AGAIN_MIN_S 1.0

struct cb_runstate {
    int on;                     /* the references are read: a timed run that can */
    int tries;                  /* the most tries a case gets, >= 1 */
    int quiet;                  /* say nothing on stderr */
    struct cb_store *st;
    int64_t run_id;
    const struct cb_backend *be;
    struct cb_refs quiet_refs;  /* the host's quiet figures */
    struct cb_run_state run;    /* what is stored with the run */
    struct cb_state start;      /* the run's start */
    int measured;               /* cases kept with a state */
    int remeasured_quiet;       /* slowed cases a later try found quiet */
    int kept_slowed;            /* cases kept in a slowed state */
    int clock_cases;            /* cases measured again for their clock */
    int clock_agreed;           /* of them, kept with a clock that agreed */
    double measured_s;          /* the run's measuring so far, every try */
    double clock_s;             /* of it, the tries for a clock */
    struct cb_state last;       /* the state of the try the last measure kept */
    int last_tries;             /* and how many tries it took */
    int last_slowed;            /* and whether a try of it read slowed */
};

/* Read and store the run's start, then its quiet figures (no store write
 * when off).  tries 0: the references are not read at all (run --sim, the
 * simulator's backend, a test that wants none). */
int cb_runstate_begin(struct cb_runstate *rs, struct cb_store *st, int64_t run_id,
                      const struct cb_backend *be, int tries, int quiet);

/* cb_harness_measure(h, c, m) judged by a reading just before it and one
 * just after, measured again while slowed (see above).  rs->last gets the
 * kept try's state, rs->last_tries how many were taken.  Its return is
 * the harness's. */
int cb_runstate_measure(struct cb_runstate *rs, struct cb_harness *h, struct cb_case *c,
                        struct cb_measurement *m);

/* Whether another try for a case's clock fits the run's allowance: the
 * tries for clocks so far took clock_s of the measured_s seconds the run
 * has measured.  Pure. */
int cb_runstate_clock_again(double clock_s, double measured_s);

/* The last measure's state into case_id's row, and into the run's tally. */
int cb_runstate_case_done(struct cb_runstate *rs, int64_t case_id);

/* The run's state into its row, and one line saying it (unless quiet). */
int cb_runstate_finish(struct cb_runstate *rs);

#endif
