/* test_csum_copy.c — the csum_copy family: the verifier passes every variant
 * this CPU runs and catches a wrong sum and a wrong copy; run() copies every
 * slot and its sink carries the checksum, checked against a 16-bit-word sum
 * computed here. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probes/copy.h"
#include "host/cpu.h"
#include "probes/csum.h"
#include "probes/csum_copy.h"
#include "tap.h"
#include "harness/workset.h"

static int runnable_here(const struct cb_variant *v, unsigned feats)
{
    return (v->needs & feats) == v->needs;
}

/* The test's own checksum: 32-bit words of 16-bit little-endian pairs, with
 * end-around carry at every step (not cb_csum_ref's 64-bit accumulator). */
static uint16_t csum16(const unsigned char *p, size_t n, uint32_t seed)
{
    uint32_t s = (seed & 0xffff) + (seed >> 16);
    s = (s & 0xffff) + (s >> 16);
    for (size_t i = 0; i < n; i += 2) {
        s += p[i] | (i + 1 < n ? p[i + 1] << 8 : 0);
        s = (s & 0xffff) + (s >> 16);
    }
    return (uint16_t)s;
}

/* Planted bug: copies right, forgets the last odd byte in the sum. */
static uint32_t bad_sum(const void *src, void *dst, size_t n, uint32_t sum)
{
    memcpy(dst, src, n);
    return cb_csum_ref(src, n & ~(size_t)1, sum);
}

/* Planted bug: sums right, copies one byte short at dst+17. */
static uint32_t bad_copy(const void *src, void *dst, size_t n, uint32_t sum)
{
    memcpy(dst, src, n);
    if (((uintptr_t)dst & 63) == 17 && n > 500)
        ((unsigned char *)dst)[n - 1] ^= 1;
    return cb_csum_ref(src, n, sum);
}

/* Planted bug: drops the seed beyond 1 KiB. */
static uint32_t bad_seed(const void *src, void *dst, size_t n, uint32_t sum)
{
    memcpy(dst, src, n);
    return cb_csum_ref(src, n, n > 1024 ? 0 : sum);
}

static const struct cb_variant bad[] = {
    {"bad-sum", "test only", 0, (const void *)bad_sum, CB_VARIANT_TESTONLY, 0},
    {"bad-copy", "test only", 0, (const void *)bad_copy, CB_VARIANT_TESTONLY, 0},
    {"bad-seed", "test only", 0, (const void *)bad_seed, CB_VARIANT_TESTONLY, 0},
};

static void check_case(const struct cb_variant *v, size_t size, enum cb_mode mode,
                       size_t cold_bytes)
{
    const char *mn = mode == CB_MODE_COLD ? "cold" : "warm";
    struct cb_case c = {
        .probe = &cb_probe_csum_copy, .variant = v, .size = size, .mode = mode,
        .cold_bytes = cold_bytes, .bytes_per_op = size,
    };
    int rc = cb_probe_csum_copy.setup(&c);
    is_int(rc, 0, "%s %zu %s: setup", v->name, size, mn);
    if (rc)
        return;
    struct cb_copy_state *st = c.priv;
    size_t count = st->dst.count;
    c.sink = 12345;
    cb_probe_csum_copy.run(&c, 0);
    size_t nonzero = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *d = cb_workset_at(&st->dst, i);
        for (size_t j = 0; j < size; j++)
            nonzero += d[j] != 0;
    }
    ok(nonzero == 0 && c.sink == 12345, "%s %zu %s: run(c,0) does nothing", v->name, size, mn);

    /* One call: its sum is the sink (started at 0). */
    c.sink = 0;
    cb_probe_csum_copy.run(&c, 1);
    const unsigned char *s0 = cb_workset_at(&st->src, 0);
    is_uint(cb_csum_fold((uint32_t)c.sink), csum16(s0, size, CB_CSUM_COPY_SEED),
            "%s %zu %s: one call's sum", v->name, size, mn);

    /* The rest of the slots: every dst slot holds its src slot. */
    if (count > 1)
        cb_probe_csum_copy.run(&c, count - 1);
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *d = cb_workset_at(&st->dst, i);
        const unsigned char *s = cb_workset_at(&st->src, i);
        for (size_t j = 0; j < size; j++)
            wrong += d[j] != s[j];
    }
    is_uint(wrong, 0, "%s %zu %s: every dst slot holds its src slot (%zu slots)", v->name, size,
            mn, count);
    cb_probe_csum_copy.teardown(&c);
    ok(c.priv == NULL, "%s %zu %s: teardown", v->name, size, mn);
}

int main(void)
{
    unsigned feats = cb_cpu_features();
    const struct cb_probe *p = &cb_probe_csum_copy;
    struct cb_verdict vd;

    is_str(p->name, "csum_copy", "family name");
    is_str(p->unit, "B", "unit");
    is_str(p->op, "call", "op");

    /* Against the copy family's sizes: each row needs its copy to compare. */
    size_t n = 0;
    while (p->sizes[n] && cb_probe_copy.sizes[n] && p->sizes[n] == cb_probe_copy.sizes[n])
        n++;
    ok(!p->sizes[n] && !cb_probe_copy.sizes[n], "same sizes as copy");

    const uint64_t trials = (uint64_t)(CB_COPY_VERIFY_MAX + 1) * (64 + 63 + 16);
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        ok(strstr(v->desc, "vs copy/") && strstr(v->desc, "csum/"),
           "%s: desc names what to compare with", v->name);
        if (!runnable_here(v, feats)) {
            ok(1, "# SKIP %s: needs features this CPU lacks", v->name);
            continue;
        }
        int rc = p->verify(v, &vd);
        is_int(rc, 0, "%s: verify ran", v->name);
        if (!ok(vd.ok, "%s: verify passes", v->name))
            printf("#   %s\n", vd.detail);
        is_uint(vd.checked, trials, "%s: every trial checked", v->name);
    }

    int rc = p->verify(&bad[0], &vd);
    ok(rc == 0 && !vd.ok, "a wrong sum is caught");
    ok(strstr(vd.detail, "len 1 ") && strstr(vd.detail, "sum folds to"),
       "bad-sum: detail names len 1 and the sum (%s)", vd.detail);

    rc = p->verify(&bad[1], &vd);
    ok(rc == 0 && !vd.ok, "a wrong copy with a right sum is caught");
    ok(strstr(vd.detail, "len 501 src+0 dst+17") && strstr(vd.detail, "dst[500]"),
       "bad-copy: detail names len 501, dst+17, byte 500 (%s)", vd.detail);

    rc = p->verify(&bad[2], &vd);
    ok(rc == 0 && !vd.ok, "a dropped seed is caught");
    size_t bl = 0;
    ok(sscanf(vd.detail, "len %zu", &bl) == 1 && bl > 1024 && bl % 3 != 0,
       "bad-seed: first failing length is past 1024 with a non-zero seed (%s)", vd.detail);

    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        if (!runnable_here(v, feats))
            continue;
        check_case(v, 1500, CB_MODE_WARM, 0);
        check_case(v, 1501, CB_MODE_WARM, 0);
        check_case(v, 4096, CB_MODE_COLD, 1u << 20);
        check_case(v, 65536 + 77, CB_MODE_WARM, 0);
    }
    return tap_done();
}
