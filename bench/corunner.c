/* corunner.c — a co-runner to impose a host state on a run, for
 * bench/hoststate.sh.
 *
 *   corunner CPU spin        a busy loop on CPU (the measuring CPU: the run
 *                            shares its time with it)
 *   corunner CPU mem MIB     two MIB-MiB buffers copied back and forth on
 *                            CPU (the other CPU: memory bandwidth and the
 *                            shared cache taken from the run)
 *   corunner CPU vec         AVX-512 (else SSE2) adds on CPU: a sibling's
 *                            vector ports, where CPU is the run's SMT sibling
 *
 * Runs until killed; asserts nothing.  cc -O2 -o corunner bench/corunner.c */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t v4u __attribute__((vector_size(16)));

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: corunner CPU spin|mem MIB|vec\n");
        return 2;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(argv[1]), &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) {
        perror("corunner: sched_setaffinity");
        return 1;
    }
    if (strcmp(argv[2], "spin") == 0) {
        volatile uint64_t x = 0;
        for (;;)
            x++;
    }
    if (strcmp(argv[2], "vec") == 0) {
        v4u a = {1, 2, 3, 4}, b = a, c = a, d = a, one = {1, 1, 1, 1};
        for (;;) {
            a += one, b += one, c += one, d += one;
            __asm__ volatile("" : "+x"(a), "+x"(b), "+x"(c), "+x"(d));
        }
    }
    if (strcmp(argv[2], "mem") == 0 && argc > 3) {
        size_t n = (size_t)atol(argv[3]) << 20;
        char *x = malloc(n), *y = malloc(n);
        if (!x || !y)
            return 1;
        memset(x, 1, n);
        memset(y, 2, n);
        for (;;) {
            memcpy(y, x, n);
            memcpy(x, y, n);
        }
    }
    fprintf(stderr, "corunner: '%s' is not spin, mem MIB or vec\n", argv[2]);
    return 2;
}
