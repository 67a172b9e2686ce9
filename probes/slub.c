/* slub.c — SLUB's structure in user space (see slub.h for why).
 *
 * Names follow mm/slub.c where a reader may want to compare: the cpu
 * freelist, ___slab_alloc's refill, __slab_free's partial-list handling,
 * build_detached_freelist for free_bulk.  None of its code is copied; the
 * locking (irq-off, cmpxchg_double with a tid, node list_lock) collapses to
 * nothing here because one cache is used by one thread. */
#include "probes/slub.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "probes/slub_layout.h"

#define SLUB_MAX_OBJ    8192u
#define SLUB_MIN_BLOCK  4096u
#define SLUB_MAX_BLOCK  32768u
#define SLUB_MIN_OBJS   16u

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static inline void set_fp(void *obj, void *next)
{
    *(void **)obj = next;
}

/* The fast path commits with a cmpxchg on the cpu freelist, as the kernel's
 * this_cpu_cmpxchg_double does (REFERENCE: about 5 cycles, no lock prefix:
 * only this cpu touches it).  The kernel also swaps the tid in the same
 * instruction (cmpxchg16b); that needs CX16, which this build must not
 * assume, so the tid is bumped with a plain add.  The exchange cannot fail
 * with one thread, but its cost is part of what the fast path is.
 *
 * arm64 has no unlocked compare-and-swap: the kernel's this_cpu_cmpxchg128
 * (this_cpu_cmpxchg_double before 6.5) is cmpxchg128_local with preemption
 * off, a casp without acquire/release where the CPU has LSE and an
 * ldxp/stxp loop where not, chosen at boot by alternatives.  The model does
 * the same on the freelist word alone (cas / ldxr-stxr, no ordering), chosen
 * once per cache from the CPU's features, the tid bumped as on x86. */
static inline void cpu_freelist_commit(struct cb_slub_cache *c, void *old, void *new_head)
{
#if defined(__x86_64__)
    void *prev;
    __asm__ __volatile__("cmpxchgq %2, %1"
                         : "=a"(prev), "+m"(c->freelist)
                         : "r"(new_head), "0"(old)
                         : "cc", "memory");
    (void)prev;
#elif defined(__aarch64__)
    void *prev = old;
    if (c->lse) {
        /* .arch_extension: the build targets ARMv8.0; the cache only takes
         * this path on a CPU that has LSE. */
        __asm__ __volatile__(".arch_extension lse\n\t"
                             "cas %0, %2, %1"
                             : "+r"(prev), "+Q"(c->freelist)
                             : "r"(new_head)
                             : "memory");
    } else {
        unsigned fail;
        __asm__ __volatile__("1: ldxr %0, %2\n\t"
                             "cmp %0, %3\n\t"
                             "b.ne 2f\n\t"
                             "stxr %w1, %4, %2\n\t"
                             "cbnz %w1, 1b\n"
                             "2:"
                             : "=&r"(prev), "=&r"(fail), "+Q"(c->freelist)
                             : "r"(old), "r"(new_head)
                             : "cc", "memory");
    }
    (void)prev;
#else
    (void)old;
    c->freelist = new_head;
#endif
    c->tid++;
}

/* ---- debug: red zones, poison, live count --------------------------------- */

static inline void *obj_at(const struct cb_slub_cache *c, const struct cb_slub_slab *s, unsigned i)
{
    return slot_of(c, s, i) + c->red;
}

static void debug_on_alloc(struct cb_slub_cache *c, void *obj)
{
    (void)obj;
    c->live++;
}

static void debug_on_free(struct cb_slub_cache *c, void *obj)
{
    /* Poison everything after the free pointer, so a write after free is
     * visible to cb_slub_check (slub_debug=P). */
    memset((unsigned char *)obj + sizeof(void *), CB_SLUB_POISON, c->obj_size - sizeof(void *));
    c->live--;
}

/* ---- lists ------------------------------------------------------------------ */

static void add_partial(struct cb_slub_cache *c, struct cb_slub_slab *s)
{
    /* To the tail, as __slab_free does (DEACTIVATE_TO_TAIL): slabs that just
     * got a free object are not the first choice for the next refill. */
    s->next = NULL;
    s->prev = NULL;
    if (!c->partial) {
        c->partial = s;
        s->prev = s; /* head's prev is the tail */
    } else {
        struct cb_slub_slab *tail = c->partial->prev;
        tail->next = s;
        s->prev = tail;
        c->partial->prev = s;
    }
    s->on_partial = 1;
    c->nr_partial++;
}

static void remove_partial(struct cb_slub_cache *c, struct cb_slub_slab *s)
{
    struct cb_slub_slab *head = c->partial;
    if (s == head) {
        c->partial = s->next;
        if (c->partial)
            c->partial->prev = head->prev;
    } else {
        s->prev->next = s->next;
        if (s->next)
            s->next->prev = s->prev;
        else
            head->prev = s->prev;
    }
    s->next = s->prev = NULL;
    s->on_partial = 0;
    c->nr_partial--;
}

static struct cb_slub_slab *new_slab(struct cb_slub_cache *c)
{
    /* Naturally aligned, so slab_of() is a mask (virt_to_slab). */
    struct cb_slub_slab *s = aligned_alloc(c->slab_bytes, c->slab_bytes);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->objects = c->objects;
    s->serial = c->next_serial++;
    if (c->flags & CB_SLUB_DEBUG) {
        unsigned char *area = (unsigned char *)s + c->first;
        memset(area, CB_SLUB_RED, (size_t)c->objects * c->stride);
        for (unsigned i = 0; i < c->objects; i++)
            memset(obj_at(c, s, i), CB_SLUB_POISON, c->obj_size);
    }
    for (unsigned i = 0; i < c->objects; i++)
        set_fp(obj_at(c, s, i), i + 1 < c->objects ? obj_at(c, s, i + 1) : NULL);
    s->freelist = obj_at(c, s, 0);
    s->inuse = 0;
    s->all_prev = NULL;
    s->all_next = c->all;
    if (c->all)
        c->all->all_prev = s;
    c->all = s;
    c->nr_slabs++;
    return s;
}

static void discard_slab(struct cb_slub_cache *c, struct cb_slub_slab *s)
{
    if (s->all_prev)
        s->all_prev->all_next = s->all_next;
    else
        c->all = s->all_next;
    if (s->all_next)
        s->all_next->all_prev = s->all_prev;
    c->nr_slabs--;
    free(s);
}

/* ---- create / destroy ----------------------------------------------------- */

int cb_slub_create(struct cb_slub_cache *c, size_t size, unsigned flags)
{
    memset(c, 0, sizeof *c);
    if (size == 0 || size > SLUB_MAX_OBJ)
        return -EINVAL;
    c->size = size;
    c->flags = flags;
    /* SLAB_HWCACHE_ALIGN for objects of a line or more: two objects never
     * share a line, so a free on one CPU never bounces another's object. */
    c->align = size >= 64 ? 64 : 8;
    c->obj_size = (size + c->align - 1) & ~(c->align - 1);
    if (c->obj_size < sizeof(void *))
        c->obj_size = sizeof(void *);
    c->red = (flags & CB_SLUB_DEBUG) ? c->align : 0;
    c->stride = c->obj_size + 2 * c->red;
    c->first = (sizeof(struct cb_slub_slab) + 63) & ~(size_t)63;
    c->slab_bytes = SLUB_MIN_BLOCK;
    while (c->slab_bytes < SLUB_MAX_BLOCK &&
           (c->slab_bytes - c->first) / c->stride < SLUB_MIN_OBJS)
        c->slab_bytes *= 2;
    c->objects = (unsigned)((c->slab_bytes - c->first) / c->stride);
    if (c->objects < 2)
        return -EINVAL;
    /* mm/slub.c set_min_partial(): between 5 and 10 empty-or-partial slabs
     * kept per node before empty ones go back to the page allocator. */
    c->min_partial = 8;
#if defined(__aarch64__)
    c->lse = (cb_cpu_features() & CB_CPU_LSE) != 0;
#endif
    return 0;
}

void cb_slub_destroy(struct cb_slub_cache *c)
{
    struct cb_slub_slab *s = c->all;
    while (s) {
        struct cb_slub_slab *next = s->all_next;
        free(s);
        s = next;
    }
    memset(c, 0, sizeof *c);
}

/* ---- allocation ------------------------------------------------------------- */

/* ___slab_alloc: the cpu freelist is empty.  With one thread every free to
 * the cpu slab went to the cpu freelist, so the cpu slab is full: it is
 * simply forgotten (a full slab is on no list), and the first partial slab,
 * or a new one, is frozen as the new cpu slab by taking its whole freelist. */
static void *slab_alloc_slow(struct cb_slub_cache *c)
{
    struct cb_slub_slab *s = c->cpu_slab;
    if (s && s->freelist) {
        /* Objects freed to the cpu slab through the slab path (not done by
         * this implementation, kept for the shape of get_freelist()). */
        c->freelist = s->freelist;
        s->freelist = NULL;
    } else {
        c->cpu_slab = NULL;
        s = c->partial;
        if (s)
            remove_partial(c, s);
        else if (!(s = new_slab(c)))
            return NULL;
        c->freelist = s->freelist;
        s->freelist = NULL;
        s->inuse = s->objects; /* frozen: the cpu owns every free object */
        c->cpu_slab = s;
    }
    void *obj = c->freelist;
    c->freelist = get_fp(obj);
    c->tid++;
    return obj;
}

void *cb_slub_alloc(struct cb_slub_cache *c)
{
    void *obj = c->freelist;
    if (likely(obj))
        cpu_freelist_commit(c, obj, get_fp(obj));
    else if (!(obj = slab_alloc_slow(c)))
        return NULL;
    if (unlikely(c->flags & CB_SLUB_DEBUG))
        debug_on_alloc(c, obj);
    return obj;
}

size_t cb_slub_alloc_bulk(struct cb_slub_cache *c, size_t n, void **p)
{
    size_t i = 0;
    while (i < n) {
        void *obj = c->freelist;
        if (unlikely(!obj)) {
            obj = slab_alloc_slow(c);
            if (!obj) {
                if (c->flags & CB_SLUB_DEBUG)
                    for (size_t k = 0; k < i; k++)
                        debug_on_alloc(c, p[k]);
                cb_slub_free_bulk(c, i, p);
                return 0;
            }
            p[i++] = obj;
            continue;
        }
        /* Take a run of the cpu freelist in one go: no per-object commit,
         * the whole batch is one transaction (the kernel disables irqs
         * once for the batch instead of a cmpxchg per object). */
        do {
            p[i++] = obj;
            obj = get_fp(obj);
        } while (i < n && obj);
        c->freelist = obj;
    }
    c->tid++;
    if (unlikely(c->flags & CB_SLUB_DEBUG))
        for (size_t k = 0; k < n; k++)
            debug_on_alloc(c, p[k]);
    return n;
}

/* ---- free ------------------------------------------------------------------- */

/* __slab_free: head..tail (cnt objects, already linked) go back to slab s,
 * which is not the cpu slab. */
static void slab_free_slow(struct cb_slub_cache *c, struct cb_slub_slab *s, void *head, void *tail,
                           unsigned cnt)
{
    int was_full = !s->on_partial;
    set_fp(tail, s->freelist);
    s->freelist = head;
    s->inuse -= cnt;
    if (s->inuse == 0 && c->nr_partial >= c->min_partial) {
        if (s->on_partial)
            remove_partial(c, s);
        discard_slab(c, s);
        return;
    }
    if (was_full)
        add_partial(c, s);
}

static inline void do_slab_free(struct cb_slub_cache *c, struct cb_slub_slab *s, void *head,
                                void *tail, unsigned cnt)
{
    if (likely(s == c->cpu_slab)) {
        void *old = c->freelist;
        set_fp(tail, old);
        cpu_freelist_commit(c, old, head);
    } else {
        slab_free_slow(c, s, head, tail, cnt);
    }
}

void cb_slub_free(struct cb_slub_cache *c, void *obj)
{
    if (unlikely(c->flags & CB_SLUB_DEBUG))
        debug_on_free(c, obj);
    do_slab_free(c, cb_slub_slab_of(c, obj), obj, obj, 1);
}

void cb_slub_free_bulk(struct cb_slub_cache *c, size_t n, void **p)
{
    if (unlikely(c->flags & CB_SLUB_DEBUG))
        for (size_t k = 0; k < n; k++)
            if (p[k])
                debug_on_free(c, p[k]);
    /* build_detached_freelist: take the last object, then look back through
     * the array for others of the same slab, linking them into a private
     * ("detached") freelist; give up on a slab after 3 objects of other
     * slabs, resuming later from the first one skipped.  Each group then
     * costs one splice instead of one free per object. */
    while (n) {
        void *obj;
        do
            obj = p[--n];
        while (!obj && n);
        if (!obj)
            break;
        struct cb_slub_slab *s = cb_slub_slab_of(c, obj);
        void *head = obj, *tail = obj;
        unsigned cnt = 1, lookahead = 3;
        size_t first_skipped = 0;
        set_fp(obj, NULL);
        size_t k = n;
        while (k) {
            void *o = p[--k];
            if (!o)
                continue;
            if (cb_slub_slab_of(c, o) == s) {
                set_fp(o, head);
                head = o;
                cnt++;
                p[k] = NULL;
                continue;
            }
            if (!--lookahead)
                break;
            if (!first_skipped)
                first_skipped = k + 1;
        }
        n = first_skipped; /* 0: every entry left was consumed */
        do_slab_free(c, s, head, tail, cnt);
    }
}

/* ---- invariants ------------------------------------------------------------- */

int cb_slub_locate(const struct cb_slub_cache *c, const void *obj, unsigned *serial,
                   unsigned *index)
{
    const struct cb_slub_slab *s = cb_slub_slab_of(c, obj);
    uintptr_t off = (uintptr_t)obj - (uintptr_t)s;
    if (!obj || off < c->first + c->red)
        return -EINVAL;
    off -= c->first + c->red;
    if (off % c->stride || off / c->stride >= c->objects)
        return -EINVAL;
    if (serial)
        *serial = s->serial;
    if (index)
        *index = (unsigned)(off / c->stride);
    return 0;
}
