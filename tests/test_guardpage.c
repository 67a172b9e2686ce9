/* test_guardpage.c — plugin_verify.c's guard-page check, the one that
 * plugin variants pass before they are timed, run here on every built-in
 * variant of every family whose probe record says how its variants are
 * called (cb_probe.call), and on planted wrong ones.
 *
 * The kernel's word-at-a-time tricks (load_unaligned_zeropad) read past the
 * end of a buffer on purpose and rely on an exception fixup when that read
 * crosses into an unmapped page; user space has no such fixup, so a variant
 * that borrowed the trick would crash a real program only at the one length
 * and address where the buffer ends at a page boundary.  The check places
 * every buffer against PROT_NONE guard pages for every length and start
 * alignment; results are checked against independent references (RFC 1071
 * for a sum, the source for a copy, the fill byte), since a variant that
 * stops early would pass the fault check alone.  The planted variants show
 * that each way of being wrong is caught, and said. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "probes/csum.h"
#include "harness/plugin_verify.h"
#include "harness/probe.h"
#include "tap.h"

/* The suite's longest unit program (27 s here, 77 s under ASan) is built
 * three times, part 0, 1 and 2 (mk/reliability.am), each checking every
 * third variant, so that make check -j runs them side by side; part 0 also
 * runs the planted variants and counts the families. */
#ifndef GUARDPAGE_PART
#define GUARDPAGE_PART 0
#endif
#define GUARDPAGE_PARTS 3

/* Every runnable variant of each pluggable family passes. */
static void test_builtin(unsigned feat)
{
    size_t families = 0, k = 0;
    for (size_t i = 0; i < cb_nprobes; i++) {
        const struct cb_probe *p = cb_probes[i];
        if (p->call == CB_CALL_NONE)
            continue;
        families++;
        for (size_t j = 0; j < p->nvariants; j++) {
            const struct cb_variant *v = &p->variants[j];
            if (k++ % GUARDPAGE_PARTS != GUARDPAGE_PART)
                continue;
            if (!cb_variant_runnable(v, feat)) {
                char need[128];
                printf("ok %d - # SKIP %s %s: this CPU lacks %s\n", ++tap_n, p->name, v->name,
                       cb_cpu_feature_names(v->needs & ~feat, need, sizeof need));
                continue;
            }
            struct cb_verdict out;
            int rc = cb_plugin_verify_paged(p->call, v, &out);
            ok(rc == 0 && out.ok && out.checked > 0,
               "%s %s: no access outside its buffers and the right result at every length, "
               "alignment and place against a guard page (%llu calls)", p->name, v->name,
               (unsigned long long)out.checked);
            if (rc || !out.ok)
                printf("#   rc %d: %s\n", rc, out.detail);
        }
    }
    /* csum, copy, csum_copy and memset today; a family that loses its
     * .call would silently leave this test. */
    if (GUARDPAGE_PART == 0)
        ok(families >= 4, "the pluggable families are checked (%zu)", families);
}

/* Reads whole 8-byte words and masks off the bytes past the end: the right
 * sum, and the overread the check exists to catch (the kernel's
 * load_unaligned_zeropad habit, without its fixup), here on purpose. */
static uint32_t overreading_sum(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t acc = sum;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (len - i < 8)
            w &= (UINT64_C(1) << (8 * (len - i))) - 1;   /* little-endian: the first bytes */
        acc += w;
        acc += acc < w;
    }
    uint32_t lo = (uint32_t)acc, hi = (uint32_t)(acc >> 32);
    lo += hi;
    return lo + (lo < hi);
}

/* Right on every byte it reads, but drops the last odd one. */
static uint32_t short_sum(const void *buf, size_t len, uint32_t sum)
{
    return cb_csum_ref(buf, len & ~(size_t)1, sum);
}

/* Copies right, then writes one byte past the end. */
static void spilling_copy(void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
    ((unsigned char *)dst)[len] = 0;
}

/* Fills all but the last byte. */
static void short_fill(void *dst, int c, size_t len)
{
    memset(dst, c, len ? len - 1 : 0);
}

static void planted(enum cb_call call, const void *fn, const char *what, const char *said)
{
    struct cb_variant v = {.name = what, .fn = fn};
    struct cb_verdict out;
    int rc = cb_plugin_verify_paged(call, &v, &out);
    ok(rc == 0 && !out.ok, "%s: BAD", what);
    ok(strstr(out.detail, said) != NULL, "%s: the verdict says '%s': %s", what, said, out.detail);
}

static void test_planted(void)
{
    planted(CB_CALL_SUM, (const void *)overreading_sum, "a sum that reads whole words past the end",
            "accessed memory outside the buffer");
    planted(CB_CALL_SUM, (const void *)short_sum, "a sum that drops the last odd byte", "want 0x");
    planted(CB_CALL_COPY, (const void *)spilling_copy, "a copy that writes a byte past the end",
            "written outside the buffer");
    planted(CB_CALL_FILL, (const void *)short_fill, "a fill that stops a byte short", "a wrong byte");
    struct cb_variant ref = {.name = "ref", .fn = (const void *)cb_csum_ref};
    struct cb_verdict out;
    is_int(cb_plugin_verify_paged(CB_CALL_NONE, &ref, &out), -22,
           "a family whose variants are not plain functions is refused (-EINVAL)");
}

int main(void)
{
    if (GUARDPAGE_PART == 0)
        test_planted();
    test_builtin(cb_cpu_features());
    return tap_done();
}
