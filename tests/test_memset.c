/* test_memset.c — the memset family: the verifier passes every variant this
 * CPU runs and catches planted bugs; fixed-size variants are verified only
 * at their size and refused at others; run() zeroes every slot and nothing
 * past it, checked here byte by byte. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "memset.h"
#include "tap.h"
#include "workset.h"

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
