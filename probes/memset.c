/* memset.c — memset strategies, from rep stos to the skb-head clear.
 *
 * As in copy.c, loops are asm or SIMD intrinsics and short tails loop-free:
 * the compilers turn a plain store loop back into a call to memset. */
#include "probes/memset.h"
#include "probes/memset_short.h"
#include "probes/kflags/kflags.h"

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
#include "probes/arm64/memset_arm64.h"
#endif

/* ---- general variants ---- */

static void *(*const volatile glibc_memset)(void *, int, size_t) = memset;

static void memset_glibc(void *dst, int c, size_t n)
{
    glibc_memset(dst, c, n);
}

#if defined(__x86_64__)
static void memset_stosb(void *dst, int c, size_t n)
{
    __asm__ __volatile__("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
}

static void memset_stosq(void *dst, int c, size_t n)
{
    size_t q = n >> 3, r = n & 7;
    __asm__ __volatile__("rep stosq\n\t"
                         "movq %[r], %%rcx\n\t"
                         "rep stosb"
                         : "+D"(dst), "+c"(q)
                         : "a"(splat8(c)), [r] "r"(r)
                         : "memory");
}

/* Hannes Sowa's hand-written clear from the 2016 thread: eight movq per
 * line.  Brouer saw it stall at 8 bytes/cycle on Skylake (one store port). */
static void memset_movq(void *dst, int c, size_t n)
{
    uint64_t v = splat8(c);
    size_t lines = n >> 6, q = (n >> 3) & 7, r = n & 7;
    if (lines)
        __asm__ __volatile__("1:\n\t"
                             "movq %[v], 0*8(%[d])\n\t"
                             "movq %[v], 1*8(%[d])\n\t"
                             "movq %[v], 2*8(%[d])\n\t"
                             "movq %[v], 3*8(%[d])\n\t"
                             "movq %[v], 4*8(%[d])\n\t"
                             "movq %[v], 5*8(%[d])\n\t"
                             "movq %[v], 6*8(%[d])\n\t"
                             "movq %[v], 7*8(%[d])\n\t"
                             "leaq 64(%[d]), %[d]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b"
                             : [d] "+r"(dst), [n] "+r"(lines)
                             : [v] "r"(v)
                             : "memory", "cc");
    if (q)
        __asm__ __volatile__("1:\n\t"
                             "movq %[v], (%[d])\n\t"
                             "leaq 8(%[d]), %[d]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b"
                             : [d] "+r"(dst), [n] "+r"(q)
                             : [v] "r"(v)
                             : "memory", "cc");
    if (r)
        __asm__ __volatile__("1:\n\t"
                             "movb %b[v], (%[d])\n\t"
                             "incq %[d]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b"
                             : [d] "+r"(dst), [n] "+r"(r)
                             : [v] "q"(v)
                             : "memory", "cc");
}

/* Whole blocks, then the last 64 bytes again (overlapping) for the tail. */
static void memset_sse2(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    if (n < 64) {
        set_le64(d, splat8(c), n);
        return;
    }
    __m128i v = _mm_set1_epi8((char)c);
    unsigned char *de = d + n - 64;
    for (; n >= 64; n -= 64, d += 64) {
        _mm_storeu_si128((__m128i *)d, v);
        _mm_storeu_si128((__m128i *)(d + 16), v);
        _mm_storeu_si128((__m128i *)(d + 32), v);
        _mm_storeu_si128((__m128i *)(d + 48), v);
    }
    if (n) {
        _mm_storeu_si128((__m128i *)de, v);
        _mm_storeu_si128((__m128i *)(de + 16), v);
        _mm_storeu_si128((__m128i *)(de + 32), v);
        _mm_storeu_si128((__m128i *)(de + 48), v);
    }
}

__attribute__((target("avx2"))) static void memset_avx2(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    if (n < 64) {
        set_le64(d, splat8(c), n);
        return;
    }
    __m256i v = _mm256_set1_epi8((char)c);
    unsigned char *de = d + n - 64;
    for (; n >= 128; n -= 128, d += 128) {
        _mm256_storeu_si256((__m256i *)d, v);
        _mm256_storeu_si256((__m256i *)(d + 32), v);
        _mm256_storeu_si256((__m256i *)(d + 64), v);
        _mm256_storeu_si256((__m256i *)(d + 96), v);
    }
    if (n >= 64) {
        _mm256_storeu_si256((__m256i *)d, v);
        _mm256_storeu_si256((__m256i *)(d + 32), v);
        n -= 64;
    }
    if (n) {
        _mm256_storeu_si256((__m256i *)de, v);
        _mm256_storeu_si256((__m256i *)(de + 32), v);
    }
}

__attribute__((target("avx512f"))) static void memset_avx512(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    if (n < 64) {
        set_le64(d, splat8(c), n);
        return;
    }
    /* set1_epi64 needs only AVX-512F (set1_epi8 would want BW). */
    __m512i v = _mm512_set1_epi64((long long)splat8(c));
    unsigned char *de = d + n - 64;
    for (; n >= 256; n -= 256, d += 256) {
        _mm512_storeu_si512((void *)d, v);
        _mm512_storeu_si512((void *)(d + 64), v);
        _mm512_storeu_si512((void *)(d + 128), v);
        _mm512_storeu_si512((void *)(d + 192), v);
    }
    for (; n >= 64; n -= 64, d += 64)
        _mm512_storeu_si512((void *)d, v);
    if (n)
        _mm512_storeu_si512((void *)de, v);
}

/* Non-temporal: normal stores up to dst's next line boundary, whole lines
 * with NT stores (write-combining wants full lines), sfence, normal tail.
 * Meant for sizes beyond the LLC, where the cache has nothing to gain. */
static void memset_ntq(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    uint64_t v = splat8(c);
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (n < head + 64) {
        if (n > 64)
            set_le64(d + 64, v, n - 64), n = 64;
        set_le64(d, v, n);
        return;
    }
    set_le64(d, v, head);
    d += head, n -= head;
    long long w = (long long)v;
    for (; n >= 64; n -= 64, d += 64) {
        _mm_stream_si64((long long *)d, w);
        _mm_stream_si64((long long *)(d + 8), w);
        _mm_stream_si64((long long *)(d + 16), w);
        _mm_stream_si64((long long *)(d + 24), w);
        _mm_stream_si64((long long *)(d + 32), w);
        _mm_stream_si64((long long *)(d + 40), w);
        _mm_stream_si64((long long *)(d + 48), w);
        _mm_stream_si64((long long *)(d + 56), w);
    }
    _mm_sfence();
    set_le64(d, v, n);
}

__attribute__((target("avx2"))) static void memset_ntdq_avx2(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    uint64_t v8 = splat8(c);
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (n < head + 64) {
        if (n > 64)
            set_le64(d + 64, v8, n - 64), n = 64;
        set_le64(d, v8, n);
        return;
    }
    set_le64(d, v8, head);
    d += head, n -= head;
    __m256i v = _mm256_set1_epi8((char)c);
    for (; n >= 64; n -= 64, d += 64) {
        _mm256_stream_si256((__m256i *)d, v);
        _mm256_stream_si256((__m256i *)(d + 32), v);
    }
    _mm_sfence();
    set_le64(d, v8, n);
}

#endif /* __x86_64__ */

/* ---- fixed-size clears: what the compiler emits for an skb-like head ----
 *
 * Byte arrays (alignment 1), so the variants are valid at any address and
 * can be verified at every misalignment; the compiler picks its inline
 * sequence for the constant size (movups runs, or rep stos, by target and
 * version), which is the thing measured. */
struct cb_skb192 { unsigned char b[192]; };
struct cb_skb200 { unsigned char b[200]; };
struct cb_skb256 { unsigned char b[256]; };

static void memset_struct192(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    *(struct cb_skb192 *)dst = (struct cb_skb192){0};
}

static void memset_struct200(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    *(struct cb_skb200 *)dst = (struct cb_skb200){0};
}

static void memset_struct256(void *dst, int c, size_t n)
{
    (void)c, (void)n;
    *(struct cb_skb256 *)dst = (struct cb_skb256){0};
}

#define FN(f) ((const void *)(cb_memset_fn)(f))

/* What KERNEL_CFLAGS (configure) takes away from the +kflags clears.  On
 * arm64 (-mgeneral-regs-only) gcc 12 emits no inline clear at these sizes
 * but a call to memset: the kernel's own there, glibc's here. */
#if defined(__aarch64__)
#define KFLAGS_NO "no FP/SIMD registers; gcc may call memset"
#else
#define KFLAGS_NO "no SSE"
#endif

static const struct cb_variant memset_variants[] = {
    {"glibc", "glibc memset via a volatile pointer (never inlined)",
     0, FN(memset_glibc), CB_VARIANT_REFERENCE | CB_VARIANT_VECTOR, 0},
#if defined(__x86_64__)
    {"stosb", "rep stosb alone: fast with ERMS (perf bench x86-64-stosb)",
     0, FN(memset_stosb), 0, 0},
    {"stosq", "rep stosq for len/8 words, rep stosb for the rest (x86-64-stosq)",
     0, FN(memset_stosq), 0, 0},
    {"movq", "eight movq per 64 B, the hand-written clear of the 2016 TXDP thread",
     0, FN(memset_movq), 0, 0},
    {"sse2", "16-byte unaligned stores, 64 B per iteration, overlapping tail",
     CB_CPU_SSE2, FN(memset_sse2), CB_VARIANT_VECTOR, 0},
    {"avx2", "32-byte unaligned stores, 128 B per iteration, overlapping tail",
     CB_CPU_AVX2, FN(memset_avx2), CB_VARIANT_VECTOR, 0},
    {"avx512", "64-byte zmm stores, 256 B per iteration, overlapping tail",
     CB_CPU_AVX512F, FN(memset_avx512), CB_VARIANT_VECTOR, 0},
    {"ntq", "movnti to a line-aligned dst, sfence: for sizes beyond the LLC",
     CB_CPU_SSE2, FN(memset_ntq), 0, 0},
    {"ntdq-avx2", "vmovntdq 32-byte NT stores to a line-aligned dst, sfence",
     CB_CPU_AVX2, FN(memset_ntdq_avx2), CB_VARIANT_VECTOR, 0},
#elif defined(__aarch64__)
    {"byte", "strb one byte per iteration: the floor every other variant must beat",
     0, FN(cb_memset_arm64_byte), 0, 0},
    {"stp", "four stp per 64 B (xzr when zeroing, as the kernel's memset), overlapping tail",
     0, FN(cb_memset_arm64_stp), 0, 0},
    {"neon", "st1 of four q registers, 64 B per iteration, overlapping tail",
     CB_CPU_ASIMD, FN(cb_memset_arm64_neon), CB_VARIANT_VECTOR, 0},
    {"dczva", "dc zva per DCZID_EL0 block when zeroing, stp head/tail; other fills: stp",
     CB_CPU_DCZVA, FN(cb_memset_arm64_dczva), 0, 0},
#endif
    {"struct192", "compiler's inline clear of a 192-byte struct (3 lines of skb head)",
     0, FN(memset_struct192), 0, 192},
    {"struct200", "compiler's inline clear of a 200-byte struct (just over 3 lines)",
     0, FN(memset_struct200), 0, 200},
    {"struct256", "compiler's inline clear of a 256-byte struct (4 lines of skb head)",
     0, FN(memset_struct256), 0, 256},
    {"struct192+kflags",
     "struct192's clear built with the kernel's code generation (" KFLAGS_NO ")",
     0, FN(cb_memset_struct192_kflags), 0, 192},
    {"struct200+kflags",
     "struct200's clear built with the kernel's code generation (" KFLAGS_NO ")",
     0, FN(cb_memset_struct200_kflags), 0, 200},
    {"struct256+kflags",
     "struct256's clear built with the kernel's code generation (" KFLAGS_NO ")",
     0, FN(cb_memset_struct256_kflags), 0, 256},
};

/* The 2016 table (192..4096), plus 200 for struct200, 64 KiB, and 16 MiB to
 * go past the LLC. */
static const size_t memset_sizes[] = {64,   192,  200,   256,       512, 768,
                                      1024, 2048, 4096, 65536, 16u << 20, 0};

/* ---- verification ---- */

/* Position-dependent; always below 0x80 and never 0, so it can be neither
 * fill value tried. */
static unsigned char poison_at(size_t off)
{
    return (unsigned char)(0x5a ^ (off & 63));
}

static const int verify_fills[] = {0, 0xa7};

/* General variants: every length 0..2048 at every dst misalignment 0..63,
 * for fill 0 and 0xa7 (all 2x2049x64 combinations: a store-only loop is
 * cheap enough).  A fixed-size variant: its own size at every misalignment,
 * fill 0 only (it knows no other).  Each call is checked byte for byte
 * inside, and CB_MEMSET_GUARD poisoned bytes on each side. */
static int memset_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    const size_t G = CB_MEMSET_GUARD;
    const size_t maxl = v->only_size ? v->only_size : CB_MEMSET_VERIFY_MAX;
    const size_t minl = v->only_size ? v->only_size : 0;
    const size_t nfill = v->only_size ? 1 : 2;
    const size_t dst_len = G + 64 + maxl + G;
    cb_memset_fn fn = (cb_memset_fn)v->fn;
    memset(out, 0, sizeof *out);
    unsigned char *dst = aligned_alloc(64, (dst_len + 63) & ~(size_t)63);
    unsigned char *pois = malloc(dst_len);
    unsigned char *want = malloc(maxl + 1);
    if (!dst || !pois || !want) {
        free(dst);
        free(pois);
        free(want);
        return -ENOMEM;
    }
    for (size_t i = 0; i < dst_len; i++)
        pois[i] = poison_at(i);
    memcpy(dst, pois, dst_len);
    out->ok = 1;
    for (size_t f = 0; f < nfill && out->ok; f++) {
        int fill = verify_fills[f];
        for (size_t i = 0; i < maxl; i++) /* the reference: a byte loop */
            ((volatile unsigned char *)want)[i] = (unsigned char)fill;
        for (size_t len = minl; len <= maxl && out->ok; len++) {
            for (size_t da = 0; da < 64; da++) {
                size_t d0 = G + da, lo = da, hi = d0 + len + G, i = hi;
                fn(dst + d0, fill, len);
                out->checked++;
                if (memcmp(dst + lo, pois + lo, G) || memcmp(dst + d0, want, len) ||
                    memcmp(dst + d0 + len, pois + d0 + len, G)) {
                    for (i = lo; i < hi; i++)
                        if (dst[i] != ((i >= d0 && i < d0 + len) ? want[0] : pois[i]))
                            break;
                }
                if (i < hi) {
                    long at = (long)i - (long)d0;
                    snprintf(out->detail, sizeof out->detail,
                             "len %zu dst+%zu fill 0x%02x: dst[%ld] = 0x%02x, want 0x%02x (%s)",
                             len, da, (unsigned)fill, at, dst[i],
                             (i >= d0 && i < d0 + len) ? want[0] : pois[i],
                             at < 0 ? "guard before dst overwritten"
                                    : (size_t)at >= len ? "guard after dst overwritten"
                                                        : "byte not set");
                    out->ok = 0;
                    break;
                }
                memcpy(dst + lo, pois + lo, hi - lo);
            }
        }
    }
    free(dst);
    free(pois);
    free(want);
    return 0;
}

/* ---- setup / run / teardown ---- */

static int memset_setup(struct cb_case *c)
{
    if (c->variant->only_size && c->size != c->variant->only_size)
        return -EINVAL;
    struct cb_memset_state *st = calloc(1, sizeof *st);
    if (!st)
        return -ENOMEM;
    int rc = cb_workset_init(&st->dst, c->size, 0, c->mode, c->cold_bytes, c->buf_pages);
    if (rc) {
        free(st);
        return rc;
    }
    /* The whole slot, padding included, so a test sees stray writes. */
    for (size_t i = 0; i < st->dst.count; i++)
        memset(cb_workset_at(&st->dst, i), CB_MEMSET_SETUP_FILL,
               st->dst.stride - st->dst.offset);
    cb_workset_settle(&st->dst);
    c->priv = st;
    return 0;
}

static void memset_run(struct cb_case *c, uint64_t iters)
{
    struct cb_memset_state *st = c->priv;
    cb_memset_fn fn = (cb_memset_fn)c->variant->fn;
    size_t n = c->size;
    for (uint64_t i = 0; i < iters; i++)
        fn(cb_workset_next(&st->dst), CB_MEMSET_RUN_FILL, n);
}

static void memset_teardown(struct cb_case *c)
{
    struct cb_memset_state *st = c->priv;
    if (!st)
        return;
    cb_workset_free(&st->dst);
    free(st);
    c->priv = NULL;
}

/* The quick suite: the sizes that show where the winner changes. */
static const size_t memset_suite_sizes[] = {192, 200, 256, 512, 2048, 4096, 16 << 20, 0};

static const struct cb_kernel_twin memset_kernel[] = {
    {.func = "memset", .kfunc = CB_KF_MEMSET, .models = {"stosb", "movq"},
     .why = "rep stosb (ERMS), a movq loop"},
};

/* Its sizes are skb heads cleared once per packet (192, 200, 256 B, the
 * 2016 thread), so it is charged per packet. */
const struct cb_probe cb_probe_memset = {
    .name = "memset",
    .desc = "memset strategies and fixed-size skb-head clears",
    .unit = "B",
    .op = "call",
    .variants = memset_variants,
    .nvariants = sizeof memset_variants / sizeof memset_variants[0],
    .sizes = memset_sizes,
    .setup = memset_setup,
    .run = memset_run,
    .verify = memset_verify,
    .teardown = memset_teardown,
    .suite_sizes = memset_suite_sizes,
    .call = CB_CALL_FILL,
    .shape = CB_SHAPE_STORES,
    .chart = {.kind = CB_CHART_THROUGHPUT},
    .kernel = memset_kernel,
    .nkernel = sizeof memset_kernel / sizeof memset_kernel[0],
};
