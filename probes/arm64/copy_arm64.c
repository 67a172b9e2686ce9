/* arm64/copy_arm64.c — memcpy strategies on aarch64: a byte loop, the kernel's
 * ldp/stp shape, and NEON.
 *
 * As in copy.c the loops are inline asm: gcc and clang turn a plain copy
 * loop back into a call to memcpy, which would make every variant glibc.
 * Short pieces (< 64 bytes) go through cb_copy_le64, loop-free. */
#include "probes/arm64/copy_arm64.h"
#include "probes/copy.h"

#include <stdint.h>

/* One byte per iteration: ldrb/strb with post-increment.  The floor of the
 * family; on x86 the closest is rep movsb without ERMS. */
void cb_copy_arm64_byte(void *dst, const void *src, size_t n)
{
    uint32_t t;
    if (n)
        __asm__ __volatile__("1:\n\t"
                             "ldrb %w[t], [%[s]], #1\n\t"
                             "strb %w[t], [%[d]], #1\n\t"
                             "subs %[n], %[n], #1\n\t"
                             "b.ne 1b"
                             : [s] "+r"(src), [d] "+r"(dst), [n] "+r"(n), [t] "=&r"(t)
                             :
                             : "memory", "cc");
}

/* The shape of the kernel's arch/arm64/lib/copy_template.S (its memcpy
 * until Linux imported Arm's optimized-routines memcpy in 2021): align the
 * source to 16, so every ldp is 16-byte aligned (the loads being the side
 * that cannot hide a split), then a software-pipelined loop that stores the
 * 64 bytes loaded last iteration while loading the next 64, four ldp/stp
 * pairs of x registers each; the tail below 64 bytes loop-free. */
void cb_copy_arm64_ldp(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 64) {
        cb_copy_le64(d, s, n);
        return;
    }
    size_t head = (size_t)(-(uintptr_t)s & 15);
    if (head) {
        cb_copy_le64(d, s, head);
        d += head, s += head, n -= head;
    }
    size_t blocks = n >> 6;
    if (blocks) {
        uint64_t a0, a1, b0, b1, c0, c1, e0, e1;
        __asm__ __volatile__("ldp %[a0], %[a1], [%[s]], #16\n\t"
                             "ldp %[b0], %[b1], [%[s]], #16\n\t"
                             "ldp %[c0], %[c1], [%[s]], #16\n\t"
                             "ldp %[e0], %[e1], [%[s]], #16\n\t"
                             "subs %[k], %[k], #1\n\t"
                             "b.eq 2f\n"
                             "1:\n\t"
                             "stp %[a0], %[a1], [%[d]], #16\n\t"
                             "ldp %[a0], %[a1], [%[s]], #16\n\t"
                             "stp %[b0], %[b1], [%[d]], #16\n\t"
                             "ldp %[b0], %[b1], [%[s]], #16\n\t"
                             "stp %[c0], %[c1], [%[d]], #16\n\t"
                             "ldp %[c0], %[c1], [%[s]], #16\n\t"
                             "stp %[e0], %[e1], [%[d]], #16\n\t"
                             "ldp %[e0], %[e1], [%[s]], #16\n\t"
                             "subs %[k], %[k], #1\n\t"
                             "b.ne 1b\n"
                             "2:\n\t"
                             "stp %[a0], %[a1], [%[d]], #16\n\t"
                             "stp %[b0], %[b1], [%[d]], #16\n\t"
                             "stp %[c0], %[c1], [%[d]], #16\n\t"
                             "stp %[e0], %[e1], [%[d]], #16"
                             : [s] "+r"(s), [d] "+r"(d), [k] "+r"(blocks), [a0] "=&r"(a0),
                               [a1] "=&r"(a1), [b0] "=&r"(b0), [b1] "=&r"(b1), [c0] "=&r"(c0),
                               [c1] "=&r"(c1), [e0] "=&r"(e0), [e1] "=&r"(e1)
                             :
                             : "memory", "cc");
    }
    cb_copy_le64(d, s, n & 63);
}

/* NEON: ld1/st1 of four q registers, 64 bytes per iteration; the tail is
 * the last 64 bytes once more (overlapping), as the x86 SIMD variants do,
 * so it costs one block instead of a ladder of small moves. */
void cb_copy_arm64_neon(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n < 64) {
        cb_copy_le64(d, s, n);
        return;
    }
    unsigned char *de = d + n - 64;
    const unsigned char *se = s + n - 64;
    size_t blocks = n >> 6;
    __asm__ __volatile__("1:\n\t"
                         "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[s]], #64\n\t"
                         "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[d]], #64\n\t"
                         "subs %[k], %[k], #1\n\t"
                         "b.ne 1b"
                         : [s] "+r"(s), [d] "+r"(d), [k] "+r"(blocks)
                         :
                         : "memory", "cc", "v0", "v1", "v2", "v3");
    if (n & 63)
        __asm__ __volatile__("ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[s]]\n\t"
                             "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[d]]"
                             :
                             : [s] "r"(se), [d] "r"(de)
                             : "memory", "v0", "v1", "v2", "v3");
}
