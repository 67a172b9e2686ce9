/* cmd_calibrate.c — `cyclebudget calibrate`: what measuring costs here.
 *
 * Reading a counter is not free (Weaver: read() ~900-1600 cycles, rdpmc
 * ~140-200); the harness sizes batches from these figures, and users should
 * see them. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "counters.h"
#include "events.h"
#include "harness.h"
#include "meter.h"
#include "stats.h"
#include "tsc.h"

static void ticks_line(const char *what, double ticks, double ratio)
{
    if (isnan(ticks))
        printf("  %-26s %s\n", what, "not available");
    else
        printf("  %-26s %8.0f TSC ticks  (~%.0f core cycles, estimated)\n", what, ticks, ticks * ratio);
}

/* Readings of the meter over about 100 ms on the calling thread's CPU
 * (the sibling's load comes and goes within milliseconds, so one instant
 * says little), relative to m's baseline.  Busy-waits between readings:
 * sleeping would hand the core to whoever shares it. */
static void meter_now(const struct cb_meter *m, double tsc_ghz, double *median, double *shifted)
{
    enum { N = 200 };
    double r[N];
    int n = 0, over = 0;
    uint64_t gap = (uint64_t)(500e3 * (tsc_ghz > 0 ? tsc_ghz : 2.0)); /* 0.5 ms */
    for (int i = 0; i < N; i++) {
        double v = cb_meter_relative(m, cb_smt_contention());
        if (v > 0) {
            r[n++] = v;
            over += v > CB_METER_SHIFT;
        }
        uint64_t t0 = cb_tsc_begin();
        while (cb_tsc_end() - t0 < gap)
            ;
    }
    cb_sort_doubles(r, (size_t)n);
    *median = n ? cb_quantile_sorted(r, (size_t)n, 0.5) : NAN;
    *shifted = n ? (double)over / n : NAN;
}

static void siblings_text(int cpu, char *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    FILE *f = fopen(path, "r");
    snprintf(buf, len, "unreadable");
    if (f) {
        if (fgets(buf, (int)len, f))
            buf[strcspn(buf, "\n")] = 0;
        fclose(f);
    }
}

/* The meter on the calling thread's CPU: its raw figures, what it
 * concludes from them and why. */
static void meter_report(int cpu, double tsc_ghz)
{
    struct cb_meter m;
    char sib[64];
    siblings_text(cpu, sib, sizeof sib);
    int nsib = cb_meter_siblings(NULL, cpu), hv = cb_meter_hypervisor();
    cb_meter_baseline(&m, cpu, nsib, hv, NULL, NULL, CB_METER_BASELINE_N);
    printf("contention meter   %s (%s): thread_siblings_list of cpu%d is \"%s\", cpuid hypervisor "
           "bit %s\n", cb_meter_kind_name(m.kind), cb_meter_label(m.kind), cpu, sib,
           hv ? "set" : "clear");
    printf("  raw reading      time per add of a straddling add/dec/jnz loop over that of an unrolled\n"
           "                   add chain (a busy sibling slows the loop, barely the chain)\n");
    if (m.n)
        printf("  baseline         %d readings: min %.3f  p25 %.3f  median %.3f  p75 %.3f  max %.3f "
               "(middle half %.1f%% wide)\n", m.n, m.q[0], m.q[1], m.q[2], m.q[3], m.q[4], m.spread_pct);
    if (m.kind == CB_METER_SMT || m.kind == CB_METER_HOST) {
        double med, shifted;
        meter_now(&m, tsc_ghz, &med, &shifted);
        printf("  since            200 readings over ~0.1 s: median %.2fx the baseline, %.0f%% over "
               "%.2fx: %s\n", med, 100 * shifted, CB_METER_SHIFT,
               shifted > 0.5 ? "something started using this core since the baseline"
                             : "no shift from the baseline");
    }
    printf("  conclusion       %s\n", m.why);
}

/* `calibrate --smt`: the meter on every CPU this process may use, one line
 * each, so a user (or bench/detection.sh) can pin runs to a quiet one: a
 * lower raw baseline is a quieter core. */
static int smt_all(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        cb_die_msg("cannot read this process's CPU affinity");
        return 1;
    }
    printf("contention meter per CPU (raw: straddling add loop / unrolled add chain; a run flags a\n"
           "sample over %.2fx its own baseline; a lower raw baseline is a quieter core)\n",
           CB_METER_SHIFT);
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char err[256], sib[64];
        int pinned;
        /* Back to the whole set first: pinning checks against the current one. */
        if (sched_setaffinity(0, sizeof set, &set) != 0 || cb_pin_cpu(c, &pinned, err, sizeof err) < 0)
            continue;
        struct cb_meter m;
        siblings_text(c, sib, sizeof sib);
        cb_meter_baseline(&m, c, cb_meter_siblings(NULL, c), cb_meter_hypervisor(), NULL, NULL,
                          CB_METER_BASELINE_N);
        if (m.n)
            printf("cpu %d  %-8s siblings \"%s\"  raw median %.3f  middle half %.1f%% wide\n", c,
                   cb_meter_kind_name(m.kind), sib, m.baseline, m.spread_pct);
        else
            printf("cpu %d  %-8s siblings \"%s\"  not read: %s\n", c, cb_meter_kind_name(m.kind), sib,
                   m.why);
    }
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    int cpu = -1;
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: cyclebudget calibrate [--smt]\n"
               "  prints counter read costs, the TSC frequency, the core-clock estimate (both\n"
               "  estimators) and the contention meter's raw figures and conclusion; with --smt,\n"
               "  only the meter's baseline, for every CPU this process may use\n");
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--smt") == 0)
        return smt_all();
    if (argc > 1) {
        cb_die_msg("calibrate: unexpected '%s' (it takes only --smt; see 'cyclebudget calibrate --help')",
                   argv[1]);
        return CB_EXIT_USAGE;
    }
    char err[256];
    int pinned;
    if (cb_pin_cpu(cpu, &pinned, err, sizeof err) < 0) {
        cb_die_msg("%s", err);
        return 1;
    }
    cb_events_init();
    struct cb_clocks k;
    cb_clocks_measure(&k);
    printf("CPU %d\n", pinned);
    printf("TSC frequency      %.4f GHz (%s)\n", k.tsc_ghz, k.tsc_source);
    printf("core clock         %.3f GHz estimated by the %s (spread %.2f%%)\n", k.core_ghz,
           k.est.method, isfinite(k.est.spread_pct) ? k.est.spread_pct : 0);
    printf("  add chain        %.3f GHz (dependent adds, latency 1; slope of the fastest 20k- and "
           "60k-add windows)\n", k.est.add_ghz);
    printf("  imul chain       %.3f GHz (dependent imuls, latency 3: the independent check)\n",
           k.est.imul_ghz);
    printf("  agreement        %s\n",
           k.est.add_ghz > 0 && k.est.imul_ghz > 0 &&
                   fabs(k.est.add_ghz / k.est.imul_ghz - 1) <= CB_CORE_AGREE
               ? "within 3%: the add chain is taken"
               : "they disagree: the physically consistent one is taken (see tsc.h)");
    double ratio = k.tsc_ghz > 0 ? k.core_ghz / k.tsc_ghz : NAN;
    meter_report(pinned, k.tsc_ghz);

    /* One group as the default run opens it: hardware events where the PMU
     * allows, the software clock always. */
    const char *names[] = {"cycles", "instructions", "task-clock"};
    struct cb_event_spec specs[8];
    int n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t got = 0;
        if (cb_events_resolve(names[i], &specs[n], 8 - (size_t)n, &got) == 0 && got)
            n += (int)got;
    }
    struct cb_counters cs;
    if (cb_counters_open(&cs, specs, n, k.tsc_ghz, k.core_ghz) < 0) {
        cb_die_msg("cannot open counters");
        return 1;
    }
    printf("PMU (libpfm4)      %s\n", cb_events_pmu());
    if (cs.notice[0])
        printf("note               %s\n", cs.notice);
    for (int i = 0; i < cs.n; i++)
        printf("  %-14s %-9s %-8s %s\n", cs.c[i].spec.part,
               cs.c[i].supported ? cb_source_name(cs.c[i].spec.source) : "-",
               cs.c[i].supported ? cb_read_method_name(cs.c[i].method) : "-",
               cs.c[i].supported ? cs.c[i].spec.encoding : cs.c[i].why);
    struct cb_read_cost cost;
    cb_counters_read_cost(&cs, 2001, &cost);
    printf("read cost (median of 2001 reads)\n");
    ticks_line("rdtsc begin+end pair", cost.rdtsc_ticks, ratio);
    ticks_line("read() of the group", cost.syscall_ticks, ratio);
    ticks_line("rdpmc of the group", cost.rdpmc_ticks, ratio);
    ticks_line("one full sample read", cost.read_ticks, ratio);
    printf("a batch must last >= %.0f ticks (%.1f us) for reads to cost < 1%%\n",
           cost.read_ticks * 100, cost.read_ticks * 100 / (k.tsc_ghz * 1e3));
    cb_counters_close(&cs);
    return 0;
}
