/* tsc.c — TSC frequency, and an estimate of the core clock against it.
 *
 * The TSC rate is asked of the kernel or the CPU first, because a
 * calibration inside a VM is only as good as the host's scheduling; only
 * when nobody says does it calibrate against CLOCK_MONOTONIC_RAW (which is
 * not slewed by NTP, so the two clocks are compared as they tick). */
#define _GNU_SOURCE
#include "tsc.h"

#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double sysfs_ghz(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "r");
    unsigned long long khz = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &khz) != 1)
        khz = 0;
    fclose(f);
    return (double)khz / 1e6;
}

/* Leaf 0x15: TSC = crystal * ebx / eax.  Only trusted with the crystal
 * clock given in ecx: without it the ratio alone says nothing. */
static double cpuid15_ghz(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 0x15)
        return 0;
    __cpuid_count(0x15, 0, a, b, c, d);
    if (a == 0 || b == 0 || c == 0)
        return 0;
    return (double)c * b / a / 1e9;
}

/* The VMware-style timing leaf that KVM, bhyve and others may offer:
 * 0x40000010 eax = TSC kHz, valid only when the vendor leaf 0x40000000
 * says the hypervisor range reaches it. */
static double hypervisor_ghz(void)
{
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (!(c & (1u << 31)))
        return 0;
    __cpuid(0x40000000, a, b, c, d);
    if (a < 0x40000010 || a > 0x4000ffff)
        return 0;
    __cpuid(0x40000010, a, b, c, d);
    return a ? (double)a / 1e6 : 0;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Five 20 ms windows, median: one preempted window cannot move it.  Each
 * end is bracketed by two clock reads so the pairing is tight. */
static double calibrate_ghz(void)
{
    enum { N = 5 };
    double g[N];
    for (int i = 0; i < N; i++) {
        double t0 = now_ns();
        uint64_t c0 = cb_tsc_begin();
        double t0b = now_ns();
        double t1, t1b;
        uint64_t c1;
        do {
            t1 = now_ns();
        } while (t1 - t0 < 20e6);
        c1 = cb_tsc_end();
        t1b = now_ns();
        double ns = ((t1 + t1b) - (t0 + t0b)) / 2;
        g[i] = ns > 0 ? (double)(c1 - c0) / ns : 0;
    }
    qsort(g, N, sizeof(g[0]), cmp_double);
    return g[N / 2];
}

/* The one piece of process state in cyclebudget: the TSC rate does not
 * change while the process runs, and calibrating costs 100 ms. */
static double cached;
static const char *cached_how;

double cb_tsc_ghz_reported(const char **how)
{
    double g;
    const char *h = "none";
    if ((g = sysfs_ghz()) > 0)
        h = "sysfs";
    else if ((g = cpuid15_ghz()) > 0)
        h = "cpuid";
    else if ((g = hypervisor_ghz()) > 0)
        h = "hypervisor";
    if (!(g > 0 && isfinite(g)))
        g = 0, h = "none";
    if (how)
        *how = h;
    return g;
}

int cb_tsc_ghz_adopt(double ghz)
{
    if (!(ghz > 0 && isfinite(ghz)) || cached > 0)
        return -EINVAL;
    cached = ghz;
    cached_how = "calibrated";
    return 0;
}

double cb_tsc_ghz(const char **how)
{
    if (cached <= 0) {
        const char *h;
        double g = cb_tsc_ghz_reported(&h);
        if (g <= 0) {
            g = calibrate_ghz();
            h = "calibrated";
        }
        if (g > 0 && isfinite(g)) {
            cached_how = h;
            cached = g;
        }
    }
    if (how)
        *how = cached > 0 ? cached_how : "none";
    return cached;
}

#define ADDS_PER_ITER 1000
#define STR_(x) #x
#define STR(x) STR_(x)

/* ADDS_PER_ITER adds, each reading the register the previous one wrote:
 * one core cycle each, whatever the width of the machine.  The loop
 * counter is a separate chain that runs alongside for free.  The asm is
 * opaque, so the compiler cannot fold the adds into one. */
static uint64_t add_chain(uint64_t iters)
{
    uint64_t acc = 0;
    __asm__ __volatile__(
        "1:\n\t"
        ".rept " STR(ADDS_PER_ITER) "\n\t"
        "add $1, %0\n\t"
        ".endr\n\t"
        "dec %1\n\t"
        "jnz 1b"
        : "+r"(acc), "+r"(iters)
        :
        : "cc");
    return acc;
}

double cb_core_per_tick(uint64_t iters)
{
    uint64_t t0 = cb_tsc_begin();
    uint64_t acc = add_chain(iters);
    uint64_t t1 = cb_tsc_end();
    if (acc != iters * ADDS_PER_ITER || t1 <= t0)
        return 0;
    return (double)acc / (double)(t1 - t0);
}

/* ADDS_PER_ITER adds as a loop of add; dec; jnz: the shape whose speed an
 * SMT sibling steals. */
static uint64_t add_loop(uint64_t n)
{
    uint64_t acc = 0;
    /* The loop deliberately straddles two cache lines (it starts 2 bytes
     * before a line's end), so it fetches from both every iteration: the
     * most sensitive shape to a busy sibling, and the same in every build.
     * Measured on this VM, ticks per add: alone on the core, unrolled,
     * line-aligned loop and straddling loop all 0.617; with the sibling
     * busy 0.63, 0.67..1.55 and 1.38..3.8.  An earlier build that left the
     * placement to the linker read 2.3 on one core where another read 1.5. */
    __asm__ __volatile__(".p2align 6\n\t"
                         ".skip 62, 0x90\n"
                         "1:\n\t"
                         "add $1, %0\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(acc), "+r"(n)
                         :
                         : "cc");
    return acc;
}

double cb_smt_contention(void)
{
    enum { ITERS = 5 };
    uint64_t t0 = cb_tsc_begin();
    uint64_t a = add_chain(ITERS);
    uint64_t t1 = cb_tsc_end();
    uint64_t t2 = cb_tsc_begin();
    uint64_t b = add_loop(ITERS * ADDS_PER_ITER);
    uint64_t t3 = cb_tsc_end();
    if (a != ITERS * ADDS_PER_ITER || b != a || t1 <= t0 || t3 <= t2)
        return 0;
    return (double)(t3 - t2) / (double)(t1 - t0);
}

double cb_core_ghz_estimate(double tsc_ghz, int rounds, double *spread_pct)
{
    enum { MAXR = 101 };
    double g[MAXR];
    const uint64_t iters = 2000; /* 2M adds: about 0.5-1 ms per round */

    if (spread_pct)
        *spread_pct = NAN;
    if (!(tsc_ghz > 0) || rounds <= 0)
        return 0;
    if (rounds > MAXR)
        rounds = MAXR;

    add_chain(iters); /* wake the core up from a low P-state */
    for (int i = 0; i < rounds; i++) {
        uint64_t t0 = cb_tsc_begin();
        uint64_t acc = add_chain(iters);
        uint64_t t1 = cb_tsc_end();
        if (acc != iters * ADDS_PER_ITER || t1 <= t0)
            return 0;
        g[i] = (double)acc / (double)(t1 - t0) * tsc_ghz;
    }
    qsort(g, (size_t)rounds, sizeof(g[0]), cmp_double);
    double med = (rounds & 1) ? g[rounds / 2] : (g[rounds / 2 - 1] + g[rounds / 2]) / 2;
    if (spread_pct) {
        int lo = rounds / 4, hi = rounds - rounds / 4 - 1;
        *spread_pct = med > 0 ? (g[hi] - g[lo]) / med * 100.0 : NAN;
    }
    return med;
}

void cb_clocks_measure(struct cb_clocks *k)
{
    k->tsc_ghz = cb_tsc_ghz(&k->tsc_source);
    k->core_ghz = k->tsc_ghz > 0 ? cb_core_ghz_estimate(k->tsc_ghz, 15, &k->core_spread) : 0;
    if (k->core_ghz <= 0)
        k->core_spread = 0;
}
