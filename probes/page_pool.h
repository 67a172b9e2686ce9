/* page_pool.h — the "page_pool" family: a user-space model of the kernel's
 * page_pool fast path (net/core/page_pool.c), the page recycler that XDP
 * and most 10G+ drivers draw their RX buffers from.
 *
 * The pool keeps two stores of free pages.  The alloc cache is an array of
 * 128 pointers with no lock: only the pool's NAPI context touches it, so a
 * page is a pop and a push.  The ring is a ptr_ring of 1024 slots: a page
 * put back from any other context goes there under the producer lock, and
 * the allocator refills the empty cache from it, 64 at a time, without a
 * lock (one consumer).  When both are empty the pool asks the page
 * allocator for 64 pages at once; when the ring is full a page goes back
 * to the page allocator.  Putting a page back "direct" (allow_direct, in
 * the pool's NAPI context: XDP_DROP, or a 6.6+ kernel's put from the pool's
 * own CPU) lands in the cache; otherwise (an skb freed by the socket's
 * reader, XDP_REDIRECT's completion) it goes through the ring, one page a
 * lock, or a bulk of up to 16 a lock (page_pool_put_netmem_bulk).
 *
 * One operation is one page drawn, posted to the RX ring (its DMA address
 * read, as a driver does) and put back.  The size is the burst: pages drawn
 * before any is put back (a NAPI poll of up to 64 packets refills its
 * descriptors, the stack frees them after).  Warm: the pages come straight
 * back.  Cold: each page sits behind cold_bytes of other struct pages in a
 * deep RX ring (a FIFO), so its struct page is out of cache when it is put
 * back, as on a busy NIC.  The page allocator below the pool is a stack of
 * free pages, not the buddy allocator: the slow path's figures are not the
 * kernel's, and a steady state never takes it. */
#ifndef CB_PROBES_PAGE_POOL_H
#define CB_PROBES_PAGE_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"

#define CB_PP_CACHE_SIZE 128   /* PP_ALLOC_CACHE_SIZE: the alloc cache's pointers */
#define CB_PP_CACHE_REFILL 64  /* PP_ALLOC_CACHE_REFILL: pages moved per refill */
#define CB_PP_RING_SIZE 1024   /* page_pool_init's default ptr_ring size */
#define CB_PP_RING_BATCH 16    /* ptr_ring's batch: consumed slots are zeroed 2 lines at a time */
#define CB_PP_BULK 16          /* XDP_BULK_QUEUE_SIZE: pages a bulk put takes per lock */

/* The fields of struct page the fast path reads and writes: one line. */
struct cb_pp_page {
    _Alignas(64) uint32_t refcount;  /* page_ref_count: 1 while one owner holds it */
    uint32_t pfmemalloc;             /* allocated under memory pressure: never recycled */
    uint64_t pp_magic;               /* PP_SIGNATURE while a pool owns the page */
    struct cb_pp_pool *pp;
    uint64_t dma_addr;               /* what a driver writes into the RX descriptor */
    uint32_t id;                     /* its index in the pool's pages: what verify compares */
};

/* A ptr_ring as page_pool uses it: one producer at a time under its lock,
 * one consumer (the pool's NAPI context) with none.  An empty slot is
 * NULL; consumed slots are zeroed in batches, so the producer may see the
 * ring full while up to batch - 1 consumed slots still hold their page. */
struct cb_pp_ring {
    _Alignas(64) int producer;
    int producer_lock;
    _Alignas(64) int consumer_head, consumer_tail;
    _Alignas(64) int size, batch;
    struct cb_pp_page **queue;
};

struct cb_pp_stats {        /* CONFIG_PAGE_POOL_STATS's counters */
    uint64_t fast, slow, empty, refill;                 /* alloc side */
    uint64_t cached, cache_full, ring, ring_full, released_refcnt;  /* recycle side */
};

struct cb_pp_pool {
    _Alignas(64) unsigned count;                 /* the alloc cache: NAPI context only */
    struct cb_pp_page *cache[CB_PP_CACHE_SIZE];
    struct cb_pp_ring ring;
    _Alignas(64) struct cb_pp_stats st;
    uint64_t hold, release;                      /* pages taken from / given back to the allocator */
    /* The page allocator the pool stands on: a stack of free pages. */
    struct cb_pp_page **free;
    size_t nfree;
    struct cb_pp_page *pages;
    size_t npages;
};

/* npages pages, all free; the allocator hands them out in order[] (ids,
 * npages of them), or 0, 1, 2, ... when order is NULL.  0 or -ENOMEM. */
int cb_pp_init(struct cb_pp_pool *p, size_t npages, const uint32_t *order);
void cb_pp_destroy(struct cb_pp_pool *p);

/* page_pool_alloc_pages: the cache, else a refill from the ring, else 64
 * pages from the allocator; NULL when it has none. */
struct cb_pp_page *cb_pp_alloc(struct cb_pp_pool *p);
/* page_pool_put_full_page(pool, page, allow_direct). */
void cb_pp_put(struct cb_pp_pool *p, struct cb_pp_page *pg, int allow_direct);
/* page_pool_put_netmem_bulk outside the pool's NAPI context: n pages,
 * CB_PP_BULK at a time under one producer lock. */
void cb_pp_put_bulk(struct cb_pp_pool *p, struct cb_pp_page **pg, unsigned n);
/* Pages in the ring, and consumed slots not yet zeroed. */
unsigned cb_pp_ring_count(const struct cb_pp_ring *r);

/* How a variant puts its pages back. */
enum cb_pp_put { CB_PP_DIRECT, CB_PP_RING, CB_PP_RING_BULK };

/* A set-up case's state, for verify and the tests: a pool, the deep RX
 * ring of cold mode (delay pages in flight, 0 when warm), and the pages of
 * the last burst, in the order they were put back. */
struct cb_pp_case {
    struct cb_pp_pool pool;
    struct cb_pp_page **delay;
    size_t ndelay, at;
    struct cb_pp_page **out;
    unsigned burst;
    uint64_t acc;
};

/* What a variant's fn points to: its burst of n pages, and how it says it
 * puts them back (verify holds it to that). */
struct cb_pp_impl {
    void (*burst)(struct cb_pp_case *s, unsigned n);
    enum cb_pp_put put;
};

/* A case's state without the harness: burst pages a round, delay in
 * flight, the allocator's order as cb_pp_init takes it.  0 or -ENOMEM. */
int cb_pp_case_init(struct cb_pp_case *s, unsigned burst, size_t delay, const uint32_t *order);
void cb_pp_case_free(struct cb_pp_case *s);
/* Pages a case of that burst and delay needs, so the allocator never runs out. */
size_t cb_pp_case_pages(unsigned burst, size_t delay);

/* page_pool_verify.c: v against the reference model of the same put. */
int cb_pp_verify(const struct cb_variant *v, struct cb_verdict *out);

extern const struct cb_probe cb_probe_page_pool;

#endif
