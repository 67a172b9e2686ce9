/* arm64/csum.h — the arm64 side of the csum and csum_copy families.
 *
 * cb_a64_csum_partial is a port (not a copy) of the arm64 kernel's
 * csum_partial: arch/arm64/lib/csum.c do_csum (Robin Murphy, 2019-2020)
 * plus lib/checksum.c's addition of the caller's sum.  It is inline so that
 * probes/kflags/csum_kflags.c builds it a second time with the kernel's code
 * generation (-mgeneral-regs-only), and it is the family's reference on
 * arm64: it is what Linux runs there.  Integer code only, for that build.
 *
 * do_csum reads whole aligned 8-byte words: it rounds the start down to 8
 * and loads the whole word holding the last byte, then masks the bytes
 * outside [buf, buf + len) away.  An aligned word never spans two pages, so
 * these reads cannot fault, but they are outside the buffer; hence
 * CB_A64_NO_ASAN on every function that inlines it (the kernel likewise
 * marks do_csum __no_sanitize_address). */
#ifndef CB_PROBES_ARM64_CSUM_H
#define CB_PROBES_ARM64_CSUM_H

#include <stddef.h>
#include <stdint.h>

#if defined(__aarch64__)

#include "probes/csum_kernel.h"

#define CB_A64_NO_ASAN __attribute__((no_sanitize_address))

/* sum + data with end-around carry through a 128-bit add, which the
 * compiler turns into adds + cinc (the kernel's accumulate()). */
static inline uint64_t a64_accumulate(uint64_t sum, uint64_t data)
{
    __uint128_t t = (__uint128_t)sum + data;
    return (uint64_t)t + (uint64_t)(t >> 64);
}

/* hi + lo of x with end-around carry.  Adding x rotated by 64 bits leaves
 * hi + lo + carry(lo + hi) in the high half: the sum with its carry folded
 * back in, without the carry flag ever going through a register (exact:
 * when lo + hi carries, the low 64 bits are at most 2^64 - 2). */
static inline uint64_t a64_fold128(__uint128_t x)
{
    x += (x >> 64) | (x << 64);
    return (uint64_t)(x >> 64);
}

/* Two 64-bit partial sums into one, by the same rotation. */
static inline uint64_t a64_pair(uint64_t hi, uint64_t lo)
{
    return a64_fold128((__uint128_t)hi << 64 | lo);
}

static inline uint64_t a64_ld64(const unsigned char *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline __uint128_t a64_ld128(const unsigned char *p)
{
    __uint128_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/* do_csum: the 16-bit folded sum of buf's bytes as little-endian words
 * counted from buf.  Head: the aligned word holding buf[0], its bytes
 * before buf shifted out.  Body: 64 bytes a step as four 128-bit loads
 * (ldp pairs), each folded to 64 bits and the four merged pairwise into
 * the running sum; then 16 bytes a step, the low word summed at once and
 * the high word kept back in data, so that the last word loaded is always
 * in data for the tail.  Tail: the bytes past buf + len shifted out.  The
 * words are summed relative to the aligned address, so an odd buf leaves
 * the bytes in the other halves of their words: the folded result is
 * byte-swapped back at the end. */
static inline CB_A64_NO_ASAN uint32_t a64_do_csum(const unsigned char *buf, size_t len)
{
    if (!len)
        return 0;
    unsigned offset = (unsigned)((uintptr_t)buf & 7);
    const unsigned char *p = buf - offset;
    /* Bytes still to come after the word in data; may go negative (-7..0)
     * when that word ends past buf + len. */
    ptrdiff_t left = (ptrdiff_t)(len + offset) - 8;
    unsigned shift = offset * 8;
    uint64_t data = a64_ld64(p);
    uint64_t sum64 = 0;
    p += 8;
    data = (data >> shift) << shift;

    /* Strictly more than 64: the tail must keep at least one word. */
    while (__builtin_expect(left > 64, 0)) {
        __uint128_t t1 = a64_ld128(p), t2 = a64_ld128(p + 16);
        __uint128_t t3 = a64_ld128(p + 32), t4 = a64_ld128(p + 48);
        left -= 64;
        p += 64;
        uint64_t s12 = a64_pair(a64_fold128(t1), a64_fold128(t2));
        uint64_t s34 = a64_pair(a64_fold128(t3), a64_fold128(t4));
        sum64 = a64_pair(a64_pair(s12, s34), sum64);
    }
    while (left > 8) {
        sum64 = a64_accumulate(sum64, data);
        __uint128_t t = a64_ld128(p);
        left -= 16;
        p += 16;
        data = (uint64_t)(t >> 64);
        sum64 = a64_accumulate(sum64, (uint64_t)t);
    }
    if (left > 0) {
        sum64 = a64_accumulate(sum64, data);
        data = a64_ld64(p);
        left -= 8;
    }
    shift = (unsigned)(-left) * 8; /* 0..56 */
    data = (data << shift) >> shift;
    sum64 = a64_accumulate(sum64, data);

    /* 64 -> 32 -> 16 bits by the same rotate-and-add, each leaving the
     * end-around-carry sum in the high half. */
    sum64 += (sum64 >> 32) | (sum64 << 32);
    uint32_t s = (uint32_t)(sum64 >> 32);
    s += (s >> 16) | (s << 16);
    s >>= 16;
    if (offset & 1)
        s = ((s & 0xff) << 8) | (s >> 8);
    return s;
}

/* csum_partial as lib/checksum.c builds it on do_csum: the 16-bit sum plus
 * the caller's 32-bit one, with end-around carry. */
static inline CB_A64_NO_ASAN uint32_t cb_a64_csum_partial(const void *buf, size_t len,
                                                          uint32_t sum)
{
    uint32_t r = a64_do_csum(buf, len);
    r += sum;
    return r + (r < sum);
}

/* csum.c's arm64 variants (arm64/csum.c). */
uint32_t cb_csum_a64_do_csum(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_a64_generic64(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_a64_uadalp(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_a64_uadalp_x4(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_a64_uaddw_x2(const void *buf, size_t len, uint32_t sum);
/* do-csum+kflags (kflags/csum.c). */
uint32_t cb_csum_do_csum_kflags(const void *buf, size_t len, uint32_t sum);

/* csum_copy.c's arm64 variants (arm64/csum_copy.c), csum_copy.h's type. */
uint32_t cb_csum_copy_a64_two_pass(const void *src, void *dst, size_t n, uint32_t sum);
uint32_t cb_csum_copy_a64_fused(const void *src, void *dst, size_t n, uint32_t sum);
uint32_t cb_csum_copy_a64_fused_neon(const void *src, void *dst, size_t n, uint32_t sum);

#endif /* __aarch64__ */

#endif
