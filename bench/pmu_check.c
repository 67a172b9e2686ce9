/* pmu_check.c — the checks of bench/pmu-check.sh, through the tool's own
 * code paths (events.c resolves, counters.c opens and reads), for the day a
 * hardware PMU is at hand: no host this project has been measured on had
 * one, so rdpmc and real PMU cycles have never been exercised.
 *
 *   rdpmc      the group's counts read in user space (rdpmc on x86, mrs of
 *              the PMU's counter on arm64) agree with one read() of the
 *              same group at the same moment, within 0.1%
 *   estimate   PMU core cycles over a loop against the TSC-based estimate
 *              (the ratio printed; a pass within 0.8..1.25); skipped
 *              under CB_EMULATED, where cycles are the emulator's
 *   multiplex  a group forced to share counters (eight competing groups):
 *              running < enabled, and scaled = raw x enabled / running
 *   prefetch   prefetch-drops resolves on this PMU and every part opens
 *              (skipped, saying why, on a PMU that has no such event: Arm)
 *
 * One line per check, "PASS"/"FAIL"; exit 0 when all pass, 1 when one
 * fails, 77 with "SKIP: no hardware PMU (...)" when cycles cannot be opened
 * (automake's skip status, so a CI step can tell "not here" from "broken"). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/counters.h"
#include "counters/events.h"
#include "counters/tsc.h"

static int failed;

static void verdict(int pass, const char *check, const char *fmt, double a, double b)
{
    printf("%-4s %-10s ", pass ? "PASS" : "FAIL", check);
    printf(fmt, a, b);
    putchar('\n');
    failed |= !pass;
}

/* Work the counters can see: a dependent chain the compiler keeps. */
static uint64_t spin(uint64_t n)
{
    volatile uint64_t x = 1;
    for (uint64_t i = 0; i < n; i++)
        x = x * 3 + i;
    return x;
}

/* Open names as one group; the spec count, or -1 (said). */
static int open_set(struct cb_counters *cs, const char *const *names, int n, double core)
{
    struct cb_event_spec specs[CB_MAX_COUNTERS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        size_t got = 0;
        if (cb_events_resolve(names[i], specs + k, (size_t)(CB_MAX_COUNTERS - 2 - k), &got) < 0) {
            printf("FAIL %-10s %s\n", names[i], specs[k].why);
            failed = 1;
            return -1;
        }
        k += (int)got;
    }
    const char *how;
    if (cb_counters_open(cs, specs, k, cb_tsc_ghz(&how), core) < 0)
        return -1;
    return k;
}

/* Each event read in user space against one read() of the group around
 * the same work: the user-space delta must agree with read()'s within
 * 0.1% (the two reads are a few hundred instructions apart). */
static void check_rdpmc(struct cb_counters *cs)
{
    static const char *const names[] = {"cycles", "instructions"};
    for (int n = 0; n < 2; n++) {
        int k = cb_counters_find(cs, names[n]);
        if (k < 0 || cs->c[k].method != CB_READ_RDPMC) {
            printf("FAIL rdpmc      %s are not read in user space here (%s)\n", names[n],
                   k < 0 ? "not open" : cs->c[k].why[0] ? cs->c[k].why : cb_read_method_name(cs->c[k].method));
            failed = 1;
            continue;
        }
        struct cb_reading a, b;
        cb_counters_read(cs, &a);
        int64_t ra = cb_counters_read_kernel(cs, k);
        spin(20000000);
        cb_counters_read_end(cs, &b);
        int64_t rb = cb_counters_read_kernel(cs, k);
        double viaread = (double)(rb - ra), viardpmc = (double)(b.value[k] - a.value[k]);
        int user = a.method[k] == CB_READ_RDPMC && b.method[k] == CB_READ_RDPMC;
        printf("     rdpmc      %s: user-space reads %s\n", names[n], user ? "at both ends" : "fell back to read()");
        verdict(user && ra >= 0 && rb >= 0 && fabs(viardpmc / viaread - 1) <= 0.001, "rdpmc",
                "by user-space read %.0f, by read() %.0f (within 0.1%%)", viardpmc, viaread);
    }
}

static void check_estimate(struct cb_counters *cs)
{
    int cyc = cb_counters_find(cs, "cycles"), est = cb_counters_find(cs, "cycles-est");
    if (cyc < 0 || est < 0 || !cs->c[est].supported) {
        printf("FAIL estimate  no estimated cycles beside the PMU's (core clock not estimated)\n");
        failed = 1;
        return;
    }
    const char *emu = getenv("CB_EMULATED");
    if (emu && *emu && strcmp(emu, "0") != 0) {
        /* an emulator's cycles are its own rule (qemu -icount: one an
         * instruction), not a core's: nothing for the estimate to match */
        printf("SKIP estimate  emulated (%s): PMU cycles there are not a core's\n", emu);
        return;
    }
    struct cb_reading a, b;
    struct cb_delta d;
    cb_counters_read(cs, &a);
    spin(50000000);
    cb_counters_read_end(cs, &b);
    cb_counters_delta(cs, &a, &b, &d);
    double ratio = d.value[cyc] / d.value[est];
    verdict(ratio > 0.8 && ratio < 1.25, "estimate",
            "PMU cycles / estimated cycles = %.3f (estimate at %.2f GHz; pass 0.8..1.25)", ratio,
            cs->core_ghz);
}

/* Competing groups of one cycle counter each, flexible (not pinned) in
 * this task's context, so that the kernel rotates them and the checked
 * group: it is on the counters part of the time.  Pinned ones would take
 * every counter for good and leave the checked group never running. */
static int compete(int *fds, int n)
{
    int got = 0;
    for (int i = 0; i < n; i++) {
        struct perf_event_attr at = {.type = PERF_TYPE_HARDWARE, .size = sizeof at,
                                     .config = PERF_COUNT_HW_CPU_CYCLES,
                                     .exclude_kernel = 1, .exclude_hv = 1};
        fds[i] = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);
        got += fds[i] >= 0;
    }
    return got;
}

static void check_multiplex(double core)
{
    static const char *const names[] = {"cycles", "instructions", "cache-misses"};
    struct cb_counters cs;
    int fds[8];
    int pinned = compete(fds, 8);
    if (open_set(&cs, names, 3, core) < 0)
        return;
    struct cb_reading a, b;
    struct cb_delta d;
    cb_counters_read(&cs, &a);
    spin(50000000);
    cb_counters_read_end(&cs, &b);
    cb_counters_delta(&cs, &a, &b, &d);
    int k = cb_counters_find(&cs, "instructions");
    double want = d.raw[k] * (double)d.enabled[k] / (double)d.running[k];
    int mux = d.running[k] < d.enabled[k] && d.scaled[k];
    printf("     multiplex  %d competing groups; instructions raw %.0f enabled %llu running %llu "
           "scaled %.0f\n", pinned, d.raw[k], (unsigned long long)d.enabled[k],
           (unsigned long long)d.running[k], d.value[k]);
    verdict(mux && fabs(d.value[k] / want - 1) < 1e-6, "multiplex",
            "running/enabled %.3f, scaled / (raw x enabled / running) = %.9f",
            (double)d.running[k] / (double)d.enabled[k], d.value[k] / want);
    cb_counters_close(&cs);
    for (int i = 0; i < 8; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

static void check_prefetch(double core)
{
    static const char *const names[] = {"prefetch-drops"};
    struct cb_counters cs;
    struct cb_event_spec spec[CB_EVENT_MAX_PARTS];
    size_t got = 0;
    if (cb_events_resolve(names[0], spec, CB_EVENT_MAX_PARTS, &got) == -EOPNOTSUPP) {
        printf("SKIP prefetch  %s\n", spec[0].why);
        return;
    }
    int n = open_set(&cs, names, 1, core);
    if (n < 0)
        return;
    int open = 0;
    for (int i = 0; i < cs.n; i++)
        open += cs.c[i].spec.source == CB_SRC_PMU && cs.c[i].supported;
    for (int i = 0; i < cs.n; i++)
        if (cs.c[i].spec.source == CB_SRC_PMU && !cs.c[i].supported)
            printf("     prefetch   %s\n", cs.c[i].why);
    verdict(open == n && n > 0, "prefetch", "prefetch-drops: %.0f of %.0f parts open",
            (double)open, (double)n);
    cb_counters_close(&cs);
}

int main(void)
{
    if (cb_events_init() < 0) {
        printf("FAIL init      libpfm4 did not initialise\n");
        return 1;
    }
    const char *how;
    double spread, core = cb_core_ghz_estimate(cb_tsc_ghz(&how), 15, &spread);
    static const char *const names[] = {"cycles", "instructions"};
    struct cb_counters cs;
    if (open_set(&cs, names, 2, core) < 0)
        return 1;
    if (!cs.c[0].supported) {
        printf("SKIP: no hardware PMU (%s)\n", cs.c[0].why);
        cb_counters_close(&cs);
        return 77;
    }
    printf("     pmu        %s; core clock estimate %.2f GHz (spread %.1f%%)\n", cb_events_pmu(),
           core, spread);
    check_rdpmc(&cs);
    check_estimate(&cs);
    cb_counters_close(&cs);
    check_multiplex(core);
    check_prefetch(core);
    return failed ? 1 : 0;
}
