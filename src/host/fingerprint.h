/* fingerprint.h — the environment a run was measured in.
 *
 * Two runs of the same binary on the same CPU model differ by more than any
 * regression worth gating on when one had the "powersave" governor and the
 * other "performance", or one had turbo and the other not, or one shared its
 * core with an SMT sibling.  The hosts table already pins the CPU identity,
 * microcode and kernel; this records the rest of what changes timings (and a
 * few facts that explain missing counters, such as perf_event_paranoid), so
 * compare can refuse to mix them and say which field differs.
 *
 * Everything is read from files under a sysroot ("" or NULL: the real /), so
 * the reader is tested against a fake /proc and /sys.  A value that cannot
 * be read is "" (unknown), never a guess, and an unknown value never counts
 * as a difference. */
#ifndef CB_FINGERPRINT_H
#define CB_FINGERPRINT_H

#include <stddef.h>

#include "util/strbuf.h"

struct cb_fingerprint {
    char model[96];         /* /proc/cpuinfo "model name" of the run's CPU */
    char microcode[24];     /* "0xa101148" */
    char hypervisor[4];     /* "yes" (cpuinfo flag "hypervisor"), "no", "" */
    char smt_active[4];     /* /sys/devices/system/cpu/smt/active: "1", "0" */
    char smt_control[16];   /* "on", "off", "forceoff", "notsupported", "notimplemented" */
    char siblings[32];      /* the run CPU's thread_siblings_list: "0,8" */
    char governor[24];      /* cpuN/cpufreq/scaling_governor: "performance" */
    char driver[24];        /* cpuN/cpufreq/scaling_driver: "acpi-cpufreq" */
    char boost[4];          /* turbo/boost: "on", "off", "" */
    char paranoid[8];       /* /proc/sys/kernel/perf_event_paranoid */
    char kernel[64];        /* /proc/sys/kernel/osrelease */
    char isolated[48];      /* /sys/devices/system/cpu/isolated: "2-7", "" none */
    char nohz_full[48];     /* /sys/devices/system/cpu/nohz_full */
    char cpu[12];           /* the CPU the run was pinned to, "" none */
    char core_type[24];     /* its core type (cpuclass.h): "core", "atom", "capacity 1024", "" */
    char node[12];          /* its NUMA node, "" unknown */
};

/* Read the environment under sysroot for a run pinned to cpu (-1: none;
 * then the per-CPU fields come from cpu0).  Always fills fp; 0, or -ENOENT
 * when sysroot holds neither /proc/cpuinfo nor /sys/devices/system/cpu. */
int cb_fingerprint_read(struct cb_fingerprint *fp, const char *sysroot, int cpu);

/* "model=...;microcode=...;" in a fixed order; ';' and control characters
 * in values become ' ' so the result always parses back.  Returns the
 * length it needed (snprintf-style). */
size_t cb_fingerprint_format(const struct cb_fingerprint *fp, char *buf, size_t len);

/* Parse what cb_fingerprint_format wrote (unknown keys are skipped, missing
 * ones left ""): 0, or -EINVAL for a pair without '='. */
int cb_fingerprint_parse(const char *s, struct cb_fingerprint *fp);

/* The fields that change timings and are not already held by the hosts
 * table and runs.cpu, as "label=value\n" lines in a fixed order (the form
 * cb_fingerprint_diff compares).  fp NULL: the same lines, all unknown. */
size_t cb_fingerprint_lines(const struct cb_fingerprint *fp, char *buf, size_t len);

/* The class of the pinned CPU, the part of it that changes timings, as
 * "label=value\n" lines: core type, whether an SMT sibling shares its core,
 * whether it is in isolcpus and in nohz_full, its NUMA node.  Two runs
 * pinned to different CPUs of one class compare as one environment.
 * fp NULL or no pinned CPU: the same lines, unknown. */
size_t cb_fingerprint_cpu_lines(const struct cb_fingerprint *fp, char *buf, size_t len);

/* 1 when two sets of "label=value\n" lines differ in a field known on both
 * sides, with "label: 'A' vs 'B'; ..." set in why (may be NULL); else 0.  A field unknown
 * ("") on either side is not a difference: older runs did not record it. */
int cb_fingerprint_diff(const char *a, const char *b, struct cb_sb *why);

/* Whether the frequency may move under the run: 1 when the governor is
 * known and not "performance", 0 when it is "performance", -1 unknown. */
int cb_fingerprint_scaling(const struct cb_fingerprint *fp);

/* One line for reports: "governor performance (acpi-cpufreq), boost on,
 * SMT on (cpu 0 siblings 0,8), hypervisor no, ..." with unknowns said. */
void cb_fingerprint_describe(const struct cb_fingerprint *fp, char *buf, size_t len);

/* The i-th field's value, with its key in *key (the one format writes);
 * NULL past the last.  For exports that list every field. */
const char *cb_fingerprint_field(const struct cb_fingerprint *fp, size_t i, const char **key);

#endif
