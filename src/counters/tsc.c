/* tsc.c — TSC frequency, and an estimate of the core clock against it.
 *
 * The TSC rate is asked of the kernel or the CPU first, because a
 * calibration inside a VM is only as good as the host's scheduling; only
 * when nobody says does it calibrate against CLOCK_MONOTONIC_RAW (which is
 * not slewed by NTP, so the two clocks are compared as they tick). */
#define _GNU_SOURCE
#include "counters/tsc.h"
#include "util/sort.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>

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

#elif defined(__aarch64__)
/* CNTFRQ_EL0: the counter's rate as firmware programmed it (the register
 * only holds it; nothing checks it).  0 on broken firmware, then we
 * calibrate. */
static double cntfrq_ghz(void)
{
    uint64_t f;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
    return (double)f / 1e9;
}
#endif

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
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
    cb_sort_doubles(g, (size_t)N);
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
#if defined(__x86_64__)
    if ((g = sysfs_ghz()) > 0)
        h = "sysfs";
    else if ((g = cpuid15_ghz()) > 0)
        h = "cpuid";
    else if ((g = hypervisor_ghz()) > 0)
        h = "hypervisor";
#elif defined(__aarch64__)
    if ((g = cntfrq_ghz()) > 0)
        h = "cntfrq";
#endif
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

#if defined(__x86_64__)
/* The loop's own counter: decrement and branch back while not zero. */
#define LOOP_TAIL "dec %1\n\tjnz 1b"
#define CHAIN_ADD "add %2, %0"
/* imul's latency is 3 cycles on every x86-64 core of the last fifteen
 * years. */
#define CHAIN_MUL "imul %0, %0"
#define MUL_LATENCY 3
#define MUL_WINDOW_ITERS 17 /* 17 x 200 imuls of 3 cycles */
#elif defined(__aarch64__)
#define LOOP_TAIL "subs %1, %1, #1\n\tb.ne 1b"
#define CHAIN_ADD "add %0, %0, %2"
/* A 64-bit mul takes 2 cycles on Neoverse N1/V1/N2/V2 and Cortex-A76 on,
 * more on some older cores (3-5): 2, the least of any, makes the mul
 * chain's figure a lower bound on the clock (cb_core_choose_arch). */
#define CHAIN_MUL "mul %0, %0, %0"
#define MUL_LATENCY 2
#define MUL_WINDOW_ITERS 25 /* 25 x 200 muls of 2 cycles */
#endif

/* A dependent chain: a loop whose body is REPS copies of INSN, each reading
 * the register the previous one wrote, so the chain runs at INSN's latency
 * whatever the width of the machine.  The loop counter is a separate chain
 * that runs alongside for free.  The asm is opaque, so the compiler cannot
 * fold the chain into one instruction.  Returns the accumulator. */
#define DEFINE_CHAIN(name, start, insn, reps)                                                   \
    static uint64_t name(uint64_t iters)                                                        \
    {                                                                                           \
        uint64_t acc = (start), one = 1;                                                        \
        __asm__ __volatile__("1:\n\t"                                                           \
                             ".rept " STR(reps) "\n\t" insn "\n\t"                              \
                             ".endr\n\t"                                                        \
                             LOOP_TAIL                                                          \
                             : "+r"(acc), "+r"(iters)                                           \
                             : "r"(one)                                                         \
                             : "cc");                                                           \
        return acc;                                                                             \
    }

/* ADDS_PER_ITER adds: one core cycle each.  Register to register: some
 * cores fold a chain of add-immediates at rename (this project's Xeon guest
 * ran "add $1" at six a cycle, 24.5 "GHz"), none an add of a register. */
DEFINE_CHAIN(add_chain, 0, CHAIN_ADD, ADDS_PER_ITER)

/* The same chain made of (i)mul, which no renamer can fold: the
 * independent check on the add chain.  (A renamer that folds add-immediate
 * chains would make the add chain run faster than one add a cycle and the
 * core clock look higher than it is.) */
#define IMULS_PER_ITER 200
#define IMUL_LATENCY MUL_LATENCY
DEFINE_CHAIN(imul_chain, 3, CHAIN_MUL, IMULS_PER_ITER)

uint64_t cb_core_window_iters(int imul)
{
    /* About 10,000 core cycles either way: 10 x 1000 adds, or the mul
     * chain's MUL_WINDOW_ITERS. */
    return imul ? MUL_WINDOW_ITERS : 10;
}

double cb_core_per_tick(int imul, uint64_t iters, double offset_ticks)
{
    uint64_t t0 = cb_tsc_begin();
    uint64_t acc = imul ? imul_chain(iters) : add_chain(iters);
    uint64_t t1 = cb_tsc_end();
    double ticks = (double)(t1 - t0) - offset_ticks;
    double cycles = imul ? (double)iters * IMULS_PER_ITER * IMUL_LATENCY
                         : (double)iters * ADDS_PER_ITER;
    if ((!imul && acc != iters * ADDS_PER_ITER) || t1 <= t0 || !(ticks > 0))
        return 0;
    return cycles / ticks;
}


/* ADDS_PER_ITER adds as a loop of add; dec; jnz: the shape whose speed an
 * SMT sibling steals. */
static uint64_t add_loop(uint64_t n)
{
    uint64_t acc = 0, one = 1;
    /* The loop deliberately straddles two cache lines (it starts 2 bytes
     * before a line's end), so it fetches from both every iteration: the
     * most sensitive shape to a busy sibling, and the same in every build.
     * Measured on this VM, ticks per add: alone on the core, unrolled,
     * line-aligned loop and straddling loop all 0.617; with the sibling
     * busy 0.63, 0.67..1.55 and 1.38..3.8.  An earlier build that left the
     * placement to the linker read 2.3 on one core where another read 1.5. */
#if defined(__x86_64__)
    __asm__ __volatile__(".p2align 6\n\t"
                         ".skip 62, 0x90\n"
                         "1:\n\t"
                         "add %2, %0\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(acc), "+r"(n)
                         : "r"(one)
                         : "cc");
#elif defined(__aarch64__)
    /* The same shape in A64 (SMT arm64 cores exist: ThunderX2, Neoverse
     * E1): the loop's first instruction is the last word of a 64-byte line
     * (15 nops run once before it), so every iteration fetches two lines.
     * Not measured on SMT hardware: its baseline is all it is judged by. */
    __asm__ __volatile__(".p2align 6\n\t"
                         ".rept 15\n\tnop\n\t.endr\n"
                         "1:\n\t"
                         "add %0, %0, %2\n\t"
                         "subs %1, %1, #1\n\t"
                         "b.ne 1b"
                         : "+r"(acc), "+r"(n)
                         : "r"(one)
                         : "cc");
#endif
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

static uint64_t time_chain(int imul, uint64_t iters)
{
    uint64_t t0 = cb_tsc_begin();
    uint64_t acc = imul ? imul_chain(iters) : add_chain(iters);
    uint64_t t1 = cb_tsc_end();
    if ((!imul && acc != iters * ADDS_PER_ITER) || t1 <= t0)
        return 0;
    return t1 - t0;
}

int cb_chain_slope(const double *t_short, const double *t_long, size_t n, double ops_short,
                   double ops_long, double *ops_per_tick, double *offset_ticks, double *spread_pct)
{
    if (n == 0 || !(ops_long > ops_short) || ops_short < 0)
        return -EINVAL;
    double lo_s = INFINITY, lo_l = INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (t_short[i] > 0 && t_short[i] < lo_s)
            lo_s = t_short[i];
        if (t_long[i] > 0 && t_long[i] < lo_l)
            lo_l = t_long[i];
    }
    if (!isfinite(lo_s) || !isfinite(lo_l) || !(lo_l > lo_s))
        return -ERANGE;
    double rate = (ops_long - ops_short) / (lo_l - lo_s);
    *ops_per_tick = rate;
    if (offset_ticks)
        *offset_ticks = lo_s - ops_short / rate;
    if (spread_pct) {
        /* How far the long windows strayed from the fastest: the middle
         * half of them, as a share of the fastest. */
        double *v = malloc(n * sizeof *v);
        size_t k = 0;
        for (size_t i = 0; v && i < n; i++)
            if (t_long[i] > 0)
                v[k++] = t_long[i];
        *spread_pct = NAN;
        if (k) {
            cb_sort_doubles(v, (size_t)k);
            *spread_pct = (v[k - 1 - k / 4] - v[k / 4]) / lo_l * 100.0;
        }
        free(v);
    }
    return 0;
}

/* x86: both figures there (cb_core_choose_arch). */
static const char *choose_x86(double add_ghz, double imul_ghz, double *ghz)
{
    double r = add_ghz / imul_ghz;
    if (r >= 1.0 - CB_CORE_AGREE && r <= 1.0 + CB_CORE_AGREE) {
        *ghz = add_ghz;
        return "add-chain";
    }
    /* A chain can only run slower than its latency allows, never faster:
     * interference lowers an estimate.  So of two that disagree the higher
     * one is right, unless it is the add chain running faster than one add
     * a cycle (add-immediate folded at rename); the one exception is a core
     * whose 64-bit imul takes 4 cycles (K8/K10, some Atoms), where the add
     * chain is 4/3 of the imul one. */
    if (r > 1.0) {
        if (r > 4.0 / 3.0 * (1.0 - CB_CORE_AGREE) && r < 4.0 / 3.0 * (1.0 + CB_CORE_AGREE)) {
            *ghz = add_ghz;
            return "add-chain";
        }
        *ghz = imul_ghz;
        return "imul-chain";
    }
    *ghz = imul_ghz;
    return "imul-chain";
}

/* arm64: the mul chain's figure takes the least 64-bit mul latency of any
 * core (2), so it is a lower bound on the clock, and the add chain (one
 * add a cycle on every A64 core) the clock itself: agree, or the add chain
 * higher by the signature of a slower mul (3, 4, 5 cycles: anywhere up to
 * 5/2), -> the add chain.  Below the bound the add chain was slowed ->
 * the mul chain; above 5/2 the adds ran faster than any clock can explain
 * -> the mul chain, the bound. */
static const char *choose_arm64(double add_ghz, double mul_ghz, double *ghz)
{
    double r = add_ghz / mul_ghz;
    if (r >= 1.0 - CB_CORE_AGREE && r <= 2.5 * (1.0 + CB_CORE_AGREE)) {
        *ghz = add_ghz;
        return "add-chain";
    }
    *ghz = mul_ghz;
    return "mul-chain";
}

const char *cb_core_choose_arch(int arm64, double add_ghz, double mul_ghz, double *ghz)
{
    const char *mul = arm64 ? "mul-chain" : "imul-chain";
    *ghz = 0;
    if (!(add_ghz > 0) && !(mul_ghz > 0))
        return "none";
    if (!(mul_ghz > 0)) {
        *ghz = add_ghz;
        return "add-chain";
    }
    if (!(add_ghz > 0)) {
        *ghz = mul_ghz;
        return mul;
    }
    return arm64 ? choose_arm64(add_ghz, mul_ghz, ghz) : choose_x86(add_ghz, mul_ghz, ghz);
}

const char *cb_core_choose(double add_ghz, double imul_ghz, double *ghz)
{
    return cb_core_choose_arch(CB_CHAIN_ARM64, add_ghz, imul_ghz, ghz);
}

double cb_tsc_tick_ns(double tsc_ghz)
{
    return tsc_ghz > 0 && isfinite(tsc_ghz) ? 1.0 / tsc_ghz : 0;
}

uint64_t cb_chain_scale(double tsc_ghz)
{
    /* The 40,000 adds between the short and the long window take at least
     * 8 us (at 5 GHz, faster than any core runs). */
    double ticks = 40000.0 / 5.0 * tsc_ghz;
    if (!(tsc_ghz > 0) || ticks >= CB_TSC_QUANT_TICKS)
        return 1;
    return (uint64_t)ceil(CB_TSC_QUANT_TICKS / ticks);
}

double cb_min_batch_ticks(double tsc_ghz, double min_batch_us, double read_ticks)
{
    double ghz = tsc_ghz > 0 ? tsc_ghz : 1.0;
    double target = read_ticks * 100.0;
    double floor_ticks = min_batch_us * 1e3 * ghz;
    if (target < floor_ticks)
        target = floor_ticks;
    if (target < CB_TSC_QUANT_TICKS)
        target = CB_TSC_QUANT_TICKS;
    return target;
}

/* Windows of two lengths, alternating, so that a slow phase of the host
 * falls on both; the fastest of each (interference only adds time), and
 * the slope between them (the fixed cost of the two TSC reads cancels).
 * Measured on this project's VM: the median of 1 ms windows of the add
 * chain read 3% slow (a timer interrupt lands in most of them), and one
 * short window read 0.7% slow (the reads' own cost); the slope of the
 * fastest windows agreed with the imul chain to 0.1%. */
static int chain_rate(int imul, int trials, double *ops_per_tick, double *offset,
                      double *spread)
{
    enum { MAXT = 101 };
    double ts[MAXT], tl[MAXT];
    const uint64_t k = cb_chain_scale(cached), n_short = 20 * k, n_long = 60 * k;
    const double per = imul ? IMULS_PER_ITER : ADDS_PER_ITER;
    if (trials > MAXT)
        trials = MAXT;
    time_chain(imul, n_long); /* wake the core up from a low P-state */
    for (int i = 0; i < trials; i++) {
        ts[i] = (double)time_chain(imul, n_short);
        tl[i] = (double)time_chain(imul, n_long);
    }
    return cb_chain_slope(ts, tl, (size_t)trials, per * (double)n_short, per * (double)n_long,
                          ops_per_tick, offset, spread);
}

double cb_chain_ratio(int imul, int trials)
{
    double rate = 0, off, spread;
    if (trials <= 0 || chain_rate(imul, trials, &rate, &off, &spread) < 0 || !(rate > 0))
        return 0;
    return imul ? rate * IMUL_LATENCY : rate;
}

int cb_core_estimate(double tsc_ghz, int trials, struct cb_core_est *e)
{
    memset(e, 0, sizeof *e);
    e->method = "none";
    e->spread_pct = NAN;
    if (!(tsc_ghz > 0) || trials <= 0)
        return -EINVAL;
    double add_rate = 0, imul_rate = 0, off = 0, sp = NAN, isp = NAN;
    if (chain_rate(0, trials, &add_rate, &off, &sp) == 0) {
        e->add_ghz = add_rate * tsc_ghz;
        e->offset_ticks = off;
    }
    double ioff = 0;
    if (chain_rate(1, trials, &imul_rate, &ioff, &isp) == 0)
        e->imul_ghz = imul_rate * IMUL_LATENCY * tsc_ghz;
    e->method = cb_core_choose(e->add_ghz, e->imul_ghz, &e->ghz);
    /* The chain timed beside every sample is the chosen one, with its own
     * fixed cost: where the renamer folds adds (seen on a Xeon guest: 24.5
     * "GHz" of adds against 4.1 of imuls) an add window would read the core
     * clock about six times too fast, and every estimated cycle with it. */
    e->imul = e->ghz > 0 && strcmp(e->method, "add-chain") != 0;
    if (e->imul)
        e->offset_ticks = ioff;
    e->spread_pct = e->imul ? isp : sp;
    return e->ghz > 0 ? 0 : -ERANGE;
}

double cb_core_ghz_estimate(double tsc_ghz, int rounds, double *spread_pct)
{
    struct cb_core_est e;
    if (spread_pct)
        *spread_pct = NAN;
    if (cb_core_estimate(tsc_ghz, rounds, &e) < 0)
        return 0;
    if (spread_pct)
        *spread_pct = e.spread_pct;
    return e.ghz;
}

void cb_clocks_measure(struct cb_clocks *k)
{
    memset(k, 0, sizeof *k);
    k->tsc_ghz = cb_tsc_ghz(&k->tsc_source);
    k->est.method = "none";
    struct cb_core_est e[CB_CLOCKS_ESTIMATES];
    int n = 0;
    for (int i = 0; k->tsc_ghz > 0 && i < CB_CLOCKS_ESTIMATES; i++)
        if (cb_core_estimate(k->tsc_ghz, 15, &e[n]) == 0)
            n++;
    /* The median by clock (insertion sort: five at most). */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && e[j].ghz < e[j - 1].ghz; j--) {
            struct cb_core_est t = e[j];
            e[j] = e[j - 1];
            e[j - 1] = t;
        }
    if (n)
        k->est = e[n / 2];
    k->core_ghz = k->est.ghz;
    k->core_spread = k->core_ghz > 0 && isfinite(k->est.spread_pct) ? k->est.spread_pct : 0;
}
