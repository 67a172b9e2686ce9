/* cpuclass.h — which CPU a run pins to by default, and what about a CPU
 * changes timings.
 *
 * A run pinned to "whatever CPU it started on" could not be compared with
 * the next one: on a 2-CPU VM half of all default pairs were refused for a
 * different pinned CPU.  The default rule is now fixed per
 * machine: the highest-numbered CPU this process may use, among those of
 * its fastest core type (Intel's hybrid parts list their P-cores in
 * /sys/devices/cpu_core/cpus; arm64's big cores have the largest
 * cpu_capacity).  The last rather than the first, because the kernel puts
 * much of its own housekeeping and many interrupts on CPU 0.
 *
 * Two CPUs of one machine then differ in timings only by their class: core
 * type, whether an SMT sibling shares the core, membership of isolcpus and
 * nohz_full, and NUMA node.  compare counts those as an environment
 * difference and only notes the CPU number.
 *
 * Everything is read under a sysroot ("" or NULL: the real /), for tests. */
#ifndef CB_CPUCLASS_H
#define CB_CPUCLASS_H

/* Include with _GNU_SOURCE defined first: cpu_set_t. */
#include <sched.h>
#include <stddef.h>

/* 1 when the kernel CPU list ("0-3,8,10-11") holds cpu, 0 when not, -1
 * when list is empty or not a CPU list.  "none" is the empty set. */
int cb_cpulist_has(const char *list, int cpu);
/* How many CPUs the list names; -1 when it is not a CPU list. */
int cb_cpulist_count(const char *list);

/* The CPU's core type: "core" or "atom" on an Intel hybrid part,
 * "capacity N" where the kernel gives cpu_capacity, else "" (unknown). */
void cb_cpu_core_type(const char *sysroot, int cpu, char *out, size_t len);
/* The CPU's NUMA node, or -1 unknown. */
int cb_cpu_numa_node(const char *sysroot, int cpu);

/* The default rule above, over the allowed set; -1 when it is empty. */
int cb_cpu_default(const char *sysroot, const cpu_set_t *allowed);

#endif
