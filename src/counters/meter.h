/* meter.h — is something else using this core while we measure?
 *
 * The raw reading is cb_smt_contention() (tsc.h): the time of a loop whose
 * speed a busy sibling thread steals, over that of a chain it barely
 * touches.  Its idle value is a property of the host, not a constant: on
 * this project's Zen VM it read 1.01 on one day and 1.5 for hours on
 * another, while nothing ran, so a fixed threshold flagged all 472 cases of
 * an idle run as "SMT-shared".  So the meter is read against a baseline
 * taken at the start of the run on the CPU the run is pinned to, and only a
 * shift from it counts.  And it is named for what it can know: a sibling
 * the kernel shows us ("smt"), or, in a guest that shows none, contention
 * on the host's core that the guest cannot see ("host").
 *
 * Against its own run's baseline the meter cannot see a run contended from
 * its first sample: that is judged against the host's history instead, by
 * the reference set (refset.h) and the quiet figures the store keeps
 * (store/hoststate.h).  The meter's raw baseline is kept with every run
 * (runs.meter_baseline) beside that set's start reading. */
#ifndef CB_METER_H
#define CB_METER_H

#include <stddef.h>

enum cb_meter_kind {
    CB_METER_NONE = 0,    /* bare metal and no sibling: nothing can share the core; not read */
    CB_METER_SMT,         /* the kernel shows a sibling thread of this core */
    CB_METER_HOST,        /* a guest that shows no sibling: the host's core may still be shared */
    CB_METER_UNSTABLE,    /* the baseline itself spread too much to tell a shift; not read */
};
const char *cb_meter_kind_name(enum cb_meter_kind k); /* "none","smt","host","unstable" */
/* What a flagged sample means, for reports: "SMT sibling busy", "host contention", ... */
const char *cb_meter_label(enum cb_meter_kind k);
/* "smt" -> CB_METER_SMT ...; -1 when not a kind name. */
int cb_meter_kind_parse(const char *s);

/* A sample whose reading relative to the baseline is over this was taken
 * while something else used the core. */
#define CB_METER_SHIFT 1.15
/* Baseline readings whose middle half spreads wider than this (% of the
 * median) cannot show a 15% shift: the meter goes silent. */
#define CB_METER_MAX_SPREAD 10.0
#define CB_METER_BASELINE_N 101

struct cb_meter {
    enum cb_meter_kind kind;
    int cpu;              /* the CPU it was taken on, -1 unknown */
    int siblings;         /* hardware threads the kernel lists for this core, 0 unknown */
    int hypervisor;       /* we run under a hypervisor (cb_meter_hypervisor) */
    int n;                /* baseline readings taken */
    double q[5];          /* their min, p25, median, p75, max (raw) */
    double baseline;      /* q[2]; 0 when not taken */
    double spread_pct;    /* (p75 - p25) / median, % */
    char why[480];        /* the conclusion and its reasons, one sentence */
};

/* Threads listed in cpu's thread_siblings_list under sysroot ("" or NULL:
 * the real /sys).  0 when unknown. */
int cb_meter_siblings(const char *sysroot, int cpu);

/* The kind from what is known (pure): siblings (0 unknown), hypervisor,
 * and the baseline's spread (NAN: not taken yet). */
enum cb_meter_kind cb_meter_decide(int siblings, int hypervisor, double spread_pct);

/* Take the baseline: n raw readings from read(ctx) (NULL: the real meter)
 * on the calling thread, which must already be pinned to cpu; decide the
 * kind and write why.  A kind of NONE takes no readings. */
void cb_meter_baseline(struct cb_meter *m, int cpu, int siblings, int hypervisor,
                       double (*read)(void *), void *ctx, int n);

/* A raw reading relative to the baseline; NAN when the meter is off
 * (NONE/UNSTABLE), the reading failed, or there is no baseline. */
double cb_meter_relative(const struct cb_meter *m, double raw);

/* 1 when a hypervisor is present: on x86 cpuid leaf 1 says so; on arm64,
 * which has no such bit visible at EL0, cb_meter_guess_vm's best guess
 * (unknown counts as no). */
int cb_meter_hypervisor(void);

/* Where that came from, for messages. */
#if defined(__x86_64__)
#define CB_HV_EVIDENCE "cpuid hypervisor bit"
#define CB_HV_NONE_SAID ""
#else
#define CB_HV_EVIDENCE "a best guess from /sys/hypervisor, the device tree or DMI"
/* arm64 cannot be sure there is none: said where the meter is left off. */
#define CB_HV_NONE_SAID " that /sys/hypervisor, the device tree or DMI shows"
#endif

/* The arm64 guess, pure over sysroot ("" or NULL: the real files), so that
 * tests can feed it: /sys/hypervisor/type, a device-tree hypervisor node,
 * or a DMI sys_vendor/product_name only VMs report (QEMU, KVM, Amazon EC2
 * except *.metal, Google, Microsoft, VMware ...).  1 a VM, 0 DMI names a
 * vendor that is not a hypervisor, -1 unknown; what (len bytes) says
 * which evidence. */
int cb_meter_guess_vm(const char *sysroot, char *what, size_t len);

#endif
