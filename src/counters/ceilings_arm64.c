/* ceilings_arm64.c — the ceiling loops of arm64 (see ceilings.h): NEON loads
 * and stores (ldp/stp q and the four-register ld1/st1), scalar ldp/stp of
 * x registers, `dc zva` zeroing, one adds/adcs carry chain, and glibc's
 * memcpy and memset where x86 has rep movsb/stosb.  ceilings.c times them.
 *
 * Every loop is inline asm, as on x86: the compiler may neither drop nor
 * merge loads whose values are unused, nor turn a store loop into a call of
 * memset.  NEON is baseline on ARMv8-A (Linux arm64 requires it), so no
 * loop needs a run-time check except dc zva, which EL1 may prohibit. */
#define _GNU_SOURCE
#include "counters/ceilings.h"
#include "host/cpu.h"

#include <string.h>

/* The load loops return the XOR of the 64-bit words their registers hold
 * at the end, that is of the last 128 bytes (ldp q, ld1), or of the last
 * 32 (scalar): one fold after the loop, so the loads stay the limit, yet a
 * test can see that the loop read the right memory to the end. */

#define FOLD_V0_V7                                                            \
    "eor v0.16b, v0.16b, v1.16b\n\t"                                          \
    "eor v2.16b, v2.16b, v3.16b\n\t"                                          \
    "eor v4.16b, v4.16b, v5.16b\n\t"                                          \
    "eor v6.16b, v6.16b, v7.16b\n\t"                                          \
    "eor v0.16b, v0.16b, v2.16b\n\t"                                          \
    "eor v4.16b, v4.16b, v6.16b\n\t"                                          \
    "eor v0.16b, v0.16b, v4.16b\n\t"                                          \
    "fmov %[r], d0\n\t"                                                       \
    "mov %[t], v0.d[1]\n\t"                                                   \
    "eor %[r], %[r], %[t]"

#define V0_V7 "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"

/* ldp q: 32 bytes an instruction, 256 a step. */
static uint64_t load_neon(void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    uint64_t r, t;
    __asm__ volatile("1:\n\t"
                     "ldp q0, q1, [%[p]]\n\t"
                     "ldp q2, q3, [%[p], #32]\n\t"
                     "ldp q4, q5, [%[p], #64]\n\t"
                     "ldp q6, q7, [%[p], #96]\n\t"
                     "ldp q0, q1, [%[p], #128]\n\t"
                     "ldp q2, q3, [%[p], #160]\n\t"
                     "ldp q4, q5, [%[p], #192]\n\t"
                     "ldp q6, q7, [%[p], #224]\n\t"
                     "add %[p], %[p], #256\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.ne 1b\n\t" FOLD_V0_V7
                     : [p] "+r"(p), [r] "=r"(r), [t] "=&r"(t)
                     : [e] "r"(end)
                     : "cc", "memory", V0_V7);
    return r;
}

/* ld1 of four registers: 64 bytes an instruction, post-indexed. */
static uint64_t load_ld1x4(void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    uint64_t r, t;
    __asm__ volatile("1:\n\t"
                     "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[p]], #64\n\t"
                     "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[p]], #64\n\t"
                     "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[p]], #64\n\t"
                     "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[p]], #64\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.ne 1b\n\t" FOLD_V0_V7
                     : [p] "+r"(p), [r] "=r"(r), [t] "=&r"(t)
                     : [e] "r"(end)
                     : "cc", "memory", V0_V7);
    return r;
}

/* ldp of two x registers: 16 bytes an instruction, 128 a step. */
static uint64_t load_scalar(void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    uint64_t a, b, c, d;
    __asm__ volatile("1:\n\t"
                     "ldp %[a], %[b], [%[p]]\n\t"
                     "ldp %[c], %[d], [%[p], #16]\n\t"
                     "ldp %[a], %[b], [%[p], #32]\n\t"
                     "ldp %[c], %[d], [%[p], #48]\n\t"
                     "ldp %[a], %[b], [%[p], #64]\n\t"
                     "ldp %[c], %[d], [%[p], #80]\n\t"
                     "ldp %[a], %[b], [%[p], #96]\n\t"
                     "ldp %[c], %[d], [%[p], #112]\n\t"
                     "add %[p], %[p], #128\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.ne 1b"
                     : [p] "+r"(p), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d)
                     : [e] "r"(end)
                     : "cc", "memory");
    return a ^ b ^ c ^ d;
}

/* The store loops write n (the set's size) into every 64-bit word, as the
 * x86 ones do: a value no fresh page holds, so a test can see each word. */
static uint64_t store_neon(void *buf, size_t n)
{
    char *p = buf, *end = p + n;
    __asm__ volatile("dup v0.2d, %[v]\n\t"
                     "1:\n\t"
                     "stp q0, q0, [%[p]]\n\t"
                     "stp q0, q0, [%[p], #32]\n\t"
                     "stp q0, q0, [%[p], #64]\n\t"
                     "stp q0, q0, [%[p], #96]\n\t"
                     "stp q0, q0, [%[p], #128]\n\t"
                     "stp q0, q0, [%[p], #160]\n\t"
                     "stp q0, q0, [%[p], #192]\n\t"
                     "stp q0, q0, [%[p], #224]\n\t"
                     "add %[p], %[p], #256\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.ne 1b"
                     : [p] "+r"(p)
                     : [e] "r"(end), [v] "r"((uint64_t)n)
                     : "cc", "memory", "v0");
    return 0;
}

static uint64_t store_st1x4(void *buf, size_t n)
{
    char *p = buf, *end = p + n;
    __asm__ volatile("dup v0.2d, %[v]\n\t"
                     "mov v1.16b, v0.16b\n\t"
                     "mov v2.16b, v0.16b\n\t"
                     "mov v3.16b, v0.16b\n\t"
                     "1:\n\t"
                     "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[p]], #64\n\t"
                     "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[p]], #64\n\t"
                     "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[p]], #64\n\t"
                     "st1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[p]], #64\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.ne 1b"
                     : [p] "+r"(p)
                     : [e] "r"(end), [v] "r"((uint64_t)n)
                     : "cc", "memory", "v0", "v1", "v2", "v3");
    return 0;
}

static uint64_t store_scalar(void *buf, size_t n)
{
    char *p = buf, *end = p + n;
    __asm__ volatile("1:\n\t"
                     "stp %[v], %[v], [%[p]]\n\t"
                     "stp %[v], %[v], [%[p], #16]\n\t"
                     "stp %[v], %[v], [%[p], #32]\n\t"
                     "stp %[v], %[v], [%[p], #48]\n\t"
                     "stp %[v], %[v], [%[p], #64]\n\t"
                     "stp %[v], %[v], [%[p], #80]\n\t"
                     "stp %[v], %[v], [%[p], #96]\n\t"
                     "stp %[v], %[v], [%[p], #112]\n\t"
                     "add %[p], %[p], #128\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.ne 1b"
                     : [p] "+r"(p)
                     : [e] "r"(end), [v] "r"((uint64_t)n)
                     : "cc", "memory");
    return 0;
}

/* The dc zva block (cpu.h, from DCZID_EL0; 0 when prohibited).  The Arm ARM
 * caps it at 2 KiB (BS 9); a larger one is taken as absent, since the loop
 * relies on whole blocks filling every 4 KiB set. */
unsigned cb_ceil_zva_block(void)
{
    size_t b = cb_cpu_dczva_bytes();
    return b > 2048 ? 0 : (unsigned)b;
}

/* dc zva: one block of zeros an instruction, without reading the line
 * first.  The block divides 4096 (it is at most 2 KiB), so the set is
 * whole blocks. */
static uint64_t zva(void *buf, size_t n)
{
    char *p = buf, *end = p + n;
    uint64_t bs = cb_ceil_zva_block();
    if (!bs)
        return 0;
    __asm__ volatile("1:\n\t"
                     "dc zva, %[p]\n\t"
                     "add %[p], %[p], %[bs]\n\t"
                     "cmp %[p], %[e]\n\t"
                     "b.lo 1b"
                     : [p] "+r"(p)
                     : [e] "r"(end), [bs] "r"(bs)
                     : "cc", "memory");
    return 0;
}

/* One carry chain, as the x86 adc loop: every adcs waits for the previous
 * one's carry.  sub and cbnz leave the flags alone, so the chain runs on
 * across steps; the last carry is added back in (end-around carry), so the
 * result is the same 64-bit one's-complement sum as x86's adc loop.  arm64
 * has one carry flag only: no analogue of adcx/adox's second chain. */
static uint64_t adc_1chain(void *buf, size_t n)
{
    const char *p = buf;
    uint64_t a = 0, k = n / 64, w0, w1, w2, w3;
    __asm__("cmn xzr, xzr\n\t" /* C = 0 */
            "1:\n\t"
            "ldp %[w0], %[w1], [%[p]]\n\t"
            "ldp %[w2], %[w3], [%[p], #16]\n\t"
            "adcs %[a], %[a], %[w0]\n\t"
            "adcs %[a], %[a], %[w1]\n\t"
            "adcs %[a], %[a], %[w2]\n\t"
            "adcs %[a], %[a], %[w3]\n\t"
            "ldp %[w0], %[w1], [%[p], #32]\n\t"
            "ldp %[w2], %[w3], [%[p], #48]\n\t"
            "adcs %[a], %[a], %[w0]\n\t"
            "adcs %[a], %[a], %[w1]\n\t"
            "adcs %[a], %[a], %[w2]\n\t"
            "adcs %[a], %[a], %[w3]\n\t"
            "add %[p], %[p], #64\n\t"
            "sub %[k], %[k], #1\n\t"
            "cbnz %[k], 1b\n\t"
            "adc %[a], %[a], xzr"
            : [a] "+r"(a), [p] "+r"(p), [k] "+r"(k), [w0] "=&r"(w0), [w1] "=&r"(w1),
              [w2] "=&r"(w2), [w3] "=&r"(w3)
            :
            : "cc", "memory");
    return a;
}

/* glibc's memcpy of the first half of the set into the second, and its
 * memset, in the role rep movsb/stosb have on x86: what a kernel-less
 * program gets for a copy or fill on this CPU (glibc picks its own loop,
 * often with dc zva for long zero fills). */
static uint64_t glibc_memcpy(void *buf, size_t n)
{
    memcpy((char *)buf + n / 2, buf, n / 2);
    return 0;
}

static uint64_t glibc_memset(void *buf, size_t n)
{
    memset(buf, 0x5a, n);
    return 0;
}

/* ---- the table ------------------------------------------------------------ */

const char *cb_ceil_widest_isa(void)
{
    return "neon";
}

cb_ceil_fn cb_ceil_load_fn(const char *isa)
{
    return strcmp(isa, "neon") == 0      ? load_neon
           : strcmp(isa, "neon-x4") == 0 ? load_ld1x4
                                         : load_scalar;
}

size_t cb_ceil_loops(struct cb_ceil_loop *out, size_t max)
{
    const struct cb_ceil_loop all[] = {
        {"load", "neon", load_neon, CB_CEIL_LEVELS_ALL, 0},
        {"load", "neon-x4", load_ld1x4, CB_CEIL_LEVELS_ALL, 0},
        {"load", "scalar", load_scalar, CB_CEIL_LEVELS_ALL, 0},
        {"store", "neon", store_neon, CB_CEIL_LEVELS_ALL, 0},
        {"store", "neon-x4", store_st1x4, CB_CEIL_LEVELS_ALL, 0},
        {"store", "scalar", store_scalar, CB_CEIL_LEVELS_ALL, 0},
        /* absent where EL1 prohibits it (DCZID_EL0.DZP) */
        {"zva", "dczva", zva, cb_ceil_zva_block() ? CB_CEIL_LEVELS_ALL : 0, 0},
        {"adc", "scalar", adc_1chain, 1u << CB_L1, 0},
        {"memcpy", "glibc", glibc_memcpy, CB_CEIL_LEVELS_CACHED, 1},
        {"memset", "glibc", glibc_memset, CB_CEIL_LEVELS_CACHED, 0},
    };
    size_t k = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && k < max; i++)
        if (all[i].levels)
            out[k++] = all[i];
    return k;
}
