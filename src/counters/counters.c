/* counters.c — one perf_event group per measurement, plus the TSC: reading
 * it (rdpmc or read()), the deltas, and what a read costs; opening it is
 * counters_open.c.
 *
 * Hardware and software events go through the same perf_event_open path;
 * what fails to open stays in the set as unsupported with the reason, so a
 * VM's missing PMU shows up as "unsupported: why", never as a zero.  The
 * TSC and the core-cycle estimate are always there as the fallback. */
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

#include "counters/tsc.h"
#include "util/sort.h"

const char *cb_read_method_name(enum cb_read_method m)
{
    switch (m) {
    case CB_READ_NONE:    return "none";
    case CB_READ_SYSCALL: return "read";
    case CB_READ_RDPMC:   return "rdpmc";
    case CB_READ_FAKE:    return "fake";
    case CB_READ_SIM:     return "callgrind";
    case CB_READ_RDTSC:   return CB_TSC_READ; /* "rdtsc"; "cntvct" on arm64 */
    case CB_READ_DERIVED: return "derived";
    }
    return "?";
}

int cb_counter_rdpmc_ok(const struct cb_counter *c)
{
    const volatile struct perf_event_mmap_page *pc = c->page;
    return pc && pc->cap_user_rdpmc && pc->index != 0;
}

#if defined(__x86_64__)
/* The counter the mmap page's index names (index - 1), and the clock its
 * time_* fields convert: rdpmc and the TSC. */
static inline uint64_t pmc_read(uint32_t idx)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t stamp_plain(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
#else
/* arm64 (Linux 5.17+, kernel.perf_user_access=1, the event opened with
 * config1 bit 1 "rdpmc"): index 32 is the cycle counter, PMCCNTR_EL0;
 * index n otherwise is event counter n - 1, PMEVCNTR<n-1>_EL0.  mrs takes
 * the register by name, hence the switch; going through PMSELR_EL0 and
 * PMXEVCNTR_EL0 instead would be two instructions another task's
 * PMSELR write could fall between.  The time fields convert CNTVCT_EL0. */
#define CB_PMEVCNTR(n)                                                      \
    case n:                                                                 \
        __asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v));      \
        break;
static inline uint64_t pmc_read(uint32_t idx)
{
    uint64_t v = 0;
    if (idx == 32) {
        __asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
        return v;
    }
    switch (idx - 1) {
        CB_PMEVCNTR(0) CB_PMEVCNTR(1) CB_PMEVCNTR(2) CB_PMEVCNTR(3) CB_PMEVCNTR(4)
        CB_PMEVCNTR(5) CB_PMEVCNTR(6) CB_PMEVCNTR(7) CB_PMEVCNTR(8) CB_PMEVCNTR(9)
        CB_PMEVCNTR(10) CB_PMEVCNTR(11) CB_PMEVCNTR(12) CB_PMEVCNTR(13) CB_PMEVCNTR(14)
        CB_PMEVCNTR(15) CB_PMEVCNTR(16) CB_PMEVCNTR(17) CB_PMEVCNTR(18) CB_PMEVCNTR(19)
        CB_PMEVCNTR(20) CB_PMEVCNTR(21) CB_PMEVCNTR(22) CB_PMEVCNTR(23) CB_PMEVCNTR(24)
        CB_PMEVCNTR(25) CB_PMEVCNTR(26) CB_PMEVCNTR(27) CB_PMEVCNTR(28) CB_PMEVCNTR(29)
        CB_PMEVCNTR(30)
    }
    return v;
}
#undef CB_PMEVCNTR

static inline uint64_t stamp_plain(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
#endif

/* User-space read through the mmap page, as perf_event.h describes it: the
 * kernel bumps lock around every update, so retry until it held still.
 * The counter is offset + the hardware value, sign-extended from pmc_width
 * bits; enabled/running are brought up to now with the page's clock
 * conversion (arm64 sets cap_user_time_short: its clock wraps at
 * time_mask).  Returns 0, or -EAGAIN when the event is not on a counter
 * now (index 0) so the caller falls back to read(). */
static int rdpmc_read(const struct cb_counter *c, uint64_t *value, uint64_t *enabled,
                      uint64_t *running)
{
    const volatile struct perf_event_mmap_page *pc = c->page;
    uint32_t seq, idx;
    uint64_t count, ena, run, cyc = 0, offset = 0, tcyc = 0, tmask = 0;
    uint32_t mult = 0;
    uint16_t shift = 0;
    int user_time, time_short = 0;

    do {
        seq = pc->lock;
        __asm__ __volatile__("" ::: "memory");
        ena = pc->time_enabled;
        run = pc->time_running;
        user_time = pc->cap_user_time;
        if (user_time) {
            cyc = stamp_plain();
            offset = pc->time_offset;
            mult = pc->time_mult;
            shift = pc->time_shift;
            time_short = pc->cap_user_time_short;
            tcyc = pc->time_cycles;
            tmask = pc->time_mask;
        }
        idx = pc->index;
        count = (uint64_t)pc->offset;
        if (pc->cap_user_rdpmc && idx) {
            unsigned width = pc->pmc_width;
            uint64_t pmc = pmc_read(idx);
            if (width > 0 && width < 64) {
                pmc <<= 64 - width;
                pmc = (uint64_t)((int64_t)pmc >> (64 - width));
            }
            count += pmc;
        }
        __asm__ __volatile__("" ::: "memory");
    } while (pc->lock != seq);

    if (!idx)
        return -EAGAIN;
    if (user_time) {
        if (time_short)
            cyc = tcyc + ((cyc - tcyc) & tmask);
        uint64_t quot = cyc >> shift;
        uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
        uint64_t delta = offset + quot * mult + ((rem * mult) >> shift);
        ena += delta;
        run += delta;
    }
    *value = count;
    *enabled = ena;
    *running = run;
    return 0;
}

/* One read() of the group into r, matched by id: every event when only is
 * NULL, else those with only[i] set. */
static int read_group(const struct cb_counters *cs, struct cb_reading *r, const unsigned char *only)
{
    uint64_t buf[3 + 2 * CB_MAX_COUNTERS];
    ssize_t got = read(cs->c[cs->leader].fd, buf, sizeof(buf));
    if (got < 0)
        return -errno;
    if (got < (ssize_t)(3 * sizeof(uint64_t)))
        return -EIO;
    uint64_t nr = buf[0];
    if (nr > CB_MAX_COUNTERS || (size_t)got < (3 + 2 * nr) * sizeof(uint64_t))
        return -EIO;
    for (uint64_t j = 0; j < nr; j++) {
        uint64_t v = buf[3 + 2 * j], id = buf[4 + 2 * j];
        for (int i = 0; i < cs->n; i++) {
            if (cs->c[i].fd >= 0 && cs->c[i].id == id) {
                if (only && !only[i])
                    break;
                r->method[i] = CB_READ_SYSCALL;
                r->value[i] = v;
                r->enabled[i] = buf[1];
                r->running[i] = buf[2];
                break;
            }
        }
    }
    return 0;
}

/* The perf events of a reading: rdpmc where configured, and one read() of
 * the group for the rest and for any rdpmc that failed (the event was
 * descheduled just then).  syscall_first: the read() before the rdpmc
 * reads (a window's start) or after them (its end). */
static int read_events(struct cb_counters *cs, struct cb_reading *r, int syscall_first)
{
    unsigned char need[CB_MAX_COUNTERS] = {0};
    int any = 0, rc = 0;
    for (int i = 0; i < cs->n; i++) {
        const struct cb_counter *c = &cs->c[i];
        need[i] = c->fd >= 0 && c->supported && c->method == CB_READ_SYSCALL;
        any |= need[i];
    }
    if (syscall_first && any)
        rc = read_group(cs, r, need);
    int late = 0;
    for (int i = 0; i < cs->n; i++) {
        struct cb_counter *c = &cs->c[i];
        if (c->method != CB_READ_RDPMC)
            continue;
        if (rdpmc_read(c, &r->value[i], &r->enabled[i], &r->running[i]) == 0) {
            r->method[i] = CB_READ_RDPMC;
        } else {
            need[i] = 1;
            late = 1;
        }
    }
    if (!syscall_first && any) {
        rc = read_group(cs, r, need);
    } else if (late) {
        /* only the fallbacks: the others were read already */
        for (int i = 0; i < cs->n; i++)
            need[i] = need[i] && cs->c[i].method == CB_READ_RDPMC;
        rc = read_group(cs, r, need);
    }
    return rc;
}

static void read_clear(const struct cb_counters *cs, struct cb_reading *r)
{
    for (int i = 0; i < cs->n; i++) {
        r->value[i] = 0;
        r->enabled[i] = 0;
        r->running[i] = 0;
        r->method[i] = (unsigned char)cs->c[i].method;
    }
}

/* The TSC fenced on both sides, as near the timed work as the reading
 * allows: last at a window's start, first at its end.  The two ends then
 * carry a constant offset, which the harness's empty batch removes. */
static void read_tsc(const struct cb_counters *cs, struct cb_reading *r)
{
    uint64_t tsc = cb_tsc_begin();
    for (int i = 0; i < cs->n; i++)
        if (cs->c[i].method == CB_READ_RDTSC || cs->c[i].method == CB_READ_DERIVED)
            r->value[i] = tsc;
}

int cb_counters_read(struct cb_counters *cs, struct cb_reading *r)
{
    int rc = 0;
    if (!cs || !r)
        return -EINVAL;
    read_clear(cs, r);
    if (cs->leader >= 0)
        rc = read_events(cs, r, 1);
    read_tsc(cs, r);
    return rc;
}

int cb_counters_read_end(struct cb_counters *cs, struct cb_reading *r)
{
    int rc = 0;
    if (!cs || !r)
        return -EINVAL;
    read_clear(cs, r);
    read_tsc(cs, r);
    if (cs->leader >= 0)
        rc = read_events(cs, r, 0);
    return rc;
}

void cb_counters_delta(const struct cb_counters *cs, const struct cb_reading *before,
                       const struct cb_reading *after, struct cb_delta *d)
{
    for (int i = 0; i < CB_MAX_COUNTERS; i++) {
        d->value[i] = NAN;
        d->enabled[i] = 0;
        d->running[i] = 0;
        d->scaled[i] = 0;
        d->raw[i] = NAN;
        d->method[i] = CB_READ_NONE;
    }
    for (int i = 0; i < cs->n; i++) {
        const struct cb_counter *c = &cs->c[i];
        if (!c->supported)
            continue;
        uint64_t dv = after->value[i] - before->value[i];
        d->raw[i] = (double)dv;
        d->method[i] = before->method[i] == CB_READ_SYSCALL ? before->method[i] : after->method[i];
        switch (c->method) {
        case CB_READ_RDTSC:
        case CB_READ_SIM:
            d->value[i] = (double)dv;
            break;
        case CB_READ_DERIVED:
            d->value[i] = (double)dv * cs->core_ghz / cs->tsc_ghz;
            break;
        case CB_READ_SYSCALL:
        case CB_READ_RDPMC: {
            uint64_t de = after->enabled[i] - before->enabled[i];
            uint64_t dr = after->running[i] - before->running[i];
            d->enabled[i] = de;
            d->running[i] = dr;
            if (dr < de) {
                /* multiplexed: on a counter only dr of de ns; scale as perf
                 * stat does, and say so.  Never on: unknown, not zero. */
                d->scaled[i] = 1;
                d->value[i] = dr ? (double)dv * ((double)de / (double)dr) : NAN;
            } else {
                d->value[i] = (double)dv;
            }
            break;
        }
        case CB_READ_FAKE:
        case CB_READ_NONE:
            break;
        }
    }
}

int64_t cb_counters_read_kernel(const struct cb_counters *cs, int i)
{
    struct cb_reading r;
    unsigned char only[CB_MAX_COUNTERS] = {0};
    if (!cs || cs->leader < 0 || i < 0 || i >= cs->n || cs->c[i].fd < 0)
        return -1;
    only[i] = 1;
    r.method[i] = CB_READ_NONE;
    if (read_group(cs, &r, only) < 0 || r.method[i] != CB_READ_SYSCALL)
        return -1;
    return (int64_t)r.value[i];
}

int cb_counters_find(const struct cb_counters *cs, const char *name)
{
    for (int i = 0; i < cs->n; i++)
        if (strcmp(cs->c[i].spec.part, name) == 0)
            return i;
    return -1;
}

void cb_counters_close(struct cb_counters *cs)
{
    long pagesz = sysconf(_SC_PAGESIZE);
    if (!cs)
        return;
    if (cs->leader >= 0 && cs->c[cs->leader].fd >= 0)
        ioctl(cs->c[cs->leader].fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    /* members first, the leader last */
    for (int i = cs->n - 1; i >= 0; i--) {
        struct cb_counter *c = &cs->c[i];
        if (c->page) {
            munmap(c->page, (size_t)pagesz);
            c->page = NULL;
        }
        if (c->fd >= 0 && i != cs->leader) {
            close(c->fd);
            c->fd = -1;
        }
    }
    if (cs->leader >= 0 && cs->c[cs->leader].fd >= 0) {
        close(cs->c[cs->leader].fd);
        cs->c[cs->leader].fd = -1;
    }
    cs->leader = -1;
}

static double median(double *v, int n)
{
    cb_sort_doubles(v, (size_t)n);
    return (n & 1) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each figure is the median of reps timed calls minus the median cost of
 * the begin/end TSC pair around it (clamped at 0), so it is the read alone. */
int cb_counters_read_cost(struct cb_counters *cs, int reps, struct cb_read_cost *out)
{
    struct cb_reading r;
    if (!cs || !out || reps <= 0)
        return -EINVAL;
    double *v = malloc(sizeof(double) * (size_t)reps);
    if (!v)
        return -ENOMEM;

    for (int i = 0; i < reps; i++) {
        uint64_t t0 = cb_tsc_begin();
        uint64_t t1 = cb_tsc_end();
        v[i] = (double)(t1 - t0);
    }
    double pair = median(v, reps);
    out->rdtsc_ticks = pair;

    cb_counters_read(cs, &r); /* warm the path */
    for (int i = 0; i < reps; i++) {
        uint64_t t0 = cb_tsc_begin();
        cb_counters_read(cs, &r);
        uint64_t t1 = cb_tsc_end();
        v[i] = (double)(t1 - t0);
    }
    out->read_ticks = fmax(median(v, reps) - pair, 0);

    out->syscall_ticks = NAN;
    if (cs->leader >= 0) {
        for (int i = 0; i < reps; i++) {
            uint64_t t0 = cb_tsc_begin();
            read_group(cs, &r, NULL);
            uint64_t t1 = cb_tsc_end();
            v[i] = (double)(t1 - t0);
        }
        out->syscall_ticks = fmax(median(v, reps) - pair, 0);
    }

    out->rdpmc_ticks = NAN;
    int any = 0;
    for (int i = 0; i < cs->n; i++)
        any |= cs->c[i].fd >= 0 && cb_counter_rdpmc_ok(&cs->c[i]);
    if (any) {
        for (int k = 0; k < reps; k++) {
            uint64_t t0 = cb_tsc_begin();
            for (int i = 0; i < cs->n; i++)
                if (cs->c[i].fd >= 0 && cb_counter_rdpmc_ok(&cs->c[i]))
                    rdpmc_read(&cs->c[i], &r.value[i], &r.enabled[i], &r.running[i]);
            uint64_t t1 = cb_tsc_end();
            v[k] = (double)(t1 - t0);
        }
        out->rdpmc_ticks = fmax(median(v, reps) - pair, 0);
    }
    free(v);
    return 0;
}
