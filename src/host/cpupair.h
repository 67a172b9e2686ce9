/* cpupair.h — two CPUs for the cross-CPU families: an skb is
 * allocated on the RX CPU and freed on another, and descriptors and cache
 * lines move between cores; what that costs depends on what the two CPUs
 * share.  The pair is read from /sys/devices/system/cpu/cpuN/topology. */
#ifndef CB_CPUPAIR_H
#define CB_CPUPAIR_H

#include <sched.h>   /* cpu_set_t: include with _GNU_SOURCE defined */
#include <stddef.h>

enum cb_pair_rel {
    CB_PAIR_UNKNOWN = 0,
    CB_PAIR_SMT,      /* hyperthreads of one core: they share L1 and L2 */
    CB_PAIR_CORES,    /* two cores of one package: a line moves through the LLC */
    CB_PAIR_SOCKETS,  /* two packages: a line crosses the interconnect */
};

/* "smt-siblings", "cores of one socket", "two sockets", "unknown topology". */
const char *cb_pair_rel_name(int rel);
/* What a and b share, from sysfs (root: "" for the real one, else a copy
 * of /sys/devices/system/cpu for tests). */
int cb_pair_relation(const char *root, int a, int b);
/* The second CPU for a process on cpu a allowed to run on allowed: another
 * core of a's package first (the common RX/TX split), else an SMT sibling,
 * else another package.  -1 when allowed holds no other CPU. */
int cb_pair_peer(const char *root, const cpu_set_t *allowed, int a);
/* "cpu 0 -> cpu 1 (cores of one socket)" */
void cb_pair_text(const char *root, int a, int b, char *buf, size_t len);

#endif
