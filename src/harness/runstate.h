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
 * without a word.  The run's state is the worst of the cases it kept. */
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
    struct cb_state last;       /* the state of the try the last measure kept */
    int last_tries;             /* and how many tries it took */
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

/* The last measure's state into case_id's row, and into the run's tally. */
int cb_runstate_case_done(struct cb_runstate *rs, int64_t case_id);

/* The run's state into its row, and one line saying it (unless quiet). */
int cb_runstate_finish(struct cb_runstate *rs);

#endif
