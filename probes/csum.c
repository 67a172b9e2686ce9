/* csum.c — the Internet checksum family: csum_partial as it evolved in
 * Linux's arch/x86/lib/csum-partial_64.c, plus ADX and SIMD variants.
 *
 * Every variant keeps a 64-bit ones'-complement accumulator (or exact sums in
 * 64-bit SIMD lanes) and folds it to 32 bits at the end.  This is sound
 * because 2^64 and 2^32 are both 1 modulo 0xffff, so an end-around carry at
 * any width is the same ones'-complement sum of the 16-bit words; and an
 * end-around-carry sum is zero only when every input is, so all variants
 * agree on the folded value exactly (never 0x0000 against 0xffff).
 *
 * Odd addresses: x86 loads need no alignment, and a load taken at buf + 2k
 * puts every byte in the same half of a 16-bit word as a byte loop would, so
 * the variants simply load from buf as given.  The pre-2021 kernel aligned
 * the pointer first (and rotated the result back for odd addresses); that
 * prologue is left out here, so the old-loop variants measure their loops,
 * not the kernel's alignment handling.  avx512-vnni does align (a zmm load
 * across two lines costs two), and swaps its byte weights after an odd
 * head instead of rotating the result.
 *
 * No variant reads outside [buf, buf + len): the 2021 kernel's last-bytes
 * load_unaligned_zeropad() may read past the end and relies on the kernel's
 * fault fixup, which user space has not; here the last 1-7 bytes come from
 * one load that ends at buf + len (when at least 8 bytes precede it), or
 * from a 4/2/1 split, or (AVX-512) from a masked load.
 *
 * All of the above is x86-64 only (#if __x86_64__).  On arm64 the variants
 * live in arm64/csum.c and the reference is the port of the kernel's own
 * do_csum (arm64/csum.h), which reads whole aligned words and so may touch
 * the bytes just outside the buffer in the same aligned 8 bytes (never
 * another page); the verify below is the same on both. */
#include "probes/csum.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "host/cpu.h"
#include "probes/csum_kernel.h"
#include "probes/csum_simd.h"
#include "probes/kflags/kflags.h"
#include "kmod/cb_kmod_uapi.h"
#include "harness/probe.h"
#include "harness/workset.h"
#if defined(__aarch64__)
#include "probes/arm64/csum.h"
#endif

/* ---- ref: RFC 1071 ------------------------------------------------------ */

/* RFC 1071 section 4.1, with the words taken little-endian (x86) and a
 * 64-bit accumulator so that no carry is lost even for 4 MiB buffers (the
 * RFC's 32-bit one would overflow past 128 KiB). */
uint32_t cb_csum_ref(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t acc = sum;
    while (len > 1) {
        acc += (uint64_t)p[0] | (uint64_t)p[1] << 8;
        p += 2;
        len -= 2;
    }
    if (len)
        acc += p[0];
    return fold64(acc);
}

#if defined(__x86_64__)

/* ---- adc-1chain: the pre-2021 kernel loop ------------------------------ */
/* The pre-2021 tail: 8-byte words one by one, then what is left. */
static inline uint64_t tail_words(const unsigned char *p, size_t len, uint64_t acc)
{
    for (; len >= 8; p += 8, len -= 8)
        acc = addc64(acc, ld64(p));
    return addc64(acc, tail_lt8(p, len));
}

static uint32_t csum_adc_1chain(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    size_t nblk = len / 64;
    uint64_t acc = adc_blocks_1chain(p, nblk, sum);
    return fold64(tail_words(p + nblk * 64, len % 64, acc));
}

/* ---- adc-2chain: Horman 2013 ------------------------------------------- */

/* Even and odd quadwords on two chains.  Both chains run through the one
 * carry flag, but each starts with a plain addq (no flag input), so renaming
 * lets the two proceed in parallel. */
static uint32_t csum_adc_2chain(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    size_t nblk = len / 64;
    uint64_t a = sum, b = 0;
    if (nblk)
        __asm__("1:\n\t"
                "addq 0*8(%[p]), %[a]\n\t"
                "adcq 2*8(%[p]), %[a]\n\t"
                "adcq 4*8(%[p]), %[a]\n\t"
                "adcq 6*8(%[p]), %[a]\n\t"
                "adcq $0, %[a]\n\t"
                "addq 1*8(%[p]), %[b]\n\t"
                "adcq 3*8(%[p]), %[b]\n\t"
                "adcq 5*8(%[p]), %[b]\n\t"
                "adcq 7*8(%[p]), %[b]\n\t"
                "adcq $0, %[b]\n\t"
                "leaq 64(%[p]), %[p]\n\t"
                "decq %[n]\n\t"
                "jnz 1b"
                : [a] "+r"(a), [b] "+r"(b), [p] "+r"(p), [n] "+r"(nblk)
                :
                : "cc", "memory");
    return fold64(tail_words(p, len % 64, addc64(a, b)));
}

/* ---- adc-1chain-pf: Dumazet's reply ------------------------------------ */

/* The single chain with a prefetch 5 lines ahead.  Dumazet's patch used the
 * 3DNow! "prefetch"; prefetcht0 is the baseline x86-64 equivalent.  A
 * prefetch past the end of the buffer cannot fault. */
static uint32_t csum_adc_1chain_pf(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    size_t nblk = len / 64;
    uint64_t acc = sum;
    if (nblk)
        __asm__("1:\n\t"
                "prefetcht0 5*64(%[p])\n\t"
                "addq 0*8(%[p]), %[a]\n\t"
                "adcq 1*8(%[p]), %[a]\n\t"
                "adcq 2*8(%[p]), %[a]\n\t"
                "adcq 3*8(%[p]), %[a]\n\t"
                "adcq 4*8(%[p]), %[a]\n\t"
                "adcq 5*8(%[p]), %[a]\n\t"
                "adcq 6*8(%[p]), %[a]\n\t"
                "adcq 7*8(%[p]), %[a]\n\t"
                "adcq $0, %[a]\n\t"
                "leaq 64(%[p]), %[p]\n\t"
                "decq %[n]\n\t"
                "jnz 1b"
                : [a] "+r"(acc), [p] "+r"(p), [n] "+r"(nblk)
                :
                : "cc", "memory");
    return fold64(tail_words(p, len % 64, acc));
}

/* ---- adx: two flag chains ---------------------------------------------- */

#define ADX_64B(off)                                                          \
    "adcxq " #off "+0*8(%[p]), %[a]\n\t"                                     \
    "adoxq " #off "+1*8(%[p]), %[b]\n\t"                                     \
    "adcxq " #off "+2*8(%[p]), %[a]\n\t"                                     \
    "adoxq " #off "+3*8(%[p]), %[b]\n\t"                                     \
    "adcxq " #off "+4*8(%[p]), %[a]\n\t"                                     \
    "adoxq " #off "+5*8(%[p]), %[b]\n\t"                                     \
    "adcxq " #off "+6*8(%[p]), %[a]\n\t"                                     \
    "adoxq " #off "+7*8(%[p]), %[b]\n\t"

/* adcx carries through CF only and adox through OF only, so two chains
 * really are independent (adc-2chain's share CF and rely on renaming).  The
 * loop counter's dec would clobber OF, so each 128-byte step starts by
 * clearing both flags (xor) and ends by adding them back in; 128 rather
 * than 64 bytes per step halves that overhead on the chains. */
static uint32_t csum_adx(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t a = sum, b = 0, zero = 0;
    size_t n = len / 128;
    if (n)
        __asm__("1:\n\t"
                "xorl %k[z], %k[z]\n\t"
                ADX_64B(0)
                ADX_64B(64)
                "adcxq %[z], %[a]\n\t"
                "adoxq %[z], %[b]\n\t"
                "leaq 128(%[p]), %[p]\n\t"
                "decq %[n]\n\t"
                "jnz 1b"
                : [a] "+r"(a), [b] "+r"(b), [p] "+r"(p), [n] "+r"(n), [z] "+r"(zero)
                :
                : "cc", "memory");
    if (len & 64) {
        __asm__("xorl %k[z], %k[z]\n\t"
                ADX_64B(0)
                "adcxq %[z], %[a]\n\t"
                "adoxq %[z], %[b]"
                : [a] "+r"(a), [b] "+r"(b), [z] "+r"(zero)
                : [p] "r"(p)
                : "cc", "memory");
        p += 64;
    }
    return fold64(tail_bisect(p, len % 64, addc64(a, b), len >= 64));
}

#endif /* __x86_64__ */

/* ---- the family table --------------------------------------------------- */

/* One table; each architecture's variants under its #if.  On x86-64 the
 * reference is the RFC byte loop; on arm64 it is the port of the kernel's
 * do_csum (arm64/csum.h), what Linux runs there, and the byte loop stays as
 * a variant.  verify checks every variant against the byte loop. */
static const struct cb_variant csum_variants[] = {
#if defined(__x86_64__)
    {.name = "ref",
     .desc = "byte-pair loop, 64-bit accumulator (RFC 1071 section 4.1)",
     .fn = (const void *)cb_csum_ref,
     .flags = CB_VARIANT_REFERENCE},
    {.name = "adc-1chain",
     .desc = "one adcq chain, 8 per 64 bytes (Linux csum-partial_64.c before 2021)",
     .fn = (const void *)csum_adc_1chain},
    {.name = "adc-2chain",
     .desc = "two independent adcq chains (Neil Horman's 2013 parallel-ALU patch)",
     .fn = (const void *)csum_adc_2chain},
    {.name = "adc-1chain-pf",
     .desc = "one adcq chain, prefetch 5*64 ahead (Eric Dumazet's 2013 reply)",
     .fn = (const void *)csum_adc_1chain_pf},
    {.name = "kernel-2021",
     .desc = "64-byte loop, 32/16/8 bisection, one load for 1-7 bytes (Dumazet 2021)",
     .fn = (const void *)csum_kernel_2021},
    {.name = "kernel-2023",
     .desc = "two accumulators in the 64-byte loop, 40-byte case (Goldstein, Linux 6.5)",
     .fn = (const void *)csum_kernel_2023},
    {.name = "kernel-2021+kflags",
     .desc = "kernel-2021 built with the kernel's code generation (kflags: no SSE, thunks)",
     .fn = (const void *)cb_csum_kernel_2021_kflags},
    {.name = "kernel-2023+kflags",
     .desc = "kernel-2023 built with the kernel's code generation (kflags: no SSE, thunks)",
     .fn = (const void *)cb_csum_kernel_2023_kflags},
    {.name = "adx",
     .desc = "adcx/adox on two flag chains (the fastcsum idea)",
     .needs = CB_CPU_ADX,
     .fn = (const void *)csum_adx},
    {.name = "avx2",
     .desc = "32-bit halves summed exactly in 64-bit lanes, 128 B per loop",
     .needs = CB_CPU_AVX2,
     .fn = (const void *)cb_csum_avx2,
     .flags = CB_VARIANT_VECTOR},
    {.name = "avx512",
     .desc = "as avx2 with zmm, 256 B per loop, masked load for the tail",
     .needs = CB_CPU_AVX512F | CB_CPU_AVX512BW,
     .fn = (const void *)cb_csum_avx512,
     .flags = CB_VARIANT_VECTOR},
    {.name = "avx512-vnni",
     .desc = "vpdpbusd sums low and high bytes exactly, 2 ops per 64 B, 512 B per loop",
     .needs = CB_CPU_AVX512F | CB_CPU_AVX512BW | CB_CPU_AVX512VNNI,
     .fn = (const void *)cb_csum_avx512_vnni,
     .flags = CB_VARIANT_VECTOR},
#elif defined(__aarch64__)
    {.name = "do-csum",
     .desc = "port of Linux arch/arm64/lib/csum.c do_csum: aligned 128-bit loads, "
             "rotate-and-add folds (Murphy 2020)",
     .fn = (const void *)cb_csum_a64_do_csum,
     .flags = CB_VARIANT_REFERENCE},
    {.name = "do-csum+kflags",
     .desc = "do-csum built with the kernel's code generation (kflags: -mgeneral-regs-only)",
     .fn = (const void *)cb_csum_do_csum_kflags},
    {.name = "ref",
     .desc = "byte-pair loop, 64-bit accumulator (RFC 1071 section 4.1)",
     .fn = (const void *)cb_csum_ref},
    {.name = "generic-64",
     .desc = "portable C: 8-byte words, the carry recovered by a compare",
     .fn = (const void *)cb_csum_a64_generic64},
    {.name = "neon-uadalp",
     .desc = "uadalp (vpadalq_u16) into one 32-bit-lane accumulator, 16 B per op",
     .needs = CB_CPU_ASIMD,
     .fn = (const void *)cb_csum_a64_uadalp,
     .flags = CB_VARIANT_VECTOR},
    {.name = "neon-uadalp-x4",
     .desc = "uadalp into four accumulators, 64 B per loop",
     .needs = CB_CPU_ASIMD,
     .fn = (const void *)cb_csum_a64_uadalp_x4,
     .flags = CB_VARIANT_VECTOR},
    {.name = "neon-uaddw-x2",
     .desc = "uaddw/uaddw2 (widen low/high 16-bit halves) into two accumulators, 32 B per loop",
     .needs = CB_CPU_ASIMD,
     .fn = (const void *)cb_csum_a64_uaddw_x2,
     .flags = CB_VARIANT_VECTOR},
#endif
};

/* ---- setup / run / teardown -------------------------------------------- */

struct csum_state {
    struct cb_workset ws;
    cb_csum_fn fn;
};

static inline uint64_t xorshift64(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}


static int runnable_here(const struct cb_variant *v)
{
    return (v->needs & cb_cpu_features()) == v->needs;
}

static int csum_setup(struct cb_case *c)
{
    if (!c->variant || !c->variant->fn)
        return -EINVAL;
    if (c->variant->only_size && c->size != c->variant->only_size)
        return -EINVAL;
    /* The harness checks this too; an unsupported variant must never get
     * as far as an illegal instruction. */
    if (!runnable_here(c->variant))
        return -ENOTSUP;
    struct csum_state *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    /* Offset 0: buffers start on a cache line, as skb data does on x86
     * (NET_IP_ALIGN is 0 there).  Misaligned starts are verify's job. */
    int rc = cb_workset_init(&s->ws, c->size, 0, c->mode, c->cold_bytes, c->buf_pages);
    if (rc) {
        free(s);
        return rc;
    }
    cb_workset_fill_random(&s->ws, 0x9e3779b97f4a7c15ull ^ c->size);
    s->fn = (cb_csum_fn)c->variant->fn;
    c->priv = s;
    return 0;
}

/* The calls are independent (initial sum 0 each time), as the kernel's are:
 * chaining one result into the next call's sum would serialise them and
 * measure latency instead.  The results are folded and summed into a local,
 * stored once; the call through a function pointer keeps every call. */
static void csum_run(struct cb_case *c, uint64_t iters)
{
    if (!iters)
        return;
    struct csum_state *s = c->priv;
    cb_csum_fn fn = s->fn;
    size_t len = c->size;
    /* Each call takes the previous one's sum, as csum_partial's callers
     * chain it (skb_checksum over the fragments of a packet).  Independent
     * calls back to back overlap in the out-of-order window: adc-1chain then
     * read 8.65 B per cycle at 1500 B, above the 64/9 B a cycle its one
     * carry chain allows, because two calls ran at once.  A packet's
     * checksum never overlaps the next packet's in the stack, so the cost
     * that belongs in a per-packet budget is the chained one. */
    uint32_t sum = 0;
    for (uint64_t i = 0; i < iters; i++)
        sum = fn(cb_workset_next(&s->ws), len, sum);
    c->sink += cb_csum_fold(sum);
}

static void csum_teardown(struct cb_case *c)
{
    struct csum_state *s = c->priv;
    if (s) {
        cb_workset_free(&s->ws);
        free(s);
    }
    c->priv = NULL;
}

/* ---- verify ------------------------------------------------------------- */

#define VERIFY_MAXLEN 2048
#define VERIFY_ALIGNS 64

/* One comparison; returns 0 on a match, else fills out and returns 1. */
static int verify_one(cb_csum_fn fn, const unsigned char *base, size_t align, size_t len,
                      uint32_t sum0, uint16_t want, const char *what, struct cb_verdict *out)
{
    uint16_t got = cb_csum_fold(fn(base + align, len, sum0));
    out->checked++;
    if (got == want)
        return 0;
    out->ok = 0;
    snprintf(out->detail, sizeof out->detail,
             "len=%zu align=%zu sum0=0x%08x%s: got 0x%04x, want 0x%04x", len, align,
             (unsigned)sum0, what, (unsigned)got, (unsigned)want);
    return 1;
}

/* Every length 0..2048 at every start offset 0..63 from a cache line, with
 * initial sums 0, a random one and 0xffffffff; then all-0xff and all-zero
 * data (the carry-heavy and the zero-sum edges) and a few long buffers.
 * The reference runs once per (length, offset) with sum 0; adding an initial
 * sum with end-around carry is exactly what the reference's accumulator
 * would have done with it, and saves two thirds of the slow byte loop. */
static int csum_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->ok = 1;
    if (!v || !v->fn)
        return -EINVAL;
    if (!runnable_here(v))
        return -ENOTSUP;
    cb_csum_fn fn = (cb_csum_fn)v->fn;

    const size_t big = 65536 + 3;
    size_t cap = big + VERIFY_ALIGNS + 64;
    unsigned char *raw = malloc(cap + 64);
    if (!raw)
        return -ENOMEM;
    unsigned char *base = (unsigned char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    uint64_t seed = 0x2545f4914f6cdd1dull;
    cb_fill_random(base, cap, &seed);
    const uint32_t sums[3] = {0, (uint32_t)xorshift64(&seed) | 1u, 0xffffffffu};

    for (size_t len = 0; len <= VERIFY_MAXLEN; len++)
        for (size_t al = 0; al < VERIFY_ALIGNS; al++) {
            uint32_t r = cb_csum_ref(base + al, len, 0);
            for (int k = 0; k < 3; k++) {
                uint16_t want = cb_csum_fold(fold64((uint64_t)r + sums[k]));
                if (verify_one(fn, base, al, len, sums[k], want, "", out))
                    goto done;
            }
        }

    static const size_t bigs[] = {4096, 4096 + 1, 65536 + 3};
    for (size_t i = 0; i < sizeof bigs / sizeof bigs[0]; i++)
        for (size_t al = 0; al < 8; al++)
            for (int k = 0; k < 3; k++)
                if (verify_one(fn, base, al, bigs[i], sums[k],
                               cb_csum_fold(cb_csum_ref(base + al, bigs[i], sums[k])), "", out))
                    goto done;

    static const struct {
        unsigned char byte;
        const char *what;
    } fills[] = {{0xff, " (all 0xff)"}, {0x00, " (all zero)"}};
    for (size_t f = 0; f < 2; f++) {
        memset(base, fills[f].byte, cap);
        for (size_t len = 0; len <= 300; len++)
            for (size_t al = 0; al < 8; al++)
                for (int k = 0; k < 3; k++)
                    if (verify_one(fn, base, al, len, sums[k],
                                   cb_csum_fold(cb_csum_ref(base + al, len, sums[k])),
                                   fills[f].what, out))
                        goto done;
        for (int k = 0; k < 3; k++)
            if (verify_one(fn, base, 1, big, sums[k],
                           cb_csum_fold(cb_csum_ref(base + 1, big, sums[k])), fills[f].what,
                           out))
                goto done;
    }
done:
    free(raw);
    return 0;
}

/* Header sizes (20: IPv4, 40: IPv6), a minimum-MTU and a full Ethernet
 * frame, a page, a GSO super-packet, and one far beyond any cache. */
static const size_t csum_sizes[] = {20, 40, 64, 576, 1500, 4096, 65536, 4u << 20, 0};

/* The quick suite: the sizes that show where the winner changes. */
static const size_t csum_suite_sizes[] = {20, 40, 64, 576, 1500, 4096, 65536, 4 << 20, 0};

/* The kernel's csum_partial is modelled by its release's algorithm:
 * kernel-2023 from Linux 6.5 (Goldstein), kernel-2021 from 5.17 (Dumazet),
 * the one-chain adc loop before; each with and without +kflags. */
static void csum_kernel_models(const char *release, const char *out[3])
{
    int maj = 0, min = 0;
    sscanf(release, "%d.%d", &maj, &min);
    int v = maj * 100 + min;
    out[0] = v >= 605 ? "kernel-2023" : v >= 517 ? "kernel-2021" : "adc-1chain";
    out[1] = v >= 605 ? "kernel-2023+kflags" : v >= 517 ? "kernel-2021+kflags" : NULL;
    out[2] = NULL;
}

static const struct cb_kernel_twin csum_kernel[] = {
    {.func = "csum_partial", .kfunc = CB_KF_CSUM, .models_for = csum_kernel_models,
     .why = "the release's own algorithm (kernel-2023 from 6.5, kernel-2021 from 5.17), with "
            "and without +kflags",
     .bpf_helper = "bpf_csum_diff"},
};

const struct cb_probe cb_probe_csum = {
    .name = "csum",
    .desc = "Internet checksum (csum_partial): RFC 1071 ones'-complement sum",
    .unit = "B",
    .op = "call",
    .variants = csum_variants,
    .nvariants = sizeof csum_variants / sizeof csum_variants[0],
    .sizes = csum_sizes,
    .setup = csum_setup,
    .run = csum_run,
    .verify = csum_verify,
    .teardown = csum_teardown,
    .suite_sizes = csum_suite_sizes,
    .call = CB_CALL_SUM,
    .charge = CB_CHARGE_BY_BYTES,
    .chart = {.kind = CB_CHART_THROUGHPUT},
    .kernel = csum_kernel,
    .nkernel = sizeof csum_kernel / sizeof csum_kernel[0],
};
