/* bpf_store.h — a BPF run in the store: begun with the programs as its
 * build, every case verified then timed beside its empty program
 * (bpfmeasure.h), every sample written, finished. */
#ifndef CB_HARNESS_BPF_STORE_H
#define CB_HARNESS_BPF_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/bpfmeasure.h"
#include "harness/harness.h"
#include "counters/tsc.h"
#include "util/strbuf.h"

struct cb_store;

/* A loaded program's identity: its tag and its JIT address mod 4096 (-1
 * unknown). */
struct cb_bpf_code {
    const char *tag;
    int addr;
};

struct cb_bpf_run {
    /* What the caller planned and loaded. */
    const struct cb_bpf_case *cases;
    size_t ncases;
    const struct cb_harness_opts *harness;
    const char *xdp;                  /* the user's object, NULL for the tool's only */
    const char *tool_sha, *user_sha, *config_sha, *release;
    struct cb_bpf_code csum, prog, empty, empty_drop;
    const char *cmdline, *tag;
    int pinned, quiet;                /* quiet: no progress or BAD lines on stderr */
    /* What the run recorded. */
    struct cb_store *st;
    int64_t run_id, ev_tsc, ev_kns, ev_est;
    int nbad, nskipped, nmeasured;
    double est_per_tick;              /* estimated core cycles per TSC tick; 0 none */
    struct cb_clocks clk;
};

/* Record the host, the run and its events in st (open to write): 0, or a
 * negative errno with the run, when one was begun, marked aborted. */
int cb_bpf_run_begin(struct cb_bpf_run *r, struct cb_store *st);
/* Verify, time and store every case until one fails or stop is raised,
 * then finish the run: complete, or aborted.  0; -EINTR when stopped;
 * another negative errno, with what failed in err when the kernel did. */
int cb_bpf_run_cases(struct cb_bpf_run *r, volatile sig_atomic_t *stop, struct cb_sb *err);

#endif
