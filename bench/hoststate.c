/* hoststate.c — where the per-process host state of docs/lab-notes.md lives.
 *
 * A throw-away probe, kept so that the claim in docs/lab-notes.md can be checked: on the
 * project's VM a process draws a "host state" that changes what a call of
 * the synthetic add loop costs, and the state lives in the call and the
 * loop's exit, not in the adds.  For 1,000 and 4,000 adds this times, in TSC
 * ticks per operation (best of 400 batches of 100):
 *   0  the loop called through a function pointer, as the harness does;
 *   1  the same loop called directly;
 *   2  the same adds as one long loop per batch: no call, one exit per batch;
 * and prints the per-call offset, t(1000) - (t(4000) - t(1000)) / 3, of each.
 * With PAUSE_MS > 0 it instead times mode 0 at 1,000 adds twelve times in
 * one process, idling PAUSE_MS between, to see the state flip within it.
 *
 *   cc -O2 -Wall -Wextra -o hoststate bench/hoststate.c
 *   for i in $(seq 30); do ./hoststate 1; done          # 30 processes on CPU 1
 *   for i in $(seq 8); do ./hoststate 1 50; done        # with 50 ms idle pauses
 *
 * x86-64 only (rdtsc and an asm loop); asserts nothing. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

__attribute__((noinline, aligned(64))) static uint64_t chain(uint64_t x, uint64_t n)
{
    __asm__ volatile(".p2align 6\n1:\n\tadd $1, %0\n\tdec %1\n\tjnz 1b" : "+r"(x), "+r"(n) : : "cc");
    return x;
}

typedef uint64_t (*chain_fn)(uint64_t, uint64_t);

static uint64_t ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static double best(chain_fn f, uint64_t n, int mode)
{
    double b = 1e18;
    volatile uint64_t sink = 0;
    for (int r = 0; r < 400; r++) {
        uint64_t x = 0, t0 = ticks();
        if (mode == 0) {
            for (int i = 0; i < 100; i++)
                x = f(x, n);
        } else if (mode == 1) {
            for (int i = 0; i < 100; i++)
                x = chain(x, n);
        } else {
            uint64_t m = n * 100;
            __asm__ volatile(".p2align 6\n1:\n\tadd $1, %0\n\tdec %1\n\tjnz 1b" : "+r"(x), "+r"(m) : : "cc");
        }
        double d = (double)(ticks() - t0) / 100;
        sink += x;
        if (d < b)
            b = d;
    }
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hoststate CPU [PAUSE_MS]\n");
        return 2;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[1]), &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) {
        perror("hoststate: sched_setaffinity");
        return 1;
    }
    volatile chain_fn f = chain;
    int pause_ms = argc > 2 ? atoi(argv[2]) : 0;
    if (pause_ms > 0) {
        for (int k = 0; k < 12; k++) {
            printf("%.0f ", best(f, 1000, 0));
            usleep((useconds_t)pause_ms * 1000);
        }
        printf("\n");
        return 0;
    }
    static const char *const names[] = {"pointer", "direct", "one-loop"};
    for (int m = 0; m < 3; m++) {
        double a = best(f, 1000, m), b = best(f, 4000, m);
        printf("%s %.1f %.1f offset %.1f%s", names[m], a, b, a - (b - a) / 3, m < 2 ? "  " : "\n");
    }
    return 0;
}
