/* page_pool.c — the page_pool fast path, modelled (page_pool.h): the pool,
 * its ptr_ring, the variants' bursts and the family's probe record. */
#include "probes/page_pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmod/cb_kmod_uapi.h"
#include "harness/workset.h"

#define PP_SIGNATURE 0x40u   /* what page_pool writes into page->pp_magic */

/* ---- the ptr_ring ----------------------------------------------------------- */

/* spin_lock in softirq: one locked compare-exchange, a release store to unlock. */
static inline void pp_lock(int *l)
{
    int z = 0;
    while (!__atomic_compare_exchange_n(l, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        z = 0;
#if defined(__x86_64__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    }
}

static inline void pp_unlock(int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* __ptr_ring_produce: a slot still holding a pointer means full. */
static inline int ring_produce(struct cb_pp_ring *r, struct cb_pp_page *pg)
{
    if (r->queue[r->producer])
        return -ENOSPC;
    r->queue[r->producer++] = pg;
    if (r->producer >= r->size)
        r->producer = 0;
    return 0;
}

/* __ptr_ring_consume: the slot at the head, then its slot and those
 * consumed before it zeroed once a batch has gathered or the ring wraps,
 * newest first (the producer may be reading the oldest line). */
static inline struct cb_pp_page *ring_consume(struct cb_pp_ring *r)
{
    struct cb_pp_page *pg = r->queue[r->consumer_head];
    if (!pg)
        return NULL;
    int head = r->consumer_head + 1;
    if (head - r->consumer_tail >= r->batch || head >= r->size) {
        for (int i = head - 1; i >= r->consumer_tail; i--)
            r->queue[i] = NULL;
        r->consumer_tail = head;
    }
    if (head >= r->size) {
        head = 0;
        r->consumer_tail = 0;
    }
    r->consumer_head = head;
    return pg;
}

unsigned cb_pp_ring_count(const struct cb_pp_ring *r)
{
    unsigned n = 0;
    for (int i = 0; i < r->size; i++)
        n += r->queue[i] != NULL;
    return n;
}

/* ---- the pool ----------------------------------------------------------------- */

/* page_pool_return_netmem: the page leaves the pool for the allocator. */
static void pp_return(struct cb_pp_pool *p, struct cb_pp_page *pg)
{
    p->release++;
    pg->pp_magic = 0;
    pg->pp = NULL;
    p->free[p->nfree++] = pg;
}

/* __page_pool_alloc_netmems_slow: a bulk of 64 from the allocator into the
 * cache, in the order it hands them out; the last one is returned. */
static __attribute__((noinline)) struct cb_pp_page *pp_alloc_slow(struct cb_pp_pool *p)
{
    while (p->count < CB_PP_CACHE_REFILL && p->nfree) {
        struct cb_pp_page *pg = p->free[--p->nfree];
        pg->pp = p;
        pg->pp_magic = PP_SIGNATURE;
        pg->refcount = 1;
        p->cache[p->count++] = pg;
        p->hold++;
    }
    if (!p->count)
        return NULL;
    p->st.slow++;
    return p->cache[--p->count];
}

/* page_pool_refill_alloc_cache: up to 64 pages from the ring, no lock (the
 * pool's NAPI context is its one consumer); an empty ring is seen without
 * touching more than the head slot.  Else the slow path. */
static __attribute__((noinline)) struct cb_pp_page *pp_refill(struct cb_pp_pool *p)
{
    struct cb_pp_ring *r = &p->ring;
    if (!r->queue[r->consumer_head]) {
        p->st.empty++;
        return pp_alloc_slow(p);
    }
    do {
        struct cb_pp_page *pg = ring_consume(r);
        if (!pg)
            break;
        p->cache[p->count++] = pg;
    } while (p->count < CB_PP_CACHE_REFILL);
    if (!p->count)
        return pp_alloc_slow(p);
    p->st.refill++;
    return p->cache[--p->count];
}

static inline struct cb_pp_page *pp_alloc(struct cb_pp_pool *p)
{
    if (__builtin_expect(p->count != 0, 1)) {
        p->st.fast++;
        return p->cache[--p->count];
    }
    return pp_refill(p);
}

static inline int pp_recyclable(const struct cb_pp_page *pg)
{
    return pg->refcount == 1 && !pg->pfmemalloc;
}

static inline int pp_recycle_in_ring(struct cb_pp_pool *p, struct cb_pp_page *pg)
{
    pp_lock(&p->ring.producer_lock);
    int ok = ring_produce(&p->ring, pg) == 0;
    p->st.ring += (uint64_t)ok;
    pp_unlock(&p->ring.producer_lock);
    return ok;
}

/* page_pool_put_full_page: direct into the cache while it has room, else
 * through the ring, else back to the allocator. */
static inline void pp_put(struct cb_pp_pool *p, struct cb_pp_page *pg, int allow_direct)
{
    if (__builtin_expect(!pp_recyclable(pg), 0)) {
        p->st.released_refcnt++;
        pp_return(p, pg);
        return;
    }
    if (allow_direct) {
        if (__builtin_expect(p->count < CB_PP_CACHE_SIZE, 1)) {
            p->cache[p->count++] = pg;
            p->st.cached++;
            return;
        }
        p->st.cache_full++;
    }
    if (pp_recycle_in_ring(p, pg))
        return;
    p->st.ring_full++;
    pp_return(p, pg);
}

/* page_pool_put_netmem_bulk outside NAPI: the recyclable pages of each 16
 * into the ring under one lock; what the full ring refuses goes back to the
 * allocator after the unlock. */
static inline void pp_put_bulk(struct cb_pp_pool *p, struct cb_pp_page **v, unsigned n)
{
    for (unsigned at = 0; at < n; at += CB_PP_BULK) {
        unsigned m = n - at < CB_PP_BULK ? n - at : CB_PP_BULK, k = 0, i;
        struct cb_pp_page *bulk[CB_PP_BULK];
        for (i = 0; i < m; i++) {
            if (pp_recyclable(v[at + i])) {
                bulk[k++] = v[at + i];
            } else {
                p->st.released_refcnt++;
                pp_return(p, v[at + i]);
            }
        }
        if (!k)
            continue;
        pp_lock(&p->ring.producer_lock);
        for (i = 0; i < k; i++)
            if (ring_produce(&p->ring, bulk[i]) != 0) {
                p->st.ring_full++;
                break;
            }
        pp_unlock(&p->ring.producer_lock);
        p->st.ring += i;
        for (; i < k; i++)
            pp_return(p, bulk[i]);
    }
}

struct cb_pp_page *cb_pp_alloc(struct cb_pp_pool *p) { return pp_alloc(p); }
void cb_pp_put(struct cb_pp_pool *p, struct cb_pp_page *pg, int allow_direct) { pp_put(p, pg, allow_direct); }
void cb_pp_put_bulk(struct cb_pp_pool *p, struct cb_pp_page **pg, unsigned n) { pp_put_bulk(p, pg, n); }

int cb_pp_init(struct cb_pp_pool *p, size_t npages, const uint32_t *order)
{
    memset(p, 0, sizeof *p);
    p->ring.size = CB_PP_RING_SIZE;
    p->ring.batch = CB_PP_RING_BATCH;
    p->ring.queue = calloc(CB_PP_RING_SIZE, sizeof *p->ring.queue);
    p->pages = aligned_alloc(64, npages * sizeof *p->pages);
    p->free = malloc(npages * sizeof *p->free);
    if (!p->ring.queue || !p->pages || !p->free) {
        cb_pp_destroy(p);
        return -ENOMEM;
    }
    memset(p->pages, 0, npages * sizeof *p->pages);
    p->npages = npages;
    for (size_t i = 0; i < npages; i++) {
        p->pages[i].id = (uint32_t)i;
        p->pages[i].dma_addr = 0x100000000ull + (uint64_t)i * 4096;
    }
    /* The stack's top is handed out first. */
    for (size_t i = 0; i < npages; i++)
        p->free[npages - 1 - i] = &p->pages[order ? order[i] : i];
    p->nfree = npages;
    return 0;
}

void cb_pp_destroy(struct cb_pp_pool *p)
{
    free(p->ring.queue);
    free(p->pages);
    free(p->free);
    p->ring.queue = NULL;
    p->pages = NULL;
    p->free = NULL;
}

/* ---- a case: bursts through the RX ring --------------------------------------- */

size_t cb_pp_case_pages(unsigned burst, size_t delay)
{
    return delay + burst + CB_PP_CACHE_SIZE + CB_PP_RING_SIZE + CB_PP_CACHE_REFILL;
}

int cb_pp_case_init(struct cb_pp_case *s, unsigned burst, size_t delay, const uint32_t *order)
{
    int rc = cb_pp_init(&s->pool, cb_pp_case_pages(burst, delay), order);
    if (rc)
        return rc;
    s->burst = burst;
    s->ndelay = delay;
    s->at = 0;
    s->acc = 0;
    s->out = calloc(burst, sizeof *s->out);
    s->delay = delay ? calloc(delay, sizeof *s->delay) : NULL;
    if (!s->out || (delay && !s->delay)) {
        cb_pp_case_free(s);
        return -ENOMEM;
    }
    /* The deep RX ring starts full: those pages are the NIC's. */
    for (size_t i = 0; i < delay; i++)
        s->delay[i] = pp_alloc(&s->pool);
    return 0;
}

void cb_pp_case_free(struct cb_pp_case *s)
{
    cb_pp_destroy(&s->pool);
    free(s->out);
    free(s->delay);
    s->out = NULL;
    s->delay = NULL;
}

/* The page posted to the RX ring (its DMA address read, as the driver
 * writes it into the descriptor), and the page the ring hands back: the
 * same one when warm, the oldest in flight when cold. */
static inline struct cb_pp_page *post(struct cb_pp_case *s, struct cb_pp_page *pg)
{
    s->acc += pg->dma_addr;
    if (!s->ndelay)
        return pg;
    struct cb_pp_page *old = s->delay[s->at];
    s->delay[s->at] = pg;
    if (++s->at == s->ndelay)
        s->at = 0;
    return old;
}

/* n pages drawn and posted, then put back as put says; an empty allocator
 * (never, with cb_pp_case_pages) ends the burst early. */
static inline void burst(struct cb_pp_case *s, unsigned n, enum cb_pp_put put)
{
    struct cb_pp_pool *p = &s->pool;
    unsigned i;
    for (i = 0; i < n; i++) {
        struct cb_pp_page *pg = pp_alloc(p);
        if (!pg)
            break;
        s->out[i] = post(s, pg);
    }
    n = i;
    if (put == CB_PP_RING_BULK) {
        pp_put_bulk(p, s->out, n);
        return;
    }
    for (i = 0; i < n; i++)
        pp_put(p, s->out[i], put == CB_PP_DIRECT);
}

static __attribute__((noinline)) void burst_direct(struct cb_pp_case *s, unsigned n)
{
    burst(s, n, CB_PP_DIRECT);
}

static __attribute__((noinline)) void burst_ring(struct cb_pp_case *s, unsigned n)
{
    burst(s, n, CB_PP_RING);
}

static __attribute__((noinline)) void burst_ring_bulk(struct cb_pp_case *s, unsigned n)
{
    burst(s, n, CB_PP_RING_BULK);
}

static const struct cb_pp_impl impl_direct = {burst_direct, CB_PP_DIRECT};
static const struct cb_pp_impl impl_ring = {burst_ring, CB_PP_RING};
static const struct cb_pp_impl impl_ring_bulk = {burst_ring_bulk, CB_PP_RING_BULK};
/* Claims the ring and recycles into the cache: verify must call it BAD. */
static const struct cb_pp_impl impl_ring_bad = {burst_direct, CB_PP_RING};

static const struct cb_variant pp_variants[] = {
    {.name = "direct", .desc = "put back in the pool's NAPI context (allow_direct): into the "
                               "lockless alloc cache (XDP_DROP; 6.6+: the pool's own CPU)",
     .fn = &impl_direct, .flags = CB_VARIANT_REFERENCE},
    {.name = "ring", .desc = "put back from another context (an skb freed by the socket's "
                             "reader): each page into the ptr_ring under its producer lock",
     .fn = &impl_ring},
    {.name = "ring-bulk", .desc = "page_pool_put_netmem_bulk (XDP_REDIRECT's completion): 16 "
                                  "pages into the ptr_ring per producer lock",
     .fn = &impl_ring_bulk},
    {.name = "ring-bad", .desc = "test only: says the ring, recycles into the cache",
     .fn = &impl_ring_bad, .flags = CB_VARIANT_TESTONLY},
};

/* xorshift64*: setup's shuffle only. */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

static int pp_setup(struct cb_case *c)
{
    if (c->size < 1 || c->size > 4096)
        return -EINVAL;
    size_t delay = 0;
    if (c->mode == CB_MODE_COLD) {
        size_t cold = c->cold_bytes ? c->cold_bytes : cb_workset_cold_bytes();
        delay = cold / sizeof(struct cb_pp_page);
    }
    struct cb_pp_case *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
    if (!s)
        return -ENOMEM;
    memset(s, 0, sizeof *s);
    /* Cold: the allocator hands pages out in a shuffled order, so that no
     * prefetcher follows the struct pages' addresses. */
    size_t n = cb_pp_case_pages((unsigned)c->size, delay);
    uint32_t *order = NULL;
    if (delay && (order = malloc(n * sizeof *order)) != NULL) {
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < n; i++)
            order[i] = (uint32_t)i;
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)(rnd(&x) % (i + 1));
            uint32_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
    int rc = delay && !order ? -ENOMEM : cb_pp_case_init(s, (unsigned)c->size, delay, order);
    free(order);
    if (rc) {
        free(s);
        return rc;
    }
    c->priv = s;
    c->bytes_per_op = 0;
    return 0;
}

static void pp_run(struct cb_case *c, uint64_t iters)
{
    struct cb_pp_case *s = c->priv;
    const struct cb_pp_impl *im = c->variant->fn;
    while (iters) {
        unsigned n = iters < s->burst ? (unsigned)iters : s->burst;
        im->burst(s, n);
        iters -= n;
    }
    c->sink += s->acc;
}

static void pp_teardown(struct cb_case *c)
{
    struct cb_pp_case *s = c->priv;
    if (s) {
        cb_pp_case_free(s);
        free(s);
    }
    c->priv = NULL;
}

/* The kernel's own page_pool through the module: one page drawn and put
 * back with allow_direct in process context.  Before 6.6 the put checked
 * in_softirq() and so went through the ring; from 6.6 allow_direct alone
 * decides, and the page lands in the cache. */
static void pp_kernel_models(const char *release, const char *out[3])
{
    int maj = 0, min = 0;
    sscanf(release, "%d.%d", &maj, &min);
    int direct = maj * 100 + min >= 606;
    out[0] = direct ? "direct" : "ring";
    out[1] = direct ? "ring" : "direct";
    out[2] = NULL;
}

static const struct cb_kernel_twin pp_kernel[] = {
    {.func = "page_pool_alloc+put", .kfunc = CB_KF_PAGE_POOL, .size = 1,
     .models_for = pp_kernel_models,
     .why = "the release's recycling path for a put from process context, then the other"},
};

static const size_t pp_sizes[] = {1, 16, 64, 256, 0};
static const size_t pp_suite_sizes[] = {1, 64, 0};

const struct cb_probe cb_probe_page_pool = {
    .name = "page_pool",
    .desc = "page_pool's fast path: lockless alloc cache, ptr_ring refill and recycle, "
            "direct and bulk puts; size = pages per burst, cold: a deep RX ring",
    .unit = "page",
    .op = "packet",
    .variants = pp_variants,
    .nvariants = sizeof pp_variants / sizeof pp_variants[0],
    .sizes = pp_sizes,
    .setup = pp_setup,
    .run = pp_run,
    .verify = cb_pp_verify,
    .teardown = pp_teardown,
    .suite_sizes = pp_suite_sizes,
    .chart = {.kind = CB_CHART_BARS, .title = "cycles per page by how it is put back",
              .lead = "A page drawn from the pool and put back: into the lockless cache "
                      "(<code>direct</code>, the line), or through the ptr_ring, a lock per page "
                      "or per 16. The figure after each bar is the change against direct.",
              .baseline = "direct"},
    .kernel = pp_kernel,
    .nkernel = sizeof pp_kernel / sizeof pp_kernel[0],
};
