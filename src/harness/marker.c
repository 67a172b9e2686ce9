/* marker.c — region markers: the library's cb_region_begin/cb_region_end,
 * read from the collector's counters into a run of their own.
 *
 * The markers' state is process-wide by nature (a C API of bare names, as
 * LIKWID's and PAPI's are), so it is the one static struct below; nothing
 * else in cyclebudget reads it.  The hot path is cb_region_begin/end: when
 * inactive a load and a branch; when active a name lookup (the last region
 * first, by pointer) and one counter read.  Samples are kept in memory and
 * written, a case per region, when the markers close: a program that dies
 * first leaves its run 'running', which the next writer reaps as aborted. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cyclebudget/cyclebudget.h>

#include "arrays.h"
#include "collect.h"
#include "counters.h"
#include "harness.h"

#define MAX_REGIONS 64
#define MAX_SAMPLES 100000
#define NAME_MAX_LEN 48
#define OVERHEAD_REPS 63

/* One sample: the delta of each counter over one pass (raw as read). */
struct region_sample {
    double value[CB_MAX_COUNTERS];
    double raw[CB_MAX_COUNTERS];
    uint64_t enabled[CB_MAX_COUNTERS], running[CB_MAX_COUNTERS];
    unsigned char method[CB_MAX_COUNTERS];
    unsigned char scaled[CB_MAX_COUNTERS];
};

struct region {
    char name[NAME_MAX_LEN + 1];
    const char *last_ptr;        /* the pointer last passed: usually a literal */
    int open;
    struct cb_reading begin;
    struct region_sample *s;
    size_t n, cap, dropped;
};

static struct {
    int active;                  /* the only field the inactive path reads */
    int closed;                  /* init is not repeated after close */
    pid_t owner;                 /* the process whose run it is: a forked child's
                                    exit must not write it a second time */
    struct cb_collector col;
    double overhead[CB_MAX_COUNTERS]; /* median empty begin/end pair */
    struct region r[MAX_REGIONS];
    int nr, last;
} markers;

/* The median delta of an empty begin/end pair, per counter: what every
 * sample carries besides its region. */
static void measure_overhead(void)
{
    struct cb_counters *cs = &markers.col.cs;
    static double v[CB_MAX_COUNTERS][OVERHEAD_REPS];
    for (int k = 0; k < OVERHEAD_REPS; k++) {
        struct cb_reading a, b;
        struct cb_delta d;
        cb_counters_read(cs, &a);
        cb_counters_read_end(cs, &b);
        cb_counters_delta(cs, &a, &b, &d);
        for (int e = 0; e < cs->n; e++)
            v[e][k] = d.value[e];
    }
    for (int e = 0; e < cs->n; e++) {
        double *x = v[e];
        if (isnan(x[0])) {
            markers.overhead[e] = NAN;
            continue;
        }
        for (int i = 1; i < OVERHEAD_REPS; i++)
            for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
                double t = x[j];
                x[j] = x[j - 1];
                x[j - 1] = t;
            }
        markers.overhead[e] = x[OVERHEAD_REPS / 2];
    }
}

/* The program's command line, as /proc has it, for the run's cmdline. */
static void own_cmdline(char *buf, size_t len)
{
    snprintf(buf, len, "(region markers)");
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    for (size_t i = 0; i + 1 < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
}

static void close_at_exit(void)
{
    cb_marker_close();
}

CB_API int cb_marker_init(void)
{
    if (markers.active || markers.closed)
        return 0;
    const char *db = getenv("CYCLEBUDGET_DB");
    if (!db || !*db)
        return 0;
    if (getenv(CB_FAKE_ENV) || getenv(CB_SIM_ENV)) {
        fprintf(stderr, "cyclebudget markers: %s or %s is set, but markers read this machine's "
                "counters: unset them; markers stay off\n", CB_FAKE_ENV, CB_SIM_ENV);
        return -EINVAL;
    }
    char cmdline[1024];
    own_cmdline(cmdline, sizeof cmdline);
    struct cb_collect_opts o = {
        .db = db, .events = getenv("CYCLEBUDGET_EVENTS"), .tag = getenv("CYCLEBUDGET_TAG"),
        .cmdline = cmdline, .cpu = CB_CPU_HERE, .quiet = 1,
    };
    if (o.events && !*o.events)
        o.events = NULL;
    if (o.tag && !*o.tag)
        o.tag = NULL;
    cb_harness_defaults(&o.harness);
    int usage;
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_collector_open(&markers.col, &o, &err, &usage);
    if (rc < 0)
        fprintf(stderr, "cyclebudget markers: %s; markers stay off\n", err.buf);
    cb_sb_release(&err);
    if (rc < 0)
        return rc;
    measure_overhead();
    markers.owner = getpid();
    markers.last = -1;
    markers.active = 1;
    atexit(close_at_exit);
    return 0;
}

/* The region called name: the last one used when the same pointer comes
 * back (a loop's literal), else by name; created when new.  NULL when the
 * table is full. */
static struct region *region_of(const char *name, int create)
{
    if (markers.last >= 0 && markers.r[markers.last].last_ptr == name)
        return &markers.r[markers.last];
    for (int i = 0; i < markers.nr; i++)
        if (strcmp(markers.r[i].name, name) == 0) {
            markers.r[i].last_ptr = name;
            markers.last = i;
            return &markers.r[i];
        }
    if (!create || markers.nr == MAX_REGIONS)
        return NULL;
    struct region *r = &markers.r[markers.nr];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->last_ptr = name;
    markers.last = markers.nr++;
    return r;
}

CB_API int cb_region_begin(const char *name)
{
    if (__builtin_expect(!markers.active, 1))
        return 0;
    if (!name || !*name)
        return -EINVAL;
    struct region *r = region_of(name, 1);
    if (!r)
        return -E2BIG;
    if (r->open)
        return -EBUSY;
    r->open = 1;
    cb_counters_read(&markers.col.cs, &r->begin);
    return 0;
}

CB_API int cb_region_end(const char *name)
{
    if (__builtin_expect(!markers.active, 1))
        return 0;
    struct cb_reading end;
    /* Read first: the lookup is not the region's cost. */
    cb_counters_read_end(&markers.col.cs, &end);
    struct region *r = name ? region_of(name, 0) : NULL;
    if (!r || !r->open)
        return -ENOENT;
    r->open = 0;
    if (r->n == MAX_SAMPLES) {
        r->dropped++;
        return 0;
    }
    if (cb_grow((void **)&r->s, &r->cap, r->n + 1, 256, sizeof *r->s) < 0) {
        r->dropped++;
        return -ENOMEM;
    }
    struct cb_delta d;
    cb_counters_delta(&markers.col.cs, &r->begin, &end, &d);
    struct region_sample *s = &r->s[r->n++];
    for (int e = 0; e < markers.col.cs.n; e++) {
        s->value[e] = d.value[e];
        s->raw[e] = d.raw[e];
        s->enabled[e] = d.enabled[e];
        s->running[e] = d.running[e];
        s->method[e] = d.method[e];
        s->scaled[e] = (unsigned char)d.scaled[e];
    }
    return 0;
}

/* One region as a case with all its samples. */
static int store_region(const struct region *r)
{
    struct cb_collector *col = &markers.col;
    int ne = col->cs.n;
    char detail[160];
    snprintf(detail, sizeof detail, "region marker: not verified%s", r->dropped ? "; samples "
             "beyond the first 100000 were not kept" : "");
    struct cb_case_row row = {
        .probe = "region", .variant = r->name, .size = 0, .unit = "B", .op = "call",
        .mode = "warm", .verdict = "ok", .detail = detail,
    };
    struct cb_sample_row *rows = malloc((r->n * (size_t)ne + 1) * sizeof *rows);
    if (!rows)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        for (int e = 0; e < ne; e++)
            rows[k++] = (struct cb_sample_row){
                .seq = (int)i, .iters = 1, .event_id = col->event_ids[e],
                .value = r->s[i].value[e], .overhead = markers.overhead[e],
                .enabled = r->s[i].enabled[e], .running = r->s[i].running[e],
                .scaled = r->s[i].scaled[e], .smt = NAN, .round = 0, .raw = r->s[i].raw[e],
                .method = isnan(r->s[i].value[e]) ? NULL : cb_read_method_name(r->s[i].method[e]),
            };
    int rc = cb_store_case_add(col->st, col->run_id, &row, rows, k, NULL);
    free(rows);
    return rc;
}

CB_API int cb_marker_close(void)
{
    if (!markers.active)
        return 0;
    markers.active = 0;
    markers.closed = 1;
    if (getpid() != markers.owner)
        return 0;
    int rc = 0;
    for (int i = 0; i < markers.nr && rc == 0; i++)
        if (markers.r[i].n)
            rc = store_region(&markers.r[i]);
    if (rc < 0)
        fprintf(stderr, "cyclebudget markers: cannot store the regions in %s: %s; run %lld "
                "marked aborted\n", markers.col.db, strerror(-rc), (long long)markers.col.run_id);
    int frc = cb_collector_finish(&markers.col, rc < 0 ? "aborted" : "complete");
    for (int i = 0; i < markers.nr; i++)
        free(markers.r[i].s);
    memset(markers.r, 0, sizeof markers.r);
    markers.nr = 0;
    return rc < 0 ? rc : frc;
}
