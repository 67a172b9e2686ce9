/* slab.c — the "slab" family: the SLUB-shaped allocator of slub.c driven
 * single, on its slow path and in bulk, against glibc malloc (see slab.h for
 * what warm and cold mean here). */
#include "probes/slab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kflags/kflags.h"
#include "kmod/cb_kmod_uapi.h"
#include "probes/slab_internal.h"
#include "probes/slab_remote.h"
#include "harness/workset.h"

/* xorshift64*: setup-time shuffles only. */
uint64_t cb_slab_rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* The allocation must be observable, or the compiler may drop a
 * malloc/free pair whose memory is never read. */
static inline void keep(void *p)
{
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

static inline void touch(struct slab_state *st, void *p, uint64_t v)
{
    *(uint64_t *)p = v;
    st->acc += (uintptr_t)p;
    keep(p);
}

/* ---- warm: alloc and free back to back ----------------------------------- */

static void run_warm(struct slab_state *st, uint64_t iters)
{
    const struct slab_params *par = st->par;
    struct cb_slub_cache *c = &st->cache;
    switch (par->kind) {
    case K_REMOTE: /* slab_remote.c runs these */
        break;
    case K_SINGLE_KF:
        cb_slab_single_kflags(c, iters, &st->acc);
        break;
    case K_SINGLE:
        for (uint64_t i = 0; i < iters; i++) {
            void *p = cb_slub_alloc(c);
            touch(st, p, i);
            cb_slub_free(c, p);
        }
        break;
    case K_MALLOC:
        for (uint64_t i = 0; i < iters; i++) {
            void *p = malloc(st->size);
            touch(st, p, i);
            free(p);
        }
        break;
    case K_CLEAR:
        for (uint64_t i = 0; i < iters; i++) {
            void *p = cb_slub_alloc(c);
            /* Constant sizes let the compiler inline the clear, as the
             * kernel's memset of an skb head is. */
            if (st->clear == 256)
                memset(p, 0, 256);
            else if (st->clear == 192)
                memset(p, 0, 192);
            else
                memset(p, 0, st->clear);
            touch(st, p, i);
            cb_slub_free(c, p);
        }
        break;
    case K_BULK:
        while (iters) {
            size_t k = iters < par->batch ? (size_t)iters : par->batch;
            cb_slub_alloc_bulk(c, k, st->ptrs);
            for (size_t j = 0; j < k; j++)
                touch(st, st->ptrs[j], j);
            cb_slub_free_bulk(c, k, st->ptrs);
            iters -= k;
        }
        break;
    case K_SLOWPATH:
        while (iters) {
            size_t k = iters < st->slow_n ? (size_t)iters : st->slow_n;
            for (size_t j = 0; j < k; j++) {
                void *p = cb_slub_alloc(c);
                touch(st, p, j);
                st->ptrs[j] = p;
            }
            if (k == st->slow_n) {
                for (size_t j = 0; j < k; j++)
                    cb_slub_free(c, st->ptrs[st->perm[j]]);
            } else {
                for (size_t j = 0; j < st->slow_n; j++)
                    if (st->perm[j] < k)
                        cb_slub_free(c, st->ptrs[st->perm[j]]);
            }
            iters -= k;
        }
        break;
    }
}

/* ---- cold: free the oldest of the window, allocate into its place -------- */

static void run_cold(struct slab_state *st, uint64_t iters)
{
    const struct slab_params *par = st->par;
    struct cb_slub_cache *c = &st->cache;
    size_t pos = st->pos, w = st->window;
    while (iters) {
        size_t k;
        void **slot = st->ring + pos;
        switch (par->kind) {
        case K_BULK:
            k = par->batch;
            break;
        case K_SLOWPATH:
            k = st->slow_n;
            break;
        default:
            k = 64; /* only to bound the inner loop; each op is still single */
            break;
        }
        if (k > iters)
            k = (size_t)iters;
        if (k > w - pos)
            k = w - pos;
        switch (par->kind) {
        case K_REMOTE: /* slab_remote.c runs these */
            break;
        case K_SINGLE_KF:
            cb_slab_replace_kflags(c, slot, k, &st->acc);
            break;
        case K_BULK:
            cb_slub_free_bulk(c, k, slot);
            cb_slub_alloc_bulk(c, k, slot);
            for (size_t j = 0; j < k; j++)
                touch(st, slot[j], j);
            break;
        case K_SLOWPATH:
            /* Free the oldest k in the shuffled order, then refill. */
            for (size_t j = 0; j < st->slow_n; j++)
                if (st->perm[j] < k)
                    cb_slub_free(c, slot[st->perm[j]]);
            for (size_t j = 0; j < k; j++) {
                slot[j] = cb_slub_alloc(c);
                touch(st, slot[j], j);
            }
            break;
        case K_MALLOC:
            for (size_t j = 0; j < k; j++) {
                free(slot[j]);
                slot[j] = malloc(st->size);
                touch(st, slot[j], j);
            }
            break;
        case K_CLEAR:
            for (size_t j = 0; j < k; j++) {
                cb_slub_free(c, slot[j]);
                slot[j] = cb_slub_alloc(c);
                memset(slot[j], 0, st->clear);
                touch(st, slot[j], j);
            }
            break;
        case K_SINGLE:
            for (size_t j = 0; j < k; j++) {
                cb_slub_free(c, slot[j]);
                slot[j] = cb_slub_alloc(c);
                touch(st, slot[j], j);
            }
            break;
        }
        pos += k;
        if (pos == w)
            pos = 0;
        iters -= k;
    }
    st->pos = pos;
}

void cb_slab_run_state(struct slab_state *st, uint64_t iters)
{
    if (st->ring)
        run_cold(st, iters);
    else
        run_warm(st, iters);
}

/* ---- setup / teardown ----------------------------------------------------- */

void cb_slab_state_free(struct slab_state *st)
{
    if (st->ring) {
        if (st->par->kind == K_MALLOC)
            for (size_t i = 0; i < st->window; i++)
                free(st->ring[i]);
        free(st->ring);
    }
    if (st->par->kind != K_MALLOC)
        cb_slub_destroy(&st->cache);
    free(st->ptrs);
    free(st->perm);
    memset(st, 0, sizeof *st);
}

/* window 0: warm mode; else cold mode with that many live objects. */
int cb_slab_state_init(struct slab_state *st, const struct slab_params *par, size_t size,
                        size_t window, unsigned slub_flags)
{
    memset(st, 0, sizeof *st);
    st->par = par;
    st->size = size;
    if (par->kind != K_MALLOC) {
        int rc = cb_slub_create(&st->cache, size, slub_flags);
        if (rc)
            return rc;
    }
    st->clear = par->clear < size ? par->clear : size;
    st->slow_n = par->kind == K_MALLOC ? 1 : SLOW_SLABS * st->cache.objects + 1;
    size_t nptrs = st->slow_n > MAX_BULK ? st->slow_n : MAX_BULK;
    st->ptrs = calloc(nptrs, sizeof *st->ptrs);
    st->perm = calloc(st->slow_n, sizeof *st->perm);
    if (!st->ptrs || !st->perm)
        goto nomem;
    /* The slow-path free order: shuffled, so frees land on slabs other than
     * the cpu slab and partial slabs are refilled in a mixed order. */
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < st->slow_n; i++)
        st->perm[i] = (unsigned)i;
    for (size_t i = st->slow_n; i > 1; i--) {
        size_t j = cb_slab_rnd(&seed) % i;
        unsigned t = st->perm[i - 1];
        st->perm[i - 1] = st->perm[j];
        st->perm[j] = t;
    }
    if (par->kind != K_MALLOC) {
        /* Keep the slabs a batch needs (cold mode: every slab, the window's
         * slabs are the working set): run() should time SLUB's lists, not
         * glibc standing in for the kernel's page allocator. */
        size_t keep = (nptrs + st->cache.objects - 1) / st->cache.objects + 2;
        if (keep > st->cache.min_partial)
            st->cache.min_partial = keep;
        if (window)
            st->cache.min_partial = (size_t)-1;
        /* Warm mode: create those slabs now, not in the first timed batch. */
        for (size_t i = 0; !window && i < nptrs; i++)
            if (!(st->ptrs[i] = cb_slub_alloc(&st->cache)))
                goto nomem;
        for (size_t i = 0; !window && i < nptrs; i++)
            cb_slub_free(&st->cache, st->ptrs[i]);
    }
    if (window) {
        st->ring = calloc(window, sizeof *st->ring);
        if (!st->ring)
            goto nomem;
        st->window = window;
        for (size_t i = 0; i < window; i++) {
            st->ring[i] = par->kind == K_MALLOC ? malloc(size) : cb_slub_alloc(&st->cache);
            if (!st->ring[i]) {
                st->window = i;
                goto nomem;
            }
            *(uint64_t *)st->ring[i] = i;
        }
        /* Shuffle the window, so the frees jump between slabs (and pages)
         * instead of walking them in allocation order, which the hardware
         * prefetchers would follow. */
        for (size_t i = window; i > 1; i--) {
            size_t j = cb_slab_rnd(&seed) % i;
            void *t = st->ring[i - 1];
            st->ring[i - 1] = st->ring[j];
            st->ring[j] = t;
        }
    }
    return 0;
nomem:
    cb_slab_state_free(st);
    return -ENOMEM;
}

static int slab_setup(struct cb_case *c)
{
    const struct slab_params *par = c->variant->fn;
    if (par->kind == K_REMOTE)
        return cb_slab_remote_setup(c, par->batch);
    struct slab_state *st = malloc(sizeof *st);
    if (!st)
        return -ENOMEM;
    size_t window = 0;
    if (c->mode == CB_MODE_COLD) {
        size_t stride = c->size;
        if (par->kind != K_MALLOC) {
            struct cb_slub_cache probe;
            int rc = cb_slub_create(&probe, c->size, 0);
            if (rc) {
                free(st);
                return rc;
            }
            /* Whole slabs: the window's memory is the slabs it lives in. */
            stride = probe.slab_bytes / probe.objects;
            cb_slub_destroy(&probe);
        }
        size_t cold = c->cold_bytes ? c->cold_bytes : cb_workset_cold_bytes();
        window = cold / (stride ? stride : 1);
        if (window < 2)
            window = 2;
    }
    int rc = cb_slab_state_init(st, par, c->size, window, 0);
    if (rc) {
        free(st);
        return rc;
    }
    c->priv = st;
    c->bytes_per_op = st->clear;
    return 0;
}

static void slab_run(struct cb_case *c, uint64_t iters)
{
    if (((const struct slab_params *)c->variant->fn)->kind == K_REMOTE) {
        cb_slab_remote_run(c, iters);
        return;
    }
    struct slab_state *st = c->priv;
    cb_slab_run_state(st, iters);
    c->sink += st->acc;
}

static void slab_teardown(struct cb_case *c)
{
    if (((const struct slab_params *)c->variant->fn)->kind == K_REMOTE) {
        cb_slab_remote_teardown(c);
        return;
    }
    struct slab_state *st = c->priv;
    if (st) {
        cb_slab_state_free(st);
        free(st);
    }
    c->priv = NULL;
}

struct cb_slub_cache *cb_slab_cache(struct cb_case *c)
{
    if (((const struct slab_params *)c->variant->fn)->kind == K_REMOTE)
        return NULL;
    struct slab_state *st = c->priv;
    return st && st->par->kind != K_MALLOC ? &st->cache : NULL;
}

void **cb_slab_window(struct cb_case *c, size_t *n)
{
    struct slab_state *st = ((const struct slab_params *)c->variant->fn)->kind == K_REMOTE
                                ? NULL : c->priv;
    *n = st ? st->window : 0;
    return st ? st->ring : NULL;
}

size_t cb_slab_clear_bytes(const struct cb_variant *v, size_t size)
{
    const struct slab_params *par = v->fn;
    if (par->kind != K_CLEAR)
        return 0;
    return par->clear < size ? par->clear : size;
}

/* ---- the table --------------------------------------------------------------- */

static const struct slab_params p_single = {K_SINGLE, 1, 0};
static const struct slab_params p_single_kf = {K_SINGLE_KF, 1, 0};
static const struct slab_params p_slow = {K_SLOWPATH, 1, 0};
static const struct slab_params p_malloc = {K_MALLOC, 1, 0};
static const struct slab_params p_clear3 = {K_CLEAR, 1, 192};
static const struct slab_params p_clear4 = {K_CLEAR, 1, 256};
static const struct slab_params p_remote1 = {K_REMOTE, 1, 0};
static const struct slab_params p_remote16 = {K_REMOTE, 16, 0};
#define BULK(n) static const struct slab_params p_bulk##n = {K_BULK, n, 0};
BULK(1) BULK(2) BULK(4) BULK(8) BULK(16) BULK(32) BULK(64) BULK(128) BULK(250)
#undef BULK

#define ROW(nm, dsc, par, fl) {.name = nm, .desc = dsc, .fn = par, .flags = fl}
#define BULKROW(n) \
    ROW("bulk-" #n, "kmem_cache_alloc_bulk/free_bulk shape, " #n " objects per call", &p_bulk##n, 0)

#if defined(__aarch64__)
#define KF_WHAT "no FP/SIMD registers, pac-ret+leaf+bti"
#else
#define KF_WHAT "no SSE, thunks"
#endif

static const struct cb_variant slab_variants[] = {
    ROW("single", "alloc+free pairs on the cpu freelist: the fast path (2016: 53 cycles)",
        &p_single, CB_VARIANT_REFERENCE),
    ROW("single+kflags", "single with the SLUB model built the kernel's way (kflags: " KF_WHAT ")",
        &p_single_kf, 0),
    ROW("slowpath",
        "allocate 3 slabs' worth, free shuffled: refills and frees to non-cpu slabs (2016: ~100)",
        &p_slow, 0),
    BULKROW(1), BULKROW(2), BULKROW(4), BULKROW(8), BULKROW(16), BULKROW(32), BULKROW(64),
    BULKROW(128), BULKROW(250),
    ROW("malloc", "glibc malloc/free: the user-space baseline", &p_malloc, 0),
    ROW("alloc-clear3", "alloc + zero 3 cache lines (192 B, clamped to size) + free: an skb head",
        &p_clear3, 0),
    ROW("alloc-clear4", "alloc + zero 4 cache lines (256 B, clamped to size) + free: an skb head",
        &p_clear4, 0),
    ROW("remote-free", "allocated on the peer CPU, freed here: one cmpxchg onto its defer list",
        &p_remote1, 0),
    ROW("remote-free-bulk16", "as remote-free, 16 objects chained and given back with one cmpxchg",
        &p_remote16, 0),
};
#undef BULKROW
#undef ROW

static const size_t slab_sizes[] = {64, 256, 2048, 0};

/* The quick suite: the sizes that show where the winner changes. */
static const size_t slab_suite_sizes[] = {256, 0};

/* The bulk counts of slab_bulk_test01; 256-byte objects, the kmem_cache
 * `kernel run` makes (its CB_KCASE_OBJ_SIZE) and the suite's size. */
static const uint32_t slab_kernel_bulks[] = {1, 2, 4, 8, 16, 32, 64, 128, 250, 0};
static const struct cb_kernel_twin slab_kernel[] = {
    {.func = "kmem_cache_alloc+free", .kfunc = CB_KF_SLAB, .size = 256,
     .models = {"single", "single+kflags"}, .why = "the SLUB model's fast path"},
    {.func = "kmem_cache_alloc_bulk-", .kfunc = CB_KF_SLAB_BULK, .size = 256,
     .counts = slab_kernel_bulks, .models = {"bulk-*"}, .why = "the SLUB model's bulk path"},
};

/* One object per packet (an skb), whatever its bytes: never GSO frames. */
const struct cb_probe cb_probe_slab = {
    .name = "slab",
    .desc = "SLUB-shaped object alloc+free, single and bulk (2016 TXDP thread); "
            "cold: free the oldest of a shuffled live window covering cold_bytes",
    .unit = "B",
    .op = "object",
    .variants = slab_variants,
    .nvariants = sizeof slab_variants / sizeof slab_variants[0],
    .sizes = slab_sizes,
    .setup = slab_setup,
    .run = slab_run,
    .verify = cb_slab_verify,
    .teardown = slab_teardown,
    .suite_sizes = slab_suite_sizes,
    .suite_variants = "single,slowpath,bulk-*,malloc,alloc-clear*",
    .charge = CB_CHARGE_BY_OBJECT,
    .chart = {.kind = CB_CHART_BULK, .title = "cycles per object against bulk size",
              .lead = "kmem_cache_alloc_bulk/free_bulk shape: the cost of one alloc+free, per "
                      "object, as the bulk grows; warm and cold apart, each on its own scale. The "
                      "single and slowpath variants are in the table below."},
    .kernel = slab_kernel,
    .nkernel = sizeof slab_kernel / sizeof slab_kernel[0],
};
