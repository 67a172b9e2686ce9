/* bpfmeasure.h — verify and time BPF programs inside the running kernel
 * through BPF_PROG_TEST_RUN (bpfprog.h), by the harness's rules.
 *
 * Each case is verified before it is timed: csum's result (the kernel's
 * csum_partial through bpf_csum_diff) against the tool's reference over
 * the same bytes at every length the helper takes, an XDP program's return
 * code (an XDP action, never XDP_ABORTED; --expect's when given) and, when
 * it hands back an IPv4 frame, that frame's header checksum.
 *
 * Then samples: each one BPF_PROG_TEST_RUN call of `repeat` runs, the TSC
 * read around it, and right after it the same call of the empty program
 * of the same mode (cb_bpf.bpf.c), so that the empty program's cost is
 * measured beside the case's, sample by sample.  A pair during which the
 * thread gave its CPU away (the test loop yields when the scheduler asks:
 * a busy host) is taken again, since the TSC counts the time away.
 * repeat is sized by the harness's rule: the call's own cost (a repeat-1
 * call, median of 31) under 1% of a batch; samples are taken until the
 * median's 95% CI of (program - empty) per run is within target_ci_pct,
 * the time cap, or exactly reps. */
#ifndef CB_BPFMEASURE_H
#define CB_BPFMEASURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/bpfprog.h"
#include "harness/harness.h"

/* One case, named as the store and the reports name it. */
struct cb_bpf_case {
    int xdp;                  /* 1: the user's XDP program; 0: the csum family's kernel
                                 primitive through bpf_csum_diff */
    const char *probe;        /* the family its cases are stored under */
    const char *variant;      /* "bpf_csum_diff", or the program's name ("+live" in live mode) */
    uint32_t size;            /* csum: bytes summed; xdp: the frame on the wire, FCS included */
    int live;                 /* BPF_F_TEST_XDP_LIVE_FRAMES */
    int prog_fd, empty_fd;    /* the program, and the empty one of the same mode */
    struct cb_bpf_obj *obj;   /* csum: the object whose .bss holds the bytes and the result */
    const unsigned char *frame;
    uint32_t frame_len;       /* the bytes each run is given (size - 4 for xdp) */
    int expect;               /* the XDP action it must return; -1: any but XDP_ABORTED */
};

struct cb_bpf_sample {
    uint64_t iters;           /* runs in the call */
    double ticks;             /* TSC ticks around the call */
    double kns;               /* the kernel's duration x runs: ns it timed */
    long switches;            /* context switches during the call */
};

struct cb_bpf_measurement {
    size_t n, cap;
    struct cb_bpf_sample *prog, *empty;   /* taken in pairs, the empty right after */
    double fixed_ticks;       /* one repeat-1 call of the empty program: the call's own cost */
    double empty_ticks, empty_kns;        /* the medians of the empty batches */
    size_t yielded;           /* pairs taken again: the thread gave the CPU away during one */
    enum cb_stop_reason why;
};

/* The csum layout of cb_bpf.bpf.c's .bss. */
#define CB_BPF_CSUM_MAX 512
struct cb_bpf_csum_bss {
    unsigned char buf[CB_BPF_CSUM_MAX];
    uint32_t len, pad;
    int64_t result;
};

/* Verify c: 1 right, 0 wrong (detail says how), negative errno when the
 * kernel could not run it (why says so).  *retval: the action returned. */
int cb_bpf_verify(const struct cb_bpf_case *c, uint32_t *retval, char *detail, size_t len,
                  struct cb_sb *why);

/* Time c.  0, -EINTR when *stop was raised (m holds what was taken), or
 * -errno from the kernel (why). */
int cb_bpf_measure(const struct cb_bpf_case *c, const struct cb_harness_opts *o, double tsc_ghz,
                   volatile sig_atomic_t *stop, struct cb_bpf_measurement *m, struct cb_sb *why);
void cb_bpf_measurement_free(struct cb_bpf_measurement *m);

/* The XDP action's name ("XDP_PASS"), or NULL for another value. */
const char *cb_xdp_action_name(uint32_t act);

#endif
