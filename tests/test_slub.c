/* test_slub.c — the SLUB-shaped allocator and the "slab" probe family.
 *
 * The checker is tested on deliberately broken sequences (it must object),
 * the allocator against the test's own bookkeeping of what it holds, and
 * every variant through the family's verify(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "harness/probe.h"
#include "probes/slab.h"
#include "probes/slub.h"
#include "tap.h"

static int ptrcmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

static const struct cb_variant *variant(const char *name)
{
    for (size_t i = 0; i < cb_probe_slab.nvariants; i++)
        if (strcmp(cb_probe_slab.variants[i].name, name) == 0)
            return &cb_probe_slab.variants[i];
    return NULL;
}

static void test_verify_all(void)
{
    for (size_t i = 0; i < cb_probe_slab.nvariants; i++) {
        const struct cb_variant *v = &cb_probe_slab.variants[i];
        struct cb_verdict vd;
        int rc = cb_probe_slab.verify(v, &vd);
        ok(rc == 0 && vd.ok && vd.checked > 0, "verify %s (%llu checked)%s%s", v->name,
           (unsigned long long)vd.checked, vd.ok ? "" : ": ", vd.ok ? "" : vd.detail);
    }
}

/* Each broken sequence must make cb_slub_check fail. */
static void test_checker_catches(void)
{
    struct cb_slub_cache c;
    struct cb_slub_report r;
    void *held[64];

    /* Double free. */
    cb_slub_create(&c, 256, CB_SLUB_DEBUG);
    void *a = cb_slub_alloc(&c), *b = cb_slub_alloc(&c);
    held[0] = b;
    held[1] = a;
    ok(cb_slub_check(&c, held, 2, &r) == 0, "clean state passes: %s", r.msg);
    cb_slub_free(&c, a);
    cb_slub_free(&c, a);
    ok(cb_slub_check(&c, held, 1, &r) == -EFAULT, "double free caught: %s", r.msg);
    cb_slub_destroy(&c);

    /* Double free to a slab that is not the cpu slab. */
    cb_slub_create(&c, 64, CB_SLUB_DEBUG);
    size_t n = c.objects + 3;
    void **p = calloc(n, sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = cb_slub_alloc(&c);
    cb_slub_free(&c, p[0]);
    cb_slub_free(&c, p[1]);
    cb_slub_free(&c, p[0]);
    ok(cb_slub_check(&c, p + 2, n - 2, &r) == -EFAULT, "double free to a non-cpu slab caught: %s",
       r.msg);
    cb_slub_destroy(&c);
    free(p);

    /* One byte past the end of an object, and one before it. */
    cb_slub_create(&c, 256, CB_SLUB_DEBUG);
    a = cb_slub_alloc(&c);
    memset(a, 0x11, 256); /* the whole object is fine */
    held[0] = a;
    ok(cb_slub_check(&c, held, 1, &r) == 0, "writing the whole object is allowed: %s", r.msg);
    ((unsigned char *)a)[256] = 0;
    ok(cb_slub_check(&c, held, 1, &r) == -EFAULT && strstr(r.msg, "red zone after"),
       "write past the object caught: %s", r.msg);
    cb_slub_destroy(&c);
    cb_slub_create(&c, 40, CB_SLUB_DEBUG);
    a = cb_slub_alloc(&c);
    held[0] = a;
    ((unsigned char *)a)[-1] = 0;
    ok(cb_slub_check(&c, held, 1, &r) == -EFAULT && strstr(r.msg, "red zone before"),
       "write before the object caught: %s", r.msg);
    cb_slub_destroy(&c);

    /* Write after free. */
    cb_slub_create(&c, 128, CB_SLUB_DEBUG);
    a = cb_slub_alloc(&c);
    cb_slub_free(&c, a);
    ((unsigned char *)a)[100] = 1;
    ok(cb_slub_check(&c, NULL, 0, &r) == -EFAULT && strstr(r.msg, "free object written"),
       "write after free caught: %s", r.msg);
    cb_slub_destroy(&c);

    /* A bulk free that skips one object: the checker sees one object handed
     * out that the caller no longer claims. */
    cb_slub_create(&c, 256, CB_SLUB_DEBUG);
    void *bulk[16], *copy[16];
    is_uint(cb_slub_alloc_bulk(&c, 16, bulk), 16, "alloc_bulk 16");
    memcpy(copy, bulk, sizeof bulk);
    cb_slub_free_bulk(&c, 15, bulk);
    ok(cb_slub_check(&c, held, 0, &r) == -EFAULT, "bulk free skipping one caught: %s", r.msg);
    is_uint(r.used_objects, 1, "exactly one object left in use");
    held[0] = copy[15];
    ok(cb_slub_check(&c, held, 1, &r) == 0, "and it is the skipped one: %s", r.msg);
    cb_slub_destroy(&c);

    /* Claiming an object twice, or a freed one, is caught too. */
    cb_slub_create(&c, 256, CB_SLUB_DEBUG);
    a = cb_slub_alloc(&c);
    b = cb_slub_alloc(&c);
    held[0] = a;
    held[1] = a;
    ok(cb_slub_check(&c, held, 2, &r) == -EFAULT, "object listed twice caught: %s", r.msg);
    cb_slub_free(&c, b);
    held[1] = b;
    ok(cb_slub_check(&c, held, 2, &r) == -EFAULT, "freed object claimed live caught: %s", r.msg);
    cb_slub_destroy(&c);
}

struct id {
    unsigned s, i;
};

static int idcmp(const void *a, const void *b)
{
    const struct id *x = a, *y = b;
    return x->s != y->s ? (x->s < y->s ? -1 : 1) : (x->i < y->i ? -1 : x->i > y->i);
}

static void ids_of(const struct cb_slub_cache *c, void **p, size_t n, struct id *out)
{
    for (size_t k = 0; k < n; k++)
        cb_slub_locate(c, p[k], &out[k].s, &out[k].i);
    qsort(out, n, sizeof *out, idcmp);
}

/* The same sequence through single and bulk calls: same live objects. */
static void test_single_vs_bulk(void)
{
    static const unsigned batches[] = {2, 7, 16, 250};
    for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
        unsigned b = batches[bi];
        struct cb_slub_cache cs, cb;
        struct cb_slub_report rs, rb;
        cb_slub_create(&cs, 192, CB_SLUB_DEBUG);
        cb_slub_create(&cb, 192, CB_SLUB_DEBUG);
        size_t n = 5 * cs.objects + 3;
        void **ps = calloc(n, sizeof *ps), **pb = calloc(n, sizeof *pb);
        void **tmp = calloc(n, sizeof *tmp);
        struct id *is = calloc(n, sizeof *is), *ib = calloc(n, sizeof *ib);
        for (size_t i = 0; i < n; i++)
            ps[i] = cb_slub_alloc(&cs);
        for (size_t i = 0; i < n; i += b)
            cb_slub_alloc_bulk(&cb, n - i < b ? n - i : b, pb + i);
        ids_of(&cs, ps, n, is);
        ids_of(&cb, pb, n, ib);
        ok(memcmp(is, ib, n * sizeof *is) == 0, "batch %u: same objects allocated", b);
        /* Free every third object (from the end), then every other. */
        size_t nk = 0, nf = 0;
        for (size_t i = n; i-- > 0;)
            if (i % 3 == 1)
                tmp[nf++] = pb[i];
        for (size_t i = n; i-- > 0;)
            if (i % 3 == 1)
                cb_slub_free(&cs, ps[i]);
        for (size_t i = 0; i < nf; i += b)
            cb_slub_free_bulk(&cb, nf - i < b ? nf - i : b, tmp + i);
        for (size_t i = 0; i < n; i++)
            if (i % 3 != 1) {
                ps[nk] = ps[i];
                pb[nk] = pb[i];
                nk++;
            }
        ok(cb_slub_check(&cs, ps, nk, &rs) == 0, "batch %u: single state ok %s", b, rs.msg);
        ok(cb_slub_check(&cb, pb, nk, &rb) == 0, "batch %u: bulk state ok %s", b, rb.msg);
        is_uint(rb.used_objects, n - nf, "batch %u: in-use count is what the test holds", b);
        ids_of(&cs, ps, nk, is);
        ids_of(&cb, pb, nk, ib);
        ok(memcmp(is, ib, nk * sizeof *is) == 0, "batch %u: same live set after frees", b);
        is_uint(rb.slabs, rs.slabs, "batch %u: same number of slabs", b);
        is_uint(rb.partial, rs.partial, "batch %u: same number of partial slabs", b);
        /* Free the rest, bulk in one call per batch. */
        for (size_t i = 0; i < nk; i++)
            cb_slub_free(&cs, ps[i]);
        for (size_t i = 0; i < nk; i += b)
            cb_slub_free_bulk(&cb, nk - i < b ? nk - i : b, pb + i);
        ok(cb_slub_check(&cs, NULL, 0, &rs) == 0 && rs.used_objects == 0 &&
               rs.free_objects == rs.slabs * cs.objects,
           "batch %u: single path empty again, every slab's objects free", b);
        ok(cb_slub_check(&cb, NULL, 0, &rb) == 0 && rb.used_objects == 0 &&
               rb.free_objects == rb.slabs * cb.objects,
           "batch %u: bulk path empty again, every slab's objects free", b);
        free(ps);
        free(pb);
        free(tmp);
        free(is);
        free(ib);
        cb_slub_destroy(&cs);
        cb_slub_destroy(&cb);
    }
}

static void test_geometry(void)
{
    static const size_t sizes[] = {8, 40, 64, 100, 256, 2048, 5000};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t size = sizes[si];
        size_t align = size >= 64 ? 64 : 8;
        struct cb_slub_cache c;
        struct cb_slub_report r;
        is_int(cb_slub_create(&c, size, 0), 0, "create size %zu", size);
        size_t n = 3 * c.objects + 1;
        void **p = calloc(n, sizeof *p);
        int aligned = 1, pattern = 1, inslab = 1;
        for (size_t i = 0; i < n; i++) {
            p[i] = cb_slub_alloc(&c);
            if ((uintptr_t)p[i] % align)
                aligned = 0;
            uintptr_t base = (uintptr_t)cb_slub_slab_of(&c, p[i]);
            if ((uintptr_t)p[i] < base + 64 || (uintptr_t)p[i] + size > base + c.slab_bytes)
                inslab = 0;
            memset(p[i], (int)(i & 0xff), size);
        }
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < size; k++)
                if (((unsigned char *)p[i])[k] != (unsigned char)(i & 0xff))
                    pattern = 0;
        ok(aligned, "size %zu: objects %zu-byte aligned", size, align);
        ok(inslab, "size %zu: objects inside their slab block, after its header", size);
        ok(pattern, "size %zu: %zu objects written whole, none overwritten another", size, n);
        ok(c.objects >= 2 && c.slab_bytes >= 4096 && c.slab_bytes <= 32768,
           "size %zu: %u objects per %zu-byte slab", size, c.objects, c.slab_bytes);
        qsort(p, n, sizeof *p, ptrcmp);
        size_t mingap = (size_t)-1;
        for (size_t i = 1; i < n; i++)
            if ((uintptr_t)p[i] - (uintptr_t)p[i - 1] < mingap)
                mingap = (uintptr_t)p[i] - (uintptr_t)p[i - 1];
        ok(mingap >= size, "size %zu: distinct objects at least size apart (min gap %zu)", size,
           mingap);
        ok(cb_slub_check(&c, p, n, &r) == 0, "size %zu: live set matches %s", size, r.msg);
        for (size_t i = 0; i < n; i++)
            cb_slub_free(&c, p[i]);
        ok(cb_slub_check(&c, NULL, 0, &r) == 0 && r.used_objects == 0,
           "size %zu: all freed, in-use 0", size);
        free(p);
        cb_slub_destroy(&c);
    }
    struct cb_slub_cache c;
    is_int(cb_slub_create(&c, 0, 0), -EINVAL, "size 0 refused");
    is_int(cb_slub_create(&c, 1 << 20, 0), -EINVAL, "1 MiB objects refused");
}

/* alloc-clear: one run() zeroes exactly the object's first clear bytes. */
static void test_alloc_clear(void)
{
    static const struct {
        const char *v;
        size_t size, want;
    } cases[] = {
        {"alloc-clear3", 256, 192}, {"alloc-clear4", 256, 256}, {"alloc-clear3", 2048, 192},
        {"alloc-clear4", 2048, 256}, {"alloc-clear4", 64, 64},   {"alloc-clear3", 128, 128},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        struct cb_case c = {.probe = &cb_probe_slab, .variant = variant(cases[t].v),
                            .size = cases[t].size, .mode = CB_MODE_WARM};
        if (!c.variant || cb_probe_slab.setup(&c)) {
            ok(0, "%s setup", cases[t].v);
            continue;
        }
        is_uint(cb_slab_clear_bytes(c.variant, c.size), cases[t].want, "%s size %zu clears %zu",
                cases[t].v, c.size, cases[t].want);
        struct cb_slub_cache *sc = cb_slab_cache(&c);
        struct cb_slub_report r;
        cb_slub_check(sc, NULL, 0, &r);
        /* Take every free object (no new slab), dirty it, give it back. */
        size_t n = r.free_objects + sc->objects;
        void **p = calloc(n, sizeof *p);
        for (size_t i = 0; i < n; i++) {
            p[i] = cb_slub_alloc(sc);
            memset(p[i], 0xff, c.size);
        }
        for (size_t i = 0; i < n; i++)
            cb_slub_free(sc, p[i]);
        cb_probe_slab.run(&c, 1);
        cb_slub_check(sc, NULL, 0, &r);
        ok(r.free_objects == n && r.used_objects == 0, "%s size %zu: %zu objects, all free again",
           cases[t].v, c.size, n);
        size_t zeroed = 0, dirty = 0, other = 0;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *o = p[i] = cb_slub_alloc(sc);
            size_t z = 0, f = 0;
            for (size_t k = 8; k < c.size; k++) {
                z += o[k] == 0 && k < cases[t].want;
                f += o[k] == 0xff && k >= cases[t].want;
            }
            if (z == cases[t].want - 8 && f == c.size - cases[t].want)
                zeroed++;
            else if (o[8] == 0xff && o[c.size - 1] == 0xff)
                dirty++;
            else
                other++;
        }
        ok(zeroed == 1 && dirty == n - 1 && other == 0,
           "%s size %zu: one object has bytes 8..%zu zero and the rest intact (%zu/%zu/%zu)",
           cases[t].v, c.size, cases[t].want, zeroed, dirty, other);
        for (size_t i = 0; i < n; i++)
            cb_slub_free(sc, p[i]);
        free(p);
        cb_probe_slab.teardown(&c);
    }
}

/* Cold mode: the window is live, distinct and consistent before and after
 * runs; run(c, 0) changes nothing. */
static void test_cold_and_empty(void)
{
    static const char *names[] = {"single", "slowpath", "bulk-16", "bulk-250", "alloc-clear4"};
    for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
        struct cb_case c = {.probe = &cb_probe_slab, .variant = variant(names[t]), .size = 256,
                            .mode = CB_MODE_COLD, .cold_bytes = 1 << 20};
        struct cb_slub_report r;
        if (!c.variant || cb_probe_slab.setup(&c)) {
            ok(0, "%s cold setup", names[t]);
            continue;
        }
        struct cb_slub_cache *sc = cb_slab_cache(&c);
        size_t w;
        void **win = cb_slab_window(&c, &w);
        ok(w * 256 >= (1 << 20) * 9 / 10, "%s cold: window of %zu objects covers ~1 MiB",
           names[t], w);
        ok(cb_slub_check(sc, win, w, &r) == 0, "%s cold: window is the live set %s", names[t],
           r.msg);
        size_t slabs = r.slabs;
        uint64_t tid = sc->tid;
        cb_probe_slab.run(&c, 0);
        is_uint(sc->tid, tid, "%s: run(c, 0) makes no allocator call", names[t]);
        cb_probe_slab.run(&c, 3 * w + 17);
        ok(cb_slub_check(sc, win, w, &r) == 0, "%s cold after 3 passes: window still the live set %s",
           names[t], r.msg);
        is_uint(r.slabs, slabs, "%s cold: no slab added or given back in run", names[t]);
        cb_probe_slab.teardown(&c);
    }
    /* Warm run(c, 0) on the malloc row: nothing to see but no crash, and
     * the sink unchanged. */
    struct cb_case c = {.probe = &cb_probe_slab, .variant = variant("malloc"), .size = 64,
                        .mode = CB_MODE_WARM};
    if (cb_probe_slab.setup(&c) == 0) {
        uint64_t before = c.sink;
        cb_probe_slab.run(&c, 0);
        is_uint(c.sink, before, "malloc: run(c, 0) leaves the sink alone");
        cb_probe_slab.teardown(&c);
    }
}

/* Randomised alloc/free/bulk sequences, thousands of operations, with the
 * invariants checked after every one.  Independently of the checker, each
 * live object carries a stamp of its own address across its whole size: an
 * object handed out twice, or two that overlap, would overwrite one. */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void stamp(void *p, size_t size)
{
    for (size_t k = 0; k + sizeof(uintptr_t) <= size; k += sizeof(uintptr_t))
        memcpy((char *)p + k, &p, sizeof p);
}

static int stamped(void *p, size_t size)
{
    for (size_t k = 0; k + sizeof(uintptr_t) <= size; k += sizeof(uintptr_t)) {
        void *q;
        memcpy(&q, (char *)p + k, sizeof q);
        if (q != p)
            return 0;
    }
    return 1;
}

/* commit: -1 the cache's own choice; on arm64 0 forces the fast path's
 * ldxr/stxr commit, 1 its LSE cas (cpu_freelist_commit in slub.c). */
static void test_random_sequences(int commit, const char *how)
{
    static const size_t sizes[] = {64, 256, 2048};
    enum { OPS = 3000, MAXLIVE = 700 };
    static void *live[MAXLIVE], *tmp[64];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        struct cb_slub_cache c;
        struct cb_slub_report r;
        size_t size = sizes[si], n = 0;
        uint64_t x = 0x9e3779b97f4a7c15ull + si;
        int bad_check = -1, bad_stamp = -1;
        cb_slub_create(&c, size, CB_SLUB_DEBUG);
#if defined(__aarch64__)
        if (commit >= 0)
            c.lse = commit;
#else
        (void)commit;
#endif
        for (int op = 0; op < OPS && bad_check < 0 && bad_stamp < 0; op++) {
            unsigned what = (unsigned)(rnd(&x) % 4);
            size_t k = 1 + (size_t)(rnd(&x) % 32);
            if (what == 0 && n < MAXLIVE) {                 /* alloc one */
                live[n] = cb_slub_alloc(&c);
                stamp(live[n], size);
                n++;
            } else if (what == 1 && n + k <= MAXLIVE) {     /* alloc bulk */
                if (cb_slub_alloc_bulk(&c, k, &live[n]) != k) {
                    bad_check = op;
                    snprintf(r.msg, sizeof r.msg, "alloc_bulk(%zu) failed", k);
                    break;
                }
                for (size_t j = 0; j < k; j++)
                    stamp(live[n + j], size);
                n += k;
            } else if (what == 2 && n) {                    /* free one, anywhere */
                size_t j = (size_t)(rnd(&x) % n);
                if (!stamped(live[j], size))
                    bad_stamp = op;
                cb_slub_free(&c, live[j]);
                live[j] = live[--n];
            } else if (n) {                                 /* free a random bulk */
                size_t m = k < n ? k : n;
                for (size_t j = 0; j < m; j++) {
                    size_t pick = (size_t)(rnd(&x) % n);
                    tmp[j] = live[pick];
                    if (!stamped(tmp[j], size))
                        bad_stamp = op;
                    live[pick] = live[--n];
                }
                cb_slub_free_bulk(&c, m, tmp);
            }
            if (cb_slub_check(&c, live, n, &r) != 0)
                bad_check = op;
        }
        ok(bad_check < 0, "%zu-byte objects%s: invariants hold after each of %d random operations%s%s",
           size, how, OPS, bad_check < 0 ? "" : ": ", bad_check < 0 ? "" : r.msg);
        ok(bad_stamp < 0, "%zu-byte objects%s: no live object was overwritten%s", size, how,
           bad_stamp < 0 ? "" : " (see the first failing operation in the check above)");
        cb_slub_free_bulk(&c, n, live);
        int rc = cb_slub_check(&c, NULL, 0, &r);
        ok(rc == 0 && r.used_objects == 0,
           "%zu-byte objects%s: every object freed at the end (%zu in use)", size, how,
           r.used_objects);
        cb_slub_destroy(&c);
    }
}

#if defined(__aarch64__)
/* The cache takes the LSE commit exactly when the CPU reports LSE, and
 * CB_CPU_MASK=lse turns it off (how a non-LSE core's path is run here). */
static void test_commit_choice(void)
{
    struct cb_slub_cache c;
    int lse = (cb_cpu_features() & CB_CPU_LSE) != 0;
    cb_slub_create(&c, 64, 0);
    ok(c.lse == lse, "arm64: the fast path commits with %s (the CPU %s LSE)",
       lse ? "cas" : "ldxr/stxr", lse ? "has" : "lacks");
    cb_slub_destroy(&c);
    setenv("CB_CPU_MASK", "lse", 1);
    cb_slub_create(&c, 64, 0);
    ok(c.lse == 0, "arm64: CB_CPU_MASK=lse: ldxr/stxr");
    cb_slub_destroy(&c);
    unsetenv("CB_CPU_MASK");
}
#endif

int main(void)
{
#if defined(__aarch64__)
    test_commit_choice();
    test_random_sequences(0, " (ldxr/stxr commit)");
    if (cb_cpu_features() & CB_CPU_LSE)
        test_random_sequences(1, " (LSE cas commit)");
    else
        printf("# the CPU has no LSE: the cas commit is not run\n");
#else
    test_random_sequences(-1, "");
#endif
    test_checker_catches();
    test_geometry();
    test_single_vs_bulk();
    test_alloc_clear();
    test_cold_and_empty();
    test_verify_all();
    return tap_done();
}
