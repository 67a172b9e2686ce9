/* kmeasure.h — verify and time the kernel's own functions through the
 * module (kmod/), by the harness's rules.
 *
 * Each case is verified before it is timed, as a user-space variant is:
 * the module runs the function once on bytes this side chose, and this
 * side checks the result against the tool's reference (cb_csum_ref for the
 * checksums, the bytes themselves for copy and set, and the module's own
 * checks of the objects a cache handed out).  Then batches, each one
 * ioctl, timed in the kernel with preemption off: sized until a batch
 * lasts cb_min_batch_ticks (the harness's rule: reads under 1%, at least
 * min_batch_us), the empty batch measured 31 times and its median kept as
 * the overhead, and samples taken until the median's 95% CI is within
 * target_ci_pct, the time cap, or exactly reps.  One round: the idle
 * pauses between rounds that user space takes against a VM's host
 * placement are not taken here.  Every sample is kept. */
#ifndef CB_KMEASURE_H
#define CB_KMEASURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/harness.h"

/* One in-kernel case, named as the store and reports name it. */
struct cb_kcase {
    const char *probe;       /* the user-space family it stands beside, or "fpu" */
    const char *variant;     /* the kernel function: "csum_partial", "kmem_cache_alloc_bulk-16" */
    uint32_t func;           /* enum cb_kmod_func */
    uint32_t size;           /* bytes, or the object size for slab; 0 for fpu */
    uint32_t nobj;           /* slab bulk: objects per call */
    int mode;                /* 0 warm, 1 cold */
    const char *op;          /* "call" or "object" */
    const char *unit;        /* "B" */
    int user_timed;          /* timed from user space around the ioctl, the exit to user
                                space included (the FPU's deferred restore) */
};

struct cb_ksample {
    uint64_t iters;          /* operations (objects for bulk) in the batch */
    double ticks;            /* raw TSC ticks of the batch */
    double cycles;           /* raw PMU cycles; NAN when not counted */
};

struct cb_kmeasurement {
    size_t n, cap;
    struct cb_ksample *s;
    double overhead_ticks, overhead_cycles;   /* the empty batch's medians (cycles NAN) */
    int cycles_err;          /* 0 counted, else -errno of perf_event_create_kernel_counter */
    enum cb_stop_reason why;
    int cpu;                 /* where the kernel ran it */
};

/* Verify c through the module on fd: 1 right, 0 wrong (detail says how,
 * with the first differing input), negative errno when the module could
 * not be asked. */
int cb_kverify(int fd, const struct cb_kcase *c, char *detail, size_t len);

/* Time c: m gets every sample.  0, -EINTR when *stop was raised (m holds
 * what was taken), or -errno from the module. */
int cb_kmeasure(int fd, const struct cb_kcase *c, const struct cb_harness_opts *o, double tsc_ghz,
                volatile sig_atomic_t *stop, struct cb_kmeasurement *m);
void cb_kmeasurement_free(struct cb_kmeasurement *m);

/* Leave the vector registers modified in user space, so that the next
 * kernel_fpu_begin has the user's state to save (XSAVES skips what the
 * last XRSTORS left unmodified). */
void cb_kdirty_vectors(void);

#endif
