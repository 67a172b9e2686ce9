/* slab_internal.h — what slab.c (timing) and slab_verify.c (checking) share:
 * a variant's parameters, the state one case runs on, and the run itself,
 * so that verification drives exactly the sequence that is timed. */
#ifndef CB_PROBES_SLAB_INTERNAL_H
#define CB_PROBES_SLAB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"
#include "probes/slub.h"

enum slab_kind { K_SINGLE, K_SLOWPATH, K_BULK, K_MALLOC, K_CLEAR, K_REMOTE, K_SINGLE_KF };

struct slab_params {
    enum slab_kind kind;
    unsigned batch;   /* bulk size */
    unsigned clear;   /* bytes zeroed per alloc (alloc-clear), before clamping */
};

#define MAX_BULK 250u
/* The slow-path row allocates this many slabs' worth before freeing. */
#define SLOW_SLABS 3u

struct slab_state {
    const struct slab_params *par;
    struct cb_slub_cache cache;
    size_t size;
    size_t clear;       /* clamped */
    void **ptrs;        /* scratch for one batch (warm mode) */
    unsigned *perm;     /* slow path: free order, a permutation of 0..slow_n-1 */
    size_t slow_n;
    void **ring;        /* cold mode: the live window */
    size_t window;
    size_t pos;
    uint64_t acc;
};

/* xorshift64*: setup-time shuffles only. */
uint64_t cb_slab_rnd(uint64_t *s);
/* window 0: warm mode; else cold mode with that many live objects.  0 or
 * a negative errno. */
int cb_slab_state_init(struct slab_state *st, const struct slab_params *par, size_t size,
                       size_t window, unsigned slub_flags);
void cb_slab_state_free(struct slab_state *st);
/* iters allocations and frees, warm or cold as the state was made. */
void cb_slab_run_state(struct slab_state *st, uint64_t iters);
/* The family's verify (slab_verify.c). */
int cb_slab_verify(const struct cb_variant *v, struct cb_verdict *out);

#endif
