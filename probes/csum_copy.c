/* csum_copy.c — checksum-while-copy variants (Linux csum-copy_64.S and kin).
 *
 * Sums are 64-bit ones'-complement accumulations of 8-byte little-endian
 * words: since 2^16 == 1 (mod 0xffff), that is congruent to the RFC 1071 sum
 * of 16-bit words, and it folds to the same 16 bits (csum.h).  The loops are
 * inline asm because the adc chain needs the carry flag, and because a C
 * loop that copies would be split by the compiler into memcpy + a sum. */
#include "probes/csum_copy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probes/copy.h"
#include "host/cpu.h"
#include "kmod/cb_kmod_uapi.h"
#include "probes/csum.h"
#if defined(__aarch64__)
#include "probes/arm64/csum.h"
#endif

#if defined(__x86_64__)

/* ---- building blocks ---- */

static inline uint64_t add_ec(uint64_t acc, uint64_t x)
{
    acc += x;
    return acc + (acc < x); /* end-around carry */
}

/* acc and sum to the 32-bit partial sum csum_partial returns. */
static inline uint32_t fold_to32(uint64_t acc, uint32_t sum)
{
    uint64_t t = (acc & 0xffffffffu) + (acc >> 32) + sum;
    t = (t & 0xffffffffu) + (t >> 32);
    t = (t & 0xffffffffu) + (t >> 32);
    return (uint32_t)t;
}

/* Per 64 bytes: prefetcht0 5 lines ahead, 8 loads, 8 adcq on one carry
 * chain, 8 stores (movq, or movnti when nt).  decq and leaq leave CF alone,
 * so the chain runs across iterations; the last carry goes in after. */
static inline __attribute__((always_inline)) uint64_t
fused_blocks(const unsigned char **sp, unsigned char **dp, size_t nblk, uint64_t acc, int nt)
{
    const unsigned char *s = *sp;
    unsigned char *d = *dp;
    uint64_t a, b, c, e, f, g, h, i;
#define LOADS_ADDS                                                                             \
    "prefetcht0 5*64(%[s])\n\t"                                                                \
    "movq 0*8(%[s]), %[a]\n\t"                                                                 \
    "movq 1*8(%[s]), %[b]\n\t"                                                                 \
    "movq 2*8(%[s]), %[c]\n\t"                                                                 \
    "movq 3*8(%[s]), %[e]\n\t"                                                                 \
    "movq 4*8(%[s]), %[f]\n\t"                                                                 \
    "movq 5*8(%[s]), %[g]\n\t"                                                                 \
    "movq 6*8(%[s]), %[h]\n\t"                                                                 \
    "movq 7*8(%[s]), %[i]\n\t"                                                                 \
    "adcq %[a], %[acc]\n\t"                                                                    \
    "adcq %[b], %[acc]\n\t"                                                                    \
    "adcq %[c], %[acc]\n\t"                                                                    \
    "adcq %[e], %[acc]\n\t"                                                                    \
    "adcq %[f], %[acc]\n\t"                                                                    \
    "adcq %[g], %[acc]\n\t"                                                                    \
    "adcq %[h], %[acc]\n\t"                                                                    \
    "adcq %[i], %[acc]\n\t"
#define STORES(op)                                                                             \
    op " %[a], 0*8(%[d])\n\t" op " %[b], 1*8(%[d])\n\t" op " %[c], 2*8(%[d])\n\t"              \
    op " %[e], 3*8(%[d])\n\t" op " %[f], 4*8(%[d])\n\t" op " %[g], 5*8(%[d])\n\t"              \
    op " %[h], 6*8(%[d])\n\t" op " %[i], 7*8(%[d])\n\t"
#define LOOP_END                                                                               \
    "leaq 64(%[s]), %[s]\n\t"                                                                  \
    "leaq 64(%[d]), %[d]\n\t"                                                                  \
    "decq %[n]\n\t"                                                                            \
    "jnz 1b\n\t"                                                                               \
    "adcq $0, %[acc]"
#define OPERANDS                                                                               \
    : [s] "+r"(s), [d] "+r"(d), [n] "+r"(nblk), [acc] "+r"(acc), [a] "=&r"(a), [b] "=&r"(b), \
      [c] "=&r"(c), [e] "=&r"(e), [f] "=&r"(f), [g] "=&r"(g), [h] "=&r"(h), [i] "=&r"(i)     \
    :                                                                                          \
    : "memory", "cc"
    if (nt)
        __asm__ __volatile__("clc\n1:\n\t" LOADS_ADDS STORES("movnti") LOOP_END OPERANDS);
    else
        __asm__ __volatile__("clc\n1:\n\t" LOADS_ADDS STORES("movq") LOOP_END OPERANDS);
#undef LOADS_ADDS
#undef STORES
#undef LOOP_END
#undef OPERANDS
    *sp = s;
    *dp = d;
    return acc;
}

/* Up to 7 bytes as one zero-padded little-endian word. */
static inline uint64_t last_bytes(const unsigned char *s, unsigned char *d, size_t r)
{
    unsigned char w[8] = {0};
    cb_copy_le64(w, s, r);
    cb_copy_le64(d, w, r);
    return cb_ld8(w);
}

/* Any length: 8-byte words on one adc chain, then the last bytes. */
static inline uint64_t copy_sum_words(const unsigned char *s, unsigned char *d, size_t n, uint64_t acc)
{
    size_t q = n >> 3;
    uint64_t a;
    if (q)
        __asm__ __volatile__("clc\n"
                             "1:\n\t"
                             "movq (%[s]), %[a]\n\t"
                             "adcq %[a], %[acc]\n\t"
                             "movq %[a], (%[d])\n\t"
                             "leaq 8(%[s]), %[s]\n\t"
                             "leaq 8(%[d]), %[d]\n\t"
                             "decq %[q]\n\t"
                             "jnz 1b\n\t"
                             "adcq $0, %[acc]"
                             : [s] "+r"(s), [d] "+r"(d), [q] "+r"(q), [acc] "+r"(acc), [a] "=&r"(a)
                             :
                             : "memory", "cc");
    if (n & 7)
        acc = add_ec(acc, last_bytes(s, d, n & 7));
    return acc;
}

/* The summing half of csum_partial's pre-2021 loop, without copying. */
static uint64_t sum_words(const unsigned char *s, size_t n, uint64_t acc)
{
    size_t nblk = n >> 6, q = (n >> 3) & 7;
    if (nblk)
        __asm__ __volatile__("clc\n"
                             "1:\n\t"
                             "adcq 0*8(%[s]), %[acc]\n\t"
                             "adcq 1*8(%[s]), %[acc]\n\t"
                             "adcq 2*8(%[s]), %[acc]\n\t"
                             "adcq 3*8(%[s]), %[acc]\n\t"
                             "adcq 4*8(%[s]), %[acc]\n\t"
                             "adcq 5*8(%[s]), %[acc]\n\t"
                             "adcq 6*8(%[s]), %[acc]\n\t"
                             "adcq 7*8(%[s]), %[acc]\n\t"
                             "leaq 64(%[s]), %[s]\n\t"
                             "decq %[n]\n\t"
                             "jnz 1b\n\t"
                             "adcq $0, %[acc]"
                             : [s] "+r"(s), [n] "+r"(nblk), [acc] "+r"(acc)
                             :
                             : "memory", "cc");
    for (; q; q--, s += 8)
        acc = add_ec(acc, cb_ld8(s));
    if (n & 7) {
        unsigned char w[8] = {0};
        cb_copy_le64(w, s, n & 7);
        acc = add_ec(acc, cb_ld8(w));
    }
    return acc;
}

/* ---- the variants ---- */

/* Unaligned loads and stores are cheap on current x86, so unlike the
 * kernel's routine this one does not align anything first. */
static uint32_t csum_copy_fused(const void *src, void *dst, size_t n, uint32_t sum)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    uint64_t acc = 0;
    if (n >= 64)
        acc = fused_blocks(&s, &d, n >> 6, acc, 0);
    return fold_to32(copy_sum_words(s, d, n & 63, acc), sum);
}

/* Non-temporal stores want whole lines: a head of h bytes with normal
 * stores brings dst to a 64-byte boundary.  When h is odd, every later byte
 * sits in the other half of its 16-bit word than the loop assumes, so the
 * rest's sum is rotated by 8 bits (x * 2^8 mod 2^64-1, congruent mod
 * 0xffff): the kernel's odd-address fix-up. */
static uint32_t csum_copy_fused_nt(const void *src, void *dst, size_t n, uint32_t sum)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t h = (size_t)(-(uintptr_t)d & 63);
    if (n < h + 64)
        return fold_to32(copy_sum_words(s, d, n, 0), sum);
    uint64_t head = copy_sum_words(s, d, h, 0);
    s += h, d += h, n -= h;
    uint64_t rest = fused_blocks(&s, &d, n >> 6, 0, 1);
    __asm__ __volatile__("sfence" ::: "memory");
    rest = copy_sum_words(s, d, n & 63, rest);
    if (h & 1)
        rest = (rest << 8) | (rest >> 56);
    return fold_to32(add_ec(head, rest), sum);
}

static void *(*const volatile glibc_memcpy)(void *, const void *, size_t) = memcpy;

static uint32_t csum_copy_two_pass(const void *src, void *dst, size_t n, uint32_t sum)
{
    glibc_memcpy(dst, src, n);
    return fold_to32(sum_words(dst, n, 0), sum);
}

#endif /* __x86_64__ */

#define FN(f) ((const void *)(cb_csum_copy_fn)(f))

/* One table, each architecture's variants under its #if (arm64's in
 * arm64/csum_copy.c). */
static const struct cb_variant csum_copy_variants[] = {
#if defined(__x86_64__)
    {"copy-then-csum",
     "glibc memcpy, then one adcq chain over dst; vs copy/glibc + csum/adc-1chain",
     0, FN(csum_copy_two_pass), CB_VARIANT_REFERENCE, 0},
    {"fused",
     "csum-copy_64.S: per 64 B 8 loads, prefetcht0 5*64, 8 adcq, 8 stores; "
     "vs copy/unrolled + csum/adc-1chain-pf",
     0, FN(csum_copy_fused), 0, 0},
    {"fused-nt",
     "fused with movnti stores to a line-aligned dst, sfence; vs copy/ntq-pf + csum/adc-1chain-pf",
     CB_CPU_SSE2, FN(csum_copy_fused_nt), 0, 0},
#elif defined(__aarch64__)
    {"copy-then-csum",
     "glibc memcpy, then do_csum over dst (the arm64 kernel's csum_partial_copy_nocheck); "
     "vs copy/glibc + csum/do-csum",
     0, FN(cb_csum_copy_a64_two_pass), CB_VARIANT_REFERENCE, 0},
    {"fused",
     "per 64 B 4 ldp, 4 stp, 8 adcs on one carry chain; vs copy/ldp + csum/do-csum",
     0, FN(cb_csum_copy_a64_fused), 0, 0},
    {"fused-neon",
     "per 64 B 4 q loads and stores, uadalp into 4 accumulators; "
     "vs copy/neon + csum/neon-uadalp-x4",
     CB_CPU_ASIMD, FN(cb_csum_copy_a64_fused_neon), CB_VARIANT_VECTOR, 0},
#endif
};

/* The copy family's sizes, so each row has its copy and csum to compare. */
static const size_t csum_copy_sizes[] = {64, 256, 1500, 4096, 65536, 1u << 20, 4u << 20,
                                         16u << 20, 0};

/* ---- verification, setup, run ---- */

/* Each trial also checks the sum against cb_csum_ref, folded, with a seed
 * that varies: 0, ~0 (the kernel's) and arbitrary values. */
static int csum_copy_trial(const void *fn, void *dst, const void *src, size_t len, char *detail,
                           size_t dlen)
{
    uint32_t seed = (uint32_t)(len * 0x9e3779b1u) ^ (uint32_t)((uintptr_t)dst * 0x85ebca6bu);
    if (len % 3 == 0)
        seed = 0;
    else if (len % 3 == 1)
        seed = 0xffffffffu;
    uint32_t got = ((cb_csum_copy_fn)fn)(src, dst, len, seed);
    uint32_t want = cb_csum_ref(src, len, seed);
    if (cb_csum_fold(got) == cb_csum_fold(want))
        return 0;
    snprintf(detail, dlen, "sum folds to 0x%04x, want 0x%04x (seed 0x%08x)", cb_csum_fold(got),
             cb_csum_fold(want), seed);
    return -1;
}

static int csum_copy_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    return cb_copy_verify_with(v->fn, csum_copy_trial, out);
}

static void csum_copy_run(struct cb_case *c, uint64_t iters)
{
    struct cb_copy_state *st = c->priv;
    cb_csum_copy_fn fn = (cb_csum_copy_fn)c->variant->fn;
    size_t n = c->size;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        unsigned char *d = cb_workset_next(&st->dst);
        acc += fn(cb_workset_next(&st->src), d, n, CB_CSUM_COPY_SEED);
    }
    c->sink += acc;
}

/* The quick suite: the sizes that show where the winner changes. */
static const size_t csum_copy_suite_sizes[] = {1500, 4096, 65536, 0};

static const struct cb_kernel_twin csum_copy_kernel[] = {
    {.func = "csum_partial_copy_nocheck", .kfunc = CB_KF_CSUM_COPY, .models = {"fused"},
     .why = "csum-copy_64.S's loop"},
};

const struct cb_probe cb_probe_csum_copy = {
    .name = "csum_copy",
    .desc = "copy + Internet checksum: fused one pass vs copy then csum",
    .unit = "B",
    .op = "call",
    .variants = csum_copy_variants,
    .nvariants = sizeof csum_copy_variants / sizeof csum_copy_variants[0],
    .sizes = csum_copy_sizes,
    .setup = cb_copy_setup,
    .run = csum_copy_run,
    .verify = csum_copy_verify,
    .teardown = cb_copy_teardown,
    .suite_sizes = csum_copy_suite_sizes,
    .call = CB_CALL_COPY_SUM,
    .shape = CB_SHAPE_TWO_BUFFERS | CB_SHAPE_STORES,
    .charge = CB_CHARGE_BY_BYTES,
    .chart = {.kind = CB_CHART_THROUGHPUT},
    .fuses = {"copy", "csum"},
    .kernel = csum_copy_kernel,
    .nkernel = sizeof csum_copy_kernel / sizeof csum_copy_kernel[0],
};
