/* test_harness.c — the harness's bookkeeping, checked with a counting probe.
 *
 * The probe below records every call the harness makes, so the test can
 * check what the harness did (batch sizes, sample counts, setup/teardown,
 * the empty batch) against what it says it did, without asserting anything
 * about how fast this machine is. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "counters/counters.h"
#include "counters/events.h"
#include "harness/harness.h"
#include "harness/probe.h"
#include "emulated.h"
#include "tap.h"
#include "counters/tsc.h"

struct counting {
    int setups, teardowns;
    uint64_t calls, empty_calls, total_iters;
    uint64_t last_iters;
    int stop_after;          /* raise *stop after this many non-empty calls; 0 never */
    volatile sig_atomic_t *stop;
    size_t cold_bytes_seen;
};

static struct counting *state_of(struct cb_case *c)
{
    return c->priv;
}

static struct counting g_state;   /* the test's probe; reset per case */

static int t_setup(struct cb_case *c)
{
    c->priv = &g_state;
    g_state.setups++;
    g_state.cold_bytes_seen = c->cold_bytes;
    return c->size == 13 ? -ENOMEM : 0;   /* size 13: a setup that fails */
}

static void t_run(struct cb_case *c, uint64_t iters)
{
    struct counting *s = state_of(c);
    if (iters == 0) {
        s->empty_calls++;
        return;
    }
    s->calls++;
    s->total_iters += iters;
    s->last_iters = iters;
    uint64_t acc = c->sink;
    for (uint64_t i = 0; i < iters; i++)
        for (size_t k = 0; k < c->size; k++)
#if defined(__x86_64__)
            __asm__ __volatile__("add $1, %0" : "+r"(acc));
#else
            __asm__ __volatile__("add %0, %0, #1" : "+r"(acc));
#endif
    c->sink = acc;
    if (s->stop_after && s->calls >= (uint64_t)s->stop_after && s->stop)
        *s->stop = 1;
}

static int t_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    (void)v;
    out->ok = 1;
    return 0;
}

static void t_teardown(struct cb_case *c)
{
    state_of(c)->teardowns++;
}

static const struct cb_variant t_variants[] = {
    {.name = "count", .desc = "counts calls", .flags = CB_VARIANT_TESTONLY},
};
static const size_t t_sizes[] = {100, 0};
static const struct cb_probe t_probe = {
    .name = "count", .desc = "test probe", .unit = "B", .op = "call", .variants = t_variants,
    .nvariants = 1, .sizes = t_sizes, .setup = t_setup, .run = t_run, .verify = t_verify,
    .teardown = t_teardown,
};

/* A fixed cost in ticks: positive with a TSC's GHz; with a CNTVCT of
 * 16-40 ns a tick a cost of tens of ns may honestly read 0. */
static int coarse_ok(double ticks, double tsc_ghz)
{
    return isfinite(ticks) && (tsc_ghz >= 0.2 ? ticks > 0 : ticks >= 0);
}

/* What is checked for plausibility: on x86 the core/TSC ratio itself (the
 * TSC runs near the core clock); on arm64, where it is ~50 (CNTVCT at tens
 * of MHz), the clock in GHz it makes. */
static double plausible_ratio(double core_per_tick, double tsc_ghz)
{
#if defined(__x86_64__)
    (void)tsc_ghz;
    return core_per_tick;
#else
    return core_per_tick * tsc_ghz;
#endif
}

int main(void)
{
    cb_events_init();
    struct cb_event_spec spec[2];
    size_t n = 0;
    cb_events_resolve("task-clock", spec, 2, &n);
    struct cb_counters cs;
    double tsc = cb_tsc_ghz(NULL);
    int emulated = cb_test_no_perf();
    is_int(cb_counters_open(&cs, spec, (int)n, tsc, 0), 0, "open task-clock + tsc");

    struct cb_harness_opts o;
    cb_harness_defaults(&o);
    o.reps = 7;
    o.min_batch_us = 50;
    struct cb_harness h;
    is_int(cb_harness_init(&h, &cs, &o), 0, "harness init");
    ok(coarse_ok(h.read_ticks, tsc), "read cost measured (%.0f ticks)", h.read_ticks);
    int t = cb_counters_find(&cs, "tsc");
    is_int(h.primary, t, "without PMU cycles the TSC drives the stopping rule");

    struct cb_case c = {.probe = &t_probe, .variant = &t_variants[0], .size = 100,
                        .mode = CB_MODE_WARM, .cold_bytes = 1 << 20};
    struct cb_measurement m;
    memset(&g_state, 0, sizeof g_state);
    is_int(cb_harness_measure(&h, &c, &m), 0, "measure with --reps 7");
    is_int(m.n, 7, "exactly 7 samples");
    is_int(m.why, CB_STOP_REPS, "stopped because of --reps");
    is_int(g_state.setups, 1, "setup called once");
    is_int(g_state.teardowns, 1, "teardown called once");
    ok(g_state.empty_calls >= 11, "the empty batch was measured (%llu times)",
       (unsigned long long)g_state.empty_calls);
    is_uint(g_state.last_iters, m.iters[0], "the last batch had the reported iteration count");
    is_int(c.bytes_per_op, 100, "bytes per op defaults to the size for a byte probe");
    is_int(g_state.cold_bytes_seen, 1 << 20, "cold_bytes passed through to setup");

    /* Every sample's TSC delta covers at least the minimum batch time. */
    double min_ticks = INFINITY;
    for (size_t k = 0; k < m.n; k++)
        if (m.d[k].value[t] < min_ticks)
            min_ticks = m.d[k].value[t];
    ok(min_ticks >= 0.5 * o.min_batch_us * 1e3 * tsc,
       "batches last about the minimum batch time or more (%.0f ticks)", min_ticks);
    /* The per-op value is (delta - overhead) / iters. */
    double want = (m.d[3].value[t] - m.overhead[0][t]) / (double)m.iters[0];
    is_near(cb_measurement_per_op(&m, 3, t), want, 1e-9, "per-op = (delta - overhead) / iters");
    ok(coarse_ok(m.overhead[0][t], tsc) && m.overhead[0][t] < m.d[3].value[t],
       "empty-batch overhead is positive and below a batch");
    int tc = cb_counters_find(&cs, "task-clock");
    if (tc >= 0 && cs.c[tc].supported)
        ok(m.d[0].value[tc] > 0, "task-clock counted in the samples");
    else
        ok(isnan(m.d[0].value[tc]), "unsupported task-clock is NaN, not 0");
    cb_measurement_free(&m);

    /* Adaptive mode: at least min_samples, at most max_samples, and a reason. */
    o.reps = 0;
    o.min_samples = 10;
    o.max_samples = 40;
    o.case_seconds = 0.2;
    cb_harness_init(&h, &cs, &o);
    memset(&g_state, 0, sizeof g_state);
    is_int(cb_harness_measure(&h, &c, &m), 0, "adaptive measure");
    ok(m.n >= 10 && m.n <= 40, "adaptive sample count within bounds (%zu)", m.n);
    ok(m.why == CB_STOP_CI || m.why == CB_STOP_TIME || m.why == CB_STOP_MAX, "a stop reason is given");
    if (m.why == CB_STOP_CI)
        ok(m.ci_pct <= 1.0, "stopped on CI only when within 1%% (%.2f%%)", m.ci_pct);
    else
        ok(m.ci_pct > 1.0 || m.n == 40, "went on while the CI was wider than 1%% (%.2f%%)", m.ci_pct);
    cb_measurement_free(&m);

    /* A signal mid-case stops it with -EINTR and keeps what was taken. */
    volatile sig_atomic_t stop = 0;
    h.stop = &stop;
    o.reps = 50;
    h.o.reps = 50;
    memset(&g_state, 0, sizeof g_state);
    g_state.stop = &stop;
    g_state.stop_after = 8;   /* warm-up and sizing calls come first */
    int rc = cb_harness_measure(&h, &c, &m);
    is_int(rc, -EINTR, "an interrupt ends the case with -EINTR");
    ok(m.n < 50, "fewer samples than asked after the interrupt (%zu)", m.n);
    is_int(g_state.teardowns, 1, "teardown still ran");
    cb_measurement_free(&m);
    h.stop = NULL;

    /* A failing setup is reported and nothing runs. */
    memset(&g_state, 0, sizeof g_state);
    c.size = 13;
    is_int(cb_harness_measure(&h, &c, &m), -ENOMEM, "setup failure is returned");
    is_int(g_state.calls, 0, "nothing ran after a failed setup");

    /* With a core-clock estimate, each case's estimated cycles are its TSC
     * ticks times the core/TSC ratio measured beside its samples. */
    cb_counters_close(&cs);
    is_int(cb_counters_open(&cs, spec, (int)n, tsc, cb_core_ghz_estimate(tsc, 5, NULL)), 0,
           "open with a core-clock estimate");
    cb_harness_defaults(&o);
    o.reps = 9;
    cb_harness_init(&h, &cs, &o);
    int est = cb_counters_find(&cs, "cycles-est");
    t = cb_counters_find(&cs, "tsc");
    c.size = 100;
    memset(&g_state, 0, sizeof g_state);
    is_int(cb_harness_measure(&h, &c, &m), 0, "measure with the estimate");
    if (emulated)
        ok(1, "a plausible core/TSC ratio # SKIP " CB_TEST_NO_PERF_WHY ": timing means nothing");
    else
        ok(plausible_ratio(m.core_per_tick, tsc) > 0.2 && plausible_ratio(m.core_per_tick, tsc) < 10,
           "a plausible core/TSC ratio (%.3f)", m.core_per_tick);
    int same = 1;
    for (size_t k = 0; k < m.n; k++)
        same &= fabs(m.d[k].value[est] - m.d[k].value[t] * m.core_per_tick) <=
                1e-9 * m.d[k].value[est];
    ok(same, "every sample's estimate is its TSC ticks x the case's ratio");
    is_near(m.overhead[0][est], m.overhead[0][t] * m.core_per_tick, 1e-6 * m.overhead[0][est] + 1e-9,
            "and so is the empty-batch overhead");
    cb_measurement_free(&m);

    /* Rounds: each sets the case up anew, sizes its own batch, measures its
     * own empty batch, and takes ceil(reps / rounds) samples; the pause
     * comes between rounds. */
    o.reps = 7;
    o.rounds = 3;
    o.pause_ms = 30;
    cb_harness_init(&h, &cs, &o);
    memset(&g_state, 0, sizeof g_state);
    uint64_t t0 = cb_tsc_begin();
    is_int(cb_harness_measure(&h, &c, &m), 0, "measure in 3 rounds of ceil(7/3) samples");
    double wall_ms = (double)(cb_tsc_end() - t0) / (tsc * 1e6);
    is_int(m.n, 9, "3 rounds x 3 samples");
    is_int(m.rounds, 3, "3 rounds recorded");
    is_int(g_state.setups, 3, "setup once per round");
    is_int(g_state.teardowns, 3, "teardown once per round");
    int order = 1;
    for (size_t k = 0; k < m.n; k++)
        order &= m.round[k] == (int)(k / 3);
    ok(order, "each sample knows its round, in order");
    ok(wall_ms >= 2 * 30.0, "two pauses of 30 ms between the rounds (%.0f ms in all)", wall_ms);
    int per_round = 1;
    for (size_t k = 0; k < m.n; k++) {
        int r = m.round[k];
        double w = (m.d[k].value[est] - m.overhead[r][est]) / (double)m.iters[r];
        per_round &= cb_measurement_iters(&m, k) == m.iters[r] &&
                     fabs(cb_measurement_per_op(&m, k, est) - w) <= 1e-9 * fabs(w) &&
                     coarse_ok(m.overhead[r][est], tsc) && m.iters[r] > 0;
    }
    ok(per_round, "per-op values use their own round's batch size and overhead");
    /* Each round's estimate is scaled by that round's own ratio: within a
     * round one factor relates every sample's estimate to its ticks. */
    int scaled = 1;
    for (size_t k = 1; k < m.n; k++)
        if (m.round[k] == m.round[k - 1])
            scaled &= fabs(m.d[k].value[est] / m.d[k].value[t] -
                           m.d[k - 1].value[est] / m.d[k - 1].value[t]) < 1e-9;
    ok(scaled, "within a round, one core/TSC ratio scales every sample");
    cb_measurement_free(&m);

    /* Adaptive with rounds: each round gets its share of the sample limits. */
    o.reps = 0;
    o.rounds = 4;
    o.min_samples = 10;
    o.max_samples = 40;
    o.case_seconds = 0.2;
    cb_harness_init(&h, &cs, &o);
    memset(&g_state, 0, sizeof g_state);
    is_int(cb_harness_measure(&h, &c, &m), 0, "adaptive measure in 4 rounds");
    int bounds = m.rounds == 4;
    for (int r = 0; r < 4; r++) {
        int nr = 0;
        for (size_t k = 0; k < m.n; k++)
            nr += m.round[k] == r;
        bounds &= nr >= 3 && nr <= 10;
    }
    ok(bounds, "every round took between ceil(10/4) and 40/4 samples (%zu in all)", m.n);
    cb_measurement_free(&m);

    struct cb_sb err = CB_SB_INIT;
    int pinned;
    ok(cb_pin_cpu(4000, &pinned, &err) == -EINVAL && strstr(err.buf, "4000"),
       "pinning to a CPU that does not exist is refused: %s", err.buf);
    ok(cb_pin_cpu(-1, &pinned, &err) == 0 && pinned >= 0, "pin to the current CPU (%d)",
       pinned);
    cb_counters_close(&cs);
    cb_sb_release(&err);
    return tap_done();
}
