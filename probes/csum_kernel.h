/* csum_kernel.h — the kernel's csum_partial loops (kernel-2021, kernel-2023)
 * and the helpers they share with the other variants, as inline functions:
 * csum.c builds them with the tool's flags, probes/kflags/csum_kflags.c a second
 * time with the kernel's code generation.  Integer code and
 * inline asm only, so that -mno-sse -mno-sse2 can compile it.  The helpers
 * up to tail_1load are plain C and serve the arm64 variants too; the adcq
 * loops below them are x86-64 only. */
#ifndef CB_CSUM_KERNEL_H
#define CB_CSUM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>


static inline uint64_t ld64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* a + b with end-around carry. */
static inline uint64_t addc64(uint64_t a, uint64_t b)
{
    a += b;
    return a + (a < b);
}

/* 64 -> 32 bits with end-around carry: the same residue mod 0xffff. */
static inline uint32_t fold64(uint64_t x)
{
    x = (x & 0xffffffffu) + (x >> 32);
    x = (x & 0xffffffffu) + (x >> 32);
    return (uint32_t)x;
}

/* The last n (< 8) bytes as one little-endian value, without reading past
 * p + n. */
static inline uint64_t tail_lt8(const unsigned char *p, size_t n)
{
    uint64_t t = 0;
    unsigned sh = 0;
    if (n & 4) {
        uint32_t x;
        memcpy(&x, p, 4);
        t = x;
        p += 4;
        sh = 32;
    }
    if (n & 2) {
        uint16_t x;
        memcpy(&x, p, 2);
        t |= (uint64_t)x << sh;
        p += 2;
        sh += 16;
    }
    if (n & 1)
        t |= (uint64_t)*p << sh;
    return t;
}

/* The last n (1..7) bytes at p with one load: the 8 bytes ending at p + n,
 * shifted down.  Only valid when at least 8 - n bytes precede p.  p is an
 * even distance from buf, so the shifted bytes keep their word halves. */
static inline uint64_t tail_1load(const unsigned char *p, size_t n)
{
    return ld64(p + n - 8) >> (64 - 8 * n);
}

#if defined(__x86_64__)

/* nblk 64-byte blocks on one add-with-carry chain: every adcq waits for the
 * previous one's carry, so at most 8 bytes per cycle. */
static inline uint64_t adc_blocks_1chain(const unsigned char *p, size_t nblk, uint64_t acc)
{
    if (!nblk)
        return acc;
    __asm__("1:\n\t"
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
    return acc;
}


/* ---- kernel-2021 / kernel-2023 ----------------------------------------- */

/* What is left after the 64-byte loop (len < 64): halve down through
 * 32/16/8-byte steps, then the last 1-7 bytes with one load.  consumed says
 * whether at least 8 bytes precede p (the one-load tail reads backwards). */
static inline uint64_t tail_bisect(const unsigned char *p, size_t len, uint64_t acc,
                                   int consumed)
{
    if (len & 32) {
        __asm__("addq 0*8(%[p]), %[a]\n\t"
                "adcq 1*8(%[p]), %[a]\n\t"
                "adcq 2*8(%[p]), %[a]\n\t"
                "adcq 3*8(%[p]), %[a]\n\t"
                "adcq $0, %[a]"
                : [a] "+r"(acc)
                : [p] "r"(p)
                : "cc", "memory");
        p += 32;
        consumed = 1;
    }
    if (len & 16) {
        __asm__("addq 0*8(%[p]), %[a]\n\t"
                "adcq 1*8(%[p]), %[a]\n\t"
                "adcq $0, %[a]"
                : [a] "+r"(acc)
                : [p] "r"(p)
                : "cc", "memory");
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
    return acc;
}

static inline uint32_t csum_kernel_2021(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    size_t nblk = len / 64;
    uint64_t acc = adc_blocks_1chain(p, nblk, sum);
    return fold64(tail_bisect(p + nblk * 64, len % 64, acc, nblk != 0));
}

/* Goldstein 2023: 40 bytes (an IPv6 header, the hottest length) in one
 * straight chain; in the 64-byte loop the two halves go to two
 * accumulators, their carry-outs counted in a third register, which halves
 * the carry chain's length per block. */
static inline uint32_t csum_kernel_2023(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t acc = sum;
    if (len == 40) {
        __asm__("addq 0*8(%[p]), %[a]\n\t"
                "adcq 1*8(%[p]), %[a]\n\t"
                "adcq 2*8(%[p]), %[a]\n\t"
                "adcq 3*8(%[p]), %[a]\n\t"
                "adcq 4*8(%[p]), %[a]\n\t"
                "adcq $0, %[a]"
                : [a] "+r"(acc)
                : [p] "r"(p)
                : "cc", "memory");
        return fold64(acc);
    }
    size_t nblk = len / 64;
    if (nblk) {
        uint64_t b = 0, carries = 0, n = nblk;
        __asm__("1:\n\t"
                "addq 0*8(%[p]), %[a]\n\t"
                "adcq 1*8(%[p]), %[a]\n\t"
                "adcq 2*8(%[p]), %[a]\n\t"
                "adcq 3*8(%[p]), %[a]\n\t"
                "adcq $0, %[c]\n\t"
                "addq 4*8(%[p]), %[b]\n\t"
                "adcq 5*8(%[p]), %[b]\n\t"
                "adcq 6*8(%[p]), %[b]\n\t"
                "adcq 7*8(%[p]), %[b]\n\t"
                "adcq $0, %[c]\n\t"
                "leaq 64(%[p]), %[p]\n\t"
                "decq %[n]\n\t"
                "jnz 1b\n\t"
                "addq %[b], %[a]\n\t"
                "adcq %[c], %[a]\n\t"
                "adcq $0, %[a]"
                : [a] "+r"(acc), [b] "+r"(b), [c] "+r"(carries), [p] "+r"(p), [n] "+r"(n)
                :
                : "cc", "memory");
    }
    return fold64(tail_bisect(p, len % 64, acc, nblk != 0));
}

#endif /* __x86_64__ */

#endif
