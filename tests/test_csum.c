/* test_csum.c — the csum family against the RFC's numbers and an independent
 * sum.
 *
 * The independent sum here adds big-endian ("normal order") 16-bit words and
 * swaps the folded result, using RFC 1071's byte-order independence
 * (section 2(B)), so it shares neither the word order nor the code shape of
 * the family's little-endian reference. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host/cpu.h"
#include "probes/csum.h"
#include "harness/probe.h"
#include "tap.h"
#if defined(__aarch64__)
#include "probes/arm64/csum.h"
#endif

static uint64_t rng_state = 0x853c49e6748fea9bull;

/* splitmix64: a different generator from the probe's xorshift. */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint16_t swap16(uint16_t x)
{
    return (uint16_t)(x << 8 | x >> 8);
}

/* Ones'-complement add of two 16-bit values, 0 only when both are 0. */
static uint16_t oc_add16(uint32_t a, uint32_t b)
{
    uint32_t s = a + b;
    return (uint16_t)((s & 0xffff) + (s >> 16));
}

/* The expected folded little-endian csum_partial of buf, computed in the
 * big-endian domain: word i is buf[2i] << 8 | buf[2i+1], a lone last byte
 * is the high half, and the initial 32-bit sum joins swapped. */
static uint16_t indep_csum(const unsigned char *buf, size_t len, uint32_t sum0)
{
    uint16_t s = oc_add16(sum0 >> 16, sum0 & 0xffff);
    s = swap16(s);
    uint64_t wide = s;
    for (size_t i = 0; i + 1 < len; i += 2)
        wide += (uint32_t)buf[i] << 8 | buf[i + 1];
    if (len & 1)
        wide += (uint32_t)buf[len - 1] << 8;
    while (wide >> 16)
        wide = (wide & 0xffff) + (wide >> 16);
    return swap16((uint16_t)wide);
}

static int runnable(const struct cb_variant *v)
{
    return (v->needs & cb_cpu_features()) == v->needs;
}

static uint16_t call_fold(const struct cb_variant *v, const void *p, size_t len, uint32_t s)
{
    return cb_csum_fold(((cb_csum_fn)v->fn)(p, len, s));
}

/* ---- deliberately wrong variants --------------------------------------- */

/* Forgets a trailing odd byte. */
static uint32_t wrong_drop_odd(const void *buf, size_t len, uint32_t sum)
{
    return cb_csum_ref(buf, len & ~(size_t)1, sum);
}

/* Adds 16-bit words in a 16-bit accumulator and throws the carries away
 * (the initial sum is folded properly, so only the data's carries are lost). */
static uint32_t wrong_no_carry(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint16_t acc = cb_csum_fold(sum);
    for (size_t i = 0; i + 1 < len; i += 2)
        acc = (uint16_t)(acc + (p[i] | p[i + 1] << 8));
    if (len & 1)
        acc = (uint16_t)(acc + p[len - 1]);
    return acc;
}

/* ---- recording variant for setup/run ------------------------------------ */

#define REC_MAX 4096
static struct {
    size_t calls;
    const unsigned char *ptr[REC_MAX];
    uint64_t expect; /* the last independent sum: each call continues the previous one's */
    uint32_t prev;   /* what the previous call returned */
    int unchained;   /* calls whose sum was not the previous call's result */
} rec;

static uint32_t recorder(const void *buf, size_t len, uint32_t sum)
{
    if (rec.calls < REC_MAX)
        rec.ptr[rec.calls] = buf;
    rec.unchained += sum != rec.prev;
    rec.calls++;
    uint16_t r = indep_csum(buf, len, sum);
    rec.expect = r;
    rec.prev = r;
    return r;
}

/* ---- guard pages -------------------------------------------------------- */

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(segv_jmp, 1);
}

/* Buffers that end right before, or start right after, an inaccessible
 * page: a variant that reads outside [buf, buf+len) faults here. */
static void test_guard_pages(const struct cb_variant *v)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        ok(0, "%s: guard-page mapping", v->name);
        return;
    }
    for (long i = 0; i < pg; i++)
        m[pg + i] = (unsigned char)rnd();
    mprotect(m, pg, PROT_NONE);
    mprotect(m + 2 * pg, pg, PROT_NONE);
    unsigned char *lo = m + pg, *hi = m + 2 * pg;

    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old);
    volatile size_t bad_len = 0;
    volatile int faulted = 0, wrong = 0;
    volatile size_t len;
    if (sigsetjmp(segv_jmp, 1) == 0) {
        for (len = 0; len <= 600; len++) {
            bad_len = len;
            if (call_fold(v, hi - len, len, 0) != indep_csum(hi - len, len, 0) ||
                call_fold(v, lo, len, 0) != indep_csum(lo, len, 0)) {
                wrong = 1;
                break;
            }
        }
    } else {
        faulted = 1;
    }
    sigaction(SIGSEGV, &old, NULL);
    ok(!faulted && !wrong, "%s: lengths 0..600 against guard pages stay inside the buffer%s",
       v->name, faulted ? " (faulted)" : wrong ? " (wrong sum)" : "");
    if (faulted || wrong)
        printf("#   at len=%zu\n", (size_t)bad_len);
    munmap(m, 3 * pg);
}

/* ---- the tests ----------------------------------------------------------- */

static void test_table(void)
{
    const struct cb_probe *p = &cb_probe_csum;
    is_str(p->name, "csum", "probe name");
    is_str(p->unit, "B", "unit");
    is_str(p->op, "call", "op");
    static const size_t want_sizes[] = {20, 40, 64, 576, 1500, 4096, 65536, 4u << 20, 0};
    int same = 1;
    for (size_t i = 0; i < sizeof want_sizes / sizeof want_sizes[0]; i++)
        if (p->sizes[i] != want_sizes[i])
            same = 0;
    ok(same, "default sizes 20..4 MiB, 0-terminated");

#if defined(__x86_64__)
    static const char *const names[] = {"ref",         "adc-1chain",  "adc-2chain",
                                        "adc-1chain-pf", "kernel-2021", "kernel-2023",
                                        "kernel-2021+kflags", "kernel-2023+kflags",
                                        "adx",         "avx2",        "avx512",
                                        "avx512-vnni"};
    const char *ref_name = "ref";
    const void *ref_fn = (const void *)cb_csum_ref;
    unsigned want_needs[4] = {CB_CPU_ADX, CB_CPU_AVX2, CB_CPU_AVX512F | CB_CPU_AVX512BW,
                              CB_CPU_AVX512F | CB_CPU_AVX512BW | CB_CPU_AVX512VNNI};
    const char *simd[4] = {"adx", "avx2", "avx512", "avx512-vnni"};
#elif defined(__aarch64__)
    /* The reference on arm64 is the kernel's do_csum, ported. */
    static const char *const names[] = {"do-csum", "do-csum+kflags", "ref", "generic-64",
                                        "neon-uadalp", "neon-uadalp-x4", "neon-uaddw-x2"};
    const char *ref_name = "do-csum";
    const void *ref_fn = (const void *)cb_csum_a64_do_csum;
    unsigned want_needs[3] = {CB_CPU_ASIMD, CB_CPU_ASIMD, CB_CPU_ASIMD};
    const char *simd[3] = {"neon-uadalp", "neon-uadalp-x4", "neon-uaddw-x2"};
#endif
    is_int(p->nvariants, sizeof names / sizeof names[0], "variant count");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int found = 0;
        for (size_t j = 0; j < p->nvariants; j++)
            if (strcmp(p->variants[j].name, names[i]) == 0)
                found++;
        is_int(found, 1, "variant %s present once", names[i]);
    }
    int nref = 0, descs = 1;
    for (size_t j = 0; j < p->nvariants; j++) {
        const struct cb_variant *v = &p->variants[j];
        if (v->flags & CB_VARIANT_REFERENCE) {
            nref++;
            is_str(v->name, ref_name, "the reference variant is %s", ref_name);
            ok(v->fn == ref_fn, "%s calls its own function", ref_name);
        }
        if (!v->desc || !*v->desc || !v->fn)
            descs = 0;
    }
    is_int(nref, 1, "exactly one reference variant");
    ok(descs, "every variant has a description and a function");
    for (size_t k = 0; k < sizeof simd / sizeof simd[0]; k++)
        for (size_t j = 0; j < p->nvariants; j++)
            if (strcmp(p->variants[j].name, simd[k]) == 0)
                is_uint(p->variants[j].needs, want_needs[k], "%s needs", simd[k]);
}

static void test_known_values(const struct cb_variant *v)
{
    /* RFC 1071 section 3: "normal order" sum ddf2, "swapped order" f2dd. */
    static const unsigned char rfc[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    uint16_t s = call_fold(v, rfc, sizeof rfc, 0);
    is_uint(s, 0xf2dd, "%s: RFC 1071 example, swapped-order sum", v->name);
    is_uint(swap16(s), 0xddf2, "%s: RFC 1071 example, normal-order sum", v->name);

    /* A real IPv4 header (checksum field b8 61): sums to 0xffff; with the
     * field zeroed its complement is the field, b8 61 in memory. */
    unsigned char ip[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                            0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    is_uint(call_fold(v, ip, sizeof ip, 0), 0xffff, "%s: valid IPv4 header folds to 0xffff",
            v->name);
    ip[10] = ip[11] = 0;
    uint16_t c = (uint16_t)~call_fold(v, ip, sizeof ip, 0);
    unsigned char field[2];
    memcpy(field, &c, 2);
    ok(field[0] == 0xb8 && field[1] == 0x61, "%s: IPv4 checksum field recomputed as b8 61",
       v->name);
}

static void test_verify(const struct cb_variant *v)
{
    struct cb_verdict out;
    int rc = cb_probe_csum.verify(v, &out);
    is_int(rc, 0, "%s: verify ran", v->name);
    ok(out.ok, "%s: verify ok (%s)", v->name, out.ok ? "" : out.detail);
    ok(out.checked >= 2049ull * 64 * 3, "%s: verify compared %llu inputs", v->name,
       (unsigned long long)out.checked);
}

static void test_independent(const struct cb_variant *v)
{
    size_t cap = 70000 + 64;
    unsigned char *buf = malloc(cap);
    for (size_t i = 0; i < cap; i++)
        buf[i] = (unsigned char)rnd();
    int bad = 0;
    for (int t = 0; t < 3000 && !bad; t++) {
        size_t len = t < 2900 ? rnd() % 3000 : rnd() % 70000;
        size_t al = rnd() % 64;
        uint64_t r = rnd();
        uint32_t s0 = (r & 3) == 0 ? 0 : (r & 3) == 1 ? 0xffffffffu : (uint32_t)(r >> 32);
        uint16_t got = call_fold(v, buf + al, len, s0), want = indep_csum(buf + al, len, s0);
        if (got != want) {
            bad = 1;
            printf("#   len=%zu align=%zu sum0=0x%08x: got 0x%04x, want 0x%04x\n", len, al,
                   (unsigned)s0, got, want);
        }
    }
    ok(!bad, "%s: agrees with the big-endian sum on 3000 random inputs", v->name);
    free(buf);
}

/* Carry-heavy data at every alignment.  All-0xff bytes make every word
 * 0xffff, so every add carries out: lengths 1..127 take each masked-tail
 * length and every branch of the short paths; 64 KiB (32768 words of 0xffff,
 * whose ones'-complement sum is 0xffff, never 0) and three 64 KiB chunks
 * and a bit stress the carries and the SIMD variants' chunking. */
static void test_edges(const struct cb_variant *v)
{
    const size_t big = 3 * 65536 + 5;
    unsigned char *raw = malloc(big + 128);
    unsigned char *base = (unsigned char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    memset(base, 0xff, big + 64);
    static const uint32_t sums[3] = {0, 0x1234567u, 0xffffffffu};
    int bad = 0;
    for (size_t len = 1; len <= 127 && !bad; len++)
        for (size_t al = 0; al < 64 && !bad; al++)
            for (int k = 0; k < 3 && !bad; k++) {
                uint16_t got = call_fold(v, base + al, len, sums[k]);
                uint16_t want = indep_csum(base + al, len, sums[k]);
                if (got != want) {
                    bad = 1;
                    printf("#   len=%zu align=%zu sum0=0x%08x: got 0x%04x, want 0x%04x\n", len, al,
                           (unsigned)sums[k], got, want);
                }
            }
    ok(!bad, "%s: all-0xff data, lengths 1..127 at alignments 0..63", v->name);

    int all = 1;
    static const size_t aligns[] = {0, 1, 2, 63};
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++)
        if (call_fold(v, base + aligns[i], 65536, 0) != 0xffff)
            all = 0;
    ok(all, "%s: 64 KiB of 0xff sums to 0xffff at alignments 0, 1, 2, 63", v->name);
    is_uint(call_fold(v, base + 1, big, 0xffffffffu), indep_csum(base + 1, big, 0xffffffffu),
            "%s: 3 x 64 KiB + 5 of 0xff at alignment 1", v->name);

    /* Random data across the 64 KiB chunk boundary, odd and even starts. */
    for (size_t i = 0; i < big + 64; i++)
        base[i] = (unsigned char)rnd();
    int chunk_ok = 1;
    for (size_t len = 65536 - 70; len <= 65536 + 70 && chunk_ok; len += 7)
        for (size_t al = 0; al < 2; al++)
            if (call_fold(v, base + al, len, 0) != indep_csum(base + al, len, 0))
                chunk_ok = 0;
    ok(chunk_ok, "%s: random data, lengths 64 KiB +- 70 at alignments 0 and 1", v->name);
    free(raw);
}

#if defined(__x86_64__)
/* CB_CPU_MASK hides the VNNI bit: avx512-vnni is then not runnable, and
 * verify refuses it rather than run an instruction the CPU may lack. */
static void test_vnni_mask(void)
{
    const struct cb_variant *v = cb_variant_find(&cb_probe_csum, "avx512-vnni");
    ok(v != NULL, "avx512-vnni is in the table");
    if (!v)
        return;
    setenv("CB_CPU_MASK", "avx512vnni", 1);
    unsigned masked = cb_cpu_features();
    struct cb_verdict out;
    int rc = cb_probe_csum.verify(v, &out);
    unsetenv("CB_CPU_MASK");
    ok(!(masked & CB_CPU_AVX512VNNI), "CB_CPU_MASK=avx512vnni hides the feature");
    is_int(rc, -ENOTSUP, "verify refuses avx512-vnni when VNNI is hidden");
    is_uint(cb_cpu_feature_by_name("avx512vnni"), CB_CPU_AVX512VNNI, "feature name avx512vnni");
}
#elif defined(__aarch64__)
/* CB_CPU_MASK hides ASIMD: the NEON variants are then not runnable, and
 * verify refuses them rather than run an instruction the CPU may lack. */
static void test_asimd_mask(void)
{
    const struct cb_variant *v = cb_variant_find(&cb_probe_csum, "neon-uadalp");
    ok(v != NULL, "neon-uadalp is in the table");
    if (!v)
        return;
    setenv("CB_CPU_MASK", "asimd", 1);
    unsigned masked = cb_cpu_features();
    struct cb_verdict out;
    int rc = cb_probe_csum.verify(v, &out);
    unsetenv("CB_CPU_MASK");
    ok(!(masked & CB_CPU_ASIMD), "CB_CPU_MASK=asimd hides the feature");
    is_int(rc, -ENOTSUP, "verify refuses neon-uadalp when ASIMD is hidden");
    is_uint(cb_cpu_feature_by_name("asimd"), CB_CPU_ASIMD, "feature name asimd");
}

/* Every length 0..2048 at start offsets 0..15 (odd and even, against the
 * aligned words do_csum reads) with initial sums 0 and 0xffffffff, against
 * the big-endian sum: independent of the probe's verify and its byte loop. */
static void test_sweep(const struct cb_variant *v)
{
    unsigned char *raw = malloc(2048 + 64 + 64);
    unsigned char *base = (unsigned char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    for (size_t i = 0; i < 2048 + 64; i++)
        base[i] = (unsigned char)rnd();
    int bad = 0;
    for (size_t len = 0; len <= 2048 && !bad; len++)
        for (size_t al = 0; al < 16 && !bad; al++)
            for (int k = 0; k < 2 && !bad; k++) {
                uint32_t s0 = k ? 0xffffffffu : 0;
                uint16_t got = call_fold(v, base + al, len, s0);
                uint16_t want = indep_csum(base + al, len, s0);
                if (got != want) {
                    bad = 1;
                    printf("#   len=%zu align=%zu sum0=0x%08x: got 0x%04x, want 0x%04x\n", len,
                           al, (unsigned)s0, got, want);
                }
            }
    ok(!bad, "%s: lengths 0..2048 at offsets 0..15 agree with the big-endian sum", v->name);
    free(raw);
}
#endif

static void test_wrong(const char *name, cb_csum_fn fn, int want_odd)
{
    struct cb_variant v = {.name = name, .desc = "deliberately wrong",
                           .fn = (const void *)fn, .flags = CB_VARIANT_TESTONLY};
    struct cb_verdict out;
    int rc = cb_probe_csum.verify(&v, &out);
    is_int(rc, 0, "%s: verify ran", name);
    is_int(out.ok, 0, "%s: verify catches it", name);
    size_t len = 0;
    int named = sscanf(out.detail, "len=%zu", &len) == 1;
    ok(named, "%s: detail names the length: \"%s\"", name, out.detail);
    ok(out.checked >= 1, "%s: stopped after %llu inputs", name,
       (unsigned long long)out.checked);
    if (want_odd)
        ok(named && (len & 1), "%s: the failing length is odd (%zu)", name, len);
}

static void test_unrunnable(void)
{
    struct cb_variant v = {.name = "future", .desc = "needs a feature no CPU has",
                           .needs = 1u << 30, .fn = (const void *)cb_csum_ref,
                           .flags = CB_VARIANT_TESTONLY};
    struct cb_verdict out;
    is_int(cb_probe_csum.verify(&v, &out), -ENOTSUP, "verify refuses an unrunnable variant");
    struct cb_case c = {.probe = &cb_probe_csum, .variant = &v, .size = 64};
    is_int(cb_probe_csum.setup(&c), -ENOTSUP, "setup refuses an unrunnable variant");
}

/* Run the recorder, then the real variant over the same fresh case: the
 * recorder shows which buffers run visits and what they sum to. */
static void test_run(const struct cb_variant *real, enum cb_mode mode, uint64_t iters)
{
    const char *mn = mode == CB_MODE_WARM ? "warm" : "cold";
    struct cb_variant recv = {.name = "recorder", .desc = "records its calls",
                              .fn = (const void *)recorder, .flags = CB_VARIANT_TESTONLY};
    struct cb_case c = {.probe = &cb_probe_csum, .variant = &recv, .size = 1500,
                        .mode = mode, .cold_bytes = 1u << 20, .bytes_per_op = 1500};
    memset(&rec, 0, sizeof rec);
    is_int(cb_probe_csum.setup(&c), 0, "%s: setup", mn);
    cb_probe_csum.run(&c, 0);
    ok(rec.calls == 0 && c.sink == 0, "%s: run(0) calls nothing, sink untouched", mn);
    cb_probe_csum.run(&c, iters);
    is_uint(rec.calls, iters, "%s: run(%llu) made exactly that many calls", mn,
            (unsigned long long)iters);
    is_uint(c.sink, rec.expect, "%s: sink is the folded checksum of all the calls, chained", mn);
    is_int(rec.unchained, 0, "%s: each call was given the previous call's sum (a dependency, "
                             "so calls cannot overlap)", mn);

    size_t distinct = 0;
    int random_data = 1;
    for (size_t i = 0; i < rec.calls && i < REC_MAX; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = rec.ptr[j] == rec.ptr[i];
        if (!seen) {
            distinct++;
            /* Random fill: no byte value dominates the buffer. */
            unsigned cnt[256] = {0};
            for (size_t k = 0; k < 1500; k++)
                cnt[rec.ptr[i][k]]++;
            for (int b = 0; b < 256; b++)
                if (cnt[b] > 40)
                    random_data = 0;
        }
    }
    if (mode == CB_MODE_WARM)
        is_int(distinct, 1, "warm: one buffer, reused");
    else
        ok(distinct > 100, "cold: %zu distinct buffers over %llu calls", distinct,
           (unsigned long long)iters);
    ok(random_data, "%s: buffers hold random data", mn);
    cb_probe_csum.teardown(&c);
    ok(c.priv == NULL, "%s: teardown clears priv", mn);

    uint64_t want = rec.expect;
    c.variant = real;
    c.sink = 0;
    is_int(cb_probe_csum.setup(&c), 0, "%s: setup %s", mn, real->name);
    cb_probe_csum.run(&c, iters);
    is_uint(c.sink, want, "%s: %s over the same buffers gives the same sink", mn, real->name);
    cb_probe_csum.teardown(&c);
}

int main(void)
{
    test_table();
    unsigned feats = cb_cpu_features();
    const struct cb_variant *best = NULL;
    for (size_t j = 0; j < cb_probe_csum.nvariants; j++) {
        const struct cb_variant *v = &cb_probe_csum.variants[j];
        if (!runnable(v)) {
            printf("# %s: not runnable on this CPU (features 0x%x), skipped\n", v->name, feats);
            continue;
        }
        test_known_values(v);
        test_verify(v);
        test_independent(v);
        test_guard_pages(v);
        test_edges(v);
#if defined(__aarch64__)
        test_sweep(v);
        if (strcmp(v->name, "do-csum") == 0)
            best = v;
#else
        if (strcmp(v->name, "kernel-2023") == 0)
            best = v;
#endif
    }
    test_wrong("drop-odd-byte", wrong_drop_odd, 1);
    test_wrong("no-carry", wrong_no_carry, 0);
    test_unrunnable();
#if defined(__x86_64__)
    test_vnni_mask();
#elif defined(__aarch64__)
    test_asimd_mask();
#endif
    if (best) {
        test_run(best, CB_MODE_WARM, 1000);
        test_run(best, CB_MODE_COLD, 1500);
    }
    return tap_done();
}
