/* copy.c — memcpy strategies, and the verifier every copy-like family uses.
 *
 * Loops that move memory are written with inline asm or SIMD intrinsics, and
 * short tails without loops: gcc and clang recognise a plain copy loop and
 * replace it with a call to memcpy, which would make every variant glibc. */
#include "probes/copy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "kmod/cb_kmod_uapi.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include "probes/arm64/copy_arm64.h"
#endif

/* ---- the variants ---- */

/* Read through a volatile pointer at every call, so the compiler can neither
 * inline memcpy nor pick its own expansion for a known size. */
static void *(*const volatile glibc_memcpy)(void *, const void *, size_t) = memcpy;

static void copy_glibc(void *dst, const void *src, size_t n)
{
    glibc_memcpy(dst, src, n);
}

#if defined(__x86_64__)
/* prefetchnta distance of the "-pf" variants: the kernel's csum-copy loop
 * prefetches 5 lines ahead, so the two families are comparable. */
#define NT_PF_DIST (5 * 64)

static inline void copy_le128(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n > 64) {
        cb_copy_le64(d, s, 64);
        cb_copy_le64(d + 64, s + 64, n - 64);
    } else {
        cb_copy_le64(d, s, n);
    }
}

static void copy_movsb(void *dst, const void *src, size_t n)
{
    __asm__ __volatile__("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static void copy_movsq(void *dst, const void *src, size_t n)
{
    size_t q = n >> 3, r = n & 7;
    __asm__ __volatile__("rep movsq\n\t"
                         "movq %[r], %%rcx\n\t"
                         "rep movsb"
                         : "+D"(dst), "+S"(src), "+c"(q)
                         : [r] "r"(r)
                         : "memory");
}

/* The shape of the kernel's memcpy before ERMS (memcpy_orig): four 8-byte
 * loads, then four stores, per 32 bytes; 8-byte then byte tails. */
static void copy_unrolled(void *dst, const void *src, size_t n)
{
    size_t blocks = n >> 5, q = (n >> 3) & 3, r = n & 7;
    uint64_t a, b, c, e;
    if (blocks)
        __asm__ __volatile__("1:\n\t"
                             "movq 0(%[s]), %[a]\n\t"
                             "movq 8(%[s]), %[b]\n\t"
                             "movq 16(%[s]), %[c]\n\t"
                             "movq 24(%[s]), %[e]\n\t"
                             "leaq 32(%[s]), %[s]\n\t"
                             "movq %[a], 0(%[d])\n\t"
                             "movq %[b], 8(%[d])\n\t"
                             "movq %[c], 16(%[d])\n\t"
                             "movq %[e], 24(%[d])\n\t"
                             "leaq 32(%[d]), %[d]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b"
                             : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(blocks), [a] "=&r"(a),
                               [b] "=&r"(b), [c] "=&r"(c), [e] "=&r"(e)
                             :
                             : "memory", "cc");
    if (q)
        __asm__ __volatile__("1:\n\t"
                             "movq (%[s]), %[a]\n\t"
                             "movq %[a], (%[d])\n\t"
                             "leaq 8(%[s]), %[s]\n\t"
                             "leaq 8(%[d]), %[d]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b"
                             : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(q), [a] "=&r"(a)
                             :
                             : "memory", "cc");
    if (r)
        __asm__ __volatile__("1:\n\t"
                             "movb (%[s]), %b[a]\n\t"
                             "movb %b[a], (%[d])\n\t"
                             "incq %[s]\n\t"
                             "incq %[d]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b"
                             : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(r), [a] "=&q"(a)
                             :
                             : "memory", "cc");
}

/* Whole 64-byte blocks, then the last 64 bytes once more (overlapping), so
 * the tail costs one block instead of a ladder of small moves. */
static void copy_sse2(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 64) {
        cb_copy_le64(d, s, n);
        return;
    }
    unsigned char *de = d + n - 64;
    const unsigned char *se = s + n - 64;
    for (; n >= 64; n -= 64, s += 64, d += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
    }
    if (n) {
        __m128i a = _mm_loadu_si128((const __m128i *)se);
        __m128i b = _mm_loadu_si128((const __m128i *)(se + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(se + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(se + 48));
        _mm_storeu_si128((__m128i *)de, a);
        _mm_storeu_si128((__m128i *)(de + 16), b);
        _mm_storeu_si128((__m128i *)(de + 32), c);
        _mm_storeu_si128((__m128i *)(de + 48), e);
    }
}

__attribute__((target("avx2"))) static void copy_avx2(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 64) {
        cb_copy_le64(d, s, n);
        return;
    }
    unsigned char *de = d + n - 64;
    const unsigned char *se = s + n - 64;
    for (; n >= 128; n -= 128, s += 128, d += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));
        _mm256_storeu_si256((__m256i *)d, a);
        _mm256_storeu_si256((__m256i *)(d + 32), b);
        _mm256_storeu_si256((__m256i *)(d + 64), c);
        _mm256_storeu_si256((__m256i *)(d + 96), e);
    }
    if (n >= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        _mm256_storeu_si256((__m256i *)d, a);
        _mm256_storeu_si256((__m256i *)(d + 32), b);
        n -= 64;
    }
    if (n) {
        __m256i a = _mm256_loadu_si256((const __m256i *)se);
        __m256i b = _mm256_loadu_si256((const __m256i *)(se + 32));
        _mm256_storeu_si256((__m256i *)de, a);
        _mm256_storeu_si256((__m256i *)(de + 32), b);
    }
}

__attribute__((target("avx512f"))) static void copy_avx512(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 64) {
        cb_copy_le64(d, s, n);
        return;
    }
    unsigned char *de = d + n - 64;
    const unsigned char *se = s + n - 64;
    for (; n >= 256; n -= 256, s += 256, d += 256) {
        __m512i a = _mm512_loadu_si512((const void *)s);
        __m512i b = _mm512_loadu_si512((const void *)(s + 64));
        __m512i c = _mm512_loadu_si512((const void *)(s + 128));
        __m512i e = _mm512_loadu_si512((const void *)(s + 192));
        _mm512_storeu_si512((void *)d, a);
        _mm512_storeu_si512((void *)(d + 64), b);
        _mm512_storeu_si512((void *)(d + 128), c);
        _mm512_storeu_si512((void *)(d + 192), e);
    }
    for (; n >= 64; n -= 64, s += 64, d += 64)
        _mm512_storeu_si512((void *)d, _mm512_loadu_si512((const void *)s));
    if (n)
        _mm512_storeu_si512((void *)de, _mm512_loadu_si512((const void *)se));
}

/* Non-temporal stores bypass the cache with write-combining, so they pay
 * only when each store buffer fills a whole line: the head up to the next
 * 64-byte boundary of dst goes through normal stores, the body is whole
 * lines, the tail normal stores again.  sfence orders the weakly-ordered NT
 * stores before anything the caller does next (the kernel does the same). */
static inline __attribute__((always_inline)) void copy_ntq_common(unsigned char *d,
                                                                  const unsigned char *s,
                                                                  size_t n, int pf)
{
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (n < head + 64) {
        copy_le128(d, s, n);
        return;
    }
    cb_copy_le64(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, s += 64, d += 64) {
        if (pf)
            _mm_prefetch((const char *)s + NT_PF_DIST, _MM_HINT_NTA);
        long long a = (long long)cb_ld8(s), b = (long long)cb_ld8(s + 8);
        long long c = (long long)cb_ld8(s + 16), e = (long long)cb_ld8(s + 24);
        long long f = (long long)cb_ld8(s + 32), g = (long long)cb_ld8(s + 40);
        long long h = (long long)cb_ld8(s + 48), i = (long long)cb_ld8(s + 56);
        _mm_stream_si64((long long *)d, a);
        _mm_stream_si64((long long *)(d + 8), b);
        _mm_stream_si64((long long *)(d + 16), c);
        _mm_stream_si64((long long *)(d + 24), e);
        _mm_stream_si64((long long *)(d + 32), f);
        _mm_stream_si64((long long *)(d + 40), g);
        _mm_stream_si64((long long *)(d + 48), h);
        _mm_stream_si64((long long *)(d + 56), i);
    }
    _mm_sfence();
    cb_copy_le64(d, s, n);
}

static void copy_ntq(void *dst, const void *src, size_t n)
{
    copy_ntq_common(dst, src, n, 0);
}

static void copy_ntq_pf(void *dst, const void *src, size_t n)
{
    copy_ntq_common(dst, src, n, 1);
}

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
copy_ntdq_common(unsigned char *d, const unsigned char *s, size_t n, int pf)
{
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (n < head + 64) {
        copy_le128(d, s, n);
        return;
    }
    cb_copy_le64(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, s += 64, d += 64) {
        if (pf)
            _mm_prefetch((const char *)s + NT_PF_DIST, _MM_HINT_NTA);
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        _mm256_stream_si256((__m256i *)d, a);
        _mm256_stream_si256((__m256i *)(d + 32), b);
    }
    _mm_sfence();
    cb_copy_le64(d, s, n);
}

__attribute__((target("avx2"))) static void copy_ntdq_avx2(void *dst, const void *src, size_t n)
{
    copy_ntdq_common(dst, src, n, 0);
}

__attribute__((target("avx2"))) static void copy_ntdq_avx2_pf(void *dst, const void *src, size_t n)
{
    copy_ntdq_common(dst, src, n, 1);
}

#endif /* __x86_64__ */

#define FN(f) ((const void *)(cb_copy_fn)(f))

static const struct cb_variant copy_variants[] = {
    {"glibc", "glibc memcpy via a volatile pointer (never inlined): what user space gets",
     0, FN(copy_glibc), CB_VARIANT_REFERENCE, 0},
#if defined(__x86_64__)
    {"movsb", "rep movsb alone: microcoded, fast with ERMS, and for short copies with FSRM",
     0, FN(copy_movsb), 0, 0},
    {"movsq", "rep movsq for len/8 words, rep movsb for the rest (perf bench x86-64-movsq)",
     0, FN(copy_movsq), 0, 0},
    {"unrolled", "4 movq loads + 4 stores per 32 B: the kernel's pre-ERMS memcpy_orig loop",
     0, FN(copy_unrolled), 0, 0},
    {"sse2", "16-byte unaligned load/store loop, 64 B per iteration, overlapping tail",
     CB_CPU_SSE2, FN(copy_sse2), CB_VARIANT_VECTOR, 0},
    {"avx2", "32-byte unaligned load/store loop, 128 B per iteration, overlapping tail",
     CB_CPU_AVX2, FN(copy_avx2), CB_VARIANT_VECTOR, 0},
    {"avx512", "64-byte zmm load/store loop, 256 B per iteration, overlapping tail",
     CB_CPU_AVX512F, FN(copy_avx512), CB_VARIANT_VECTOR, 0},
    {"ntq", "movnti stores, dst line-aligned head, sfence; no prefetch (2002 ntq_copy)",
     CB_CPU_SSE2, FN(copy_ntq), 0, 0},
    {"ntq-pf", "ntq plus prefetchnta 5 lines ahead (2002 ntqpf_copy)",
     CB_CPU_SSE2, FN(copy_ntq_pf), 0, 0},
    {"ntdq-avx2", "vmovntdq 32-byte NT stores, dst line-aligned head, sfence; no prefetch",
     CB_CPU_AVX2, FN(copy_ntdq_avx2), CB_VARIANT_VECTOR, 0},
    {"ntdq-avx2-pf", "ntdq-avx2 plus prefetchnta 5 lines ahead",
     CB_CPU_AVX2, FN(copy_ntdq_avx2_pf), CB_VARIANT_VECTOR, 0},
#elif defined(__aarch64__)
    {"byte", "ldrb/strb one byte per iteration: the floor every other variant must beat",
     0, FN(cb_copy_arm64_byte), 0, 0},
    {"ldp", "src 16-aligned, pipelined 4 ldp + 4 stp per 64 B: the kernel's copy_template.S",
     0, FN(cb_copy_arm64_ldp), 0, 0},
    {"neon", "ld1/st1 of four q registers, 64 B per iteration, overlapping tail",
     CB_CPU_ASIMD, FN(cb_copy_arm64_neon), CB_VARIANT_VECTOR, 0},
#endif
};

/* A packet, a page, a ring's worth, and 16 MiB to go past the LLC. */
static const size_t copy_sizes[] = {64, 256, 1500, 4096, 65536, 1u << 20, 4u << 20, 16u << 20, 0};

/* ---- verification ---- */

static uint64_t xorshift64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Position-dependent, so a copy shifted by some bytes cannot match it. */
static unsigned char poison_at(size_t off)
{
    return (unsigned char)(0x5a + off * 7);
}

/* Random (src, dst) alignment pairs per length, on top of the two axes. */
#define RANDOM_PAIRS 16

/* Which (length, src align, dst align) are tried.  All 64x64 alignment pairs
 * for every length would be 8.4 million copies, so: for every length
 * 0..2048, every src alignment with dst aligned (64), every dst alignment
 * with src aligned (63 more), and RANDOM_PAIRS random pairs from a fixed-seed
 * generator, i.e. 256 random pairs for each run of 16 lengths.  The axes
 * catch head/tail alignment logic of each side alone; the random pairs the
 * interplay (e.g. NT head alignment against an odd source). */
int cb_copy_verify_with(const void *fn, cb_copy_trial_fn trial, struct cb_verdict *out)
{
    const size_t G = CB_COPY_GUARD, maxl = CB_COPY_VERIFY_MAX;
    const size_t src_len = 64 + maxl + 64, dst_len = G + 64 + maxl + G;
    memset(out, 0, sizeof *out);
    unsigned char *src = aligned_alloc(64, src_len);
    unsigned char *dst = aligned_alloc(64, dst_len);
    unsigned char *pois = malloc(dst_len);
    if (!src || !dst || !pois) {
        free(src);
        free(dst);
        free(pois);
        return -ENOMEM;
    }
    uint64_t rs = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < src_len; i++)
        src[i] = (unsigned char)(xorshift64(&rs) >> 32);
    for (size_t i = 0; i < dst_len; i++)
        pois[i] = poison_at(i);
    memcpy(dst, pois, dst_len);
    out->ok = 1;
    for (size_t len = 0; len <= maxl && out->ok; len++) {
        for (size_t t = 0; t < 64 + 63 + RANDOM_PAIRS; t++) {
            size_t sa, da;
            if (t < 64) {
                sa = t, da = 0;
            } else if (t < 127) {
                sa = 0, da = t - 63;
            } else {
                uint64_t r = xorshift64(&rs);
                sa = r & 63, da = (r >> 6) & 63;
            }
            const unsigned char *s = src + sa;
            size_t d0 = G + da; /* dst offset in the buffer */
            size_t lo = d0 - G, hi = d0 + len + G, i = hi;
            char why[160] = "";
            int bad = trial(fn, dst + d0, s, len, why, sizeof why);
            out->checked++;
            /* Inside the copy the source bytes, outside it the poison that
             * was there.  memcmp finds that something differs; the byte
             * loop then finds the first byte that does. */
            if (memcmp(dst + lo, pois + lo, G) || memcmp(dst + d0, s, len) ||
                memcmp(dst + d0 + len, pois + d0 + len, G)) {
                for (i = lo; i < hi; i++) {
                    unsigned char want = (i >= d0 && i < d0 + len) ? s[i - d0] : pois[i];
                    if (dst[i] != want)
                        break;
                }
            }
            if (i < hi) {
                long at = (long)i - (long)d0;
                snprintf(out->detail, sizeof out->detail,
                         "len %zu src+%zu dst+%zu: dst[%ld] = 0x%02x, want 0x%02x (%s)", len, sa,
                         da, at, dst[i], (i >= d0 && i < d0 + len) ? s[i - d0] : pois[i],
                         at < 0 ? "guard before dst overwritten"
                                : (size_t)at >= len ? "guard after dst overwritten"
                                                    : "copied byte differs");
                out->ok = 0;
                break;
            }
            if (bad) {
                snprintf(out->detail, sizeof out->detail, "len %zu src+%zu dst+%zu: %s", len, sa,
                         da, why);
                out->ok = 0;
                break;
            }
            memcpy(dst + lo, pois + lo, hi - lo);
        }
    }
    free(src);
    free(dst);
    free(pois);
    return 0;
}

static int copy_trial(const void *fn, void *dst, const void *src, size_t len, char *detail,
                      size_t dlen)
{
    (void)detail, (void)dlen;
    ((cb_copy_fn)fn)(dst, src, len);
    return 0;
}

static int copy_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    return cb_copy_verify_with(v->fn, copy_trial, out);
}

/* ---- setup / run / teardown ---- */

int cb_copy_setup(struct cb_case *c)
{
    if (c->variant->only_size && c->size != c->variant->only_size)
        return -EINVAL;
    struct cb_copy_state *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    int rc = cb_workset_init(&st->src, c->size, 0, c->mode, c->cold_bytes, c->buf_pages);
    if (rc == 0) {
        rc = cb_workset_init(&st->dst, c->size, 0, c->mode, c->cold_bytes, c->buf_pages);
        if (rc)
            cb_workset_free(&st->src);
    }
    if (rc) {
        free(st);
        return rc;
    }
    /* Non-zero and different in every slot, so a test can tell which source
     * slot landed where, and no slot is a copy of the zeroed destination. */
    for (size_t i = 0; i < st->src.count; i++) {
        unsigned char *p = cb_workset_at(&st->src, i);
        for (size_t j = 0; j < c->size; j++)
            p[j] = (unsigned char)(1 + (j * 131 + i * 29) % 255);
    }
    cb_workset_settle(&st->src);
    cb_workset_settle(&st->dst);
    c->priv = st;
    return 0;
}

void cb_copy_teardown(struct cb_case *c)
{
    struct cb_copy_state *st = c->priv;
    if (!st)
        return;
    cb_workset_free(&st->src);
    cb_workset_free(&st->dst);
    free(st);
    c->priv = NULL;
}

static void copy_run(struct cb_case *c, uint64_t iters)
{
    struct cb_copy_state *st = c->priv;
    cb_copy_fn fn = (cb_copy_fn)c->variant->fn;
    size_t n = c->size;
    for (uint64_t i = 0; i < iters; i++) {
        unsigned char *d = cb_workset_next(&st->dst);
        fn(d, cb_workset_next(&st->src), n);
    }
}

/* The quick suite: the sizes that show where the winner changes. */
static const size_t copy_suite_sizes[] = {64, 1500, 4096, 65536, 1 << 20, 16 << 20, 0};

static const struct cb_kernel_twin copy_kernel[] = {
    {.func = "memcpy", .kfunc = CB_KF_MEMCPY, .models = {"movsb", "unrolled"},
     .why = "rep movsb (ERMS/FSRM), memcpy_orig's loop"},
};

const struct cb_probe cb_probe_copy = {
    .name = "copy",
#if defined(__aarch64__)
    .desc = "memcpy strategies: glibc, byte loop, ldp/stp (kernel), NEON",
#else
    .desc = "memcpy strategies: glibc, rep movs, unrolled movq, SIMD, non-temporal",
#endif
    .unit = "B",
    .op = "call",
    .variants = copy_variants,
    .nvariants = sizeof copy_variants / sizeof copy_variants[0],
    .sizes = copy_sizes,
    .setup = cb_copy_setup,
    .run = copy_run,
    .verify = copy_verify,
    .teardown = cb_copy_teardown,
    .suite_sizes = copy_suite_sizes,
    .call = CB_CALL_COPY,
    .shape = CB_SHAPE_TWO_BUFFERS | CB_SHAPE_STORES,
    .charge = CB_CHARGE_BY_BYTES,
    .chart = {.kind = CB_CHART_THROUGHPUT},
    .kernel = copy_kernel,
    .nkernel = sizeof copy_kernel / sizeof copy_kernel[0],
};
