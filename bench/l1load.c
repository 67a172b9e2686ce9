/* l1load.c — an independent L1 load ceiling: bytes per TSC tick of a loop
 * that only loads, beside which bench/csum-ceiling.sh prints the csum
 * variants.  It shares no code with cyclebudget, so a fault in the tool's
 * timing cannot flatter both sides at once.
 *
 *   cc -O2 -o l1load bench/l1load.c
 *   ./l1load [SIZE ...]        (default: 64 256 1500 4096 16384)
 *
 * For each size it prints one line: size, then B/tick of
 *   load512   zmm loads into 8 registers, results unused (the load ports alone)
 *   add512    the same loads each added into one of 4 accumulators (load + one
 *             vector ALU op per 64 B: the least any reduction can do)
 *   add2x512  each loaded vector added into two accumulators (two ALU ops per
 *             64 B: what a checksum that needs two ops per vector can reach)
 *   load256   ymm loads, as load512 (the AVX2 ceiling)
 * each the best of 3000 short trials of calls over one SIZE-byte buffer; a
 * call loads SIZE bytes rounded up to 64, as a csum call does.
 * A column the CPU cannot run prints "-".  It prints figures and asserts
 * nothing. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

typedef void (*kernel_fn)(const unsigned char *p, size_t nvec);

/* nvec 64-byte vectors, 4 per iteration while it can, then one by one. */
__attribute__((target("avx512f"), noinline)) static void k_load512(const unsigned char *p,
                                                                     size_t nvec)
{
    size_t n4 = nvec / 4, n1 = nvec % 4;
    if (n4)
        __asm__ volatile("1:\n\t"
                         "vmovdqu64 0(%[p]), %%zmm0\n\t"
                         "vmovdqu64 64(%[p]), %%zmm1\n\t"
                         "vmovdqu64 128(%[p]), %%zmm2\n\t"
                         "vmovdqu64 192(%[p]), %%zmm3\n\t"
                         "addq $256, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n4)
                         :
                         : "xmm0", "xmm1", "xmm2", "xmm3", "memory", "cc");
    if (n1)
        __asm__ volatile("1:\n\t"
                         "vmovdqu64 0(%[p]), %%zmm0\n\t"
                         "addq $64, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n1)
                         :
                         : "xmm0", "memory", "cc");
}

/* The accumulators live across calls in zmm16..23 (callers never look). */
__attribute__((target("avx512f"), noinline)) static void k_add512(const unsigned char *p,
                                                                    size_t nvec)
{
    size_t n4 = nvec / 4, n1 = nvec % 4;
    if (n4)
        __asm__ volatile("1:\n\t"
                         "vpaddq 0(%[p]), %%zmm16, %%zmm16\n\t"
                         "vpaddq 64(%[p]), %%zmm17, %%zmm17\n\t"
                         "vpaddq 128(%[p]), %%zmm18, %%zmm18\n\t"
                         "vpaddq 192(%[p]), %%zmm19, %%zmm19\n\t"
                         "addq $256, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n4)
                         :
                         : "xmm16", "xmm17", "xmm18", "xmm19", "memory", "cc");
    if (n1)
        __asm__ volatile("1:\n\t"
                         "vpaddq 0(%[p]), %%zmm16, %%zmm16\n\t"
                         "addq $64, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n1)
                         :
                         : "xmm16", "memory", "cc");
}

/* Each vector added into two accumulators: two vector ALU ops per 64 B, as
 * many as csum's avx512-vnni needs (its vpdpbusd pair); the ceiling of any
 * checksum that needs two. */
__attribute__((target("avx512f"), noinline)) static void k_add2x512(const unsigned char *p,
                                                                      size_t nvec)
{
    size_t n4 = nvec / 4, n1 = nvec % 4;
    if (n4)
        __asm__ volatile("1:\n\t"
                         "vmovdqu64 0(%[p]), %%zmm0\n\t"
                         "vmovdqu64 64(%[p]), %%zmm1\n\t"
                         "vmovdqu64 128(%[p]), %%zmm2\n\t"
                         "vmovdqu64 192(%[p]), %%zmm3\n\t"
                         "vpaddq %%zmm0, %%zmm16, %%zmm16\n\t"
                         "vpaddq %%zmm0, %%zmm17, %%zmm17\n\t"
                         "vpaddq %%zmm1, %%zmm18, %%zmm18\n\t"
                         "vpaddq %%zmm1, %%zmm19, %%zmm19\n\t"
                         "vpaddq %%zmm2, %%zmm20, %%zmm20\n\t"
                         "vpaddq %%zmm2, %%zmm21, %%zmm21\n\t"
                         "vpaddq %%zmm3, %%zmm22, %%zmm22\n\t"
                         "vpaddq %%zmm3, %%zmm23, %%zmm23\n\t"
                         "addq $256, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n4)
                         :
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm16", "xmm17", "xmm18", "xmm19",
                           "xmm20", "xmm21", "xmm22", "xmm23", "memory", "cc");
    if (n1)
        __asm__ volatile("1:\n\t"
                         "vmovdqu64 0(%[p]), %%zmm0\n\t"
                         "vpaddq %%zmm0, %%zmm16, %%zmm16\n\t"
                         "vpaddq %%zmm0, %%zmm17, %%zmm17\n\t"
                         "addq $64, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n1)
                         :
                         : "xmm0", "xmm16", "xmm17", "memory", "cc");
}

__attribute__((target("avx2"), noinline)) static void k_load256(const unsigned char *p,
                                                                  size_t nvec)
{
    size_t n2 = nvec / 2, n1 = nvec % 2;
    if (n2)
        __asm__ volatile("1:\n\t"
                         "vmovdqu 0(%[p]), %%ymm0\n\t"
                         "vmovdqu 32(%[p]), %%ymm1\n\t"
                         "vmovdqu 64(%[p]), %%ymm2\n\t"
                         "vmovdqu 96(%[p]), %%ymm3\n\t"
                         "addq $128, %[p]\n\t"
                         "decq %[n]\n\t"
                         "jnz 1b"
                         : [p] "+r"(p), [n] "+r"(n2)
                         :
                         : "xmm0", "xmm1", "xmm2", "xmm3", "memory", "cc");
    if (n1)
        __asm__ volatile("vmovdqu 0(%[p]), %%ymm0\n\t"
                         "vmovdqu 32(%[p]), %%ymm1"
                         :
                         : [p] "r"(p)
                         : "xmm0", "xmm1", "memory");
}

/* Best B/tick of TRIALS short trials of calls over buf.  Short trials (about
 * 10-20 us) and the best of many: on a shared VM a long trial is rarely
 * left alone from start to end, a short one often is. */
#define TRIALS 3000
static double measure(kernel_fn k, const unsigned char *buf, size_t size)
{
    size_t nvec = (size + 63) / 64;
    uint64_t calls = 32768 / (nvec * 64) + 4;
    for (uint64_t i = 0; i < 100 * calls; i++) /* warm up: caches, clocks */
        k(buf, nvec);
    uint64_t best = UINT64_MAX;
    for (int t = 0; t < TRIALS; t++) {
        unsigned aux;
        uint64_t t0 = __rdtscp(&aux);
        for (uint64_t i = 0; i < calls; i++)
            k(buf, nvec);
        uint64_t t1 = __rdtscp(&aux);
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    return (double)size * calls / (double)best;
}

int main(int argc, char **argv)
{
    static const size_t defaults[] = {64, 256, 1500, 4096, 16384};
    size_t sizes[64], nsizes = 0;
    for (int i = 1; i < argc && nsizes < 64; i++) {
        char *end;
        unsigned long v = strtoul(argv[i], &end, 10);
        if (*end || v == 0 || v > 1 << 20) {
            fprintf(stderr, "l1load: size '%s' is not a byte count in 1..1048576\n", argv[i]);
            return 2;
        }
        sizes[nsizes++] = v;
    }
    if (!nsizes)
        for (; nsizes < sizeof defaults / sizeof defaults[0]; nsizes++)
            sizes[nsizes] = defaults[nsizes];

    size_t cap = 1 << 20;
    unsigned char *buf = aligned_alloc(64, cap + 64);
    if (!buf) {
        perror("l1load");
        return 1;
    }
    memset(buf, 0x5a, cap + 64);
    __builtin_cpu_init();
    int has512 = __builtin_cpu_supports("avx512f"), has256 = __builtin_cpu_supports("avx2");

    printf("%8s %9s %9s %9s %9s   (B/TSC tick, best of %d trials)\n", "size", "load512",
           "add512", "add2x512", "load256", TRIALS);
    for (size_t i = 0; i < nsizes; i++) {
        char c[4][16];
        if (has512) {
            snprintf(c[0], sizeof c[0], "%.1f", measure(k_load512, buf, sizes[i]));
            snprintf(c[1], sizeof c[1], "%.1f", measure(k_add512, buf, sizes[i]));
            snprintf(c[2], sizeof c[2], "%.1f", measure(k_add2x512, buf, sizes[i]));
        } else {
            strcpy(c[0], "-");
            strcpy(c[1], "-");
            strcpy(c[2], "-");
        }
        if (has256)
            snprintf(c[3], sizeof c[3], "%.1f", measure(k_load256, buf, sizes[i]));
        else
            strcpy(c[3], "-");
        printf("%8zu %9s %9s %9s %9s\n", sizes[i], c[0], c[1], c[2], c[3]);
    }
    free(buf);
    return 0;
}
