/* test_memset.c — the memset family: the verifier passes every variant this
 * CPU runs and catches planted bugs; fixed-size variants are verified only
 * at their size and refused at others; run() zeroes every slot and nothing
 * past it, checked here byte by byte. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "probes/memset.h"
#include "tap.h"
#include "harness/workset.h"
#if defined(__aarch64__)
#include "probes/arm64/memset_arm64.h"
#endif

static int runnable_here(const struct cb_variant *v, unsigned feats)
{
    return (v->needs & feats) == v->needs;
}

/* Planted bug: one byte past the end when len is 777. */
static void set_overrun(void *dst, int c, size_t n)
{
    memset(dst, c, n == 777 ? n + 1 : n);
}

/* Planted bug: fills with 0 whatever c is, from 300 bytes on. */
static void set_ignores_c(void *dst, int c, size_t n)
{
    memset(dst, n >= 300 ? 0 : c, n);
}

/* Planted bug: a fixed-size clear that is one byte short at odd addresses. */
static void clear192_short(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    memset(dst, 0, ((uintptr_t)dst & 1) ? 191 : 192);
}

/* Planted bug: a fixed-size clear that overruns at one alignment only. */
static void clear192_over(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    memset(dst, 0, ((uintptr_t)dst & 63) == 40 ? 193 : 192);
}

static const struct cb_variant bad[] = {
    {"overrun", "test only", 0, (const void *)set_overrun, CB_VARIANT_TESTONLY, 0},
    {"ignores-c", "test only", 0, (const void *)set_ignores_c, CB_VARIANT_TESTONLY, 0},
    {"short192", "test only", 0, (const void *)clear192_short, CB_VARIANT_TESTONLY, 192},
    {"over192", "test only", 0, (const void *)clear192_over, CB_VARIANT_TESTONLY, 192},
};

/* Check fn(base + off + 64, fill, len) byte for byte: the len bytes hold
 * fill, 64 guard bytes on each side their 0xee.  base holds off + len + 128
 * bytes.  0, or -1 with the first wrong byte in why. */
static int check_one(cb_memset_fn fn, unsigned char *base, size_t off, size_t len, int fill,
                     char *why, size_t wl)
{
    enum { G = 64 };
    static unsigned char want[G + 16384 + G];
    const size_t end = off + G + len + G;
    unsigned char *d = base + off + G;
    if (len > 16384)
        return snprintf(why, wl, "len %zu: longer than the test's buffer", len), -1;
    memset(want, 0xee, G + len + G);
    for (size_t i = 0; i < len; i++) /* the reference: a byte loop */
        ((volatile unsigned char *)want)[G + i] = (unsigned char)fill;
    memset(base + off, 0xee, G + len + G);
    fn(d, fill, len);
    if (!memcmp(base + off, want, G + len + G))
        return 0;
    for (size_t i = off; i < end; i++)
        if (base[i] != want[i - off]) {
            snprintf(why, wl, "len %zu at line+%zu fill 0x%02x: dst[%td] = 0x%02x, want 0x%02x",
                     len, (size_t)((uintptr_t)d & 63), (unsigned)fill,
                     (ptrdiff_t)i - (ptrdiff_t)(off + G), base[i], want[i - off]);
            break;
        }
    return -1;
}

/* Past the verifier: every length 0..SWEEP_MAX (odd ones included) at a few
 * misalignments, fill 0 and 0xa7. */
#define SWEEP_MAX 4096
static int sweep(cb_memset_fn fn, char *why, size_t wl)
{
    static const size_t al[] = {0, 1, 7, 33, 63};
    unsigned char *buf = aligned_alloc(4096, 3 * 4096);
    int rc = buf ? 0 : -1;
    for (size_t f = 0; !rc && f < 2; f++)
        for (size_t a = 0; !rc && a < sizeof al / sizeof al[0]; a++)
            for (size_t len = 0; !rc && len <= SWEEP_MAX; len++)
                rc = check_one(fn, buf, al[a], len, f ? 0xa7 : 0, why, wl);
    free(buf);
    return rc;
}

#if defined(__aarch64__)
/* dc zva: the block size as DCZID_EL0 says (read here on its own), and the
 * zeroing at every start offset within two blocks, at lengths below, at
 * and above one block and a few blocks, so the stp head, the dc zva blocks
 * and the stp tail each meet every boundary. */
static void check_dczva(void)
{
    uint64_t id;
    __asm__("mrs %0, dczid_el0" : "=r"(id));
    size_t bs = (id & 16) ? 0 : (size_t)4 << (id & 15);
    is_uint(cb_arm64_zva_block(), bs, "dc zva block %zu B from DCZID_EL0 = 0x%llx", bs,
            (unsigned long long)id);
    if (!bs) {
        ok(1, "# SKIP dc zva prohibited here (DCZID_EL0.DZP)");
        return;
    }
    size_t span = bs + 2 * bs + 5 * bs + 128; /* start, offsets, longest, guards */
    unsigned char *buf = aligned_alloc(4096, (span + 4095) & ~(size_t)4095);
    if (!ok(buf != NULL, "dc zva: buffer"))
        return;
    const size_t lens[] = {0, 1, 63, bs - 1, bs, bs + 1, 2 * bs - 1, 2 * bs, 2 * bs + 1,
                           3 * bs + 17, 5 * bs};
    char why[160] = "";
    int rc = 0;
    size_t tried = 0;
    /* check_one starts at base + o + 64 = buf + bs + o: o = 0 is a block
     * boundary (buf is 4096-aligned, bs at most 2048), o runs over two. */
    for (size_t f = 0; !rc && f < 2; f++)
        for (size_t o = 0; !rc && o < 2 * bs; o++)
            for (size_t k = 0; !rc && k < sizeof lens / sizeof lens[0]; k++, tried++)
                rc = check_one(cb_memset_arm64_dczva, buf + bs - 64, o, lens[k], f ? 0x5c : 0,
                               why, sizeof why);
    if (!ok(rc == 0, "dc zva: %zu (start, length, fill) cases around %zu-byte blocks", tried, bs))
        printf("#   %s\n", why);
    free(buf);
}
#endif

static void check_case(const struct cb_variant *v, size_t size, enum cb_mode mode,
                       size_t cold_bytes)
{
    const char *mn = mode == CB_MODE_COLD ? "cold" : "warm";
    struct cb_case c = {
        .probe = &cb_probe_memset, .variant = v, .size = size, .mode = mode,
        .cold_bytes = cold_bytes, .bytes_per_op = size,
    };
    int rc = cb_probe_memset.setup(&c);
    is_int(rc, 0, "%s %zu %s: setup", v->name, size, mn);
    if (rc)
        return;
    struct cb_memset_state *st = c.priv;
    size_t count = st->dst.count, slot = st->dst.stride - st->dst.offset;
    if (mode == CB_MODE_COLD)
        ok(count >= 2 && count * st->dst.stride >= cold_bytes,
           "%s %zu cold: %zu slots span the cold set", v->name, size, count);

    cb_probe_memset.run(&c, 0);
    size_t changed = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *d = cb_workset_at(&st->dst, i);
        for (size_t j = 0; j < slot; j++)
            changed += d[j] != CB_MEMSET_SETUP_FILL;
    }
    is_uint(changed, 0, "%s %zu %s: run(c,0) writes nothing", v->name, size, mn);

    cb_probe_memset.run(&c, count);
    size_t notset = 0, past = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *d = cb_workset_at(&st->dst, i);
        for (size_t j = 0; j < size; j++)
            notset += d[j] != 0;
        for (size_t j = size; j < slot; j++)
            past += d[j] != CB_MEMSET_SETUP_FILL;
    }
    is_uint(notset, 0, "%s %zu %s: every slot zeroed", v->name, size, mn);
    is_uint(past, 0, "%s %zu %s: slot padding past size untouched (%zu B)", v->name, size, mn,
            slot - size);
    cb_probe_memset.teardown(&c);
    ok(c.priv == NULL, "%s %zu %s: teardown", v->name, size, mn);
}

int main(void)
{
    unsigned feats = cb_cpu_features();
    const struct cb_probe *p = &cb_probe_memset;
    struct cb_verdict vd;

    is_str(p->name, "memset", "family name");
    is_str(p->unit, "B", "unit");
    is_str(p->op, "call", "op");

    /* Every fixed-size variant's size is among the defaults, or the
     * harness would never run it. */
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        if (!v->only_size)
            continue;
        int found = 0;
        for (size_t k = 0; p->sizes[k]; k++)
            found |= p->sizes[k] == v->only_size;
        ok(found, "%s: its size %zu is a default size", v->name, v->only_size);
    }

    const uint64_t general = 2ull * (CB_MEMSET_VERIFY_MAX + 1) * 64;
    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        if (!runnable_here(v, feats)) {
            ok(1, "# SKIP %s: needs features this CPU lacks", v->name);
            continue;
        }
        int rc = p->verify(v, &vd);
        is_int(rc, 0, "%s: verify ran", v->name);
        if (!ok(vd.ok, "%s: verify passes", v->name))
            printf("#   %s\n", vd.detail);
        /* fixed-size: one length, 64 alignments, fill 0 */
        is_uint(vd.checked, v->only_size ? 64 : general, "%s: every trial checked", v->name);
    }

    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        char why[160] = "";
        if (!runnable_here(v, feats) || v->only_size)
            continue;
        if (!ok(sweep((cb_memset_fn)v->fn, why, sizeof why) == 0,
                "%s: lengths 0..%d at 5 misalignments, fills 0 and 0xa7", v->name, SWEEP_MAX))
            printf("#   %s\n", why);
    }
#if defined(__aarch64__)
    check_dczva();
#endif

    int rc = p->verify(&bad[0], &vd);
    ok(rc == 0 && !vd.ok, "a one-byte overrun is caught");
    ok(strstr(vd.detail, "len 777 dst+0 fill 0x00") && strstr(vd.detail, "dst[777]") &&
           strstr(vd.detail, "guard after"),
       "overrun: detail names len 777, dst+0, byte 777 (%s)", vd.detail);

    rc = p->verify(&bad[1], &vd);
    ok(rc == 0 && !vd.ok, "a fill value ignored is caught");
    ok(strstr(vd.detail, "len 300 dst+0 fill 0xa7") && strstr(vd.detail, "byte not set"),
       "ignores-c: detail names len 300 and fill 0xa7 (%s)", vd.detail);

    rc = p->verify(&bad[2], &vd);
    ok(rc == 0 && !vd.ok, "a fixed-size clear one byte short at odd addresses is caught");
    ok(strstr(vd.detail, "len 192 dst+1 fill 0x00") && strstr(vd.detail, "dst[191]"),
       "short192: detail names len 192, dst+1, byte 191 (%s)", vd.detail);
    is_uint(vd.checked, 2, "short192: the fixed size only, stopping at the first bad alignment");

    rc = p->verify(&bad[3], &vd);
    ok(rc == 0 && !vd.ok, "a fixed-size overrun at one alignment is caught");
    ok(strstr(vd.detail, "len 192 dst+40 ") && strstr(vd.detail, "guard after"),
       "over192: detail names dst+40 and the guard after (%s)", vd.detail);

    for (size_t i = 0; i < p->nvariants; i++) {
        const struct cb_variant *v = &p->variants[i];
        if (!runnable_here(v, feats))
            continue;
        if (v->only_size) {
            check_case(v, v->only_size, CB_MODE_WARM, 0);
            check_case(v, v->only_size, CB_MODE_COLD, 1u << 20);
            struct cb_case c = {.probe = p, .variant = v, .size = v->only_size + 8,
                                .mode = CB_MODE_WARM};
            is_int(p->setup(&c), -EINVAL, "%s: setup refuses size %zu", v->name, c.size);
            ok(c.priv == NULL, "%s: refused setup leaves no state", v->name);
            continue;
        }
        check_case(v, 1500, CB_MODE_WARM, 0);
        check_case(v, 4096 + 77, CB_MODE_COLD, 1u << 20);
        check_case(v, 65536 + 13, CB_MODE_WARM, 0);
    }
    return tap_done();
}
