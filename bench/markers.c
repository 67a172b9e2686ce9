/* markers.c — what a begin/end pair of region markers costs, off and on.
 * bench/markers.sh builds and runs it; prints figures, asserts nothing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cyclebudget/cyclebudget.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}


static void __attribute__((noinline)) plain(long n)
{
    for (long i = 0; i < n; i++)
        __asm__ volatile("" : : "r"(i));
}

static void __attribute__((noinline)) marked(long n)
{
    for (long i = 0; i < n; i++) {
        cb_region_begin("body");
        __asm__ volatile("" : : "r"(i));
        cb_region_end("body");
    }
}

/* The fastest of 5 passes of f, in ns per iteration. */
static double best(void (*f)(long), long n, int passes)
{
    double b = 1e30;
    for (int k = 0; k < passes; k++) {
        double t0 = now_ns();
        f(n);
        double t = (now_ns() - t0) / n;
        b = t < b ? t : b;
    }
    return b;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int on = getenv("CYCLEBUDGET_DB") != NULL;
    double t0 = now_ns();
    int rc = cb_marker_init();
    double t1 = now_ns();
    double p = best(plain, n, 5);
    /* On, each region keeps at most 100000 samples: one pass. */
    double m = best(marked, n, on ? 1 : 5);
    double t2 = now_ns();
    cb_marker_close();
    double t3 = now_ns();
    printf("%-8s %9ld pairs: %8.2f ns per begin/end pair (the loop alone %.2f ns/iter)", on ? "active" : "inactive", n, m - p, p);
    if (on)
        printf("; init %.1f ms, close (writing %ld samples) %.1f ms%s", (t1 - t0) / 1e6, n, (t3 - t2) / 1e6, rc ? " (init failed)" : "");
    printf("\n");
    return 0;
}
