/* refset.h — the host's state: how fast a few fixed loops run here now.
 *
 * The same binary's ns/op moves between runs by far more than within one:
 * on a Zen 4 VM, vector and copy code ran 1.7x slower and a scalar chain
 * 12% slower in 3 of 12 identical runs, each run steady inside (a busy SMT
 * sibling on the host, or memory contention, for seconds at a time).  A
 * run cannot see that against itself when it is slowed from its first
 * sample, so the state is judged against the host's own history: a small
 * reference set of loops that separate the states, timed on the run's CPU
 * at its start and beside every case, read against the quiet figures the
 * store keeps for this host and CPU (store/hoststate.h).
 *
 * Each reference is timed in short windows (about 20 us, like a batch of
 * the harness) and the median kept: a window the scheduler interrupts is
 * left out as the harness's medians leave such a batch out, so time shared
 * with another task does not read as slowed, while a core whose resources
 * are shared slows every window.  Figures are TSC ticks per operation
 * (CNTVCT ticks on arm64): the TSC rate is a property of the host. */
#ifndef CB_REFSET_H
#define CB_REFSET_H

#include <stddef.h>

enum cb_ref {
    CB_REF_CHAIN,   /* a scalar dependent multiply-add chain: latency-bound */
    CB_REF_VEC,     /* independent vector adds, 8 accumulators: vector throughput */
    CB_REF_LOAD,    /* vector loads from a 16 KiB buffer: the L1's load ports */
    CB_REF_COPY,    /* a 1.5 KiB copy within L1 through vector registers: the copy
                       cases' kind of code (never libc's memcpy, which a change may replace) */
    CB_REF_MEM,     /* dependent loads of lines flushed from the caches, in random
                       order: memory latency, which memory contention slows and
                       none of the L1-resident references above sees */
    CB_NREFS
};
/* "chain", "vec", "load", "copy", "mem"; -1 from parse when not one. */
const char *cb_ref_name(int ref);
int cb_ref_parse(const char *s);

/* One reading: ticks per operation of each reference; NAN not taken. */
struct cb_refs {
    double v[CB_NREFS];
};
void cb_refs_clear(struct cb_refs *r);
/* Any reference taken. */
int cb_refs_any(const struct cb_refs *r);

/* Time every reference on the calling thread (which should be pinned). */
void cb_refs_measure(struct cb_refs *out);

/* A reading slower than the host's quiet figure by this factor on any
 * reference is "slowed".  A quiet host's readings of one CPU moved by up to
 * 14% over the low quantile on this project's Xeon guest (its core clock
 * steps by 100 MHz with the host's load), while the state this is for slows
 * vector and copy code 1.7x (docs/measuring.md, "The host's state"). */
#define CB_STATE_SLOWED 1.25

enum cb_state_kind {
    CB_STATE_UNJUDGED = 0,   /* no reading or no quiet figure: NULL in the store */
    CB_STATE_QUIET,
    CB_STATE_SLOWED_KIND,
};

struct cb_state {
    enum cb_state_kind kind;
    double ratio;            /* the largest reading / quiet figure over the references; NAN */
    int ref;                 /* which reference it was (enum cb_ref), -1 none */
};
/* "quiet", "slowed", or NULL when unjudged (the store's column). */
const char *cb_state_name(const struct cb_state *s);
/* "quiet", "slowed 1.71x (vec)", "-": for reports. */
void cb_state_text(const struct cb_state *s, char *buf, size_t len);

/* Judge a reading against the host's quiet figures (pure). */
void cb_state_judge(const struct cb_refs *now, const struct cb_refs *quiet, struct cb_state *out);
/* The worse of two states (a case is read before and after it is measured). */
void cb_state_worse(struct cb_state *acc, const struct cb_state *s);

#endif
