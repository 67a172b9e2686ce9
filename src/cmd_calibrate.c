/* cmd_calibrate.c — `cyclebudget calibrate`: what measuring costs here.
 *
 * Reading a counter is not free (Weaver: read() ~900-1600 cycles, rdpmc
 * ~140-200); the harness sizes batches from these figures, and users should
 * see them. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "counters.h"
#include "events.h"
#include "harness.h"
#include "tsc.h"

static void ticks_line(const char *what, double ticks, double ratio)
{
    if (isnan(ticks))
        printf("  %-26s %s\n", what, "not available");
    else
        printf("  %-26s %8.0f TSC ticks  (~%.0f core cycles, estimated)\n", what, ticks, ticks * ratio);
}

int cmd_calibrate(int argc, char **argv)
{
    int cpu = -1;
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("usage: cyclebudget calibrate\n  prints counter read costs, the TSC frequency and the core-clock estimate\n");
        return 0;
    }
    if (argc > 1) {
        cb_die_msg("calibrate takes no arguments; unexpected '%s'", argv[1]);
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
