/* slub_check.c — cb_slub_check (slub.h): every slab of a cache walked and
 * SLUB's invariants verified (the lists, the counts, each freelist, the red
 * zones and poison of a debug cache, and the caller's live objects), so
 * that a variant which corrupts the allocator is BAD rather than timed;
 * slub.c is the allocator itself. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/slub.h"
#include "probes/slub_layout.h"

struct slab_ref {
    const struct cb_slub_slab *s;
    unsigned char *mark;  /* per object: 1 free, 2 live (caller's) */
};

static int ref_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct slab_ref *)a)->s;
    uintptr_t y = (uintptr_t)((const struct slab_ref *)b)->s;
    return x < y ? -1 : x > y;
}

static struct slab_ref *find_ref(struct slab_ref *refs, size_t n, const void *slab)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)refs[mid].s < (uintptr_t)slab)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && refs[lo].s == slab ? &refs[lo] : NULL;
}

/* Say what is wrong (when there is a report) and fail the check. */
#define FAIL(...)                                                      \
    do {                                                               \
        if (r)                                                         \
            snprintf(r->msg, sizeof r->msg, __VA_ARGS__);              \
        return -EFAULT;                                                \
    } while (0)

/* Walk one freelist of slab ref, marking its objects free. */
static int walk_freelist(const struct cb_slub_cache *c, struct slab_ref *ref, const void *head,
                         size_t *count, char *msg, size_t msglen)
{
    size_t n = 0;
    for (const void *o = head; o; o = get_fp(o)) {
        unsigned idx;
        if (cb_slub_slab_of(c, o) != ref->s || cb_slub_locate(c, o, NULL, &idx)) {
            snprintf(msg, msglen, "slab %u: freelist entry %p is not an object of it",
                     ref->s->serial, o);
            return -1;
        }
        if (ref->mark[idx]) {
            snprintf(msg, msglen, "slab %u: object %u is on a freelist twice (double free?)",
                     ref->s->serial, idx);
            return -1;
        }
        ref->mark[idx] = 1;
        n++;
    }
    *count += n;
    return 0;
}

/* The cpu slab, and the partial list: linked, counted, flagged. */
static int check_lists(const struct cb_slub_cache *c, struct slab_ref *refs, size_t nslabs,
                       struct cb_slub_report *r)
{
    if (!c->cpu_slab && c->freelist)
        FAIL("cpu freelist %p without a cpu slab", c->freelist);
    if (c->cpu_slab && !find_ref(refs, nslabs, c->cpu_slab))
        FAIL("cpu slab %p is not a slab of this cache", (void *)c->cpu_slab);
    size_t np = 0;
    const struct cb_slub_slab *prev = NULL;
    for (const struct cb_slub_slab *s = c->partial; s; prev = s, s = s->next) {
        if (++np > nslabs)
            FAIL("partial list loops");
        if (!find_ref(refs, nslabs, s))
            FAIL("partial list holds %p, not a slab of this cache", (void *)s);
        if (!s->on_partial)
            FAIL("slab %u on the partial list is not flagged so", s->serial);
        if (prev && s->prev != prev)
            FAIL("partial list back link broken at slab %u", s->serial);
    }
    if (c->partial && c->partial->prev != prev)
        FAIL("partial list head does not point at its tail");
    if (np != c->nr_partial)
        FAIL("partial list holds %zu slabs, count says %zu", np, c->nr_partial);
    return 0;
}

/* A debug cache: every red zone intact, every free object still poison. */
static int check_debug(const struct cb_slub_cache *c, const struct slab_ref *ref,
                       struct cb_slub_report *r)
{
    const struct cb_slub_slab *s = ref->s;
    for (unsigned k = 0; k < s->objects; k++) {
        const unsigned char *slot = slot_of(c, s, k);
        const unsigned char *obj = slot + c->red;
        for (size_t b = 0; b < c->red; b++) {
            if (slot[b] != CB_SLUB_RED)
                FAIL("slab %u object %u: red zone before it overwritten at -%zu", s->serial, k,
                     c->red - b);
            if (obj[c->obj_size + b] != CB_SLUB_RED)
                FAIL("slab %u object %u: red zone after it overwritten at +%zu", s->serial, k,
                     c->obj_size + b);
        }
        if (ref->mark[k] == 1)
            for (size_t b = sizeof(void *); b < c->obj_size; b++)
                if (obj[b] != CB_SLUB_POISON)
                    FAIL("slab %u object %u: free object written at byte %zu", s->serial, k, b);
    }
    return 0;
}

/* One slab: its freelists, its count, its place on the partial list; its
 * free and used objects added to the totals. */
static int check_slab(const struct cb_slub_cache *c, struct slab_ref *ref, size_t *freeobj,
                      size_t *used, struct cb_slub_report *r)
{
    const struct cb_slub_slab *s = ref->s;
    size_t own = 0, cpu = 0;
    char tmp[160];
    if (s->objects != c->objects)
        FAIL("slab %u: capacity %u, cache says %u", s->serial, s->objects, c->objects);
    if (walk_freelist(c, ref, s->freelist, &own, tmp, sizeof tmp))
        FAIL("%s", tmp);
    if (s == c->cpu_slab && walk_freelist(c, ref, c->freelist, &cpu, tmp, sizeof tmp))
        FAIL("cpu freelist: %s", tmp);
    if (s->inuse + own != s->objects)
        FAIL("slab %u: inuse %u + free %zu != capacity %u", s->serial, s->inuse, own, s->objects);
    if (s == c->cpu_slab) {
        if (s->on_partial)
            FAIL("cpu slab %u is on the partial list", s->serial);
    } else if (!!s->on_partial != (s->inuse < s->objects)) {
        FAIL("slab %u: inuse %u of %u but %s the partial list", s->serial, s->inuse, s->objects,
             s->on_partial ? "on" : "not on");
    }
    *freeobj += own + cpu;
    *used += s->objects - own - cpu;
    return (c->flags & CB_SLUB_DEBUG) ? check_debug(c, ref, r) : 0;
}

/* The caller's live objects: each one of this cache, handed out, once. */
static int check_live(const struct cb_slub_cache *c, struct slab_ref *refs, size_t nslabs,
                      void *const *live, size_t nlive, size_t used, struct cb_slub_report *r)
{
    for (size_t k = 0; k < nlive; k++) {
        const void *o = live[k];
        unsigned idx;
        struct slab_ref *ref = o ? find_ref(refs, nslabs, cb_slub_slab_of(c, o)) : NULL;
        if (!ref || cb_slub_locate(c, o, NULL, &idx))
            FAIL("live[%zu] = %p is not an object of this cache", k, o);
        if (ref->mark[idx] == 1)
            FAIL("live[%zu] = %p (slab %u object %u) is on a freelist", k, o, ref->s->serial, idx);
        if (ref->mark[idx] == 2)
            FAIL("live[%zu] = %p (slab %u object %u) is listed twice", k, o, ref->s->serial, idx);
        ref->mark[idx] = 2;
    }
    if (nlive != used)
        FAIL("%zu objects handed out, caller holds %zu", used, nlive);
    return 0;
}

int cb_slub_check(const struct cb_slub_cache *c, void *const *live, size_t nlive,
                  struct cb_slub_report *r)
{
    size_t nslabs = 0, used = 0, freeobj = 0;
    if (r)
        memset(r, 0, sizeof *r);
    for (const struct cb_slub_slab *s = c->all; s; s = s->all_next)
        if (++nslabs > c->nr_slabs)
            break;
    if (nslabs != c->nr_slabs) {
        if (r)
            snprintf(r->msg, sizeof r->msg, "slab list holds %s%zu slabs, count says %zu",
                     nslabs > c->nr_slabs ? "more than " : "", nslabs, c->nr_slabs);
        return -EFAULT;
    }
    struct slab_ref *refs = calloc(nslabs ? nslabs : 1, sizeof *refs);
    unsigned char *marks = calloc(nslabs ? nslabs * c->objects : 1, 1);
    if (!refs || !marks) {
        free(refs);
        free(marks);
        return -ENOMEM;
    }
    size_t i = 0;
    for (const struct cb_slub_slab *s = c->all; s; s = s->all_next, i++) {
        refs[i].s = s;
        refs[i].mark = marks + i * c->objects;
    }
    qsort(refs, nslabs, sizeof *refs, ref_cmp);

    int rc = check_lists(c, refs, nslabs, r);
    for (i = 0; rc == 0 && i < nslabs; i++)
        rc = check_slab(c, &refs[i], &freeobj, &used, r);
    if (rc == 0 && (c->flags & CB_SLUB_DEBUG) && c->live != (int64_t)used) {
        if (r)
            snprintf(r->msg, sizeof r->msg, "live count %lld, but %zu objects are handed out",
                     (long long)c->live, used);
        rc = -EFAULT;
    }
    if (rc == 0 && live)
        rc = check_live(c, refs, nslabs, live, nlive, used, r);
    if (r) {
        r->slabs = nslabs;
        r->free_objects = freeobj;
        r->used_objects = used;
        r->partial = c->nr_partial;
    }
    free(refs);
    free(marks);
    return rc;
}
