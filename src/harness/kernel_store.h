/* kernel_store.h — an in-kernel run in the store: begun with the module's
 * identity as its build, every case verified then timed through the module
 * (kmeasure.h), every sample written, finished. */
#ifndef CB_HARNESS_KERNEL_STORE_H
#define CB_HARNESS_KERNEL_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/harness.h"
#include "harness/kmeasure.h"
#include "kmod/cb_kmod_uapi.h"

struct cb_store;

struct cb_kernel_run {
    /* What the caller planned and loaded. */
    const struct cb_kcase *cases;
    size_t ncases;
    const struct cb_harness_opts *harness;
    const struct cb_kmod_info *info;  /* the module's identity (CB_KMOD_IOC_INFO) */
    const char *cmdline, *tag;
    int fd;                           /* the module's device */
    int pinned, quiet;                /* quiet: no progress or BAD lines on stderr */
    /* What the run recorded. */
    struct cb_store *st;
    int64_t run_id, ev_tsc, ev_cyc;
    int nbad, nmeasured;
    double tsc_ghz;
};

/* Record the host, the run and its events in st (open to write): 0, or a
 * negative errno with the run, when one was begun, marked aborted. */
int cb_kernel_run_begin(struct cb_kernel_run *r, struct cb_store *st);
/* Verify, time and store every case until one fails or stop is raised,
 * then finish the run: complete, or aborted.  0; -EINTR when stopped;
 * another negative errno, with what failed in err when the module did. */
int cb_kernel_run_cases(struct cb_kernel_run *r, volatile sig_atomic_t *stop, struct cb_sb *err);

#endif
