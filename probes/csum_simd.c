/* csum_simd.c — the Internet checksum family's SIMD variants (x86-64):
 * avx2 and avx512 sum exact 32-bit words in 64-bit lanes, avx512-vnni sums
 * bytes with vpdpbusd.  csum.c's header says what every
 * variant keeps to (no read outside the buffer, the same folded sum); the
 * family table there lists them (csum_simd.h). */
#include "probes/csum_simd.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "probes/csum_kernel.h"

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

__attribute__((target("avx2"))) uint32_t cb_csum_avx2(const void *buf, size_t len,
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
__attribute__((target("avx512f,avx512bw"))) uint32_t cb_csum_avx512(const void *buf,
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

__attribute__((target("avx512f,avx512bw,avx512vnni"))) uint32_t
cb_csum_avx512_vnni(const void *buf, size_t len, uint32_t sum)
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
