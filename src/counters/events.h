/* events.h — from a user's event name to a perf_event_attr, via libpfm4.
 *
 * Users write portable aliases (cycles, instructions, cache-misses,
 * l1d-misses, llc-misses, prefetch-drops, task-clock) or any libpfm4 string
 * ("INEFFECTIVE_SOFTWARE_PREFETCH:MAB_MCH_CNT", "amd64_fam19h_zen4::...",
 * "perf::PERF_COUNT_SW_TASK_CLOCK").  An alias maps, per PMU family, to one or
 * more libpfm4 events; the table is data (one row per alias and PMU family).
 * Where a PMU has no such event the alias says so by name.  Rows cover AMD
 * Zen, Intel cores, the Arm PMUv3 cores of libpfm4's arm64 build (arm_n1,
 * arm_n2, arm_v1, arm_v2, arm_ac57, ...), and the generic perf PMU as the
 * fallback for any other.  Resolution never opens a counter, so it works
 * where perf_event_open cannot (qemu-user: ENOSYS). */
#ifndef CB_EVENTS_H
#define CB_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>

#define CB_EVENT_NAME_MAX 64
#define CB_EVENT_STR_MAX  256
#define CB_EVENT_MAX_PARTS 4

enum cb_source {
    CB_SRC_PMU = 0,       /* a hardware counter through perf_event */
    CB_SRC_SOFTWARE,      /* a kernel software event (task-clock, page-faults) */
    CB_SRC_TSC,           /* the time-stamp counter: reference cycles */
    CB_SRC_ESTIMATE,      /* derived: TSC x estimated core/TSC clock ratio */
    CB_SRC_SIMULATED,     /* counted by callgrind's model of the machine (run --sim) */
};
const char *cb_source_name(enum cb_source s);   /* "pmu", "software", "tsc", "estimate", "simulated" */

/* One resolved event, ready for perf_event_open. */
struct cb_event_spec {
    char name[CB_EVENT_NAME_MAX];     /* what the user asked for: "cycles", or "prefetch-drops" */
    char part[CB_EVENT_NAME_MAX];     /* for an alias of several events, this part's label; else = name */
    char pfm[CB_EVENT_STR_MAX];       /* the libpfm4 string it resolved from */
    char fstr[CB_EVENT_STR_MAX];      /* libpfm4's fully qualified string, or "" */
    char encoding[96];                /* "type=4 config=0x1234 config1=0x0" for the store */
    char pmu[CB_EVENT_NAME_MAX];      /* the PMU libpfm4 used: "amd64_fam19h_zen4", "perf" */
    struct perf_event_attr attr;
    enum cb_source source;            /* PMU or SOFTWARE, from attr.type */
    int status;                       /* 0 resolved; negative errno when not */
    char why[256];                    /* when status < 0: what went wrong, by name */
};

/* pfm_initialize(), once per process; safe to call again.  0 or -errno. */
int cb_events_init(void);

/* The default PMU libpfm4 sees on this machine (or the forced one under
 * LIBPFM_FORCE_PMU), e.g. "amd64_fam19h_zen4" or "perf" when none. */
const char *cb_events_pmu(void);

/* Resolve one name.  An alias may expand into up to CB_EVENT_MAX_PARTS
 * specs (prefetch-drops on Intel is late prefetches plus FB_FULL).  Writes
 * up to max specs to out and their count to *n.  Returns 0 when every part
 * resolved; -ENOENT when the name is unknown anywhere (out[0].why names the
 * nearest valid names); -EOPNOTSUPP when the alias exists but this PMU has no
 * such event (out[0].why says "prefetch-drops: no such event on PMU perf"),
 * with out[0] filled as far as it goes (status < 0) so it can be stored as
 * unsupported. */
int cb_events_resolve(const char *name, struct cb_event_spec *out, size_t max, size_t *n);

/* The alias names, NULL-terminated, and a one-line definition of one of them
 * for the current PMU ("prefetch-drops = INEFFECTIVE_SOFTWARE_PREFETCH
 * (DC hit + MAB match): ineffective software prefetches"). */
extern const char *const cb_event_aliases[];
const char *cb_event_alias_definition(const char *alias);

/* Split a comma-separated list ("cycles,instructions") into names.
 * Returns the count, or -EINVAL for an empty list or an empty name. */
int cb_events_split(const char *csv, char names[][CB_EVENT_NAME_MAX], size_t max);

/* Nearest valid names to a bad one (aliases and this PMU's events), for
 * "did you mean" lines: writes "cycles, cache-misses" into buf. */
void cb_events_suggest(const char *bad, char *buf, size_t len);

#endif
