/* page_pool_verify.c — a page_pool variant against a reference model of the
 * put it claims (page_pool.h), before anything is timed.
 *
 * The reference follows the kernel's rules with plain counters instead of
 * the ptr_ring's slots: the ring is a FIFO of page ids with a count of
 * consumed slots not yet zeroed (the producer sees the ring full when live
 * and unzeroed slots fill it), the alloc cache a stack, the page allocator
 * a stack.  A script of bursts from 1 to 1400 pages, warm and through a
 * deep RX ring, with some pages marked pfmemalloc, takes every path: the
 * cache's 128 and its refill of 64, the ring's batches, wraps and full
 * ring, the slow path's bulk of 64 and pages handed back.  After each burst
 * the pages it put back, in order, and every counter must agree. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/page_pool.h"

#define MAX_BURST 1400
#define NONE UINT32_MAX

struct ref {
    uint32_t *free;
    size_t nfree;
    uint32_t cache[CB_PP_CACHE_SIZE];
    unsigned n;
    uint32_t q[CB_PP_RING_SIZE];   /* the ring's pages, oldest at qh */
    unsigned qh, live;
    unsigned h, stale;             /* the consumer's slot; consumed slots not yet zeroed */
    uint32_t *delay;
    size_t ndelay, at;
    const unsigned char *pfm;      /* pfmemalloc, by page id */
    struct cb_pp_stats st;
    uint64_t hold, release;
};

static void ref_return(struct ref *r, uint32_t id)
{
    r->release++;
    r->free[r->nfree++] = id;
}

static uint32_t ref_slow(struct ref *r)
{
    while (r->n < CB_PP_CACHE_REFILL && r->nfree) {
        r->cache[r->n++] = r->free[--r->nfree];
        r->hold++;
    }
    if (!r->n)
        return NONE;
    r->st.slow++;
    return r->cache[--r->n];
}

static uint32_t ref_consume(struct ref *r)
{
    uint32_t id = r->q[r->qh];
    r->qh = (r->qh + 1) % CB_PP_RING_SIZE;
    r->live--;
    r->h++;
    r->stale++;
    if (r->stale >= CB_PP_RING_BATCH || r->h >= CB_PP_RING_SIZE)
        r->stale = 0;
    if (r->h >= CB_PP_RING_SIZE)
        r->h = 0;
    return id;
}

static uint32_t ref_alloc(struct ref *r)
{
    if (r->n) {
        r->st.fast++;
        return r->cache[--r->n];
    }
    if (!r->live) {
        r->st.empty++;
        return ref_slow(r);
    }
    while (r->live && r->n < CB_PP_CACHE_REFILL)
        r->cache[r->n++] = ref_consume(r);
    r->st.refill++;
    return r->cache[--r->n];
}

static int ref_produce(struct ref *r, uint32_t id)
{
    if (r->live + r->stale >= CB_PP_RING_SIZE)
        return 0;
    r->q[(r->qh + r->live) % CB_PP_RING_SIZE] = id;
    r->live++;
    return 1;
}

static void ref_put(struct ref *r, uint32_t id, int direct)
{
    if (r->pfm[id]) {
        r->st.released_refcnt++;
        ref_return(r, id);
        return;
    }
    if (direct && r->n < CB_PP_CACHE_SIZE) {
        r->cache[r->n++] = id;
        r->st.cached++;
        return;
    }
    r->st.cache_full += (uint64_t)direct;
    if (ref_produce(r, id)) {
        r->st.ring++;
        return;
    }
    r->st.ring_full++;
    ref_return(r, id);
}

static void ref_put_bulk(struct ref *r, const uint32_t *ids, unsigned n)
{
    for (unsigned at = 0; at < n; at += CB_PP_BULK) {
        uint32_t keep[CB_PP_BULK];
        unsigned k = 0, i;
        for (i = at; i < n && i < at + CB_PP_BULK; i++)
            if (r->pfm[ids[i]]) {
                r->st.released_refcnt++;
                ref_return(r, ids[i]);
            } else {
                keep[k++] = ids[i];
            }
        for (i = 0; i < k && ref_produce(r, keep[i]); i++)
            r->st.ring++;
        r->st.ring_full += (uint64_t)(i < k);
        for (; i < k; i++)
            ref_return(r, keep[i]);
    }
}

static uint32_t ref_post(struct ref *r, uint32_t id)
{
    if (!r->ndelay)
        return id;
    uint32_t old = r->delay[r->at];
    r->delay[r->at] = id;
    r->at = (r->at + 1) % r->ndelay;
    return old;
}

static unsigned ref_burst(struct ref *r, unsigned n, enum cb_pp_put put, uint32_t *out)
{
    unsigned i;
    for (i = 0; i < n; i++) {
        uint32_t id = ref_alloc(r);
        if (id == NONE)
            break;
        out[i] = ref_post(r, id);
    }
    if (put == CB_PP_RING_BULK)
        ref_put_bulk(r, out, i);
    else
        for (unsigned k = 0; k < i; k++)
            ref_put(r, out[k], put == CB_PP_DIRECT);
    return i;
}

/* The script's burst sizes: the edges of every limit, then spread. */
static unsigned script_burst(unsigned k, uint64_t *x)
{
    static const unsigned edges[] = {1,   2,   15,  16,  17,  63,   64,   65,
                                     127, 128, 129, 300, 1023, 1100, 1400, 700};
    if (k < 2 * sizeof edges / sizeof edges[0])
        return edges[k % (sizeof edges / sizeof edges[0])];
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    unsigned v = (unsigned)(*x >> 33);
    return v % 4 ? 1 + v % 130 : 1 + v % MAX_BURST;
}

/* The model's counters against the reference's: the first that differs, or NULL. */
static const char *counters_differ(const struct cb_pp_case *s, const struct ref *r)
{
    const struct cb_pp_pool *p = &s->pool;
    const struct cb_pp_stats *a = &p->st, *b = &r->st;
    return p->count != r->n                                          ? "pages in the alloc cache"
           : cb_pp_ring_count(&p->ring) != r->live + r->stale        ? "slots taken in the ring"
           : p->nfree != r->nfree                                    ? "free pages"
           : p->hold != r->hold || p->release != r->release          ? "pages held or released"
           : a->fast != b->fast || a->slow != b->slow                ? "fast or slow allocations"
           : a->empty != b->empty || a->refill != b->refill          ? "refills or empty rings"
           : a->cached != b->cached || a->cache_full != b->cache_full ? "puts into the cache"
           : a->ring != b->ring || a->ring_full != b->ring_full      ? "puts into the ring"
           : a->released_refcnt != b->released_refcnt                ? "pages released"
                                                                     : NULL;
}

/* One run of the script: 0 when it ran (out says how it went). */
static int script(const struct cb_pp_impl *im, size_t delay, int pfm_every, struct cb_verdict *out)
{
    struct cb_pp_case *s = aligned_alloc(64, (sizeof *s + 63) / 64 * 64);
    struct ref *r = calloc(1, sizeof *r);
    size_t npages = cb_pp_case_pages(MAX_BURST, delay);
    uint32_t *got = malloc(MAX_BURST * sizeof *got), *want = malloc(MAX_BURST * sizeof *want);
    unsigned char *pfm = calloc(npages, 1);
    int rc = -ENOMEM;
    if (!s || !r || !got || !want || !pfm)
        goto done;
    memset(s, 0, sizeof *s);
    if (cb_pp_case_init(s, MAX_BURST, delay, NULL) != 0)
        goto done;
    r->free = malloc(npages * sizeof *r->free);
    r->delay = delay ? malloc(delay * sizeof *r->delay) : NULL;
    if (!r->free || (delay && !r->delay)) {
        cb_pp_case_free(s);
        goto done;
    }
    for (size_t i = 0; i < npages; i++)
        r->free[i] = (uint32_t)(npages - 1 - i);
    r->nfree = npages;
    r->ndelay = delay;
    r->pfm = pfm;
    for (size_t i = 0; i < delay; i++)
        r->delay[i] = ref_alloc(r);
    for (size_t i = 0; pfm_every && i < npages; i++)
        s->pool.pages[i].pfmemalloc = pfm[i] = i % (size_t)pfm_every == 7;
    rc = 0;
    uint64_t x = 0x2545F4914F6CDD1Dull ^ delay;
    for (unsigned k = 0; k < 400 && out->ok; k++) {
        unsigned n = script_burst(k, &x);
        unsigned m = ref_burst(r, n, im->put, want);
        im->burst(s, n);
        for (unsigned i = 0; i < m; i++)
            got[i] = s->out[i]->id;
        out->checked += m;
        unsigned i = 0;
        while (i < m && got[i] == want[i])
            i++;
        const char *what = i < m ? NULL : counters_differ(s, r);
        if (i < m)
            snprintf(out->detail, sizeof out->detail,
                     "burst %u of %u pages (delay %zu): page %u put back was %" PRIu32
                     ", the reference's %" PRIu32, k, n, delay, i, got[i], want[i]);
        else if (what)
            snprintf(out->detail, sizeof out->detail,
                     "burst %u of %u pages (delay %zu): the %s differ from the reference's", k, n,
                     delay, what);
        out->ok = i == m && !what;
    }
    cb_pp_case_free(s);
done:
    free(s);
    if (r) {
        free(r->free);
        free(r->delay);
    }
    free(r);
    free(got);
    free(want);
    free(pfm);
    return rc;
}

int cb_pp_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    const struct cb_pp_impl *im = v->fn;
    memset(out, 0, sizeof *out);
    out->ok = 1;
    static const struct {
        size_t delay;
        int pfm_every;
    } runs[] = {{0, 0}, {37, 0}, {0, 53}, {211, 31}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0] && out->ok; i++) {
        int rc = script(im, runs[i].delay, runs[i].pfm_every, out);
        if (rc)
            return rc;
    }
    return 0;
}
