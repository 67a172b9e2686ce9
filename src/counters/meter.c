/* meter.c — the contention meter against its own baseline (see meter.h). */
#define _GNU_SOURCE
#include "counters/meter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/tsc.h"
#include "util/sort.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

const char *cb_meter_kind_name(enum cb_meter_kind k)
{
    switch (k) {
    case CB_METER_SMT:      return "smt";
    case CB_METER_HOST:     return "host";
    case CB_METER_UNSTABLE: return "unstable";
    case CB_METER_NONE:     break;
    }
    return "none";
}

const char *cb_meter_label(enum cb_meter_kind k)
{
    switch (k) {
    case CB_METER_SMT:      return "SMT sibling busy";
    case CB_METER_HOST:     return "host contention";
    case CB_METER_UNSTABLE: return "meter unstable";
    case CB_METER_NONE:     break;
    }
    return "no meter";
}

int cb_meter_kind_parse(const char *s)
{
    for (int k = CB_METER_NONE; k <= CB_METER_UNSTABLE; k++)
        if (s && strcmp(s, cb_meter_kind_name((enum cb_meter_kind)k)) == 0)
            return k;
    return -1;
}

/* The first line of sysroot/path into buf, trailing blanks cut; 0 when it
 * could not be read or was empty. */
static int first_line(const char *sysroot, const char *path, char *buf, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, "%s%s", sysroot ? sysroot : "", path);
    FILE *f = fopen(p, "r");
    buf[0] = 0;
    if (!f)
        return 0;
    if (!fgets(buf, (int)len, f))
        buf[0] = 0;
    fclose(f);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\0'))
        buf[--n] = 0;
    return n > 0;
}

/* DMI system vendors (or product names) that only a virtual machine
 * reports.  "Amazon EC2" is also the vendor of EC2's bare-metal
 * instances, whose product name ends in ".metal". */
static const char *const vm_vendors[] = {"QEMU", "KVM", "Amazon EC2", "Google", "Xen",
                                         "Microsoft Corporation", "VMware", "innotek",
                                         "Parallels", "OpenStack", "Alibaba Cloud", "Red Hat"};

int cb_meter_guess_vm(const char *sysroot, char *what, size_t len)
{
    char v[128], prod[128];
    if (first_line(sysroot, "/sys/hypervisor/type", v, sizeof v)) {
        snprintf(what, len, "/sys/hypervisor/type says %s", v);
        return 1;
    }
    if (first_line(sysroot, "/proc/device-tree/hypervisor/compatible", v, sizeof v)) {
        snprintf(what, len, "the device tree has a hypervisor node (%s)", v);
        return 1;
    }
    int have_vendor = first_line(sysroot, "/sys/class/dmi/id/sys_vendor", v, sizeof v);
    first_line(sysroot, "/sys/class/dmi/id/product_name", prod, sizeof prod);
    for (size_t i = 0; have_vendor && i < sizeof vm_vendors / sizeof vm_vendors[0]; i++) {
        size_t k = strlen(vm_vendors[i]);
        if (strncmp(v, vm_vendors[i], k) != 0 && strncmp(prod, vm_vendors[i], k) != 0)
            continue;
        size_t pl = strlen(prod);
        if (strcmp(vm_vendors[i], "Amazon EC2") == 0 && pl > 6 && strcmp(prod + pl - 6, ".metal") == 0) {
            snprintf(what, len, "DMI says %s, %s: an EC2 bare-metal instance", v, prod);
            return 0;
        }
        snprintf(what, len, "DMI says %s%s%s", v, prod[0] ? ", " : "", prod);
        return 1;
    }
    if (have_vendor) {
        snprintf(what, len, "DMI says %s%s%s, not a known hypervisor", v, prod[0] ? ", " : "", prod);
        return 0;
    }
    snprintf(what, len, "no /sys/hypervisor, device-tree hypervisor node or DMI vendor: unknown");
    return -1;
}

int cb_meter_hypervisor(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    return (c >> 31) & 1;
#else
    char what[256];
    return cb_meter_guess_vm(NULL, what, sizeof what) > 0;
#endif
}

/* "0-1", "0,64", "3": how many CPUs the list names. */
static int count_list(const char *s)
{
    int n = 0;
    while (*s && *s != '\n') {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s || lo < 0)
            return 0;
        s = end;
        if (*s == '-') {
            hi = strtol(s + 1, &end, 10);
            if (end == s + 1 || hi < lo)
                return 0;
            s = end;
        }
        n += (int)(hi - lo + 1);
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return 0;
    }
    return n;
}

int cb_meter_siblings(const char *sysroot, int cpu)
{
    char path[512], buf[256];
    if (cpu < 0)
        return 0;
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
             sysroot ? sysroot : "", cpu);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = fgets(buf, sizeof buf, f) ? count_list(buf) : 0;
    fclose(f);
    return n;
}

enum cb_meter_kind cb_meter_decide(int siblings, int hypervisor, double spread_pct)
{
    enum cb_meter_kind k;
    if (siblings >= 2)
        k = CB_METER_SMT;
    else if (hypervisor || siblings == 0)
        k = CB_METER_HOST;
    else
        return CB_METER_NONE;
    if (isfinite(spread_pct) && spread_pct > CB_METER_MAX_SPREAD)
        return CB_METER_UNSTABLE;
    return k;
}

static double real_meter(void *ctx)
{
    (void)ctx;
    return cb_smt_contention();
}

void cb_meter_baseline(struct cb_meter *m, int cpu, int siblings, int hypervisor,
                       double (*read)(void *), void *ctx, int n)
{
    memset(m, 0, sizeof *m);
    m->cpu = cpu;
    m->siblings = siblings;
    m->hypervisor = hypervisor;
    m->spread_pct = NAN;
    m->kind = cb_meter_decide(siblings, hypervisor, NAN);
    if (m->kind == CB_METER_NONE) {
        snprintf(m->why, sizeof m->why,
                 "CPU %d has no sibling hardware thread (thread_siblings_list lists %d) and no "
                 "hypervisor" CB_HV_NONE_SAID ": nothing can share its core, so the meter is not read",
                 cpu, siblings);
        return;
    }
    if (!read)
        read = real_meter;
    if (n < 5)
        n = 5;
    double *v = malloc((size_t)n * sizeof *v);
    int k = 0;
    for (int i = 0; v && i < n; i++) {
        double r = read(ctx);
        if (r > 0 && isfinite(r))
            v[k++] = r;
    }
    m->n = k;
    if (k < 5) {
        m->kind = CB_METER_UNSTABLE;
        snprintf(m->why, sizeof m->why, "only %d of %d baseline readings worked: the meter is off",
                 k, n);
        free(v);
        return;
    }
    cb_sort_doubles(v, (size_t)k);
    m->q[0] = v[0];
    m->q[1] = v[k / 4];
    m->q[2] = v[k / 2];
    m->q[3] = v[k - 1 - k / 4];
    m->q[4] = v[k - 1];
    free(v);
    m->baseline = m->q[2];
    m->spread_pct = (m->q[3] - m->q[1]) / m->q[2] * 100.0;
    m->kind = cb_meter_decide(siblings, hypervisor, m->spread_pct);
    const char *whose =
        siblings >= 2 ? "the kernel lists a sibling thread of this core"
        : siblings == 1 ? "a guest (" CB_HV_EVIDENCE ") whose vCPU shows no sibling: a busy core "
                          "on the host is invisible here, so a shift is called host contention, never SMT"
                        : "topology unknown: a shift is called contention";
    if (m->kind == CB_METER_UNSTABLE)
        snprintf(m->why, sizeof m->why,
                 "baseline on CPU %d: median %.3f, middle half %.1f%% wide (over %.0f%%): the meter "
                 "cannot tell a %.0f%% shift here, so it is off", cpu, m->baseline, m->spread_pct,
                 CB_METER_MAX_SPREAD, (CB_METER_SHIFT - 1) * 100);
    else
        snprintf(m->why, sizeof m->why,
                 "baseline on CPU %d: median %.3f (middle half %.1f%% wide)%s; %s; a sample is flagged "
                 "when its reading is over %.2fx this baseline", cpu, m->baseline, m->spread_pct,
                 m->baseline > CB_METER_SHIFT
                     ? ", above the ~1.0 of a core used by no one else: this core was likely shared "
                       "from the start, so its figures may all run high (calibrate --smt shows a "
                       "quieter CPU, if any)"
                     : "",
                 whose, CB_METER_SHIFT);
}

double cb_meter_relative(const struct cb_meter *m, double raw)
{
    if ((m->kind != CB_METER_SMT && m->kind != CB_METER_HOST) || !(m->baseline > 0) ||
        !(raw > 0) || !isfinite(raw))
        return NAN;
    return raw / m->baseline;
}
