/* counters_open.c — opening a set of counters: each asked-for event into
 * one perf_event group (what fails stays as unsupported, with the reason
 * and what to do), the TSC's pseudo-events beside them, and the group
 * started with rdpmc chosen per event (counters.h). */
#define _GNU_SOURCE
#include "counters/counters.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters/meter.h"
#include "util/strbuf.h"
#include "counters/tsc.h"

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                           unsigned long flags)
{
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int read_paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = 2;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 2;
        fclose(f);
    }
    return v;
}

/* Why no PMU event of this kind opened, where the kernel gave no more than
 * ENOENT/EOPNOTSUPP: a guest's missing virtual PMU, else a missing driver. */
static const char *no_pmu_hint(char *buf, size_t len)
{
#if defined(__x86_64__)
    (void)buf, (void)len;
    return cb_meter_hypervisor() ? "no hardware PMU: this looks like a VM, cpuid says hypervisor"
                                 : "the kernel has no PMU driver for this event";
#else
    char what[200];
    if (cb_meter_guess_vm(NULL, what, sizeof what) > 0)
        snprintf(buf, len, "no hardware PMU: this looks like a VM (%.80s)", what);
    else
        snprintf(buf, len, "the kernel has no PMU driver for this event (arm64: CONFIG_ARM_PMU "
                           "and the PMU's DT/ACPI node; a guest: a vPMU)");
    return buf;
#endif
}

/* The reason an event did not open, by cause and with what to do. */
static void open_failure(struct cb_counter *c, int err, int paranoid)
{
    const char *hint;
    char buf[128];
    char part[CB_EVENT_NAME_MAX];
    snprintf(part, sizeof(part), "%s", c->spec.part);
    switch (err) {
    case ENOSYS:
        /* qemu-user, or a kernel built without perf events: nothing can
         * be counted, and that is the whole reason. */
        snprintf(c->why, sizeof(c->why),
                 "%.60s: perf_event_open not implemented here (ENOSYS: an emulator?)", part);
        return;
    case ENOENT:
    case EOPNOTSUPP:
        hint = c->spec.source == CB_SRC_SOFTWARE ? "this kernel has no such software event"
                                                 : no_pmu_hint(buf, sizeof buf);
        break;
    case ENODEV:
        hint = "no such PMU in this kernel";
        break;
    case EACCES:
    case EPERM:
        snprintf(buf, sizeof(buf),
                 "perf_event_paranoid is %d: set kernel.perf_event_paranoid<=2 "
                 "(<=1 to count the kernel) or grant CAP_PERFMON", paranoid);
        hint = buf;
        break;
    case EMFILE:
    case ENFILE:
        hint = "too many open files: raise ulimit -n";
        break;
    case E2BIG:
        hint = "the kernel rejects this perf_event_attr size: kernel older than the headers";
        break;
    case EBUSY:
        hint = "the counter is taken (another tool, or the NMI watchdog: kernel.nmi_watchdog=0)";
        break;
    case EINVAL:
        hint = "the kernel rejected the attributes, or the event cannot join this group";
        break;
    case ENOSPC:
        hint = "no counter left for it in the group";
        break;
    default:
        hint = "unexpected error";
        break;
    }
    snprintf(c->why, sizeof(c->why), "%.60s: perf_event_open: %.40s (%.140s)", part,
             strerror(err), hint);
}


/* What opening a set carries from one event to the next. */
struct open_ctx {
    struct cb_counters *cs;
    long pagesz;
    int paranoid;
    int hw_asked, hw_open;      /* some PMU event was asked for; one opened */
    const char *first_hw_why;   /* why the first PMU event that failed did */
    int user_access;            /* kernel.perf_user_access: 1, 0, or -1 (none: x86, old arm64) */
};

/* The attr of the next event in the group. */
static struct perf_event_attr group_attr(const struct open_ctx *o, const struct cb_event_spec *spec)
{
    struct perf_event_attr attr = spec->attr;
    attr.size = sizeof(attr);
    attr.read_format = CB_PERF_READ_FMT;
    /* only the leader starts disabled: the others follow it, so one
     * ioctl starts and stops the whole group at the same instant */
    attr.disabled = o->cs->leader < 0;
    attr.inherit = 0;
    /* hypervisor time is not ours to count, and guests may not */
    attr.exclude_hv = 1;
    /* perf_event_paranoid >= 2 forbids kernel counting to the
     * unprivileged: ask for user space only rather than fail.  The
     * probes run in user space, so little is lost. */
    if (o->paranoid >= 2 && geteuid() != 0)
        attr.exclude_kernel = 1;
#if defined(__aarch64__)
    /* arm64 lets user space read a counter only when the event asks for
     * it (config1 bit 1, the arm_pmuv3 "rdpmc" format) and the sysctl
     * allows it; the kernel then sets cap_user_rdpmc and the index. */
    if (o->user_access == 1 && spec->source == CB_SRC_PMU)
        attr.config1 |= 2;
#endif
    return attr;
}

/* perf_event_open into the group, retried for user space only where
 * counting the kernel is refused.  The fd, or -1 with errno set. */
static int open_in_group(const struct cb_counters *cs, struct perf_event_attr *attr)
{
    int group = cs->leader >= 0 ? cs->c[cs->leader].fd : -1;
    int fd = perf_event_open(attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr->exclude_kernel) {
        /* CAP_PERFMON-less root in a container, or a stricter LSM */
        attr->exclude_kernel = 1;
        fd = perf_event_open(attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
}

/* Its id, without which its value cannot be found in the group read; on
 * failure the event is closed again and marked unsupported. */
static int take_id(struct cb_counter *c)
{
    if (ioctl(c->fd, PERF_EVENT_IOC_ID, &c->id) >= 0)
        return 0;
    int err = errno;
    char part[CB_EVENT_NAME_MAX];
    snprintf(part, sizeof(part), "%s", c->spec.part);
    snprintf(c->why, sizeof(c->why), "%.60s: PERF_EVENT_IOC_ID: %.60s", part, strerror(err));
    close(c->fd);
    c->fd = -1;
    c->supported = 0;
    c->method = CB_READ_NONE;
    return -1;
}

/* An architected event the Arm PMU does not implement opens and reads 0:
 * unsupported, never a zero (counters_pmu.c).  1 when so, c->why set. */
static int unimplemented(struct cb_counter *c, const struct perf_event_attr *attr)
{
    struct cb_sb why = CB_SB_INIT;
    char part[CB_EVENT_NAME_MAX];
    snprintf(part, sizeof part, "%s", c->spec.part);
    int lacks = cb_pmu_lacks_event(CB_PMU_DEVICES, attr, &why);
    if (lacks)
        snprintf(c->why, sizeof c->why, "%.50s: %s", part, why.buf);
    cb_sb_release(&why);
    return lacks;
}

/* Open c (its spec already set) into the group: 0, or -1 with c->why set. */
static int open_event(struct open_ctx *o, struct cb_counter *c)
{
    if (c->spec.status < 0) {
        snprintf(c->why, sizeof(c->why), "%s",
                 c->spec.why[0] ? c->spec.why : "event did not resolve");
        return -1;
    }
    struct perf_event_attr attr = group_attr(o, &c->spec);
    if (c->spec.source == CB_SRC_PMU && unimplemented(c, &attr))
        return -1;
    int fd = open_in_group(o->cs, &attr);
    if (fd < 0 && (attr.config1 & 2) && !(c->spec.attr.config1 & 2)) {
        /* the kernel refused user-space access for this one: count it
         * all the same, with read(), and say why */
        int err = errno;
        char part[CB_EVENT_NAME_MAX];
        snprintf(part, sizeof part, "%s", c->spec.part);
        attr.config1 &= ~(uint64_t)2;
        fd = open_in_group(o->cs, &attr);
        if (fd >= 0)
            snprintf(c->why, sizeof c->why, "%.60s: user-space read refused (perf_event_open with "
                     "config1 rdpmc: %.60s): read with read()", part, strerror(err));
    }
    if (fd < 0) {
        open_failure(c, errno, o->paranoid);
        return -1;
    }
    c->spec.attr = attr;
    c->fd = fd;
    c->supported = 1;
    c->method = CB_READ_SYSCALL;
    if (take_id(c) < 0)
        return -1;
    void *p = mmap(NULL, (size_t)o->pagesz, PROT_READ, MAP_SHARED, fd, 0);
    c->page = p == MAP_FAILED ? NULL : p;
    return 0;
}

/* Every asked-for event, in order; what fails stays as unsupported. */
static void open_events(struct open_ctx *o, const struct cb_event_spec *specs, int n)
{
    struct cb_counters *cs = o->cs;
    for (int i = 0; i < n; i++) {
        struct cb_counter *c = &cs->c[cs->n++];
        c->spec = specs[i];
        c->fd = -1;
        int hw = specs[i].source == CB_SRC_PMU;
        o->hw_asked |= hw;
        if (open_event(o, c) < 0) {
            if (hw && !o->first_hw_why)
                o->first_hw_why = c->why;
            continue;
        }
        if (cs->leader < 0)
            cs->leader = cs->n - 1;
        o->hw_open |= hw;
    }
}

/* A pseudo-event computed from the TSC rather than opened. */
static struct cb_counter *add_pseudo(struct cb_counters *cs, const char *name,
                                     const char *encoding, enum cb_source source)
{
    struct cb_counter *c = &cs->c[cs->n++];
    snprintf(c->spec.name, sizeof(c->spec.name), "%s", name);
    snprintf(c->spec.part, sizeof(c->spec.part), "%s", name);
    snprintf(c->spec.encoding, sizeof(c->spec.encoding), "%s", encoding);
    snprintf(c->spec.pmu, sizeof(c->spec.pmu), "tsc");
    c->spec.source = source;
    c->fd = -1;
    return c;
}

static void add_pseudo_events(struct cb_counters *cs, double tsc_ghz, double core_ghz)
{
    struct cb_counter *t = add_pseudo(cs, "tsc", CB_TSC_READ, CB_SRC_TSC);
    t->supported = 1;
    t->method = CB_READ_RDTSC;

    struct cb_counter *e = add_pseudo(cs, "cycles-est",
                                      "tsc*(core/tsc ratio of the chosen chain, per case)",
                                      CB_SRC_ESTIMATE);
    if (core_ghz > 0 && tsc_ghz > 0 && isfinite(core_ghz) && isfinite(tsc_ghz)) {
        e->supported = 1;
        e->method = CB_READ_DERIVED;
    } else {
        snprintf(e->why, sizeof(e->why), "cycles-est: no core clock estimate (core_ghz=%g, tsc_ghz=%g)",
                 core_ghz, tsc_ghz);
    }
}

/* Reset and enable the group, then pick rdpmc for each event that allows
 * it, whatever the others do: a software event's read() is done outside
 * the timed window.  0, or the errno of the ioctl (the set is closed). */
static int start_group(struct cb_counters *cs)
{
    if (cs->leader < 0)
        return 0;
    int lfd = cs->c[cs->leader].fd;
    if (ioctl(lfd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0 ||
        ioctl(lfd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
        int err = errno;
        cb_counters_close(cs);
        return -err;
    }
    /* The page's capability, not its index: an event of a multiplexed
     * group may be off the counters just now (index 0), and each read
     * falls back to read() for as long as it is (counters.c).  PMU events
     * only: a software event has no counter to read in user space, whatever
     * its page says. */
    for (int i = 0; i < cs->n; i++) {
        const volatile struct perf_event_mmap_page *pc = cs->c[i].page;
        if (cs->c[i].fd >= 0 && cs->c[i].supported && cs->c[i].spec.source == CB_SRC_PMU && pc &&
            pc->cap_user_rdpmc)
            cs->c[i].method = CB_READ_RDPMC;
    }
    return 0;
}

/* Why a PMU event that is counted is read with read(), not in user space:
 * stored with it (events.why), so that a run says which path its figures
 * took and what would change it. */
static void why_no_user_read(struct cb_counter *c, int user_access)
{
    const volatile struct perf_event_mmap_page *pc = c->page;
    char p[CB_EVENT_NAME_MAX];
    snprintf(p, sizeof p, "%s", c->spec.part);
    if (c->why[0] || c->method != CB_READ_SYSCALL || c->spec.source != CB_SRC_PMU)
        return;
    if (!pc)
        snprintf(c->why, sizeof c->why, "%.60s: user-space read: the event's page did not mmap: "
                 "read with read()", p);
#if defined(__aarch64__)
    else if (user_access < 0)
        snprintf(c->why, sizeof c->why, "%.60s: user-space read: this kernel has no "
                 "kernel.perf_user_access (arm64, Linux 5.17+): read with read()", p);
    else if (user_access == 0)
        snprintf(c->why, sizeof c->why, "%.60s: user-space read: kernel.perf_user_access is 0 "
                 "(sysctl -w kernel.perf_user_access=1 allows it): read with read()", p);
#endif
    else
        snprintf(c->why, sizeof c->why, "%.60s: user-space read: the kernel's page says "
                 "cap_user_rdpmc=%u index=%u%s: read with read()", p, (unsigned)pc->cap_user_rdpmc,
                 (unsigned)pc->index,
                 user_access < 0 ? " (x86: /sys/bus/event_source/devices/cpu/rdpmc)" : "");
}

int cb_counters_open(struct cb_counters *cs, const struct cb_event_spec *specs, int n,
                     double tsc_ghz, double core_ghz)
{
    struct open_ctx o = {.cs = cs, .pagesz = sysconf(_SC_PAGESIZE), .paranoid = read_paranoid(),
                         .user_access = cb_pmu_user_access(CB_PMU_USER_ACCESS)};
    if (!cs || n < 0 || (n > 0 && !specs))
        return -EINVAL;
    memset(cs, 0, sizeof(*cs));
    cs->leader = -1;
    cs->tsc_ghz = tsc_ghz;
    cs->core_ghz = core_ghz;
    for (int i = 0; i < CB_MAX_COUNTERS; i++)
        cs->c[i].fd = -1;
    if (n + 2 > CB_MAX_COUNTERS)
        return -E2BIG;

    open_events(&o, specs, n);
    add_pseudo_events(cs, tsc_ghz, core_ghz);
    int rc = start_group(cs);
    if (rc < 0)
        return rc;
    for (int i = 0; i < cs->n; i++)
        why_no_user_read(&cs->c[i], o.user_access);
    if (o.hw_asked && !o.hw_open)
        snprintf(cs->notice, sizeof(cs->notice),
                 "no PMU counters here (%.300s): cycles come from the " CB_TSC_NAME
                 " (reference cycles) and an "
                 "estimate of core cycles",
                 o.first_hw_why ? o.first_hw_why : "none opened");
    return 0;
}

