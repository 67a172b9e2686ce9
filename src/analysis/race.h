/* race.h — race the variants of a family and pick one per size bucket.
 *
 * The 2002 thread ended with "make these functions race at kernel init and
 * pick the best one"; the kernel does it for xor and RAID-6.  Here a race is
 * a stored run whose cases are measured in rounds, in a freshly shuffled
 * order each round, so that drift and frequency changes spread over every
 * variant instead of favouring whoever ran first.  Each variant is verified
 * before it is ever timed (a BAD variant never runs, so it can never win).
 *
 * A winner is declared only with confidence: the fastest variant (by median)
 * must beat each other one by the Mann-Whitney rank test at alpha (exact for
 * small samples, ranktest.h) AND by a
 * margin whose lower confidence bound is at least min_margin.  Variants it
 * does not beat are tied with it, and the tie rule picks among them the
 * simplest, most portable one:
 *   1. the fewest CPU features needed (popcount of needs);
 *   2. then the family's reference variant (CB_VARIANT_REFERENCE);
 *   3. then the earlier one in the family's table (tables go from plain to
 *      fancy).
 * The results go into the store (db/0004_race.sql), and out as JSON or as a
 * C header with a dispatch table per family. */
#ifndef CB_RACE_H
#define CB_RACE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/budget.h"
#include "harness/collect.h"
#include "counters/fpu.h"
#include "harness/probe.h"
#include "store/store.h"

#define CB_RACE_MAX_BUCKETS 16
#define CB_RACE_UNBOUNDED UINT64_MAX

/* Sizes (lo, hi] measured at size. */
struct cb_race_bucket {
    char name[24];        /* "small", or the size as given with -s */
    uint64_t lo, hi;      /* hi = CB_RACE_UNBOUNDED for the last bucket */
    uint64_t size;        /* the representative size that is measured */
};

/* The default buckets, where the winner is likely to change: small headers
 * (<= 64, measured at 40: an IPv4+TCP header), packets (65..1500, at 1500:
 * the MTU), pages (..4096, at 4096), large (..64K, at 64K: a GSO/GRO
 * super-packet) and streaming (beyond, at stream_bytes: larger than the
 * last-level cache).  Returns the count. */
size_t cb_race_default_buckets(struct cb_race_bucket *b, uint64_t stream_bytes);
/* Buckets from the sizes given with -s: sorted and deduplicated, bucket i is
 * (size[i-1], size[i]] measured at size[i], and the last one also covers
 * everything above it.  Returns the count, or -EINVAL when n is 0 or above
 * CB_RACE_MAX_BUCKETS. */
int cb_race_buckets_from_sizes(const uint64_t *sizes, size_t n, struct cb_race_bucket *b);

enum cb_race_decision { CB_RACE_NONE, CB_RACE_ALONE, CB_RACE_TIE, CB_RACE_CONFIDENT };
const char *cb_race_decision_name(enum cb_race_decision d);

enum cb_race_verdict { CB_RACE_OK, CB_RACE_BAD, CB_RACE_SKIPPED };

/* One variant in one (family, bucket). */
struct cb_race_entrant {
    const struct cb_variant *v;
    enum cb_race_verdict verdict;
    char detail[256];          /* why bad or skipped */
    double *vals;              /* per-op values, one per round: that round's median */
    size_t n, cap;
    int64_t *case_ids;         /* the stored cases, with their round */
    int *rounds;
    size_t ncases, capcases;
    /* filled by cb_race_decide */
    double median;
    double p;                  /* vs the fastest; NAN for the fastest itself */
    double margin;             /* vs the fastest, as a fraction of its median */
    int beaten;                /* the fastest beats it with confidence */
};

/* One family and size bucket. */
struct cb_race_cell {
    const struct cb_probe *probe;
    struct cb_race_bucket bucket;
    struct cb_race_entrant *e;
    size_t ne;
    /* filled by cb_race_decide */
    enum cb_race_decision decision;
    int winner, runner_up;       /* indices into e, -1 none */
    double p;                    /* winner vs runner-up */
    double margin, margin_lo, margin_hi;
};

struct cb_race_opts {
    const struct cb_probe *const *probes;   /* the families to race: any cb_probe */
    size_t nprobes;
    const struct cb_race_bucket *buckets;
    size_t nbuckets;
    enum cb_mode mode;
    int rounds;                  /* >= 1 (6 for a confident winner at alpha 0.01); each
                                    round takes the collector's reps samples */
    double alpha;                /* (0, 1) */
    double min_margin;           /* fraction >= 0 */
    uint64_t seed;               /* the shuffle's seed: equal seeds, equal orders */
    int include_testonly;        /* race CB_VARIANT_TESTONLY variants too (tests) */
    const char *const *variant_globs; /* NULL-terminated: race only the variants matching
                                    one (fnmatch); NULL races every variant */
    volatile sig_atomic_t *stop; /* raised by a signal: finish the sample, return -EINTR */
    /* Kernel context: each SIMD entrant's values are charged
     * the FPU save (first use, or amortised over fpu_batch calls) in the
     * metric's units (fpu_ratio: metric units per TSC tick), a variant
     * whose +kflags build races beside it is left out for it, and without
     * fpu.supported every SIMD entrant is left out: its cost there is
     * unknown. */
    enum cb_context context;
    int fpu_batch;               /* 0: first use */
    /* The budget a winner is shown against (budget.h's rule), and the TSC
     * rate that turns the metric into time (metric units per tick:
     * fpu_ratio); budget.gbps 0 or tsc_ghz 0: no share. */
    struct cb_budget budget;
    double tsc_ghz;
    struct cb_fpu_cost fpu;
    double fpu_ratio;
    /* Called before each measured case, for a progress line; may be NULL. */
    void (*progress)(void *arg, size_t done, size_t total, const struct cb_probe *p,
                     const struct cb_variant *v, uint64_t size, int round);
    void *progress_arg;
};

struct cb_race {
    struct cb_race_opts o;
    struct cb_race_cell *cells;  /* nprobes x nbuckets, family-major */
    size_t ncells;
    int reps;
    char metric[32];             /* the counter ranked: "cycles" or "tsc" */
    int64_t run_id, race_id;
    uint64_t *order;             /* the schedule actually run (for tests): cell << 16 | entrant */
    size_t norder;
};

/* Verify every variant first, then measure the correct ones in o->rounds
 * shuffled rounds through col (whose harness must have reps > 0), then
 * decide every cell.  Returns 0, -EINTR when stopped, -EINVAL for bad
 * options, or a negative errno from the store; r is valid (to free) in every
 * case. */
int cb_race_run(struct cb_collector *col, const struct cb_race_opts *o, struct cb_race *r);

/* Decide one cell from its entrants' samples: pure, no timing, so tests can
 * feed it planted samples. */
void cb_race_decide(struct cb_race_cell *c, double alpha, double min_margin);

/* Hodges-Lehmann shift of b over a (median of all b[j] - a[i]) and its
 * distribution-free CI at level 1 - alpha.  0, -EINVAL or -ENOMEM. */
int cb_race_shift(const double *a, size_t na, const double *b, size_t nb, double alpha,
                  double *est, double *lo, double *hi);

/* Kernel context: the charge per call (metric units) applied to SIMD
 * entrants, NAN without FPU figures; and the charge itself on a cell's
 * entrants before it is decided (cb_race_run calls it). */
double cb_race_kernel_charge(const struct cb_race_opts *o);
void cb_race_kernel_cell(const struct cb_race_opts *o, struct cb_race_cell *c);

/* The share of o->budget of a cell's winner (budget.h's rule for its
 * family at the bucket's size), from its median in the race's metric;
 * NAN without a winner, a link budget or the TSC rate. */
double cb_race_budget_share(const struct cb_race_opts *o, const struct cb_race_cell *c);

/* Write the race rows into the collector's store (one transaction). */
int cb_race_store(struct cb_collector *col, struct cb_race *r);

/* "ok", "bad" or "skipped", as stored and emitted. */
const char *cb_race_verdict_name(enum cb_race_verdict v);
/* The smallest size a bucket holds (its lo is exclusive, but for 0). */
uint64_t cb_race_bucket_min(const struct cb_race_bucket *b);

void cb_race_free(struct cb_race *r);

#endif
