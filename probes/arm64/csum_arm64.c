/* arm64/csum_arm64.c — the csum family's arm64 variants (csum.c holds the table).
 *
 * do-csum is the kernel's own loop (arm64/csum.h).  generic-64 is what
 * portable C makes of the sum: 8-byte words, the carry recovered by a
 * compare.  The NEON variants have no carry flag either; they sum the
 * 16-bit words exactly in wider lanes with widening adds, and fold at the
 * end (2^16 == 1 mod 0xffff, so any exact sum of the words folds to the
 * same ones'-complement value):
 *   uadalp (vpadalq_u16): adds each pair of adjacent 16-bit lanes into a
 *     32-bit lane, one op per 16 bytes;
 *   uaddw/uaddw2 (vaddw_u16, vaddw_high_u16): widens the low or high four
 *     16-bit lanes and adds them to 32-bit lanes, two ops per 16 bytes.
 * A 32-bit lane takes at most 2 * 0xffff per uadalp, so it cannot overflow
 * within 32768 vectors (512 KiB); every 64 KiB chunk is reduced to a scalar
 * sum with end-around carry, far inside that bound.
 *
 * All variants load from buf as given (arm64 takes unaligned loads in
 * stride), so every load starts an even distance from buf and its bytes
 * keep their halves of the 16-bit words; none reads outside the buffer. */
#include "probes/arm64/csum.h"

#include <arm_neon.h>

#define A64_CHUNK ((size_t)1 << 16)

CB_A64_NO_ASAN uint32_t cb_csum_a64_do_csum(const void *buf, size_t len, uint32_t sum)
{
    return cb_a64_csum_partial(buf, len, sum);
}

/* The last len (< 16) bytes: one word and a 4/2/1 split. */
static inline uint64_t tail_lt16(const unsigned char *p, size_t len, uint64_t acc)
{
    if (len & 8) {
        acc = addc64(acc, ld64(p));
        p += 8;
    }
    return addc64(acc, tail_lt8(p, len & 7));
}

uint32_t cb_csum_a64_generic64(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t acc = sum;
    for (; len >= 8; p += 8, len -= 8)
        acc = addc64(acc, ld64(p));
    return fold64(addc64(acc, tail_lt8(p, len)));
}

/* Four 32-bit lanes to one 64-bit sum (exact: each lane < 2^32). */
static inline uint64_t lanes_sum(uint32x4_t v)
{
    return vaddvq_u64(vpaddlq_u32(v));
}

/* One uadalp per 16 bytes into one accumulator: every op waits for the
 * previous one (uadalp's latency is 3-4 cycles on Neoverse cores). */
static uint64_t uadalp_chunk(const unsigned char *p, size_t n)
{
    uint32x4_t a = vdupq_n_u32(0);
    for (; n >= 16; p += 16, n -= 16)
        a = vpadalq_u16(a, vreinterpretq_u16_u8(vld1q_u8(p)));
    return tail_lt16(p, n, lanes_sum(a));
}

/* Four accumulators, 64 bytes a step: four independent chains. */
static uint64_t uadalp_x4_chunk(const unsigned char *p, size_t n)
{
    uint32x4_t a0 = vdupq_n_u32(0), a1 = a0, a2 = a0, a3 = a0;
    for (; n >= 64; p += 64, n -= 64) {
        a0 = vpadalq_u16(a0, vreinterpretq_u16_u8(vld1q_u8(p)));
        a1 = vpadalq_u16(a1, vreinterpretq_u16_u8(vld1q_u8(p + 16)));
        a2 = vpadalq_u16(a2, vreinterpretq_u16_u8(vld1q_u8(p + 32)));
        a3 = vpadalq_u16(a3, vreinterpretq_u16_u8(vld1q_u8(p + 48)));
    }
    for (; n >= 16; p += 16, n -= 16)
        a0 = vpadalq_u16(a0, vreinterpretq_u16_u8(vld1q_u8(p)));
    uint32x4_t a = vaddq_u32(vaddq_u32(a0, a1), vaddq_u32(a2, a3)); /* < 2^32: chunk <= 64 KiB */
    return tail_lt16(p, n, lanes_sum(a));
}

/* uaddw on the low four words and uaddw2 on the high four: two chains,
 * 32 bytes a step (two vectors) so each chain has two ops in flight. */
static uint64_t uaddw_x2_chunk(const unsigned char *p, size_t n)
{
    uint32x4_t lo = vdupq_n_u32(0), hi = lo;
    for (; n >= 32; p += 32, n -= 32) {
        uint16x8_t v0 = vreinterpretq_u16_u8(vld1q_u8(p));
        uint16x8_t v1 = vreinterpretq_u16_u8(vld1q_u8(p + 16));
        lo = vaddw_u16(lo, vget_low_u16(v0));
        hi = vaddw_high_u16(hi, v0);
        lo = vaddw_u16(lo, vget_low_u16(v1));
        hi = vaddw_high_u16(hi, v1);
    }
    if (n >= 16) {
        uint16x8_t v = vreinterpretq_u16_u8(vld1q_u8(p));
        lo = vaddw_u16(lo, vget_low_u16(v));
        hi = vaddw_high_u16(hi, v);
        p += 16;
        n -= 16;
    }
    return tail_lt16(p, n, lanes_sum(vaddq_u32(lo, hi)));
}

/* Chunks of 64 KiB (even, so each starts an even distance from buf). */
static inline uint32_t chunked(const unsigned char *p, size_t len, uint32_t sum,
                               uint64_t (*chunk)(const unsigned char *, size_t))
{
    uint64_t acc = sum;
    while (len) {
        size_t n = len < A64_CHUNK ? len : A64_CHUNK;
        acc = addc64(acc, chunk(p, n));
        p += n;
        len -= n;
    }
    return fold64(acc);
}

uint32_t cb_csum_a64_uadalp(const void *buf, size_t len, uint32_t sum)
{
    return chunked(buf, len, sum, uadalp_chunk);
}

uint32_t cb_csum_a64_uadalp_x4(const void *buf, size_t len, uint32_t sum)
{
    return chunked(buf, len, sum, uadalp_x4_chunk);
}

uint32_t cb_csum_a64_uaddw_x2(const void *buf, size_t len, uint32_t sum)
{
    return chunked(buf, len, sum, uaddw_x2_chunk);
}
