/* loadloop.c — an independent load and store loop for bench/ceilings.sh.
 *
 * Written apart from src/counters/ceilings.c on purpose: C intrinsics, not
 * asm; CLOCK_MONOTONIC_RAW, not the TSC; its own buffer and repetition
 * rule.  Each load's value is kept alive by an empty asm that takes it in
 * a register, so the loop is loads and nothing else.  Prints, for each
 * working set given (bytes), the best of 15 trials in bytes per nanosecond:
 *   load  24576 180.2
 *   store 24576 99.1
 * Usage: loadloop BYTES...  (each a multiple of 4096). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*loop_fn)(char *p, size_t n);

#define KEEP(x) __asm__ volatile("" : : "v"(x))

__attribute__((target("avx512f"))) static void ld512(char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 256) {
        __m512i a = _mm512_load_si512(p + i), b = _mm512_load_si512(p + i + 64);
        __m512i c = _mm512_load_si512(p + i + 128), d = _mm512_load_si512(p + i + 192);
        KEEP(a); KEEP(b); KEEP(c); KEEP(d);
    }
}

__attribute__((target("avx2"))) static void ld256(char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 128) {
        __m256i a = _mm256_load_si256((void *)(p + i)), b = _mm256_load_si256((void *)(p + i + 32));
        __m256i c = _mm256_load_si256((void *)(p + i + 64)), d = _mm256_load_si256((void *)(p + i + 96));
        KEEP(a); KEEP(b); KEEP(c); KEEP(d);
    }
}

static void ld128(char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 64) {
        __m128i a = _mm_load_si128((void *)(p + i)), b = _mm_load_si128((void *)(p + i + 16));
        __m128i c = _mm_load_si128((void *)(p + i + 32)), d = _mm_load_si128((void *)(p + i + 48));
        KEEP(a); KEEP(b); KEEP(c); KEEP(d);
    }
}

__attribute__((target("avx512f"))) static void st512(char *p, size_t n)
{
    __m512i v = _mm512_set1_epi32((int)n);
    KEEP(v);
    for (size_t i = 0; i < n; i += 256) {
        _mm512_store_si512(p + i, v);
        _mm512_store_si512(p + i + 64, v);
        _mm512_store_si512(p + i + 128, v);
        _mm512_store_si512(p + i + 192, v);
        __asm__ volatile("" : : : "memory");
    }
}

__attribute__((target("avx2"))) static void st256(char *p, size_t n)
{
    __m256i v = _mm256_set1_epi32((int)n);
    KEEP(v);
    for (size_t i = 0; i < n; i += 128) {
        _mm256_store_si256((void *)(p + i), v);
        _mm256_store_si256((void *)(p + i + 32), v);
        _mm256_store_si256((void *)(p + i + 64), v);
        _mm256_store_si256((void *)(p + i + 96), v);
        __asm__ volatile("" : : : "memory");
    }
}

static void st128(char *p, size_t n)
{
    __m128i v = _mm_set1_epi32((int)n);
    KEEP(v);
    for (size_t i = 0; i < n; i += 64) {
        _mm_store_si128((void *)(p + i), v);
        _mm_store_si128((void *)(p + i + 16), v);
        _mm_store_si128((void *)(p + i + 32), v);
        _mm_store_si128((void *)(p + i + 48), v);
        __asm__ volatile("" : : : "memory");
    }
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Best bytes per ns over trials windows of at least 2 ms each. */
static double best_rate(loop_fn fn, char *buf, size_t n)
{
    fn(buf, n);
    size_t reps = 1;
    for (;;) {
        double t0 = now_ns();
        for (size_t r = 0; r < reps; r++)
            fn(buf, n);
        if (now_ns() - t0 >= 2e6 || reps >= (1u << 24))
            break;
        reps *= 2;
    }
    double best = 0;
    for (int t = 0; t < 15; t++) {
        double t0 = now_ns();
        for (size_t r = 0; r < reps; r++)
            fn(buf, n);
        double dt = now_ns() - t0, v = (double)n * reps / dt;
        if (v > best)
            best = v;
    }
    return best;
}

int main(int argc, char **argv)
{
    __builtin_cpu_init();
    const char *isa = __builtin_cpu_supports("avx512f") ? "avx512"
                      : __builtin_cpu_supports("avx2") ? "avx2" : "sse2";
    loop_fn ld = isa[3] == '5' ? ld512 : isa[3] == '2' ? ld256 : ld128;
    loop_fn st = isa[3] == '5' ? st512 : isa[3] == '2' ? st256 : st128;
    printf("isa %s\n", isa);
    for (int i = 1; i < argc; i++) {
        size_t n = strtoull(argv[i], NULL, 10);
        if (n < 4096 || n % 4096) {
            fprintf(stderr, "loadloop: %s is not a multiple of 4096 bytes\n", argv[i]);
            return 2;
        }
        char *buf = aligned_alloc(4096, n);
        if (!buf)
            return 1;
        memset(buf, 1, n);
        printf("load %zu %.3f\n", n, best_rate(ld, buf, n));
        printf("store %zu %.3f\n", n, best_rate(st, buf, n));
        free(buf);
    }
    return 0;
}
