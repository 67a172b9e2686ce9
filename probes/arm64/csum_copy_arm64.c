/* arm64/csum_copy_arm64.c — the csum_copy family's arm64 variants (csum_copy.c
 * holds the table).
 *
 * The arm64 kernel has no fused csum_partial_copy: its csum_partial_copy_
 * nocheck is the generic memcpy followed by csum_partial (do_csum), which is
 * two-pass here and the family's reference on arm64.  The fused variants ask
 * what one pass would buy: fused keeps the x86 routine's shape with ldp/stp
 * and one adcs chain, fused-neon copies through q registers and sums with
 * uadalp (arm64/csum.c) on the way.  Loads and stores take src and dst as
 * given; sums count words from src, as csum_copy.h says. */
#include "probes/arm64/csum.h"

#include <arm_neon.h>
#include <string.h>

#include "probes/copy.h"

/* Up to 7 bytes as one zero-padded little-endian word, copied. */
static inline uint64_t last_bytes(const unsigned char *s, unsigned char *d, size_t r)
{
    unsigned char w[8] = {0};
    cb_copy_le64(w, s, r);
    cb_copy_le64(d, w, r);
    return cb_ld8(w);
}

/* Fewer than 64 bytes: 8-byte words, then the last bytes. */
static inline uint64_t copy_sum_tail(const unsigned char *s, unsigned char *d, size_t n,
                                     uint64_t acc)
{
    for (; n >= 8; s += 8, d += 8, n -= 8) {
        uint64_t w = cb_ld8(s);
        cb_st8(d, w);
        acc = addc64(acc, w);
    }
    return n ? addc64(acc, last_bytes(s, d, n)) : acc;
}

/* acc plus the caller's 32-bit sum, folded to the 32-bit partial sum. */
static inline uint32_t finish(uint64_t acc, uint32_t sum)
{
    return fold64(addc64(acc, sum));
}

static void *(*const volatile glibc_memcpy)(void *, const void *, size_t) = memcpy;

uint32_t cb_csum_copy_a64_two_pass(const void *src, void *dst, size_t n, uint32_t sum)
{
    glibc_memcpy(dst, src, n);
    return cb_a64_csum_partial(dst, n, sum);
}

/* Per 64 bytes: 4 ldp, 4 stp, 8 adcs on one carry chain.  The loop counts
 * with sub + cbnz, which leave the flags alone, so the chain runs across
 * iterations (as x86's decq does); cmn xzr, xzr clears C before it, and
 * two adds of zero take the last carry in (the second catches the case
 * where the first wraps 2^64 - 1 to 0). */
uint32_t cb_csum_copy_a64_fused(const void *src, void *dst, size_t n, uint32_t sum)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    uint64_t acc = 0;
    size_t nblk = n >> 6;
    if (nblk) {
        uint64_t a, b, c, e, f, g, h, i;
        __asm__ __volatile__("cmn xzr, xzr\n"
                             "1:\n\t"
                             "ldp %[a], %[b], [%[s]]\n\t"
                             "ldp %[c], %[e], [%[s], #16]\n\t"
                             "ldp %[f], %[g], [%[s], #32]\n\t"
                             "ldp %[h], %[i], [%[s], #48]\n\t"
                             "stp %[a], %[b], [%[d]]\n\t"
                             "stp %[c], %[e], [%[d], #16]\n\t"
                             "stp %[f], %[g], [%[d], #32]\n\t"
                             "stp %[h], %[i], [%[d], #48]\n\t"
                             "adcs %[acc], %[acc], %[a]\n\t"
                             "adcs %[acc], %[acc], %[b]\n\t"
                             "adcs %[acc], %[acc], %[c]\n\t"
                             "adcs %[acc], %[acc], %[e]\n\t"
                             "adcs %[acc], %[acc], %[f]\n\t"
                             "adcs %[acc], %[acc], %[g]\n\t"
                             "adcs %[acc], %[acc], %[h]\n\t"
                             "adcs %[acc], %[acc], %[i]\n\t"
                             "add %[s], %[s], #64\n\t"
                             "add %[d], %[d], #64\n\t"
                             "sub %[n], %[n], #1\n\t"
                             "cbnz %[n], 1b\n\t"
                             "adcs %[acc], %[acc], xzr\n\t"
                             "adc %[acc], %[acc], xzr"
                             : [s] "+r"(s), [d] "+r"(d), [n] "+r"(nblk), [acc] "+r"(acc),
                               [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [e] "=&r"(e),
                               [f] "=&r"(f), [g] "=&r"(g), [h] "=&r"(h), [i] "=&r"(i)
                             :
                             : "memory", "cc");
    }
    return finish(copy_sum_tail(s, d, n & 63, acc), sum);
}

/* Per 64 bytes: four q loads, four q stores, four uadalp on four
 * accumulators.  64 KiB chunks keep the 32-bit lanes from overflowing
 * (arm64/csum.c). */
static uint64_t fused_neon_chunk(const unsigned char *s, unsigned char *d, size_t n)
{
    uint32x4_t a0 = vdupq_n_u32(0), a1 = a0, a2 = a0, a3 = a0;
    for (; n >= 64; s += 64, d += 64, n -= 64) {
        uint8x16_t v0 = vld1q_u8(s), v1 = vld1q_u8(s + 16);
        uint8x16_t v2 = vld1q_u8(s + 32), v3 = vld1q_u8(s + 48);
        vst1q_u8(d, v0);
        vst1q_u8(d + 16, v1);
        vst1q_u8(d + 32, v2);
        vst1q_u8(d + 48, v3);
        a0 = vpadalq_u16(a0, vreinterpretq_u16_u8(v0));
        a1 = vpadalq_u16(a1, vreinterpretq_u16_u8(v1));
        a2 = vpadalq_u16(a2, vreinterpretq_u16_u8(v2));
        a3 = vpadalq_u16(a3, vreinterpretq_u16_u8(v3));
    }
    uint32x4_t a = vaddq_u32(vaddq_u32(a0, a1), vaddq_u32(a2, a3));
    return copy_sum_tail(s, d, n, vaddvq_u64(vpaddlq_u32(a)));
}

uint32_t cb_csum_copy_a64_fused_neon(const void *src, void *dst, size_t n, uint32_t sum)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    uint64_t acc = 0;
    while (n) {
        size_t k = n < ((size_t)1 << 16) ? n : ((size_t)1 << 16);
        acc = addc64(acc, fused_neon_chunk(s, d, k));
        s += k;
        d += k;
        n -= k;
    }
    return finish(acc, sum);
}
