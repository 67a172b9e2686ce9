/* cpuclass.c — the default CPU and a CPU's class (see cpuclass.h). */
#define _GNU_SOURCE
#include "host/cpuclass.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Walk list's ranges; f(lo, hi, ctx) for each.  -1 when malformed. */
static int walk(const char *list, void (*f)(long, long, void *), void *ctx)
{
    if (!list || !*list)
        return -1;
    if (strcmp(list, "none") == 0)
        return 0;
    const char *p = list;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        long lo = strtol(p, &end, 10), hi = lo;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1]))
                return -1;
            hi = strtol(p + 1, &end, 10);
            p = end;
        }
        if (hi < lo)
            return -1;
        f(lo, hi, ctx);
        if (*p == ',')
            p++;
        else if (*p && !isspace((unsigned char)*p))
            return -1;
        else if (*p)
            break;
    }
    return 0;
}

struct has_ctx {
    long cpu;
    int found;
    long count;
};

static void has_range(long lo, long hi, void *ctx)
{
    struct has_ctx *c = ctx;
    c->found |= c->cpu >= lo && c->cpu <= hi;
    c->count += hi - lo + 1;
}

int cb_cpulist_has(const char *list, int cpu)
{
    struct has_ctx c = {.cpu = cpu};
    return walk(list, has_range, &c) < 0 ? -1 : c.found;
}

int cb_cpulist_count(const char *list)
{
    struct has_ctx c = {.cpu = -1};
    return walk(list, has_range, &c) < 0 ? -1 : (int)c.count;
}

/* The first line of sysroot + rel, trailing whitespace cut; 0 or -1. */
static int read1(const char *sysroot, const char *rel, char *out, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", sysroot ? sysroot : "", rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(out, (int)len, f))
        out[0] = '\0';
    fclose(f);
    size_t n = strlen(out);
    while (n && isspace((unsigned char)out[n - 1]))
        out[--n] = '\0';
    return 0;
}

/* An Intel hybrid part's list of P-cores; 0, or -1 when not hybrid. */
static int hybrid_cores(const char *sysroot, char *list, size_t len)
{
    char atom[256];
    if (read1(sysroot, "/sys/devices/cpu_atom/cpus", atom, sizeof atom) < 0 || !atom[0])
        return -1;
    return read1(sysroot, "/sys/devices/cpu_core/cpus", list, len);
}

static long capacity(const char *sysroot, int cpu)
{
    char rel[96], v[32];
    snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
    return read1(sysroot, rel, v, sizeof v) == 0 && isdigit((unsigned char)v[0]) ? strtol(v, NULL, 10)
                                                                                : -1;
}

void cb_cpu_core_type(const char *sysroot, int cpu, char *out, size_t len)
{
    char list[256];
    out[0] = '\0';
    if (cpu < 0)
        return;
    if (hybrid_cores(sysroot, list, sizeof list) == 0) {
        snprintf(out, len, "%s", cb_cpulist_has(list, cpu) == 1 ? "core" : "atom");
        return;
    }
    long c = capacity(sysroot, cpu);
    if (c >= 0)
        snprintf(out, len, "capacity %ld", c);
}

int cb_cpu_numa_node(const char *sysroot, int cpu)
{
    char path[512];
    if (cpu < 0)
        return -1;
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d", sysroot ? sysroot : "", cpu);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int node = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4]))
            node = atoi(e->d_name + 4);
    closedir(d);
    return node;
}

int cb_cpu_default(const char *sysroot, const cpu_set_t *allowed)
{
    char list[256];
    int hybrid = hybrid_cores(sysroot, list, sizeof list) == 0;
    long best_cap = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, allowed) && !hybrid && capacity(sysroot, c) > best_cap)
            best_cap = capacity(sysroot, c);
    int pick = -1, any = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, allowed))
            continue;
        any = c;
        if (hybrid ? cb_cpulist_has(list, c) == 1 : capacity(sysroot, c) == best_cap)
            pick = c;
    }
    return pick >= 0 ? pick : any;
}
