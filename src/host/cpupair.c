/* cpupair.c — which two CPUs, and what they share (cpupair.h). */
#define _GNU_SOURCE
#include "host/cpupair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rel_names[] = {"unknown topology", "smt-siblings", "cores of one socket",
                                        "two sockets"};

const char *cb_pair_rel_name(int rel)
{
    return rel >= 0 && rel <= CB_PAIR_SOCKETS ? rel_names[rel] : rel_names[0];
}

static int read_line(const char *root, int cpu, const char *file, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/topology/%s", root, cpu, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

/* 1 when cpu is in the list "0-3,8,10-11". */
static int in_list(const char *s, int cpu)
{
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s)
            return 0;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        if (cpu >= lo && cpu <= hi)
            return 1;
        s = *end == ',' ? end + 1 : end;
        if (*s == '\n')
            break;
    }
    return 0;
}

int cb_pair_relation(const char *root, int a, int b)
{
    char sib[256], pa[32], pb[32];
    if (read_line(root, a, "thread_siblings_list", sib, sizeof sib) == 0 && in_list(sib, b))
        return CB_PAIR_SMT;
    if (read_line(root, a, "physical_package_id", pa, sizeof pa) < 0 ||
        read_line(root, b, "physical_package_id", pb, sizeof pb) < 0)
        return CB_PAIR_UNKNOWN;
    return atoi(pa) == atoi(pb) ? CB_PAIR_CORES : CB_PAIR_SOCKETS;
}

int cb_pair_peer(const char *root, const cpu_set_t *allowed, int a)
{
    static const int order[] = {CB_PAIR_CORES, CB_PAIR_SMT, CB_PAIR_SOCKETS, CB_PAIR_UNKNOWN};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        for (int b = 0; b < CPU_SETSIZE; b++)
            if (b != a && CPU_ISSET(b, allowed) && cb_pair_relation(root, a, b) == order[k])
                return b;
    return -1;
}

void cb_pair_text(const char *root, int a, int b, char *buf, size_t len)
{
    snprintf(buf, len, "cpu %d -> cpu %d (%s)", a, b, cb_pair_rel_name(cb_pair_relation(root, a, b)));
}
