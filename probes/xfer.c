/* xfer.c — cache lines and descriptors between two CPUs (xfer.h). */
#define _GNU_SOURCE
#include "probes/xfer.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpupair.h"
#include "probes/peer.h"

enum kind { K_PINGPONG, K_RING };

struct line {
    _Alignas(64) atomic_uint_fast64_t w[8];
};

struct desc {
    atomic_uint_fast64_t seq;    /* written last: the descriptor is ready */
    uint64_t addr_len;           /* what a driver would fill: buffer and length */
};

/* Everything the two threads share, each side's own word on a line of its
 * own so that only what the protocol moves is moved. */
struct xfer {
    enum kind kind;
    struct line *lines;          /* pingpong: size / 64 of them */
    size_t nlines;
    struct desc *ring;           /* ring: n descriptors, n a power of two */
    size_t n;
    _Alignas(64) atomic_uint_fast64_t ack;      /* B -> A: the last ping read */
    _Alignas(64) atomic_uint_fast64_t tail;     /* B -> A: descriptors consumed */
    _Alignas(64) uint64_t seq;                  /* A's own: pings or descriptors sent */
    uint64_t cached_tail;
    _Alignas(64) uint64_t errors;               /* B's own findings */
    uint64_t bad_at, bad_got;
    struct cb_peer peer;
};

static uint64_t payload(uint64_t seq)
{
    return (seq * 0x9e3779b97f4a7c15ull) ^ 1500;
}

static void note_error(struct xfer *x, uint64_t at, uint64_t got)
{
    if (!x->errors++) {
        x->bad_at = at;
        x->bad_got = got;
    }
}

/* ---- B's side ------------------------------------------------------------- */

static void pong_loop(struct cb_peer *p, void *arg)
{
    struct xfer *x = arg;
    uint64_t want = 1;
    unsigned turns = 0;
    while (!cb_peer_stopping(p)) {
        uint64_t got = atomic_load_explicit(&x->lines[0].w[0], memory_order_acquire);
        if (got < want) {
            cb_spin(&turns);
            continue;
        }
        if (got != want)
            note_error(x, want, got);
        for (size_t i = 1; i < x->nlines; i++) {
            uint64_t v = atomic_load_explicit(&x->lines[i].w[0], memory_order_relaxed);
            if (v != got)
                note_error(x, got, v);
        }
        atomic_store_explicit(&x->ack, got, memory_order_release);
        want = got + 1;
    }
}

static void consume_loop(struct cb_peer *p, void *arg)
{
    struct xfer *x = arg;
    uint64_t next = 0;
    unsigned turns = 0;
    while (!cb_peer_stopping(p)) {
        struct desc *d = &x->ring[next & (x->n - 1)];
        uint64_t s = atomic_load_explicit(&d->seq, memory_order_acquire);
        if (s != next + 1) {
            /* Not yet written (the slot still holds the lap before). */
            if (s + x->n != next + 1 && s != 0)
                note_error(x, next + 1, s);
            cb_spin(&turns);
            continue;
        }
        if (d->addr_len != payload(next))
            note_error(x, next + 1, d->addr_len);
        next++;
        atomic_store_explicit(&x->tail, next, memory_order_release);
    }
}

/* ---- A's side: one operation ---------------------------------------------- */

static void ping(struct xfer *x)
{
    uint64_t s = ++x->seq;
    for (size_t i = x->nlines; i-- > 1;)
        atomic_store_explicit(&x->lines[i].w[0], s, memory_order_relaxed);
    atomic_store_explicit(&x->lines[0].w[0], s, memory_order_release);
    unsigned turns = 0;
    while (atomic_load_explicit(&x->ack, memory_order_acquire) != s)
        cb_spin(&turns);
}

static void produce(struct xfer *x)
{
    uint64_t s = x->seq;
    if (s - x->cached_tail >= x->n) {
        unsigned turns = 0;
        while (s - (x->cached_tail = atomic_load_explicit(&x->tail, memory_order_acquire)) >= x->n)
            cb_spin(&turns);
    }
    struct desc *d = &x->ring[s & (x->n - 1)];
    d->addr_len = payload(s);
    atomic_store_explicit(&d->seq, s + 1, memory_order_release);
    x->seq = s + 1;
}

/* ---- setup, run, teardown ------------------------------------------------- */

static void xfer_free(struct xfer *x)
{
    if (!x)
        return;
    cb_peer_stop(&x->peer);
    free(x->lines);
    free(x->ring);
    free(x);
}

/* A shared state for kind at size bytes, its peer started on cpu (-1: not
 * pinned).  NULL with *rc set. */
static struct xfer *xfer_new(enum kind kind, size_t size, int cpu, int *rc)
{
    struct xfer *x = aligned_alloc(64, sizeof *x);
    if (!x) {
        *rc = -ENOMEM;
        return NULL;
    }
    memset(x, 0, sizeof *x);
    x->kind = kind;
    size_t bytes = (size + 63) & ~(size_t)63;
    if (kind == K_PINGPONG) {
        x->nlines = bytes / 64;
        x->lines = aligned_alloc(64, bytes);
    } else {
        for (x->n = 2; x->n * CB_XFER_DESC_BYTES < size; x->n *= 2)
            ;
        x->ring = aligned_alloc(64, (x->n * sizeof *x->ring + 63) & ~(size_t)63);
    }
    if (!x->lines && !x->ring) {
        free(x);
        *rc = -ENOMEM;
        return NULL;
    }
    if (x->lines)
        memset(x->lines, 0, bytes);
    if (x->ring)
        memset(x->ring, 0, x->n * sizeof *x->ring);
    *rc = cb_peer_start(&x->peer, cpu, kind == K_PINGPONG ? pong_loop : consume_loop, x);
    if (*rc < 0) {
        xfer_free(x);
        return NULL;
    }
    return x;
}

static int xfer_setup(struct cb_case *c)
{
    if (c->size < 64 || c->size > (1u << 20))
        return -EINVAL;
    if (c->peer_cpu < 0)
        return -ENODEV;
    int rc, self = sched_getcpu();
    enum kind k = (enum kind)(uintptr_t)c->variant->fn;
    struct xfer *x = xfer_new(k, c->size, c->peer_cpu, &rc);
    if (!x)
        return rc;
    cb_pair_text("", self, c->peer_cpu, c->pair, sizeof c->pair);
    c->bytes_per_op = k == K_PINGPONG ? x->nlines * 64 : CB_XFER_DESC_BYTES;
    c->priv = x;
    return 0;
}

static void xfer_run(struct cb_case *c, uint64_t iters)
{
    struct xfer *x = c->priv;
    if (x->kind == K_PINGPONG)
        for (uint64_t i = 0; i < iters; i++)
            ping(x);
    else
        for (uint64_t i = 0; i < iters; i++)
            produce(x);
    c->sink += x->seq;
}

static void xfer_teardown(struct cb_case *c)
{
    xfer_free(c->priv);
    c->priv = NULL;
}

/* ---- verify ----------------------------------------------------------------- */

/* ops operations of kind at size, then wait for B to have seen them all
 * (bounded: a lost descriptor must not hang the tool). */
static int verify_one(enum kind k, size_t size, uint64_t ops, struct cb_verdict *out)
{
    int rc;
    struct xfer *x = xfer_new(k, size, -1, &rc);
    if (!x)
        return rc;
    for (uint64_t i = 0; i < ops; i++)
        k == K_PINGPONG ? ping(x) : produce(x);
    unsigned turns = 0;
    uint64_t waited = 0;
    while (k == K_RING && atomic_load_explicit(&x->tail, memory_order_acquire) != ops &&
           waited++ < (1ull << 28))
        cb_spin(&turns);
    uint64_t tail = atomic_load(&x->tail);
    cb_peer_stop(&x->peer);
    out->checked += ops;
    if (x->errors || (k == K_RING && tail != ops)) {
        out->ok = 0;
        if (x->errors)
            snprintf(out->detail, sizeof out->detail, "%s of %zu B: at %s %llu the other CPU read "
                     "%#llx (%llu wrong in all)", k == K_PINGPONG ? "pingpong" : "ring", size,
                     k == K_PINGPONG ? "ping" : "descriptor", (unsigned long long)x->bad_at,
                     (unsigned long long)x->bad_got, (unsigned long long)x->errors);
        else
            snprintf(out->detail, sizeof out->detail, "ring of %zu B: %llu of %llu descriptors "
                     "arrived", size, (unsigned long long)tail, (unsigned long long)ops);
    }
    xfer_free(x);
    return 0;
}

static int xfer_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->ok = 1;
    enum kind k = (enum kind)(uintptr_t)v->fn;
    static const size_t sizes[] = {64, 256, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && out->ok; i++) {
        int rc = verify_one(k, sizes[i], k == K_PINGPONG ? 2000 : 20000, out);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The variant's function pointer carries its kind: the family has no
 * function type of its own. */
static const struct cb_variant xfer_variants[] = {
    {.name = "pingpong",
     .desc = "lines written on CPU A, read on CPU B, acknowledged: one round trip per op",
     .fn = (const void *)(uintptr_t)K_PINGPONG, .flags = CB_VARIANT_REFERENCE},
    {.name = "ring",
     .desc = "16-byte descriptors A -> B through an SPSC ring of size/16 slots: per packet",
     .fn = (const void *)(uintptr_t)K_RING},
};

/* pingpong: one line, a 256-byte skb head, a 1 KiB frame's worth, a page;
 * ring: 4, 16, 64 and 256 descriptors (a NIC ring is 256..4096; the small
 * ones show the cost when producer and consumer run in lockstep). */
static const size_t xfer_sizes[] = {64, 256, 1024, 4096, 0};

const struct cb_probe cb_probe_xfer = {
    .name = "xfer",
    .desc = "cache lines and ring descriptors between two CPUs (pair stored with each case)",
    .unit = "B",
    .op = "packet",
    .variants = xfer_variants,
    .nvariants = sizeof xfer_variants / sizeof xfer_variants[0],
    .sizes = xfer_sizes,
    .setup = xfer_setup,
    .run = xfer_run,
    .verify = xfer_verify,
    .teardown = xfer_teardown,
    .charge = CB_CHARGE_BY_BYTES,
};
