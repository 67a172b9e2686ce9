/* counters.h — read what events.h resolved, once per sample.
 *
 * The events of a measurement are one perf_event group (PERF_FORMAT_GROUP
 * with time enabled and running).  Each hardware event whose mmap'd page
 * allows it (cap_user_rdpmc and a non-zero index) is read with rdpmc; the
 * rest (software events such as task-clock, which have no counter to
 * rdpmc) by one read() of the group, done outside the timed window: before
 * the rdpmc reads and the TSC at the start of a batch, after them at its
 * end.  A single software event in the list used to force read() for every
 * event, adding a system call's noise to the cycles.  When an event is
 * descheduled at the moment of a read its rdpmc fails and read() supplies
 * it: each reading records which method produced each figure.  An event
 * that was multiplexed (running < enabled) is scaled and flagged, and its
 * raw count kept.
 *
 * Two pseudo-events are always present: "tsc" (reference cycles from the
 * TSC, source tsc) and "cycles-est" (source estimate: TSC ticks times the
 * estimated core/TSC clock ratio).  An event that cannot be opened stays in
 * the set as unsupported, with the reason; it is never read as zero. */
#ifndef CB_COUNTERS_H
#define CB_COUNTERS_H

#include <stdint.h>

#include "counters/events.h"

struct cb_sb;

#define CB_MAX_COUNTERS 16

enum cb_read_method {
    CB_READ_NONE = 0,     /* unsupported: nothing is read */
    CB_READ_SYSCALL,      /* read() of the group */
    CB_READ_RDPMC,        /* user-space rdpmc through the mmap page */
    CB_READ_RDTSC,        /* the TSC */
    CB_READ_DERIVED,      /* computed from another counter (cycles-est) */
    CB_READ_FAKE,         /* the fake clock backend's model (tests; fakeclock.h) */
    CB_READ_SIM,          /* callgrind's dump of one batch (run --sim; simclock.h) */
};
/* "none","read","rdpmc","rdtsc","derived","fake","callgrind" */
const char *cb_read_method_name(enum cb_read_method m);

struct cb_counter {
    struct cb_event_spec spec;   /* name/part/pfm/encoding/source */
    int supported;               /* 1 when it is counted */
    char why[256];               /* when not: "cycles: perf_event_open: No such file
                                    or directory (no hardware PMU in this VM?)"; when
                                    counted with read() where a PMU event could have
                                    been read in user space, why it was not */
    enum cb_read_method method;
    int fd;                      /* -1 for pseudo-events and unsupported ones */
    void *page;                  /* mmap'd perf_event_mmap_page, or NULL */
    uint64_t id;                 /* PERF_FORMAT_ID of this event in the group */
};

struct cb_counters {
    struct cb_counter c[CB_MAX_COUNTERS];
    int n;
    int leader;                  /* index of the group leader in c[], -1 when no perf events */
    double tsc_ghz;              /* used to derive cycles-est */
    double core_ghz;             /* estimated core clock, 0 when not estimated */
    char notice[512];            /* the one-time "no PMU: falling back to ..." line, or "" */
};

/* One reading of every counter at one instant. */
struct cb_reading {
    uint64_t value[CB_MAX_COUNTERS];
    uint64_t enabled[CB_MAX_COUNTERS];   /* ns, perf events only */
    uint64_t running[CB_MAX_COUNTERS];
    unsigned char method[CB_MAX_COUNTERS]; /* enum cb_read_method that produced value[i] */
};

/* The difference between two readings, per counter, as stored. */
struct cb_delta {
    double value[CB_MAX_COUNTERS];       /* scaled when multiplexed; NAN when unsupported */
    double raw[CB_MAX_COUNTERS];         /* the counter's own delta, before scaling (for
                                            cycles-est: the TSC ticks it is derived from) */
    unsigned char method[CB_MAX_COUNTERS]; /* read() when either end fell back from rdpmc */
    uint64_t enabled[CB_MAX_COUNTERS];
    uint64_t running[CB_MAX_COUNTERS];
    int scaled[CB_MAX_COUNTERS];         /* 1 when running < enabled */
};

/* Open specs[0..n) as one group on the calling thread (any CPU), plus the
 * tsc and cycles-est pseudo-events.  Events that fail to open are kept as
 * unsupported with the reason; the group is formed from those that open.
 * core_ghz: the estimated core clock to derive cycles-est with (0: leave
 * cycles-est unsupported).  Returns 0, or a negative errno only for errors
 * that leave nothing usable (e.g. too many events: -E2BIG). */
int cb_counters_open(struct cb_counters *cs, const struct cb_event_spec *specs, int n,
                     double tsc_ghz, double core_ghz);

/* Read every counter now, at the start of a timed window: read() of the
 * software events first, then rdpmc, then the TSC.  Hot path: no
 * allocation.  0 or -errno. */
int cb_counters_read(struct cb_counters *cs, struct cb_reading *r);
/* The same at the end of a window, in the reverse order. */
int cb_counters_read_end(struct cb_counters *cs, struct cb_reading *r);

/* after - before, scaled for multiplexing, NAN for unsupported counters. */
void cb_counters_delta(const struct cb_counters *cs, const struct cb_reading *before,
                       const struct cb_reading *after, struct cb_delta *d);

/* One read() of the group, now: counter i's count, or -1 (not in the
 * group, or the read failed).  Outside the hot path: for checking the
 * user-space reads against the kernel's (tests, bench/pmu_check). */
int64_t cb_counters_read_kernel(const struct cb_counters *cs, int i);

/* Index of the counter named name (spec.part), or -1. */
int cb_counters_find(const struct cb_counters *cs, const char *name);

/* The group's read() layout: counters_open.c asks for it, read_group in
 * counters.c parses it. */
#define CB_PERF_READ_FMT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
                          PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Whether c's mmap page allows a user-space rdpmc now (counters.c; the
 * open path in counters_open.c chooses the read method with it). */
int cb_counter_rdpmc_ok(const struct cb_counter *c);

void cb_counters_close(struct cb_counters *cs);

/* counters_pmu.c: the kernel's word on its PMU.  The event directory of
 * the sysfs tree (CB_PMU_DEVICES, or a made-up one in the tests). */
#define CB_PMU_DEVICES "/sys/bus/event_source/devices"
#define CB_PMU_USER_ACCESS "/proc/sys/kernel/perf_user_access"
/* 1 when an Arm PMU (armv8_*) the event would go to lists its events and
 * the event's architected code (PMCEID's ranges) is not among them, with
 * the reason added to why; 0 when it is listed or the kernel does not say
 * (another PMU, an implementation-defined event, no such tree). */
int cb_pmu_lacks_event(const char *devices, const struct perf_event_attr *attr, struct cb_sb *why);
/* kernel.perf_user_access (arm64, Linux 5.17+), or -1 without it. */
int cb_pmu_user_access(const char *procfile);

/* Median cost of one cb_counters_read() in TSC ticks, over reps reads, and
 * of the same for the read() and rdpmc paths separately where available
 * (NAN when not).  For `cyclebudget calibrate` and the harness's batch
 * sizing. */
struct cb_read_cost {
    double read_ticks;      /* the whole cb_counters_read() as configured */
    double syscall_ticks;   /* one read() of the group; NAN if no perf events */
    double rdpmc_ticks;     /* one rdpmc pass; NAN if not available */
    double rdtsc_ticks;     /* one serialised TSC begin/end pair */
};
int cb_counters_read_cost(struct cb_counters *cs, int reps, struct cb_read_cost *out);

#endif
