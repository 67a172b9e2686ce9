/* counters_pmu.c — what the running kernel says about its PMU, asked before
 * an event is trusted: whether the Arm PMU implements an event at all, and
 * whether user-space counter reads are allowed.
 *
 * An Arm PMU that lacks an architected event still lets perf_event_open
 * take it as a raw event, and the counter then reads 0 (qemu's neoverse-n1
 * PMU and L1D_CACHE_REFILL, 0x03).  Storing that 0 would
 * fabricate a count.  The kernel's arm_pmuv3 driver lists, under
 * /sys/bus/event_source/devices/armv8_<pmu>/events/, the architected
 * events PMCEID0/1_EL0 say the hardware counts: an architected event (the
 * ranges PMCEID covers, 0x00-0x3f and 0x4000-0x403f) missing from every
 * such list is not implemented.  Implementation-defined events (0xc0 up)
 * are never listed, so nothing is said of them; nor of other PMUs (x86's
 * cpu PMU lists a few names, not what the hardware counts). */
#define _GNU_SOURCE
#include "counters/counters.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/* The "event=0x..." of one sysfs event file, or -1. */
static long event_code(const char *dir, const char *name)
{
    char path[1024], line[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long code = -1;
    if (fgets(line, sizeof line, f)) {
        const char *e = strstr(line, "event=");
        if (e)
            code = strtol(e + 6, NULL, 0);
    }
    fclose(f);
    return code;
}

/* Does devices/pmu/events list code?  1 yes, 0 no; the names are kept
 * for the reason. */
static int lists_code(const char *devices, const char *pmu, long code, struct cb_sb *names)
{
    char dir[768];
    snprintf(dir, sizeof dir, "%s/%s/events", devices, pmu);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (event_code(dir, e->d_name) == code)
            found = 1;
        else if (names->len < 160)
            cb_sb_addf(names, "%s%s", names->len ? " " : "", e->d_name);
    }
    closedir(d);
    return found;
}

/* The number a one-number file (sysfs, procfs) holds, or -1. */
static long read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* The PMU's perf type number (devices/pmu/type), or -1. */
static long pmu_type(const char *devices, const char *pmu)
{
    char path[768];
    snprintf(path, sizeof path, "%s/%s/type", devices, pmu);
    return read_number(path);
}

static int architected(long code)
{
    return (code >= 0 && code < 0x40) || (code >= 0x4000 && code < 0x4040);
}

int cb_pmu_lacks_event(const char *devices, const struct perf_event_attr *attr, struct cb_sb *why)
{
    long code = (long)(attr->config & 0xffff);
    if (!architected(code))
        return 0;
    DIR *d = opendir(devices);
    if (!d)
        return 0;
    struct cb_sb names = CB_SB_INIT;
    char seen[CB_EVENT_NAME_MAX] = "";
    int asked = 0, listed = 0;
    struct dirent *e;
    while (!listed && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "armv8_", 6) != 0)
            continue;
        /* a raw event goes to the CPU's PMU; one typed for a PMU, to it */
        if (attr->type != PERF_TYPE_RAW && pmu_type(devices, e->d_name) != (long)attr->type)
            continue;
        asked = 1;
        snprintf(seen, sizeof seen, "%.*s", (int)sizeof seen - 1, e->d_name);
        listed = lists_code(devices, e->d_name, code, &names);
    }
    closedir(d);
    int lacks = asked && !listed;
    if (lacks)
        cb_sb_addf(why, "event 0x%04lx is not implemented by this PMU: %s/%.60s/events/ (the "
                     "kernel's list from PMCEID) has only %s; it would open and read 0",
                     code, devices, seen, names.len ? names.buf : "none");
    cb_sb_release(&names);
    return lacks;
}

int cb_pmu_user_access(const char *procfile)
{
    return (int)read_number(procfile);
}
