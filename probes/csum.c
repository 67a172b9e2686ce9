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
#include "csum.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu.h"
#include "csum_kernel.h"
#include "kflags.h"
#include "probe.h"
#include "workset.h"
#if defined(__aarch64__)
#include "arm64/csum.h"
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

/* ---- avx2 / avx512 ------------------------------------------------------ */

/* SIMD has no carry flag, so sum exact 32-bit words in 64-bit lanes
 * instead; summing 32-bit words is the same ones'-complement sum, because
 * 2^16 == 1 mod 0xffff.  Per vector only one shift is needed: a0 adds the
 * whole 64-bit lanes (wrapping: it keeps lo + 2^32 * hi mod 2^64) and a1
 * adds the high halves exactly; at the end lo = a0 - (a1 << 32) is exact,
 * because the true sum of the low halves stays far below 2^64.  That is
 * 3 vector ALU ops per vector where masking both halves would take 4. */
/* GCC likes to fold a loaded vector into both of its uses as a memory
 * operand, loading every byte twice; the loop is then bound by the load
 * ports at half speed.  An empty asm pins the value in a register. */
#define IN_REG(v) __asm__("" : "+x"(v))

__attribute__((target("avx2"))) static uint32_t csum_avx2(const void *buf, size_t len,
                                                          uint32_t sum)
{
    const unsigned char *p = buf;
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    for (; len >= 128; p += 128, len -= 128) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)p);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
        __m256i v2 = _mm256_loadu_si256((const __m256i *)(p + 64));
        __m256i v3 = _mm256_loadu_si256((const __m256i *)(p + 96));
        IN_REG(v0);
        IN_REG(v1);
        IN_REG(v2);
        IN_REG(v3);
        __m256i w = _mm256_add_epi64(_mm256_add_epi64(v0, v1), _mm256_add_epi64(v2, v3));
        __m256i h = _mm256_add_epi64(
            _mm256_add_epi64(_mm256_srli_epi64(v0, 32), _mm256_srli_epi64(v1, 32)),
            _mm256_add_epi64(_mm256_srli_epi64(v2, 32), _mm256_srli_epi64(v3, 32)));
        a0 = _mm256_add_epi64(a0, w);
        a1 = _mm256_add_epi64(a1, h);
    }
    for (; len >= 32; p += 32, len -= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)p);
        IN_REG(v);
        a0 = _mm256_add_epi64(a0, v);
        a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v, 32));
    }
    /* per lane: low halves + high halves */
    __m256i t = _mm256_add_epi64(_mm256_sub_epi64(a0, _mm256_slli_epi64(a1, 32)), a1);
    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    uint64_t acc = (uint64_t)_mm_cvtsi128_si64(h) + (uint64_t)_mm_extract_epi64(h, 1);
    acc = addc64(acc, sum);
    /* < 32 bytes left: 16/8 steps and the one-load tail (p > buf when the
     * loops above ran, i.e. when the original length was >= 32). */
    const unsigned char *start = buf;
    int consumed = p != start;
    if (len & 16) {
        acc = addc64(acc, ld64(p));
        acc = addc64(acc, ld64(p + 8));
        p += 16;
        consumed = 1;
    }
    if (len & 8) {
        acc = addc64(acc, ld64(p));
        p += 8;
        consumed = 1;
    }
    len &= 7;
    if (len)
        acc = addc64(acc, consumed ? tail_1load(p, len) : tail_lt8(p, len));
    return fold64(acc);
}

/* The same with 64-byte vectors; the last 1-63 bytes come from one masked
 * load (masked-off bytes are neither read nor able to fault), which is what
 * the BW requirement is for. */
__attribute__((target("avx512f,avx512bw"))) static uint32_t csum_avx512(const void *buf,
                                                                        size_t len,
                                                                        uint32_t sum)
{
    const unsigned char *p = buf;
    __m512i a0 = _mm512_setzero_si512(), a1 = _mm512_setzero_si512();
    for (; len >= 256; p += 256, len -= 256) {
        __m512i v0 = _mm512_loadu_si512(p);
        __m512i v1 = _mm512_loadu_si512(p + 64);
        __m512i v2 = _mm512_loadu_si512(p + 128);
        __m512i v3 = _mm512_loadu_si512(p + 192);
        IN_REG(v0);
        IN_REG(v1);
        IN_REG(v2);
        IN_REG(v3);
        __m512i w = _mm512_add_epi64(_mm512_add_epi64(v0, v1), _mm512_add_epi64(v2, v3));
        __m512i h = _mm512_add_epi64(
            _mm512_add_epi64(_mm512_srli_epi64(v0, 32), _mm512_srli_epi64(v1, 32)),
            _mm512_add_epi64(_mm512_srli_epi64(v2, 32), _mm512_srli_epi64(v3, 32)));
        a0 = _mm512_add_epi64(a0, w);
        a1 = _mm512_add_epi64(a1, h);
    }
    for (; len >= 64; p += 64, len -= 64) {
        __m512i v = _mm512_loadu_si512(p);
        IN_REG(v);
        a0 = _mm512_add_epi64(a0, v);
        a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v, 32));
    }
    if (len) {
        __mmask64 m = _cvtu64_mask64(~0ull >> (64 - len));
        __m512i v = _mm512_maskz_loadu_epi8(m, p);
        a0 = _mm512_add_epi64(a0, v);
        a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v, 32));
    }
    __m512i t = _mm512_add_epi64(_mm512_sub_epi64(a0, _mm512_slli_epi64(a1, 32)), a1);
    /* Lanes are sums of < 2^32 values, far from 2^64: the reduction's plain
     * adds cannot wrap. */
    uint64_t acc = (uint64_t)_mm512_reduce_add_epi64(t);
    return fold64(addc64(acc, sum));
}

/* ---- avx512-vnni: one widening op per byte half ------------------------- */

/* avx512 spends 3 vector ALU ops on every 64 bytes (add, shift, add), and a
 * zmm core has two ALU ports (only one of which shifts), so it cannot load
 * faster than ~43 B per cycle however wide it unrolls.  vpdpbusd multiplies
 * four unsigned bytes by four signed bytes and adds the four products to a
 * 32-bit lane in one op; with weights 1,0,1,0 it adds the low bytes of a
 * dword's two 16-bit words, with 0,1,0,1 their high bytes.  A 16-bit word is lo + 256 * hi
 * and 2^16 == 1 mod 0xffff, so the checksum is (sum of lo) + 256 * (sum of
 * hi), both exact: 2 ops per 64 bytes, on either port.  No x86 vector op
 * adds a whole vector of unsigned 16-bit words to wider lanes by itself
 * (vpdpwssd takes them as signed), so two is the least.
 *
 * vpdpbusd has a latency of 5-6 cycles, and at 2 per cycle 10-12 must be
 * in flight: the loop takes 512 bytes into 16 accumulators.  What is left
 * (< 512) goes 256/128/64 into accumulators of its own, so none waits on
 * another, and the last 1-63 bytes come from one masked load. */

/* Each accumulator its own zero idiom (free at rename): GCC would zero one
 * register and copy it to the other fifteen (volatile, or it merges the
 * sixteen asms back into one). */
#define ZERO(x) __asm__ volatile("vpxord %0, %0, %0" : "=v"(x))

#define VNNI_TAKE(v, lo, hi)                                                  \
    do {                                                                      \
        lo = _mm512_dpbusd_epi32(lo, v, wlo);                                 \
        hi = _mm512_dpbusd_epi32(hi, v, whi);                                 \
    } while (0)

/* A chunk's checksum, lo + 256 * hi over all lanes, is at most
 * 255 * 257 * len / 2 < 2^31 for len <= 64 KiB, so within a chunk every
 * lane, and the lanes' total, can be summed in 32 bits without wrapping;
 * 64 KiB chunks cost one reduction per 1024 vectors. */
#define VNNI_CHUNK ((size_t)1 << 16)

/* The 32-bit lanes of x (whose total is below 2^32) to one 64-bit value of
 * the same residue: x's 64-bit lanes are added instead, giving
 * (even lanes) + 2^32 * (odd lanes), exact, and 2^32 == 1 mod 0xffff.  One
 * shuffle level fewer than adding 32-bit lanes. */
#define VNNI_REDUCE(lo, hi)                                                   \
    ((uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi32(lo, _mm512_slli_epi32(hi, 8))))

/* The weights, broadcast from memory: a load, where GCC's broadcast of an
 * immediate takes a vector ALU op on the port the sums need. */
static const uint32_t vnni_wlo = 0x00010001, vnni_whi = 0x01000100;
#define VNNI_WEIGHTS(wlo, whi)                                                \
    __m512i wlo, whi;                                                         \
    __asm__("vpbroadcastd %1, %0" : "=v"(wlo) : "m"(vnni_wlo));               \
    __asm__("vpbroadcastd %1, %0" : "=v"(whi) : "m"(vnni_whi))

/* Inlined: as a called function it cost 1500-byte calls ~15% (measured).
 * len > 256. */
__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) static inline uint64_t
vnni_chunk(const unsigned char *p, size_t len)
{
    VNNI_WEIGHTS(wlo, whi);
    __m512i l0, l1, l2, l3, l4, l5, l6, l7, h0, h1, h2, h3, h4, h5, h6, h7;
    ZERO(l0); ZERO(l1); ZERO(l2); ZERO(l3); ZERO(l4); ZERO(l5); ZERO(l6); ZERO(l7);
    ZERO(h0); ZERO(h1); ZERO(h2); ZERO(h3); ZERO(h4); ZERO(h5); ZERO(h6); ZERO(h7);
    /* A load that crosses a cache line costs two: unaligned, 4 KiB ran 30%
     * slower (measured at offsets 1 and 32).  So take the bytes up to the
     * next line with a masked load first (len > 256 here, so there are
     * enough).  After an odd number of them every byte's half of its word
     * flips, which swapping the two weights undoes. */
    size_t head = (size_t)(-(uintptr_t)p & 63);
    if (__builtin_expect(head != 0, 0)) {
        __m512i v = _mm512_maskz_loadu_epi8(_cvtu64_mask64(~0ull >> (64 - head)), p);
        VNNI_TAKE(v, l7, h7);
        p += head;
        len -= head;
        if (head & 1) {
            __m512i t = wlo;
            wlo = whi;
            whi = t;
        }
    }
    for (; len >= 512; p += 512, len -= 512) {
        __m512i v0 = _mm512_loadu_si512(p), v1 = _mm512_loadu_si512(p + 64);
        __m512i v2 = _mm512_loadu_si512(p + 128), v3 = _mm512_loadu_si512(p + 192);
        __m512i v4 = _mm512_loadu_si512(p + 256), v5 = _mm512_loadu_si512(p + 320);
        __m512i v6 = _mm512_loadu_si512(p + 384), v7 = _mm512_loadu_si512(p + 448);
        VNNI_TAKE(v0, l0, h0);
        VNNI_TAKE(v1, l1, h1);
        VNNI_TAKE(v2, l2, h2);
        VNNI_TAKE(v3, l3, h3);
        VNNI_TAKE(v4, l4, h4);
        VNNI_TAKE(v5, l5, h5);
        VNNI_TAKE(v6, l6, h6);
        VNNI_TAKE(v7, l7, h7);
    }
    if (len & 256) {
        __m512i v0 = _mm512_loadu_si512(p), v1 = _mm512_loadu_si512(p + 64);
        __m512i v2 = _mm512_loadu_si512(p + 128), v3 = _mm512_loadu_si512(p + 192);
        VNNI_TAKE(v0, l0, h0);
        VNNI_TAKE(v1, l1, h1);
        VNNI_TAKE(v2, l2, h2);
        VNNI_TAKE(v3, l3, h3);
        p += 256;
    }
    if (len & 128) {
        __m512i v4 = _mm512_loadu_si512(p), v5 = _mm512_loadu_si512(p + 64);
        VNNI_TAKE(v4, l4, h4);
        VNNI_TAKE(v5, l5, h5);
        p += 128;
    }
    if (len & 64) {
        __m512i v6 = _mm512_loadu_si512(p);
        VNNI_TAKE(v6, l6, h6);
        p += 64;
    }
    len &= 63;
    if (len) {
        __m512i v7 = _mm512_maskz_loadu_epi8(_cvtu64_mask64(~0ull >> (64 - len)), p);
        VNNI_TAKE(v7, l7, h7);
    }
    __m512i lo = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(l0, l1), _mm512_add_epi32(l2, l3)),
                                  _mm512_add_epi32(_mm512_add_epi32(l4, l5), _mm512_add_epi32(l6, l7)));
    __m512i hi = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(h0, h1), _mm512_add_epi32(h2, h3)),
                                  _mm512_add_epi32(_mm512_add_epi32(h4, h5), _mm512_add_epi32(h6, h7)));
    return VNNI_REDUCE(lo, hi);
}

/* Up to 256 bytes: at most two links on each of two accumulator pairs, so
 * there is no latency to hide, and only two accumulators to merge instead
 * of sixteen (which alone cost 7 cycles); up to 64, one pair. */
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static inline uint64_t
vnni_short(const unsigned char *p, size_t len)
{
    VNNI_WEIGHTS(wlo, whi);
    if (!len)
        return 0;
    __m512i l1, h1;
    ZERO(l1);
    ZERO(h1);
    if (len <= 64) {
        __m512i v = _mm512_maskz_loadu_epi8(_cvtu64_mask64(~0ull >> (64 - len)), p);
        VNNI_TAKE(v, l1, h1);
        return VNNI_REDUCE(l1, h1);
    }
    __m512i l0, h0;
    ZERO(l0);
    ZERO(h0);
    if (len > 128) {
        __m512i v0 = _mm512_loadu_si512(p), v1 = _mm512_loadu_si512(p + 64);
        VNNI_TAKE(v0, l0, h0);
        VNNI_TAKE(v1, l1, h1);
        p += 128;
        len -= 128;
    }
    if (len > 64) {
        __m512i v = _mm512_loadu_si512(p);
        VNNI_TAKE(v, l0, h0);
        p += 64;
        len -= 64;
    }
    if (len) {
        __m512i v = _mm512_maskz_loadu_epi8(_cvtu64_mask64(~0ull >> (64 - len)), p);
        VNNI_TAKE(v, l1, h1);
    }
    return VNNI_REDUCE(_mm512_add_epi32(l0, l1), _mm512_add_epi32(h0, h1));
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static uint32_t
csum_avx512_vnni(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t acc = sum;
    if (len <= 256)
        return fold64(addc64(acc, vnni_short(p, len)));
    /* Chunks are even in length, so every chunk starts an even distance
     * from buf and its bytes keep their word halves.  A last one of 256
     * bytes or less is too short for vnni_chunk's aligning head. */
    for (;;) {
        if (len <= 256)
            return fold64(addc64(acc, vnni_short(p, len)));
        size_t n = len < VNNI_CHUNK ? len : VNNI_CHUNK;
        acc = addc64(acc, vnni_chunk(p, n));
        if (!(len -= n))
            return fold64(acc);
        p += n;
        acc = fold64(acc);
    }
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
     .fn = (const void *)csum_avx2,
     .flags = CB_VARIANT_VECTOR},
    {.name = "avx512",
     .desc = "as avx2 with zmm, 256 B per loop, masked load for the tail",
     .needs = CB_CPU_AVX512F | CB_CPU_AVX512BW,
     .fn = (const void *)csum_avx512,
     .flags = CB_VARIANT_VECTOR},
    {.name = "avx512-vnni",
     .desc = "vpdpbusd sums low and high bytes exactly, 2 ops per 64 B, 512 B per loop",
     .needs = CB_CPU_AVX512F | CB_CPU_AVX512BW | CB_CPU_AVX512VNNI,
     .fn = (const void *)csum_avx512_vnni,
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
    int rc = cb_workset_init(&s->ws, c->size, 0, c->mode, c->cold_bytes);
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
};
