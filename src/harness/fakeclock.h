/* fakeclock.h — a clock whose samples are known in advance, for tests.
 *
 * Timing the real machine in `make check` made the suite fail whenever the
 * host was busy (a planted 4x slowdown read "cannot tell" because
 * the meter fired on an idle VM).  This backend runs the probe's real code,
 * so verification and sinks are unchanged, but the clock it reports
 * advances by a model of the work: one operation costs the probe's nominal
 * cycles (cb_probe.nominal, e.g. the synthetic chain's length) times a
 * seeded noise, so the same seed gives the same samples on any host.
 *
 * Chosen with CB_FAKE_CLOCK=SPEC in the environment of `cyclebudget run`;
 * every run made with it is stored with clock backend "fake" and reported
 * as test data.  SPEC is comma-separated key=value, any subset of:
 *   seed=N        the noise's seed (default 1)
 *   noise=F       relative spread of a batch's cost, 0..0.5 (default 0.005)
 *   drift=F       relative spread of a case's cost from one run to the next
 *                 (default 0): each case of a run costs (1 + F * N(0,1)) times
 *                 its nominal, drawn from the seed, as a run's core clock and
 *                 page placement shift it on a real machine; runs of the
 *                 same build with different seeds then drift apart
 *   mux=F         share of the time perf events are on a counter, (0, 1]
 *                 (default 1: not multiplexed); below 1 they are scaled
 *   contended=F   share of samples taken with the core busy (default 0):
 *                 those cost slow=X times more and read the meter at 2x
 *   slow=X        that cost factor (default 1.5)
 *   meter=KIND    smt (a visible sibling, the default), host or none
 *   head=X        every case of ab's HEAD build (namespace "head") costs X
 *                 times more (default 1): a planted change for ab's tests
 *   scale=X       every case costs X times more (default 1): a planted change
 *                 between two runs, for the verdict benchmarks
 *   before=X      the core clock read in the bracket before each case's
 *   after=X       samples, and after them, as a factor of the model's
 *                 (0.5..2, default 1: both read the run's clock)
 *   clockfor=N    the brackets read before=/after= only until N reference
 *                 readings have been taken (counted as for hostfor=), the
 *                 model's clock after; 0: the whole run (default)
 *   host=X        the host slowed this run (1..10, default 1: quiet): every
 *                 case costs X times more, and the reference set (refset.h)
 *                 reads X times slower on its vector, load and copy loops
 *                 and 1 + (X - 1) / 6 on its scalar chain, as a busy SMT
 *                 sibling slowed them on the host that showed it (its
 *                 memory loads like its chain)
 *   hostmem=X     memory contention on the host (1..10, default 1): every
 *                 case costs X times more (the model has no memory-bound
 *                 cases of its own) and the reference set reads X times
 *                 slower on its memory loads alone, quiet on the others
 *   hostfor=N     the host is slowed (host=, hostmem=) only until N reference readings have
 *                 been taken (the run's start is the first; each try of a
 *                 case reads one before and one after it); 0: the whole
 *                 run (default) */
#ifndef CB_FAKECLOCK_H
#define CB_FAKECLOCK_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#include "harness/backend.h"

#define CB_FAKE_ENV "CB_FAKE_CLOCK"
#define CB_FAKE_TSC_GHZ 2.0
#define CB_FAKE_CORE_PER_TICK 1.75   /* a 3.5 GHz core */
#define CB_FAKE_READ_TICKS 150.0

struct cb_fake {
    uint64_t seed, state;
    double noise, mux, contended, slow, head, scale, drift;
    double case_drift;      /* this run's factor for the current case (drift) */
    double before, after;   /* the brackets' clock, x the model's (caseclock.h) */
    double host;            /* the host's slowed state, x (host=) */
    double hostmem;         /* memory contention, x (hostmem=) */
    long hostfor, refs_taken; /* readings it lasts (0 all), and taken so far */
    long clockfor;          /* readings the brackets' clock lasts (0 all) */
    int siblings, hypervisor;
    double vclock;          /* ticks */
    int busy;               /* the last batch was taken with the core busy */
    uint64_t case_key;      /* the case the state was seeded for */
};

/* Parse spec (NULL or "" = defaults) into f and fill be with the fake
 * backend.  -EINVAL with a message naming the bad key or value. */
int cb_fake_init(struct cb_fake *f, const char *spec, struct cb_backend *be, struct cb_sb *err);

/* The model's cost of one operation of c, in core cycles. */
double cb_fake_cost(const struct cb_case *c);

#endif
