/* arm64/memset_arm64.c — memset strategies on aarch64: a byte loop, stp of x
 * registers (xzr when zeroing, as the kernel's clear_page/memset), NEON st1
 * of q registers, and dc zva.
 *
 * As in memset.c the loops are inline asm: the compilers turn a plain store
 * loop back into a call to memset.  Short pieces are loop-free. */
#include "probes/arm64/memset_arm64.h"
#include "probes/memset_short.h"
#include "host/cpu.h"

#include <stdint.h>

void cb_memset_arm64_byte(void *dst, int c, size_t n)
{
    if (n)
        __asm__ __volatile__("1:\n\t"
                             "strb %w[v], [%[d]], #1\n\t"
                             "subs %[n], %[n], #1\n\t"
                             "b.ne 1b"
                             : [d] "+r"(dst), [n] "+r"(n)
                             : [v] "r"(c)
                             : "memory", "cc");
}

/* Four stp per 64 bytes, then the last 64 bytes again (overlapping) for the
 * tail.  Always inlined with v a constant 0 where the caller zeroes: the
 * "rZ" constraint then makes the operand xzr, so a clear needs no register
 * holding zero (what the kernel's clear_page and memset do). */
static inline __attribute__((always_inline)) void stp_fill(unsigned char *d, uint64_t v,
                                                           size_t n)
{
    if (n < 64) {
        set_le64(d, v, n);
        return;
    }
    unsigned char *de = d + n - 64;
    size_t blocks = n >> 6;
    __asm__ __volatile__("1:\n\t"
                         "stp %x[v], %x[v], [%[d]]\n\t"
                         "stp %x[v], %x[v], [%[d], #16]\n\t"
                         "stp %x[v], %x[v], [%[d], #32]\n\t"
                         "stp %x[v], %x[v], [%[d], #48]\n\t"
                         "add %[d], %[d], #64\n\t"
                         "subs %[k], %[k], #1\n\t"
                         "b.ne 1b"
                         : [d] "+r"(d), [k] "+r"(blocks)
                         : [v] "rZ"(v)
                         : "memory", "cc");
    if (n & 63)
        __asm__ __volatile__("stp %x[v], %x[v], [%[d]]\n\t"
                             "stp %x[v], %x[v], [%[d], #16]\n\t"
                             "stp %x[v], %x[v], [%[d], #32]\n\t"
                             "stp %x[v], %x[v], [%[d], #48]"
                             :
                             : [d] "r"(de), [v] "rZ"(v)
                             : "memory");
}

void cb_memset_arm64_stp(void *dst, int c, size_t n)
{
    if (c == 0)
        stp_fill(dst, 0, n);
    else
        stp_fill(dst, splat8(c), n);
}

/* NEON: dup the byte into four q registers (all zero in run(), which
 * zeroes), st1 of all four per 64 bytes, the tail as the last 64 bytes
 * again (overlapping). */
void cb_memset_arm64_neon(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    if (n < 64) {
        set_le64(d, splat8(c), n);
        return;
    }
    unsigned char *de = d + n - 64;
    size_t blocks = n >> 6;
    __asm__ __volatile__("dup v0.16b, %w[c]\n\t"
                         "mov v1.16b, v0.16b\n\t"
                         "mov v2.16b, v0.16b\n\t"
                         "mov v3.16b, v0.16b\n"
                         "1:\n\t"
                         "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[d]], #64\n\t"
                         "subs %[k], %[k], #1\n\t"
                         "b.ne 1b\n\t"
                         "tst %[n], #63\n\t"
                         "b.eq 2f\n\t"
                         "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[de]]\n"
                         "2:"
                         : [d] "+r"(d), [k] "+r"(blocks)
                         : [c] "rZ"(c), [n] "r"(n), [de] "r"(de)
                         : "memory", "cc", "v0", "v1", "v2", "v3");
}

size_t cb_arm64_zva_block(void)
{
    /* 0 = not read yet: DCZID_EL0 (cpu.h) is read once, not in every timed
     * call.  (size_t)-1 remembers "prohibited" without reading it again. */
    static size_t cached;
    size_t b = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (b == 0) {
        b = cb_cpu_dczva_bytes();
        if (b == 0)
            b = (size_t)-1;
        __atomic_store_n(&cached, b, __ATOMIC_RELAXED);
    }
    return b == (size_t)-1 ? 0 : b;
}

/* Zero the whole dc zva blocks inside [d, d+n): the unaligned head up to the
 * first block boundary and the tail after the last whole block with stp
 * (xzr), the blocks in between with one dc zva each — the kernel's memset
 * does the same with its zva path.  Too short for one whole block: stp
 * alone. */
void cb_memset_arm64_dczva(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    size_t bs = cb_arm64_zva_block();
    size_t head = bs ? (size_t)(-(uintptr_t)d & (bs - 1)) : 0;
    if (c != 0 || bs == 0 || n < head + bs) {
        cb_memset_arm64_stp(dst, c, n);
        return;
    }
    stp_fill(d, 0, head);
    d += head, n -= head;
    size_t blocks = n / bs;
    unsigned char *end = d + blocks * bs;
    __asm__ __volatile__("1:\n\t"
                         "dc zva, %[d]\n\t"
                         "add %[d], %[d], %[bs]\n\t"
                         "cmp %[d], %[e]\n\t"
                         "b.ne 1b"
                         : [d] "+r"(d)
                         : [bs] "r"(bs), [e] "r"(end)
                         : "memory", "cc");
    stp_fill(d, 0, n - blocks * bs);
}
