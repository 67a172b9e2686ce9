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
#include "stats.h"
#include "tsc.h"

static void ticks_line(const char *what, double ticks, double ratio)
{
    if (isnan(ticks))
        printf("  %-26s %s\n", what, "not available");
    else
        printf("  %-26s %8.0f TSC ticks  (~%.0f core cycles, estimated)\n", what, ticks, ticks * ratio);
}

/* The SMT contention meter on the calling thread's CPU: 200 readings over
 * about 100 ms (the sibling's load comes and goes within milliseconds, so
 * one instant says little).  Busy-waits between readings: sleeping would
 * hand the core to whoever shares it. */
static void smt_reading(double tsc_ghz, double *median, double *shared)
{
    enum { N = 200 };
    double r[N];
    int n = 0, over = 0;
    uint64_t gap = (uint64_t)(500e3 * (tsc_ghz > 0 ? tsc_ghz : 2.0)); /* 0.5 ms */
    for (int i = 0; i < N; i++) {
        double m = cb_smt_contention();
        if (m > 0) {
            r[n++] = m;
            over += m > CB_CONTENDED_RATIO;
        }
        uint64_t t0 = cb_tsc_begin();
        while (cb_tsc_end() - t0 < gap)
            ;
    }
    cb_sort_doubles(r, (size_t)n);
    *median = n ? cb_quantile_sorted(r, (size_t)n, 0.5) : NAN;
    *shared = n ? (double)over / n : NAN;
}

/* `calibrate --smt`: the meter on every CPU this process may use, one line
 * each, so a user (or bench/detection.sh) can pin runs to a quiet one. */
static int smt_all(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        cb_die_msg("cannot read this process's CPU affinity");
        return 1;
    }
    double ghz = cb_tsc_ghz(NULL);
    printf("SMT contention meter (straddling add loop / unrolled add chain; 1.0 alone on the core;\n"
           "over %.2f means the core's other hardware thread is busy), 200 readings over ~0.1 s per CPU\n",
           CB_CONTENDED_RATIO);
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char err[256];
        int pinned;
        /* Back to the whole set first: pinning checks against the current one. */
        if (sched_setaffinity(0, sizeof set, &set) != 0 || cb_pin_cpu(c, &pinned, err, sizeof err) < 0)
            continue;
        double med, shared;
        smt_reading(ghz, &med, &shared);
        printf("cpu %d  median %.2f  shared %3.0f%%  %s\n", c, med, 100 * shared,
               shared > 0.5 ? "shared" : "quiet");
    }
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    int cpu = -1;
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: cyclebudget calibrate [--smt]\n"
               "  prints counter read costs, the TSC frequency, the core-clock estimate and the SMT\n"
               "  contention meter; with --smt, only the meter, for every CPU this process may use\n");
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
    printf("core clock         %.3f GHz estimated (dependent-add chain vs TSC, spread %.2f%%)\n",
           k.core_ghz, k.core_spread);
    double ratio = k.tsc_ghz > 0 ? k.core_ghz / k.tsc_ghz : NAN;
    double smt_med, smt_shared;
    smt_reading(k.tsc_ghz, &smt_med, &smt_shared);
    printf("SMT meter          %.2f median, %.0f%% of readings over %.2f: %s\n", smt_med, 100 * smt_shared,
           CB_CONTENDED_RATIO,
           smt_shared > 0.5 ? "this core is SHARED with a busy hardware thread (try another --cpu)"
                            : "this core is quiet");

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
