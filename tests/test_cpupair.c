/* test_cpupair.c — what two CPUs share, read from a sysfs tree built here:
 * two sockets of two cores of two threads (cpus 0-7: cpu n's sibling is
 * n ^ 4, package = (n / 2) % 2), so each relation is known independently
 * of the machine the test runs on; and the peer chosen for an affinity
 * mask (issue 35). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/cpupair.h"
#include "tap.h"

static void put(const char *root, int cpu, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/topology", root, cpu);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    if (system(cmd) != 0)
        exit(1);
    snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", file);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    char root[] = "/tmp/cb-cpupair-XXXXXX";
    if (!mkdtemp(root))
        return 1;
    for (int c = 0; c < 8; c++) {
        char sib[32], pkg[8];
        int a = c < (c ^ 4) ? c : c ^ 4, b = a + 4;
        snprintf(sib, sizeof sib, "%d,%d\n", a, b);
        snprintf(pkg, sizeof pkg, "%d\n", (c / 2) % 2);
        put(root, c, "thread_siblings_list", sib);
        put(root, c, "physical_package_id", pkg);
    }
    is_int(cb_pair_relation(root, 0, 4), CB_PAIR_SMT, "cpu 0 and its sibling 4 are smt-siblings");
    is_int(cb_pair_relation(root, 0, 1), CB_PAIR_CORES, "cpu 0 and 1: cores of one socket");
    is_int(cb_pair_relation(root, 0, 2), CB_PAIR_SOCKETS, "cpu 0 and 2: two sockets");
    is_int(cb_pair_relation(root, 0, 9), CB_PAIR_UNKNOWN, "a CPU sysfs does not know: unknown");
    cpu_set_t m;
    CPU_ZERO(&m);
    for (int c = 0; c < 8; c++)
        CPU_SET(c, &m);
    is_int(cb_pair_peer(root, &m, 0), 1, "the peer of cpu 0 in 0-7 is another core of its socket");
    CPU_CLR(1, &m);
    CPU_CLR(5, &m);
    is_int(cb_pair_peer(root, &m, 0), 4, "without 1 and 5: its SMT sibling");
    CPU_ZERO(&m);
    CPU_SET(0, &m);
    CPU_SET(2, &m);
    is_int(cb_pair_peer(root, &m, 0), 2, "with only 0 and 2: the other socket");
    CPU_ZERO(&m);
    CPU_SET(0, &m);
    is_int(cb_pair_peer(root, &m, 0), -1, "a mask of one CPU has no peer");
    char t[64];
    cb_pair_text(root, 0, 2, t, sizeof t);
    is_str(t, "cpu 0 -> cpu 2 (two sockets)", "the pair in words");
    is_str(cb_pair_rel_name(CB_PAIR_SMT), "smt-siblings", "relation names");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        return 1;
    printf("1..%d\n", tap_n);
    return tap_failed != 0;
}
