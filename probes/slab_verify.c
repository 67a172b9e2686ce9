/* slab_verify.c — the slab family's verification: each variant's own run
 * sequence on a debug cache must leave SLUB's invariants whole (slub.c's
 * cb_slub_check), bulk calls must hand out the same objects as single ones,
 * and malloc's live objects must not overlap. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/slab.h"
#include "probes/slab_internal.h"
#include "probes/slab_remote.h"

static int ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

struct objid {
    unsigned serial, index;
};

static int id_cmp(const void *a, const void *b)
{
    const struct objid *x = a, *y = b;
    if (x->serial != y->serial)
        return x->serial < y->serial ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

#define VFAIL(...)                                                      \
    do {                                                                \
        snprintf(out->detail, sizeof out->detail, __VA_ARGS__);         \
        goto done;                                                      \
    } while (0)

/* malloc: objects of a live window are distinct, do not overlap, and hold
 * what was written over their whole size. */
static int verify_malloc(const struct slab_params *par, size_t size, struct cb_verdict *out)
{
    struct slab_state st;
    const size_t w = 97;
    int rc = cb_slab_state_init(&st, par, size, w, 0);
    if (rc)
        return rc;
    cb_slab_run_state(&st, 3 * w + 5);
    void **sorted = malloc(w * sizeof *sorted);
    if (!sorted) {
        cb_slab_state_free(&st);
        return -ENOMEM;
    }
    for (size_t i = 0; i < w; i++)
        memset(st.ring[i], (int)(i * 7 + 1), size);
    for (size_t i = 0; i < w; i++) {
        const unsigned char *p = st.ring[i];
        for (size_t b = 0; b < size; b++)
            if (p[b] != (unsigned char)(i * 7 + 1))
                VFAIL("malloc size %zu: object %zu byte %zu overwritten", size, i, b);
        out->checked++;
    }
    memcpy(sorted, st.ring, w * sizeof *sorted);
    qsort(sorted, w, sizeof *sorted, ptr_cmp);
    for (size_t i = 1; i < w; i++)
        if ((uintptr_t)sorted[i] - (uintptr_t)sorted[i - 1] < size)
            VFAIL("malloc size %zu: objects %p and %p overlap", size, sorted[i - 1], sorted[i]);
    rc = 1;
done:
    free(sorted);
    cb_slab_state_free(&st);
    return rc == 1 ? 0 : 1;
}

/* Free nfree of the n objects, the same ones in the same shuffled order:
 * singly from cs, in batches of b from cb (tmp: room for a batch). */
static void free_shuffled(struct cb_slub_cache *cs, struct cb_slub_cache *cb, void **ps,
                          void **pb, void **tmp, size_t *order, size_t n, size_t nfree,
                          unsigned b)
{
    uint64_t seed = 12345 + b;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = cb_slab_rnd(&seed) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < nfree; i++)
        cb_slub_free(cs, ps[order[i]]);
    for (size_t i = 0; i < nfree; i += b) {
        size_t k = nfree - i < b ? nfree - i : b;
        for (size_t j = 0; j < k; j++)
            tmp[j] = pb[order[i + j]];
        cb_slub_free_bulk(cb, k, tmp);
    }
}

/* Single calls and bulk calls of batch b, same sequence, same state. */
static int verify_bulk_state(unsigned b, size_t size, struct cb_verdict *out)
{
    struct cb_slub_cache cs, cb;
    struct cb_slub_report rs, rb;
    int bad = 1;
    if (cb_slub_create(&cs, size, CB_SLUB_DEBUG) || cb_slub_create(&cb, size, CB_SLUB_DEBUG))
        return -ENOMEM;
    size_t n = 3 * cs.objects + 5;
    void **ps = calloc(n, sizeof *ps), **pb = calloc(n, sizeof *pb), **tmp = calloc(n, sizeof *tmp);
    struct objid *is = calloc(n, sizeof *is), *ib = calloc(n, sizeof *ib);
    size_t *order = calloc(n, sizeof *order);
    if (!ps || !pb || !tmp || !is || !ib || !order) {
        bad = -ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        ps[i] = cb_slub_alloc(&cs);
    for (size_t i = 0; i < n; i += b)
        cb_slub_alloc_bulk(&cb, n - i < b ? n - i : b, pb + i);
    for (size_t i = 0; i < n; i++) {
        cb_slub_locate(&cs, ps[i], &is[i].serial, &is[i].index);
        cb_slub_locate(&cb, pb[i], &ib[i].serial, &ib[i].index);
        if (is[i].serial != ib[i].serial || is[i].index != ib[i].index)
            VFAIL("bulk-%u size %zu: allocation %zu is slab %u object %u, single gave %u/%u", b,
                  size, i, ib[i].serial, ib[i].index, is[i].serial, is[i].index);
    }
    size_t nfree = 2 * n / 3;
    free_shuffled(&cs, &cb, ps, pb, tmp, order, n, nfree, b);
    /* Keep the survivors at the front, in allocation order. */
    size_t nl = 0;
    for (size_t i = 0; i < nfree; i++)
        ps[order[i]] = pb[order[i]] = NULL;
    for (size_t i = 0; i < n; i++)
        if (ps[i]) {
            ps[nl] = ps[i];
            pb[nl] = pb[i];
            nl++;
        }
    if (cb_slub_check(&cs, ps, nl, &rs) || cb_slub_check(&cb, pb, nl, &rb))
        VFAIL("bulk-%u size %zu after frees: %.100s%.100s", b, size, rs.msg, rb.msg);
    for (size_t i = 0; i < nl; i++) {
        cb_slub_locate(&cs, ps[i], &is[i].serial, &is[i].index);
        cb_slub_locate(&cb, pb[i], &ib[i].serial, &ib[i].index);
    }
    qsort(is, nl, sizeof *is, id_cmp);
    qsort(ib, nl, sizeof *ib, id_cmp);
    for (size_t i = 0; i < nl; i++)
        if (is[i].serial != ib[i].serial || is[i].index != ib[i].index)
            VFAIL("bulk-%u size %zu: live sets differ after frees (slab %u object %u vs %u/%u)",
                  b, size, ib[i].serial, ib[i].index, is[i].serial, is[i].index);
    out->checked += nl;
    for (size_t i = 0; i < nl; i++)
        cb_slub_free(&cs, ps[i]);
    for (size_t i = 0; i < nl; i += b)
        cb_slub_free_bulk(&cb, nl - i < b ? nl - i : b, pb + i);
    if (cb_slub_check(&cs, NULL, 0, &rs) || cb_slub_check(&cb, NULL, 0, &rb))
        VFAIL("bulk-%u size %zu after freeing all: %.100s%.100s", b, size, rs.msg, rb.msg);
    if (rs.used_objects || rb.used_objects)
        VFAIL("bulk-%u size %zu: %zu / %zu objects still in use after freeing all", b, size,
              rs.used_objects, rb.used_objects);
    bad = 0;
done:
    free(ps);
    free(pb);
    free(tmp);
    free(is);
    free(ib);
    free(order);
    cb_slub_destroy(&cs);
    cb_slub_destroy(&cb);
    return bad;
}

/* The variant's own run() sequence on a debug cache, warm then cold. */
static int verify_slub(const struct slab_params *par, size_t size, struct cb_verdict *out)
{
    struct slab_state st;
    struct cb_slub_report r;
    int rc = cb_slab_state_init(&st, par, size, 0, CB_SLUB_DEBUG);
    if (rc)
        return rc;
    uint64_t iters = 3 * (uint64_t)st.cache.objects + 7;
    cb_slab_run_state(&st, iters);
    rc = cb_slub_check(&st.cache, NULL, 0, &r);
    if (rc == -ENOMEM)
        goto done;
    if (rc)
        VFAIL("size %zu warm: %s", size, r.msg);
    if (r.used_objects)
        VFAIL("size %zu warm: %zu objects still in use after run", size, r.used_objects);
    out->checked += iters;
    cb_slab_state_free(&st);

    /* Cold: a window of a few slabs' worth, not a multiple of any batch. */
    size_t w;
    {
        struct cb_slub_cache g;
        if ((rc = cb_slub_create(&g, size, CB_SLUB_DEBUG)))
            return rc;
        w = 4 * (size_t)g.objects + 5;
        cb_slub_destroy(&g);
    }
    if ((rc = cb_slab_state_init(&st, par, size, w, CB_SLUB_DEBUG)))
        return rc;
    for (int round = 0; round < 3; round++) {
        cb_slab_run_state(&st, w + 11 + (uint64_t)round * 17);
        rc = cb_slub_check(&st.cache, st.ring, w, &r);
        if (rc == -ENOMEM)
            goto done;
        if (rc)
            VFAIL("size %zu cold round %d: %s", size, round, r.msg);
        out->checked += w;
    }
    for (size_t i = 0; i < w; i++)
        cb_slub_free(&st.cache, st.ring[i]);
    rc = cb_slub_check(&st.cache, NULL, 0, &r);
    if (rc == -ENOMEM)
        goto done;
    if (rc)
        VFAIL("size %zu cold, after freeing the window: %s", size, r.msg);
    if (r.used_objects)
        VFAIL("size %zu cold: %zu objects in use after freeing the window", size,
              r.used_objects);
    cb_slab_state_free(&st);
    if (par->kind == K_BULK)
        return verify_bulk_state(par->batch, size, out);
    return 0;
done:
    cb_slab_state_free(&st);
    return rc == -ENOMEM ? rc : 1;
}

int cb_slab_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    static const size_t sizes[] = {64, 256, 2048, 40, 8, 1000};
    const struct slab_params *par = v->fn;
    memset(out, 0, sizeof *out);
    if (par->kind == K_REMOTE) {
        static const size_t rsizes[] = {16, 64, 256, 2048};
        out->ok = 1;
        for (size_t i = 0; i < sizeof rsizes / sizeof rsizes[0] && out->ok; i++) {
            int rc = cb_slab_remote_verify(par->batch, rsizes[i], out);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int rc = par->kind == K_MALLOC ? verify_malloc(par, sizes[i], out)
                                       : verify_slub(par, sizes[i], out);
        if (rc < 0)
            return rc;
        if (rc)
            return 0; /* out->detail says what */
    }
    out->ok = 1;
    return 0;
}
