/* slub.h — a user-space allocator in the shape of Linux's SLUB.
 *
 * Why a copy of SLUB's shape and not glibc malloc: the 2016 TXDP thread
 * (Brouer) prices a kernel alloc+free at 53 cycles on the fast path, about
 * 100 on the slow path and about 30 per object with kmem_cache_alloc_bulk /
 * kmem_cache_free_bulk, against a 201-cycle packet budget.  To see where
 * those cycles go on a given CPU we need the same structure:
 *
 *  - a "cpu slab" whose lockless freelist is threaded through the free
 *    objects themselves (the next pointer lives in word 0 of a free object);
 *    the single-object fast path is one pointer pop/push, committed with a
 *    non-locked cmpxchg as this_cpu_cmpxchg does (REFERENCE: 5 cycles);
 *  - slabs carved from naturally aligned blocks (4..32 KiB), whose header
 *    sits at the start of the block, so object -> slab is a mask, like
 *    virt_to_slab();
 *  - a slow path: when the cpu freelist is empty the cpu slab is dropped
 *    (it is full) and a partial slab, or a new one, becomes the cpu slab;
 *  - a free to another slab goes to that slab's own freelist, and a slab
 *    that was full moves onto the partial list; empty slabs beyond
 *    min_partial are given back;
 *  - bulk calls that pay the per-call work once: alloc_bulk takes a run of
 *    the cpu freelist in one go, free_bulk groups objects by slab into a
 *    detached freelist and splices each group with one operation.
 *
 * Single-threaded by design (one cache per thread stands for one CPU): no
 * hidden global state, the cache is a struct the caller owns.
 *
 * Debug mode (CB_SLUB_DEBUG) adds what SLUB's slub_debug=FZP adds: red
 * zones on both sides of every object, poison in free objects, and a live
 * count; cb_slub_check() then walks every slab and verifies the invariants.
 * It is meant for verification, not for timing. */
#ifndef CB_PROBES_SLUB_H
#define CB_PROBES_SLUB_H

#include <stddef.h>
#include <stdint.h>

enum cb_slub_flags {
    CB_SLUB_DEBUG = 1u << 0,  /* red zones + poison + live count */
};

#define CB_SLUB_RED     0xbb  /* red zone bytes (SLUB's SLUB_RED_INACTIVE) */
#define CB_SLUB_POISON  0x6b  /* free object bytes (SLUB's POISON_FREE) */

struct cb_slub_slab {
    void *freelist;                   /* free objects not owned by the cpu */
    unsigned inuse;                   /* objects not on this slab's freelist */
    unsigned objects;                 /* capacity */
    unsigned serial;                  /* creation order, for state comparison */
    int on_partial;
    struct cb_slub_slab *next, *prev; /* partial list links */
    struct cb_slub_slab *all_next, *all_prev; /* every slab of the cache */
};

struct cb_slub_cache {
    /* The per-cpu part, touched on every fast-path call. */
    void *freelist;                   /* the cpu slab's lockless freelist */
    struct cb_slub_slab *cpu_slab;
    uint64_t tid;                     /* transaction id, as in kmem_cache_cpu */
#if defined(__aarch64__)
    int lse;                          /* commit with LSE cas, else ldxr/stxr */
#endif

    /* The node part, touched on slow paths only. */
    struct cb_slub_slab *partial;     /* head of the partial list */
    size_t nr_partial;
    size_t min_partial;               /* empty slabs kept before giving back */
    struct cb_slub_slab *all;         /* every live slab */
    size_t nr_slabs;
    unsigned next_serial;

    /* Geometry. */
    size_t size;                      /* requested object size */
    size_t obj_size;                  /* usable bytes: size rounded to align */
    size_t align;                     /* object alignment */
    size_t stride;                    /* slot size */
    size_t red;                       /* red zone bytes on each side (debug) */
    size_t first;                     /* offset of the first slot in a slab */
    size_t slab_bytes;                /* block size, a power of two */
    unsigned objects;                 /* objects per slab */
    unsigned flags;

    /* Debug mode only. */
    int64_t live;                     /* objects handed out and not freed */
};

/* Geometry: objects of size >= 64 are 64-byte (cache line) aligned, smaller
 * ones 8-byte aligned; sizes below 8 are rounded up to 8 (the free pointer
 * lives inside a free object).  The slab block is the smallest power of two
 * from 4 KiB to 32 KiB holding at least 16 objects (or 32 KiB).
 * Returns 0, or -EINVAL for size 0 or an object larger than 8 KiB. */
int cb_slub_create(struct cb_slub_cache *c, size_t size, unsigned flags);
/* Frees every slab, live objects or not. */
void cb_slub_destroy(struct cb_slub_cache *c);

/* NULL only when a new slab cannot be allocated. */
void *cb_slub_alloc(struct cb_slub_cache *c);
void cb_slub_free(struct cb_slub_cache *c, void *obj);

/* Allocate n objects into p[0..n-1].  Returns n, or 0 (with nothing
 * allocated) when memory ran out, like kmem_cache_alloc_bulk. */
size_t cb_slub_alloc_bulk(struct cb_slub_cache *c, size_t n, void **p);
/* Free p[0..n-1].  Like kmem_cache_free_bulk, the array is scratch: entries
 * are overwritten (set to NULL) as they are grouped. */
void cb_slub_free_bulk(struct cb_slub_cache *c, size_t n, void **p);

/* The slab an object belongs to (a mask of its address). */
static inline struct cb_slub_slab *cb_slub_slab_of(const struct cb_slub_cache *c,
                                                   const void *obj)
{
    return (struct cb_slub_slab *)((uintptr_t)obj & ~(uintptr_t)(c->slab_bytes - 1));
}

/* Where obj is: its slab's serial and its index in the slab.  Returns 0, or
 * -EINVAL when obj is not the start of an object of a slab of c. */
int cb_slub_locate(const struct cb_slub_cache *c, const void *obj,
                   unsigned *serial, unsigned *index);

struct cb_slub_report {
    size_t slabs;          /* slabs walked */
    size_t free_objects;   /* on the cpu freelist and every slab freelist */
    size_t used_objects;   /* handed out: capacity - free */
    size_t partial;        /* slabs on the partial list */
    char msg[200];         /* the first broken invariant, "" when none */
};

/* Walk every slab and check the invariants:
 *  - every freelist (the cpu one and each slab's) stays inside its slab, at
 *    object boundaries, and holds no object twice (so no loop);
 *  - for each slab, inuse + its own free objects == capacity, and for the
 *    cpu slab its free objects are on the cpu freelist; a slab is on the
 *    partial list exactly when it is neither the cpu slab nor full;
 *  - debug mode: every red zone holds CB_SLUB_RED, every free object
 *    CB_SLUB_POISON after its free pointer, and the live count equals the
 *    objects handed out;
 *  - live (may be NULL): the exact set of objects the caller holds: each is
 *    an object of this cache, none is free, none is listed twice, and their
 *    number is the number handed out.
 * Returns 0 when all hold, else -EFAULT with r->msg set (r may be NULL).
 * Allocates scratch memory; -ENOMEM when that fails. */
int cb_slub_check(const struct cb_slub_cache *c, void *const *live, size_t nlive,
                  struct cb_slub_report *r);

#endif
