/* test_meter.c — the contention meter's kind, baseline and shift rule, from
 * readings and sysfs trees made here: nothing is timed. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters/meter.h"
#include "tap.h"
#include "tree.h"

static void write_file(const char *dir, int cpu, const char *text)
{
    char path[512];
    const char *parts[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/cpu"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", dir, parts[i]);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d", dir, cpu);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/topology", dir, cpu);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", dir, cpu);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* A scripted sequence of raw readings. */
struct script {
    const double *v;
    int n, i;
};
static double next_reading(void *ctx)
{
    struct script *s = ctx;
    return s->v[s->i++ % s->n];
}

/* The arm64 hypervisor guess over trees made here, one per case. */
static void test_guess_vm(const char *dir)
{
    struct {
        const char *rel[2], *text[2];
        int want;
        const char *says, *what;
    } t[] = {
        {{"sys/hypervisor/type"}, {"xen\n"}, 1, "xen", "/sys/hypervisor/type"},
        {{"proc/device-tree/hypervisor/compatible"}, {"xen,xen"}, 1, "xen,xen", "a device-tree node"},
        {{"sys/class/dmi/id/sys_vendor", "sys/class/dmi/id/product_name"},
         {"QEMU\n", "KVM Virtual Machine\n"}, 1, "QEMU", "DMI QEMU"},
        {{"sys/class/dmi/id/sys_vendor", "sys/class/dmi/id/product_name"},
         {"Amazon EC2\n", "c6g.large\n"}, 1, "Amazon EC2", "an EC2 guest"},
        {{"sys/class/dmi/id/sys_vendor", "sys/class/dmi/id/product_name"},
         {"Amazon EC2\n", "c6g.metal\n"}, 0, "c6g.metal", "EC2 bare metal"},
        {{"sys/class/dmi/id/sys_vendor", "sys/class/dmi/id/product_name"},
         {"Ampere(TM)\n", "Mt.Jade\n"}, 0, "Ampere", "an Ampere server"},
        {{NULL}, {NULL}, -1, "unknown", "nothing to go by"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char sub[600], what[256], cmd[700];
        snprintf(sub, sizeof sub, "%s/vm%zu", dir, i);
        mkdir(sub, 0755);
        for (int k = 0; k < 2 && t[i].rel[k]; k++)
            tree_put(sub, t[i].rel[k], t[i].text[k]);
        int got = cb_meter_guess_vm(sub, what, sizeof what);
        ok(got == t[i].want && strstr(what, t[i].says), "guess_vm, %s: %d (%s)", t[i].what, got, what);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", sub);
        if (system(cmd) != 0)
            ok(0, "remove %s", sub);
    }
}

int main(void)
{
    char dir[] = "/tmp/cb-meter-XXXXXX";
    ok(mkdtemp(dir) != NULL, "a sysfs tree to read");
    write_file(dir, 0, "0-1\n");
    write_file(dir, 1, "1\n");
    write_file(dir, 2, "2,66\n");
    write_file(dir, 3, "garbage\n");
    is_int(cb_meter_siblings(dir, 0), 2, "'0-1': two threads on cpu0's core");
    is_int(cb_meter_siblings(dir, 1), 1, "'1': cpu1 alone on its core");
    is_int(cb_meter_siblings(dir, 2), 2, "'2,66': two threads");
    is_int(cb_meter_siblings(dir, 3), 0, "an unreadable list: unknown (0)");
    is_int(cb_meter_siblings(dir, 7), 0, "no such CPU: unknown (0)");

    is_int(cb_meter_decide(2, 0, NAN), CB_METER_SMT, "a visible sibling: smt");
    is_int(cb_meter_decide(2, 1, NAN), CB_METER_SMT, "a guest that shows a sibling: smt");
    is_int(cb_meter_decide(1, 1, NAN), CB_METER_HOST, "a guest without a visible sibling: host, never smt");
    is_int(cb_meter_decide(1, 0, NAN), CB_METER_NONE, "bare metal without a sibling: none");
    is_int(cb_meter_decide(0, 0, NAN), CB_METER_HOST, "topology unknown: contention, not smt");
    is_int(cb_meter_decide(2, 0, 25.0), CB_METER_UNSTABLE, "a baseline 25%% wide: unstable");
    is_int(cb_meter_decide(2, 0, 5.0), CB_METER_SMT, "a baseline 5%% wide: still smt");

    /* This project's VM on a bad day: the meter read 1.5 for hours while
     * nothing ran.  Against its own baseline that is no shift at all. */
    double busy_idle[] = {1.48, 1.50, 1.52, 1.49, 1.51};
    struct script sc = {busy_idle, 5, 0};
    struct cb_meter m;
    cb_meter_baseline(&m, 1, 1, 1, next_reading, &sc, 101);
    is_int(m.kind, CB_METER_HOST, "a guest with no visible sibling: host");
    is_int(m.n, 101, "101 baseline readings");
    ok(fabs(m.baseline - 1.50) < 1e-12, "baseline: their median, 1.50 (got %.4f)", m.baseline);
    ok(fabs(m.q[0] - 1.48) < 1e-12 && fabs(m.q[4] - 1.52) < 1e-12, "min and max kept");
    ok(m.spread_pct > 0 && m.spread_pct < 3, "spread %.2f%% of the median", m.spread_pct);
    ok(fabs(cb_meter_relative(&m, 1.50) - 1.0) < 1e-12, "an idle reading of 1.50 is 1.0x the baseline");
    ok(cb_meter_relative(&m, 1.60) <= CB_METER_SHIFT, "1.60 is not a significant shift");
    ok(cb_meter_relative(&m, 2.40) > CB_METER_SHIFT, "2.40 is (1.6x)");
    ok(strstr(m.why, "never SMT") != NULL, "why says a shift is host contention, never SMT: %s", m.why);
    ok(!strcmp(cb_meter_label(m.kind), "host contention"), "labelled host contention");

    double noisy[] = {1.0, 1.4, 1.0, 1.4, 1.0, 1.4, 1.2, 1.2};
    struct script sn = {noisy, 8, 0};
    cb_meter_baseline(&m, 0, 2, 0, next_reading, &sn, 101);
    is_int(m.kind, CB_METER_UNSTABLE, "a baseline 40%% wide: the meter goes silent");
    ok(isnan(cb_meter_relative(&m, 3.0)), "and reads nothing (NAN), whatever the reading");

    double fail[] = {0, 0};
    struct script sf = {fail, 2, 0};
    cb_meter_baseline(&m, 0, 2, 0, next_reading, &sf, 101);
    is_int(m.kind, CB_METER_UNSTABLE, "readings that all failed: off");

    cb_meter_baseline(&m, 0, 1, 0, next_reading, &sc, 101);
    is_int(m.kind, CB_METER_NONE, "bare metal, no sibling: no meter");
    is_int(m.n, 0, "and no readings taken");
    ok(isnan(cb_meter_relative(&m, 2.0)), "relative: NAN");
    is_int(cb_meter_kind_parse("host"), CB_METER_HOST, "kind names parse");
    is_int(cb_meter_kind_parse("SMT"), -1, "and only exact names");

    test_guess_vm(dir);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ok(system(cmd) == 0, "tree removed");
    return tap_done();
}
