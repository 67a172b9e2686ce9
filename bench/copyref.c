/* copyref.c — does the host state's copy reference (src/counters/refset.c)
 * move when a copy case does?  Times, window by window in the same
 * readings, the reference's loop (a 1.5 KiB copy in 16-byte loads and
 * stores, its buffer layout: source and destination 2 KiB apart modulo
 * 4 KiB), the same copy in 32-byte loads and stores (x86-64 with AVX2),
 * and glibc's memcpy of 1500 B (the copy/glibc/1500/warm case's call).
 * A reading is the median of 15 windows, as refset.c takes; READINGS
 * readings 100 ms apart, one line of "loop/memcpy/loop32" TSC ticks per
 * copy each.  A reading where the loop moves and memcpy does not is host
 * activity the reference sees and the case does not feel.
 *
 *   cc -O2 -o copyref bench/copyref.c && taskset -c 1 ./copyref [READINGS]
 *
 * READINGS defaults to 40.  Asserts nothing; x86-64 only (the TSC). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>

typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint32_t v8u __attribute__((vector_size(32)));
#define KEEP(x) __asm__ volatile("" : "+x"(x))
#define BYTES 1536
#define WINDOWS 15
#define PER_WINDOW 32

static unsigned char ref_buf[8192] __attribute__((aligned(4096)));
static unsigned char case_buf[8192] __attribute__((aligned(4096)));
#define SRC ref_buf
#define DST (ref_buf + 4096 + 2048)
/* Called through a pointer, so the compiler cannot inline or drop it. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;

__attribute__((noinline)) static void loop16(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        for (size_t k = 0; k < BYTES; k += 64) {
            v4u a, b, c, d;
            memcpy(&a, SRC + k, 16), memcpy(&b, SRC + k + 16, 16);
            memcpy(&c, SRC + k + 32, 16), memcpy(&d, SRC + k + 48, 16);
            KEEP(a);
            KEEP(b);
            KEEP(c);
            KEEP(d);
            memcpy(DST + k, &a, 16), memcpy(DST + k + 16, &b, 16);
            memcpy(DST + k + 32, &c, 16), memcpy(DST + k + 48, &d, 16);
        }
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline, target("avx2"))) static void loop32(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        for (size_t k = 0; k < BYTES; k += 64) {
            v8u a, b;
            memcpy(&a, SRC + k, 32), memcpy(&b, SRC + k + 32, 32);
            KEEP(a);
            KEEP(b);
            memcpy(DST + k, &a, 32), memcpy(DST + k + 32, &b, 32);
        }
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void libc(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        copy_fn(case_buf + 4096, case_buf, 1500);
        __asm__ volatile("" ::: "memory");
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double ticks(void (*f)(uint64_t))
{
    unsigned aux;
    uint64_t t0 = __rdtscp(&aux);
    f(PER_WINDOW);
    uint64_t t1 = __rdtscp(&aux);
    return (double)(t1 - t0) / PER_WINDOW;
}

int main(int argc, char **argv)
{
    int readings = argc > 1 ? atoi(argv[1]) : 40;
    int avx2 = __builtin_cpu_supports("avx2");
    memset(ref_buf, 1, sizeof ref_buf);
    memset(case_buf, 1, sizeof case_buf);
    printf("TSC ticks per copy, the median of %d windows: loop/memcpy%s\n", WINDOWS,
           avx2 ? "/loop32" : " (no AVX2: no loop32)");
    for (int r = 0; r < readings; r++) {
        double a[WINDOWS], b[WINDOWS], c[WINDOWS];
        for (int w = 0; w < WINDOWS; w++) {
            a[w] = ticks(loop16);
            b[w] = ticks(libc);
            c[w] = avx2 ? ticks(loop32) : 0;
        }
        qsort(a, WINDOWS, sizeof a[0], cmp);
        qsort(b, WINDOWS, sizeof b[0], cmp);
        qsort(c, WINDOWS, sizeof c[0], cmp);
        if (avx2)
            printf("%.1f/%.1f/%.1f ", a[WINDOWS / 2], b[WINDOWS / 2], c[WINDOWS / 2]);
        else
            printf("%.1f/%.1f ", a[WINDOWS / 2], b[WINDOWS / 2]);
        fflush(stdout);
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    printf("\n");
    return 0;
}
#else
int main(void)
{
    puts("copyref: x86-64 only (the TSC)");
    return 0;
}
#endif
