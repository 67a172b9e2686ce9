/* slab_remote.c — objects allocated on one CPU, freed on another
 * (slab_remote.h). */
#define _GNU_SOURCE
#include "probes/slab_remote.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpupair.h"
#include "probes/peer.h"
#include "probes/slub.h"

#define RING 256u
#define MAX_BATCH 64u

struct remote {
    struct cb_slub_cache cache;          /* the allocating CPU's: only the peer touches it */
    void *slot[RING];
    _Alignas(64) atomic_size_t head;     /* objects handed over (peer) */
    size_t cached_tail;                  /* the peer's copy of tail */
    uint64_t seq;                        /* the peer's: headers written */
    uint64_t failed;                     /* allocations that found no memory */
    _Alignas(64) atomic_size_t tail;     /* objects taken (timed side) */
    size_t cached_head;                  /* the timed side's copy of head */
    uint64_t expect, errors, bad_at, bad_got, acc;
    unsigned batch;
    void *chain[MAX_BATCH];
    _Alignas(64) _Atomic(void *) defer;  /* freed remotely, not yet given back */
    struct cb_peer peer;
};

static inline uint64_t *header(void *obj)
{
    return (uint64_t *)obj + 1;
}

/* The owner: every object on the defer list back into its cache. */
static void give_back(struct remote *r)
{
    if (!atomic_load_explicit(&r->defer, memory_order_relaxed))
        return;
    void *p = atomic_exchange_explicit(&r->defer, NULL, memory_order_acquire);
    while (p) {
        void *next = *(void **)p;
        cb_slub_free(&r->cache, p);
        p = next;
    }
}

static void owner_loop(struct cb_peer *p, void *arg)
{
    struct remote *r = arg;
    size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    unsigned turns = 0;
    while (!cb_peer_stopping(p)) {
        give_back(r);
        if (head - r->cached_tail >= RING &&
            head - (r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire)) >= RING) {
            cb_spin(&turns);
            continue;
        }
        void *o = cb_slub_alloc(&r->cache);
        if (!o) {
            r->failed++;
            cb_spin(&turns);
            continue;
        }
        *header(o) = ++r->seq;
        r->slot[head % RING] = o;
        atomic_store_explicit(&r->head, ++head, memory_order_release);
    }
}

/* The timed side: the next object from the allocating CPU. */
static void *take(struct remote *r)
{
    size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (t == r->cached_head) {
        unsigned turns = 0;
        while (t == (r->cached_head = atomic_load_explicit(&r->head, memory_order_acquire)))
            cb_spin(&turns);
    }
    void *o = r->slot[t % RING];
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    uint64_t h = *header(o);
    if (h != ++r->expect && !r->errors++) {
        r->bad_at = r->expect;
        r->bad_got = h;
    }
    r->acc += h;
    return o;
}

/* Push the chain first..last (linked through word 0) onto the defer list:
 * one locked cmpxchg however long the chain. */
static void defer_chain(struct remote *r, void *first, void *last)
{
    void *old = atomic_load_explicit(&r->defer, memory_order_relaxed);
    do
        *(void **)last = old;
    while (!atomic_compare_exchange_weak_explicit(&r->defer, &old, first, memory_order_release,
                                                  memory_order_relaxed));
}

static void remote_run(struct remote *r, uint64_t iters)
{
    while (iters) {
        unsigned k = iters < r->batch ? (unsigned)iters : r->batch;
        for (unsigned j = 0; j < k; j++)
            r->chain[j] = take(r);
        for (unsigned j = 0; j + 1 < k; j++)
            *(void **)r->chain[j] = r->chain[j + 1];
        defer_chain(r, r->chain[0], r->chain[k - 1]);
        iters -= k;
    }
}

static void remote_free(struct remote *r)
{
    cb_peer_stop(&r->peer);
    cb_slub_destroy(&r->cache);
    free(r);
}

static struct remote *remote_new(size_t size, unsigned batch, unsigned flags, int cpu, int *rc)
{
    if (size < 16 || batch < 1 || batch > MAX_BATCH) {
        *rc = -EINVAL;
        return NULL;
    }
    struct remote *r = aligned_alloc(64, (sizeof *r + 63) & ~(size_t)63);
    if (!r) {
        *rc = -ENOMEM;
        return NULL;
    }
    memset(r, 0, sizeof *r);
    r->batch = batch;
    if ((*rc = cb_slub_create(&r->cache, size, flags)) < 0) {
        free(r);
        return NULL;
    }
    /* Keep the slabs the ring and a batch in flight need. */
    r->cache.min_partial = (RING + MAX_BATCH) / r->cache.objects + 4;
    if ((*rc = cb_peer_start(&r->peer, cpu, owner_loop, r)) < 0) {
        cb_slub_destroy(&r->cache);
        free(r);
        return NULL;
    }
    return r;
}

int cb_slab_remote_setup(struct cb_case *c, unsigned batch)
{
    if (c->peer_cpu < 0)
        return -ENODEV;
    int rc;
    struct remote *r = remote_new(c->size, batch, 0, c->peer_cpu, &rc);
    if (!r)
        return rc;
    /* Freeing CPU first: the case is timed there; the objects come from
     * the peer. */
    char pair[64];
    cb_pair_text("", sched_getcpu(), c->peer_cpu, pair, sizeof pair);
    snprintf(c->pair, sizeof c->pair, "%s", pair);
    c->bytes_per_op = 0;
    c->priv = r;
    return 0;
}

void cb_slab_remote_run(struct cb_case *c, uint64_t iters)
{
    struct remote *r = c->priv;
    remote_run(r, iters);
    c->sink += r->acc;
}

void cb_slab_remote_teardown(struct cb_case *c)
{
    if (c->priv)
        remote_free(c->priv);
    c->priv = NULL;
}

/* After the peer stopped, on this thread alone: what is still in the ring
 * and on the defer list goes back, and then nothing may be live. */
static int settle(struct remote *r, struct cb_verdict *out)
{
    size_t head = atomic_load(&r->head);
    for (size_t t = atomic_load(&r->tail); t != head; t++)
        cb_slub_free(&r->cache, r->slot[t % RING]);
    give_back(r);
    struct cb_slub_report rep;
    int rc = cb_slub_check(&r->cache, NULL, 0, &rep);
    if (rc == -ENOMEM)
        return rc;
    if (rc < 0 || rep.used_objects) {
        out->ok = 0;
        snprintf(out->detail, sizeof out->detail, "size %zu, batch %u: after every remote free, %s",
                 r->cache.size, r->batch, rc < 0 ? rep.msg : "objects are still allocated");
    }
    return 0;
}

int cb_slab_remote_verify(unsigned batch, size_t size, struct cb_verdict *out)
{
    int rc;
    struct remote *r = remote_new(size, batch, CB_SLUB_DEBUG, -1, &rc);
    if (!r)
        return rc;
    const uint64_t n = 20000;
    remote_run(r, n);
    cb_peer_stop(&r->peer);
    out->checked += n;
    if (r->errors) {
        out->ok = 0;
        snprintf(out->detail, sizeof out->detail, "size %zu, batch %u: object %llu arrived with "
                 "header %llu (%llu wrong in all)", size, batch, (unsigned long long)r->bad_at,
                 (unsigned long long)r->bad_got, (unsigned long long)r->errors);
    } else if ((rc = settle(r, out)) < 0) {
        remote_free(r);
        return rc;
    }
    remote_free(r);
    return 0;
}
