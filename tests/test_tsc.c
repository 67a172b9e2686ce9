/* test_tsc.c — the TSC rate against CLOCK_MONOTONIC, and the core-clock
 * estimate's sanity.  The reference is the kernel's clock, read here
 * independently of tsc.c's own calibration. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "emulated.h"
#include "tap.h"
#include "counters/tsc.h"

static double mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The pure rules: the choice between the chains on either architecture,
 * and the shortest batch from the counter's resolution. */
static void test_rules(void)
{
    double g;
    /* arm64: the mul chain at 2 cycles a mul is a lower bound on the clock. */
    ok(!strcmp(cb_core_choose_arch(1, 3.00, 2.98, &g), "add-chain") && g == 3.00,
       "arm64: agree within 3%%: the add chain");
    ok(!strcmp(cb_core_choose_arch(1, 3.00, 2.00, &g), "add-chain") && g == 3.00,
       "arm64: add chain 3/2 of the mul one (a 3-cycle mul): the add chain");
    ok(!strcmp(cb_core_choose_arch(1, 2.40, 1.20, &g), "add-chain") && g == 2.40,
       "arm64: add chain 2x the mul one (a 4-cycle mul, Cortex-A72-like): the add chain");
    ok(!strcmp(cb_core_choose_arch(1, 2.50, 3.00, &g), "mul-chain") && g == 3.00,
       "arm64: add chain below the mul bound (interference): the mul chain");
    ok(!strcmp(cb_core_choose_arch(1, 9.00, 3.00, &g), "mul-chain") && g == 3.00,
       "arm64: add chain 3x the mul one, more than any mul latency explains: the mul chain");
    ok(!strcmp(cb_core_choose_arch(1, 0, 2.5, &g), "mul-chain") && g == 2.5, "arm64: only mul worked");
    ok(!strcmp(cb_core_choose_arch(1, 2.5, 0, &g), "add-chain") && g == 2.5, "arm64: only add worked");
    ok(!strcmp(cb_core_choose_arch(1, 0, 0, &g), "none") && g == 0, "arm64: neither: none, 0");
    ok(!strcmp(cb_core_choose_arch(0, 4.00, 2.00, &g), "imul-chain") && g == 2.00,
       "x86: add chain 2x the imul one is folded adds, not a slower mul: imul");

    /* The shortest batch: x86 as it always was (100 reads, 20 us), the
     * 1000-tick quantisation floor only where the counter is slow. */
    is_near(cb_min_batch_ticks(2.9, 20.0, 150.0), 58000.0, 1e-9,
            "x86 TSC 2.9 GHz, 20 us, reads of 150 ticks: 58,000 ticks (20 us)");
    is_near(cb_min_batch_ticks(2.9, 20.0, 900.0), 90000.0, 1e-9,
            "x86, reads of 900 ticks: 100 reads, 90,000 ticks");
    is_near(cb_min_batch_ticks(0, 20.0, 150.0), 20000.0, 1e-9, "rate unknown: taken as 1 GHz");
    is_near(cb_min_batch_ticks(0.0625, 20.0, 2.0), 1250.0, 1e-9,
            "arm64 CNTFRQ 62.5 MHz, 20 us: 1250 ticks (quantisation 0.08%%)");
    is_near(cb_min_batch_ticks(0.025, 20.0, 2.0), 1000.0, 1e-9,
            "arm64 CNTFRQ 25 MHz: 20 us is 500 ticks; the floor makes it 1000 (40 us, 0.1%%)");
    is_near(cb_min_batch_ticks(0.0192, 20.0, 15.0), 1500.0, 1e-9,
            "19.2 MHz, reads of 15 ticks: 100 reads (1500) over the floor");
    is_uint(cb_chain_scale(2.9), 1, "x86 TSC: the chain windows as they were");
    is_uint(cb_chain_scale(0), 1, "rate unknown: as they were");
    is_uint(cb_chain_scale(0.0625), 2, "62.5 MHz: windows twice as long (500 ticks apart -> 1000)");
    is_uint(cb_chain_scale(0.025), 5, "25 MHz: five times (200 ticks apart -> 1000)");
    is_uint(cb_chain_scale(0.0192), 7, "19.2 MHz: seven times (154 ticks apart -> 1075)");
    is_near(cb_tsc_tick_ns(0.0625), 16.0, 1e-12, "62.5 MHz: one tick is 16 ns");
    is_near(cb_tsc_tick_ns(0.025), 40.0, 1e-12, "25 MHz: 40 ns");
    ok(cb_tsc_tick_ns(0) == 0, "no rate: 0");
    ok(1.0 / CB_TSC_QUANT_TICKS <= CB_TSC_QUANT_BOUND, "the floor keeps one tick under the bound");
}

/* The core-clock estimate and the SMT meter time real work; under an
 * emulator that is meaningless, so only their shape is checked there. */
static void test_estimate(double ghz, int emulated);

static void test_estimate(double ghz, int emulated)
{
    if (emulated) {
        struct cb_core_est e;
        int rc = cb_core_estimate(ghz, 3, &e);
        ok((rc == 0 && e.ghz > 0) || (rc == -ERANGE && e.ghz == 0 && !strcmp(e.method, "none")),
           "under emulation the estimate runs to an end (%s, %.3f GHz) without failing", e.method,
           e.ghz);
        ok(1, "core-clock and SMT-meter rates # SKIP " CB_TEST_NO_PERF_WHY ": timing means nothing");
        return;
    }
    double spread = -1;
    double core = cb_core_ghz_estimate(ghz, 11, &spread);
    ok(isfinite(core) && core > 0, "core clock estimate is positive and finite (%.3f GHz)", core);
    ok(core > 0.2 && core < 10.0, "core clock estimate is a plausible clock rate");
    ok(isfinite(spread) && spread >= 0, "spread is a finite percentage (%.2f%%)", spread);


    /* The SMT meter: both chains run 5,000 adds and must finish, so the
     * ratio is positive and finite.  Its value depends on what the host
     * runs beside us (1.0 alone, up to 3 seen here), so only its kind is
     * asserted, and that it has a floor: a loop cannot do an add in less
     * than a third of the unrolled chain's time (the adds depend on each
     * other in both). */
    double kk[11];
    for (int i = 0; i < 11; i++)
        kk[i] = cb_smt_contention();
    /* The median of 11: a preemption inside either chain moves one reading. */
    for (int i = 1; i < 11; i++)
        for (int j = i; j > 0 && kk[j - 1] > kk[j]; j--) {
            double t = kk[j];
            kk[j] = kk[j - 1];
            kk[j - 1] = t;
        }
    double k = kk[5];
    ok(isfinite(k) && k > 0.33 && k < 100, "SMT contention meter reads a plausible ratio (%.2f)", k);

    /* The estimate's own record: a method, both chains, and agreement
     * between the two chains is not asserted (it is a timing), only that
     * the chosen figure is one of them. */
    struct cb_core_est e;
    is_int(cb_core_estimate(ghz, 11, &e), 0, "cb_core_estimate succeeds");
    ok((!strcmp(e.method, "add-chain") && e.ghz == e.add_ghz) ||
           ((!strcmp(e.method, "imul-chain") || !strcmp(e.method, "mul-chain")) &&
            e.ghz == e.imul_ghz),
       "the chosen figure (%.3f GHz, %s) is the one its method names", e.ghz, e.method);
    /* No renamer folds imul, so its figure is a clock rate on every x86.
     * The add chain's is not: a core that eliminates add-immediate chains
     * at rename (this project's Xeon guest reads 24.5 "GHz") runs it
     * several adds a cycle.  What must hold is that such a reading is never
     * the one chosen, nor the chain timed beside the samples. */
    ok(e.imul_ghz > 0.2 && e.imul_ghz < 10, "the imul chain gives a plausible clock (%.3f GHz)",
       e.imul_ghz);
    ok(e.add_ghz > 0 && isfinite(e.add_ghz), "the add chain gives a figure (%.3f GHz)", e.add_ghz);
    ok(e.add_ghz < 10 || (e.imul && strcmp(e.method, "add-chain") != 0),
       "an add chain faster than any clock (%.3f GHz) is not chosen (%s)", e.add_ghz, e.method);

    /* The per-case ratio the harness takes beside each sample, from the
     * chosen chain, agrees in kind with the estimate: core cycles per TSC
     * tick, positive and plausible.  (Comparing two timed estimates with
     * each other would be a timing assertion, and make check runs other
     * tests on the same cores.)  The best of 5: a preemption inside the
     * chain can only make one reading smaller. */
    double per_tick = 0;
    for (int i = 0; i < 5; i++) {
        double t = cb_core_per_tick(e.imul, cb_core_window_iters(e.imul), e.offset_ticks);
        if (t > per_tick)
            per_tick = t;
    }
    ok(per_tick > 0.1 && per_tick * ghz < 10, "core cycles per TSC tick of the %s is plausible (%.3f: %.3f GHz)",
       e.method, per_tick, per_tick * ghz);
    /* Both chains' windows measure cycles: the imul one, timed directly, is
     * a clock rate on any x86 whatever the estimate chose. */
    double ip = 0;
    for (int i = 0; i < 5; i++) {
        double t = cb_core_per_tick(1, cb_core_window_iters(1), 0);
        if (t > ip)
            ip = t;
    }
    ok(ip * ghz > 0.2 && ip * ghz < 10, "an imul window reads a plausible clock (%.3f GHz)", ip * ghz);

}

int main(void)
{
    const char *how = NULL;
    double ghz = cb_tsc_ghz(&how);
    int emulated = cb_test_no_perf();

    test_rules();
#if defined(__aarch64__)
    /* CNTFRQ_EL0: 1 MHz to 1 GHz (Armv8.6 fixes it at 1 GHz). */
    ok(ghz >= 0.001 && ghz <= 1.0 + 1e-9, "CNTFRQ %.4f GHz is a plausible counter rate (%.1f ns a tick)",
       ghz, cb_tsc_tick_ns(ghz));
#else
    ok(ghz > 0.2 && ghz < 10.0, "tsc_ghz %.4f is a plausible clock rate", ghz);
#endif
    ok(how && (!strcmp(how, "sysfs") || !strcmp(how, "cpuid") || !strcmp(how, "hypervisor") ||
               !strcmp(how, "cntfrq") || !strcmp(how, "calibrated")),
       "tsc_ghz says where it came from (%s)", how ? how : "(null)");

    const char *how2 = NULL;
    double again = cb_tsc_ghz(&how2);
    ok(again == ghz && how2 && how && !strcmp(how, how2), "second call returns the cached value");
    ok(cb_tsc_ghz(NULL) == ghz, "how may be NULL");

    /* 50 ms busy wait timed by both clocks.  The monotonic clock is read
     * on both sides of each TSC read: the inner pair lies inside the TSC
     * interval, the outer pair contains it, so a preemption between the
     * paired reads on this VM cannot fail a correct rate.  1% for the rate
     * itself. */
    double t0o = mono_ns();
    uint64_t c0 = cb_tsc_begin();
    double t0i = mono_ns();
    while (mono_ns() - t0i < 50e6)
        ;
    double t1i = mono_ns();
    uint64_t c1 = cb_tsc_end();
    double t1o = mono_ns();
    double ns_tsc = (double)(c1 - c0) / ghz;
    ok(ns_tsc >= (t1i - t0i) * 0.99 && ns_tsc <= (t1o - t0o) * 1.01,
       CB_TSC_NAME " ticks / tsc_ghz = %.0f ns lies within CLOCK_MONOTONIC's [%.0f, %.0f] ns over 50 ms", ns_tsc,
       t1i - t0i, t1o - t0o);

    test_estimate(ghz, emulated);

    /* The slope rule, from windows whose ticks are known: 1000 and 3000
     * operations at 0.5 ticks each plus a fixed 40-tick offset, with some
     * windows stretched by interference.  The fastest of each length give
     * the exact rate and offset whatever the stretched ones read. */
    double ts[] = {540, 900, 540, 541, 2000}, tl[] = {1540, 1540, 5000, 1600, 1541};
    double rate = 0, off = 0, sp = 0;
    is_int(cb_chain_slope(ts, tl, 5, 1000, 3000, &rate, &off, &sp), 0, "slope of known windows");
    ok(fabs(rate - 2.0) < 1e-12, "rate: 2000 operations over 1000 ticks = 2 per tick (got %.6f)", rate);
    ok(fabs(off - 40.0) < 1e-9, "offset: 540 - 1000 / 2 = 40 ticks (got %.6f)", off);
    /* long windows sorted: 1540 1540 1541 1600 5000; k=5: p25 = v[1], p75 = v[3] */
    ok(fabs(sp - (1600.0 - 1540.0) / 1540.0 * 100) < 1e-9, "spread: middle half of the long windows (%.4f%%)", sp);
    double bad[] = {100, 100};
    is_int(cb_chain_slope(bad, bad, 2, 1000, 3000, &rate, NULL, NULL), -ERANGE,
           "long windows no slower than short ones: -ERANGE");
    is_int(cb_chain_slope(ts, tl, 5, 3000, 1000, &rate, NULL, NULL), -EINVAL, "ops_long <= ops_short: -EINVAL");

    /* The choice between the two chains: x86's rule, on any host. */
    double g, g2;
    ok(!strcmp(cb_core_choose_arch(0, 3.70, 3.69, &g), "add-chain") && g == 3.70, "agree within 3%%: the add chain");
    ok(!strcmp(cb_core_choose_arch(0, 3.30, 3.70, &g), "imul-chain") && g == 3.70,
       "add chain 11%% low (interference): the higher, imul");
    ok(!strcmp(cb_core_choose_arch(0, 7.40, 3.70, &g), "imul-chain") && g == 3.70,
       "add chain twice the imul one (adds folded at rename): imul");
    ok(!strcmp(cb_core_choose_arch(0, 4.00, 3.00, &g), "add-chain") && g == 4.00,
       "add chain 4/3 of the imul one (a 4-cycle imul): the add chain");
    ok(!strcmp(cb_core_choose_arch(0, 0, 3.0, &g), "imul-chain") && g == 3.0, "only imul worked: imul");
    ok(!strcmp(cb_core_choose_arch(0, 3.0, 0, &g), "add-chain") && g == 3.0, "only add worked: add");
    ok(!strcmp(cb_core_choose_arch(0, 0, 0, &g), "none") && g == 0, "neither: none, 0");

    ok(!strcmp(cb_core_choose(3.30, 3.70, &g), cb_core_choose_arch(CB_CHAIN_ARM64, 3.30, 3.70, &g2)) &&
           g == g2,
       "cb_core_choose is this build's rule");
    ok(cb_core_ghz_estimate(0, 11, NULL) == 0, "no TSC rate: no estimate");
    ok(cb_core_ghz_estimate(ghz, 0, NULL) == 0, "no rounds: no estimate");
    return tap_done();
}
