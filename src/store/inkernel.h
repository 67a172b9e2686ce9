/* inkernel.h — the figures of runs timed inside the kernel, read
 * back for whoever sets them beside something else: the report's
 * side-by-side (report/inkernel.c) and the kernel-context budget.
 *
 * A figure is the median over a case's samples of (TSC ticks - the empty
 * batch) / operations, as the harness stores every run; PMU cycles the
 * same way where the kernel counted them.  An in-kernel run is one whose
 * runs.source is 'in-kernel' (0019_inkernel.sql, the module) or 'bpf'
 * (0025_bpf.sql, BPF_PROG_TEST_RUN); its case names are the kernel
 * functions (csum/csum_partial, csum/bpf_csum_diff,
 * slab/kmem_cache_alloc_bulk-16, fpu/kernel_fpu_begin-first:
 * docs/kernel.md lists them). */
#ifndef CB_INKERNEL_H
#define CB_INKERNEL_H

#include <stddef.h>
#include <stdint.h>

struct cb_store;

struct cb_kfigure {
    int64_t run_id, case_id;
    double ticks;            /* median TSC ticks per op */
    double cycles;           /* median PMU cycles per op; NAN when not counted */
    size_t n;                /* samples */
    double tsc_ghz;          /* the run's TSC rate */
};

/* The newest complete in-kernel run of the module (of host_of's host when host_of > 0, a
 * run id whose host to match): 0 with its id, -ENOENT when there is none. */
int cb_store_inkernel_latest(struct cb_store *st, int64_t host_of, int64_t *run_id);

/* Run run_id's in-kernel figure for one case (probe, variant, size, mode
 * as the run stored it).  0; -ENOENT when the run has no such measured
 * case; -EINVAL when run_id is neither an in-kernel nor a bpf run. */
int cb_store_inkernel_figure(struct cb_store *st, int64_t run_id, const char *probe,
                             const char *variant, uint64_t size, const char *mode,
                             struct cb_kfigure *f);

/* The user-space figure to set beside it: the newest complete user-space
 * run that measured (probe, variant, size, mode), one of the same host as
 * run_id first.  0, or -ENOENT. */
int cb_store_model_figure(struct cb_store *st, int64_t run_id, const char *probe,
                          const char *variant, uint64_t size, const char *mode,
                          struct cb_kfigure *f);

#endif
