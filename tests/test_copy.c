/* test_copy.c — the copy family: the verifier passes every variant this CPU
 * runs and catches planted bugs; setup/run/teardown move the right bytes to
 * the right slots, checked here byte by byte against the source slots. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/copy.h"
#include "host/cpu.h"
#include "tap.h"
#include "harness/workset.h"

/* Restated here rather than linked from registry.c (which pulls in every
 * family): all of the variant's needs present. */
static int runnable_here(const struct cb_variant *v, unsigned feats)
{
    return (v->needs & feats) == v->needs;
}

/* Planted bug: loses the last byte when len % 64 == 63. */
static void copy_drop_last(void *dst, const void *src, size_t n)
{
    volatile unsigned char *d = dst;
    const unsigned char *s = src;
    if (n % 64 == 63)
        n--;
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}

/* Planted bug: correct copy, then one byte past the end when dst is 37
 * bytes past a line and len is 1000. */
static void copy_overrun(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    memcpy(dst, src, n);
    if (((uintptr_t)dst & 63) == 37 && n == 1000)
        d[n] = (unsigned char)~d[n];
}

/* Planted bug: wrong only when both sides are misaligned differently (odd
 * src, even non-zero dst), which only the random pairs reach. */
static void copy_pair_bug(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    memcpy(dst, src, n);
    if (((uintptr_t)src & 1) && ((uintptr_t)dst & 63) && !((uintptr_t)dst & 1) && n > 100)
        d[n / 2] ^= 0x40;
}

static const struct cb_variant bad_variants[] = {
    {"drop-last", "test only", 0, (const void *)copy_drop_last, CB_VARIANT_TESTONLY, 0},
    {"overrun", "test only", 0, (const void *)copy_overrun, CB_VARIANT_TESTONLY, 0},
    {"pair-bug", "test only", 0, (const void *)copy_pair_bug, CB_VARIANT_TESTONLY, 0},
};

/* Past the verifier: every length 0..SWEEP_MAX (odd ones included) at a few
 * (src, dst) misalignments, the head/tail cases of the aligning variants
 * (ldp aligns src to 16, the NT ones dst to 64), each destination byte
 * against the source and 64 guard bytes on each side against their fill.
 * Returns 0, or -1 with the first wrong byte described in why. */
#define SWEEP_MAX 4096
static int sweep(cb_copy_fn fn, char *why, size_t wl)
{
    static const size_t al[][2] = {{0, 0}, {1, 0}, {0, 1}, {63, 17}, {8, 40}, {15, 1}, {7, 9}};
    const size_t G = 64, dlen = G + 64 + SWEEP_MAX + G;
    static unsigned char ee[8192];
    unsigned char *src = aligned_alloc(4096, 8192), *dst = aligned_alloc(4096, 8192);
    memset(ee, 0xee, sizeof ee);
    int rc = 0;
    if (!src || !dst) {
        snprintf(why, wl, "out of memory");
        rc = -1;
    }
    for (size_t i = 0; !rc && i < 64 + SWEEP_MAX; i++)
        src[i] = (unsigned char)(1 + (i * 131 + i / 251) % 255);
    for (size_t a = 0; !rc && a < sizeof al / sizeof al[0]; a++) {
        for (size_t len = 0; !rc && len <= SWEEP_MAX; len++) {
            const unsigned char *s = src + al[a][0];
            unsigned char *d = dst + G + al[a][1];
            memset(dst, 0xee, dlen);
            fn(d, s, len);
            if (!memcmp(d, s, len) && !memcmp(dst, ee, G + al[a][1]) &&
                !memcmp(d + len, ee, dlen - (G + al[a][1] + len)))
                continue;
            for (size_t i = 0; i < dlen; i++) {
                ptrdiff_t at = (ptrdiff_t)i - (ptrdiff_t)(G + al[a][1]);
                unsigned want = at >= 0 && (size_t)at < len ? s[at] : 0xee;
                if (dst[i] != want) {
                    snprintf(why, wl, "len %zu src+%zu dst+%zu: dst[%td] = 0x%02x, want 0x%02x",
                             len, al[a][0], al[a][1], at, dst[i], want);
                    rc = -1;
                    break;
                }
            }
        }
    }
    free(src);
    free(dst);
    return rc;
}

/* The variants this architecture has: x86's are absent on arm64 and the
 * reverse; glibc, the reference, is on both. */
static void check_arch_variants(const struct cb_probe *p)
{
#if defined(__aarch64__)
    static const char *const want[] = {"glibc", "byte", "ldp", "neon"};
    static const char *const absent[] = {"movsb", "sse2", "ntq"};
#else
    static const char *const want[] = {"glibc", "movsb", "unrolled", "sse2", "ntq"};
    static const char *const absent[] = {"byte", "ldp", "neon"};
#endif
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < p->nvariants; i++)
            found |= !strcmp(p->variants[i].name, want[k]);
        ok(found, "variant %s is in this architecture's table", want[k]);
    }
    for (size_t k = 0; k < sizeof absent / sizeof absent[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < p->nvariants; i++)
            found |= !strcmp(p->variants[i].name, absent[k]);
        ok(!found, "variant %s (other architecture) is absent", absent[k]);
    }
}

static void check_case(const struct cb_variant *v, size_t size, enum cb_mode mode,
                       size_t cold_bytes)
{
    const char *mn = mode == CB_MODE_COLD ? "cold" : "warm";
    struct cb_case c = {
        .probe = &cb_probe_copy, .variant = v, .size = size, .mode = mode,
        .cold_bytes = cold_bytes, .bytes_per_op = size,
    };
    int rc = cb_probe_copy.setup(&c);
    is_int(rc, 0, "%s %zu %s: setup", v->name, size, mn);
    if (rc)
        return;
    struct cb_copy_state *st = c.priv;
    size_t count = st->dst.count;
    if (mode == CB_MODE_COLD)
        ok(count >= 2 && count * st->dst.stride >= cold_bytes && st->src.count == count,
           "%s %zu cold: %zu slots span the cold set", v->name, size, count);
    else
        is_uint(count, 1, "%s %zu warm: one slot", v->name, size);

    /* run(c, 0) must not touch anything: every dst byte still zero. */
    cb_probe_copy.run(&c, 0);
    size_t nonzero = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *d = cb_workset_at(&st->dst, i);
        for (size_t j = 0; j < st->dst.stride - st->dst.offset; j++)
            nonzero += d[j] != 0;
    }
    is_uint(nonzero, 0, "%s %zu %s: run(c,0) writes nothing", v->name, size, mn);

    /* One pass over every slot: dst slot i holds src slot i, and the slot
     * padding past size is still zero. */
    cb_probe_copy.run(&c, count);
    size_t wrong = 0, pad = 0, srczero = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *d = cb_workset_at(&st->dst, i);
        const unsigned char *s = cb_workset_at(&st->src, i);
        for (size_t j = 0; j < size; j++) {
            wrong += d[j] != s[j];
            srczero += s[j] == 0;
        }
        for (size_t j = size; j < st->dst.stride - st->dst.offset; j++)
            pad += d[j] != 0;
    }
    is_uint(srczero, 0, "%s %zu %s: source slots are non-zero", v->name, size, mn);
    is_uint(wrong, 0, "%s %zu %s: every dst slot holds its src slot", v->name, size, mn);
    is_uint(pad, 0, "%s %zu %s: nothing written past size", v->name, size, mn);
    cb_probe_copy.teardown(&c);
    ok(c.priv == NULL, "%s %zu %s: teardown clears priv", v->name, size, mn);
}

/* ab's buffer placement (workset.h): a warm case's buffers sit buf_pages
 * pages into their mappings, still page-aligned, and the copy is right
 * there; a cold set ignores it (its walk covers every slot). */
static void placed(const struct cb_variant *ref)
{
    static const unsigned pages[] = {0, 5, 15};
    for (size_t k = 0; k < sizeof pages / sizeof pages[0]; k++) {
        struct cb_case c = {
            .probe = &cb_probe_copy, .variant = ref, .size = 1500, .mode = CB_MODE_WARM,
            .bytes_per_op = 1500, .buf_pages = pages[k],
        };
        if (!ok(cb_probe_copy.setup(&c) == 0, "warm, %u pages in: setup", pages[k]))
            continue;
        struct cb_copy_state *st = c.priv;
        size_t in_s = (size_t)(st->src.mem - st->src.map), in_d = (size_t)(st->dst.mem - st->dst.map);
        ok(in_s == pages[k] * 4096u && in_d == pages[k] * 4096u && (uintptr_t)st->src.mem % 4096 == 0 &&
               (uintptr_t)st->dst.mem % 4096 == 0,
           "warm, %u pages in: source and destination %zu and %zu bytes into their mappings, page-aligned",
           pages[k], in_s, in_d);
        cb_probe_copy.run(&c, 1);
        is_int(memcmp(cb_workset_at(&st->dst, 0), cb_workset_at(&st->src, 0), 1500), 0,
               "warm, %u pages in: the copy lands there", pages[k]);
        cb_probe_copy.teardown(&c);
    }
    struct cb_case c = {
        .probe = &cb_probe_copy, .variant = ref, .size = 4096, .mode = CB_MODE_COLD,
        .cold_bytes = 1u << 20, .bytes_per_op = 4096, .buf_pages = 5,
    };
    if (ok(cb_probe_copy.setup(&c) == 0, "cold, 5 pages asked: setup")) {
        struct cb_copy_state *st = c.priv;
        ok(st->src.mem == st->src.map && st->dst.mem == st->dst.map, "cold: the set starts its mapping");
        cb_probe_copy.teardown(&c);
    }
}

int main(void)
{
    unsigned feats = cb_cpu_features();
    const struct cb_probe *p = &cb_probe_copy;
    struct cb_verdict vd;

    is_str(p->name, "copy", "family name");
    is_str(p->unit, "B", "unit");
    is_str(p->op, "call", "op");
    size_t ns = 0;
    int ascending = 1;
    for (; p->sizes[ns]; ns++)
        if (ns && p->sizes[ns] <= p->sizes[ns - 1])
            ascending = 0;
    ok(ns == 8 && ascending && p->sizes[ns - 1] == (16u << 20), "8 ascending sizes up to 16 MiB");

    /* Every length 0..2048 gets 64 src aligns + 63 dst aligns + 16 random
     * pairs. */
    const uint64_t trials = (uint64_t)(CB_COPY_VERIFY_MAX + 1) * (64 + 63 + 16);
    int nref = 0;
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        nref += !!(v->flags & CB_VARIANT_REFERENCE);
        if (!runnable_here(v, feats)) {
            ok(1, "# SKIP %s: needs features this CPU lacks", v->name);
            continue;
        }
        int rc = p->verify(v, &vd);
        is_int(rc, 0, "%s: verify ran", v->name);
        if (!ok(vd.ok, "%s: verify passes", v->name))
            printf("#   %s\n", vd.detail);
        is_uint(vd.checked, trials, "%s: every (length, alignment) trial checked", v->name);
    }
    is_int(nref, 1, "exactly one reference variant");
    check_arch_variants(p);

    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        char why[160] = "";
        if (!runnable_here(v, feats))
            continue;
        if (!ok(sweep((cb_copy_fn)v->fn, why, sizeof why) == 0,
                "%s: lengths 0..%d at 7 misalignment pairs, byte for byte", v->name, SWEEP_MAX))
            printf("#   %s\n", why);
    }

    int rc = p->verify(&bad_variants[0], &vd);
    is_int(rc, 0, "drop-last: verify ran");
    ok(!vd.ok, "drop-last is caught");
    ok(strstr(vd.detail, "len 63 ") && strstr(vd.detail, "dst[62]") &&
           strstr(vd.detail, "copied byte differs"),
       "drop-last: detail names len 63, byte 62 (%s)", vd.detail);

    rc = p->verify(&bad_variants[1], &vd);
    ok(rc == 0 && !vd.ok, "overrun is caught");
    ok(strstr(vd.detail, "len 1000 src+0 dst+37") && strstr(vd.detail, "dst[1000]") &&
           strstr(vd.detail, "guard after"),
       "overrun: detail names len 1000, dst+37, the guard after (%s)", vd.detail);

    rc = p->verify(&bad_variants[2], &vd);
    ok(rc == 0 && !vd.ok, "odd-src/even-dst pair bug is caught by the random pairs");
    size_t bl = 0, bs = 0, bd = 0;
    ok(sscanf(vd.detail, "len %zu src+%zu dst+%zu", &bl, &bs, &bd) == 3 && bl > 100 &&
           (bs & 1) && bd && !(bd & 1),
       "pair bug: detail names a failing case (%s)", vd.detail);

    for (size_t i = 0; i < p->nvariants; i++)
        if (p->variants[i].flags & CB_VARIANT_REFERENCE)
            placed(&p->variants[i]);
    /* setup/run/teardown, warm and cold (a small cold set keeps this fast). */
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        if (!runnable_here(v, feats))
            continue;
        check_case(v, 1500, CB_MODE_WARM, 0);
        check_case(v, 4096, CB_MODE_COLD, 1u << 20);
    }
    /* Sizes where the NT body and the big SIMD loops run, once each. */
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        if (runnable_here(v, feats))
            check_case(v, 65536 + 77, CB_MODE_WARM, 0);
    }

    /* A fixed-size variant is refused at any other size. */
    struct cb_variant fixed = p->variants[0];
    fixed.only_size = 64;
    struct cb_case c = {.probe = p, .variant = &fixed, .size = 100, .mode = CB_MODE_WARM};
    is_int(p->setup(&c), -EINVAL, "setup refuses a size other than only_size");
    ok(c.priv == NULL, "refused setup leaves no state");

    return tap_done();
}
