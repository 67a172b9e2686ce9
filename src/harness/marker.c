/* marker.c — region markers: the library's cb_region_begin/cb_region_end,
 * read from the collector's counters into a run of their own.
 *
 * The markers' state is process-wide by nature (a C API of bare names, as
 * LIKWID's and PAPI's are), so it is the one static struct below; nothing
 * else in cyclebudget reads it.  The hot path is cb_region_begin/end: when
 * inactive a load and a branch; when active a thread check, a name lookup
 * (the last region first, by name: a buffer reused for another name is
 * another region) and one counter read.  They belong to the thread that
 * called cb_marker_init: a call from another thread is refused (-EPERM,
 * said once) before it touches anything, since the counters count that
 * thread only and the regions are not locked.  Samples are kept in memory
 * and written, a case per region, when the markers close: a program that
 * dies first leaves its run 'running', which the next writer reaps as
 * aborted.  A region whose median pass is under CB_MARKER_RESOLUTIONS of
 * the clock's steps (measured at init) is stored as skipped, with why:
 * its figure would be the clock's step, not the code's cost. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cyclebudget/cyclebudget.h>

#include "harness/arrays.h"
#include "harness/collect.h"
#include "counters/counters.h"
#include "harness/harness.h"

#define MAX_REGIONS 64
#define MAX_SAMPLES 100000
#define NAME_MAX_LEN 48
#define OVERHEAD_REPS 63
#define RESOLUTION_READS 2000
#define CB_MARKER_RESOLUTIONS 20

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
    pthread_t thread;            /* the thread whose regions they are */
    volatile sig_atomic_t told;  /* another thread's refusal was said */
    int tsc;                     /* the tsc counter's index, -1 none */
    double res_ticks;            /* the TSC's step: the gcd of back-to-back reads */
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

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The TSC's step as the counters read it: the greatest common divisor of
 * the differences between back-to-back reads.  1 on a TSC that counts every
 * tick; 26 on a guest whose TSC moves in steps of 26 (a region there reads
 * 0, 26 or 52 ticks, whatever it costs). */
static void measure_resolution(void)
{
    struct cb_counters *cs = &markers.col.cs;
    markers.tsc = cb_counters_find(cs, "tsc");
    markers.res_ticks = 0;
    if (markers.tsc < 0)
        return;
    struct cb_reading a, b;
    uint64_t g = 0;
    cb_counters_read(cs, &a);
    for (int k = 0; k < RESOLUTION_READS; k++) {
        cb_counters_read(cs, &b);
        uint64_t d = b.value[markers.tsc] - a.value[markers.tsc];
        if (d)
            g = gcd64(g, d);
        a = b;
    }
    markers.res_ticks = (double)(g ? g : 1);
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
    measure_resolution();
    markers.owner = getpid();
    markers.thread = pthread_self();
    markers.last = -1;
    markers.active = 1;
    atexit(close_at_exit);
    return 0;
}

/* The region called name: the last one used first, then the others, by
 * name (never by pointer: one buffer may hold "parse", then "send");
 * created when new.  NULL when the table is full. */
static struct region *region_of(const char *name, int create)
{
    if (markers.last >= 0 && strcmp(markers.r[markers.last].name, name) == 0)
        return &markers.r[markers.last];
    for (int i = 0; i < markers.nr; i++)
        if (strcmp(markers.r[i].name, name) == 0) {
            markers.last = i;
            return &markers.r[i];
        }
    if (!create || markers.nr == MAX_REGIONS)
        return NULL;
    struct region *r = &markers.r[markers.nr];
    snprintf(r->name, sizeof r->name, "%s", name);
    markers.last = markers.nr++;
    return r;
}

/* A call from a thread other than the markers' own: refused before it
 * touches a region, and said once.  -EPERM. */
static int other_thread(const char *call, const char *name)
{
    if (!markers.told) {
        markers.told = 1;
        fprintf(stderr, "cyclebudget markers: %s(\"%.48s\") from a thread other than the one "
                "that called cb_marker_init: refused (-EPERM), and so is every such call; "
                "markers count one thread: call them from that thread only\n", call,
                name ? name : "(null)");
    }
    return -EPERM;
}

/* 0 when name can name a region: 1..48 bytes; else the refusal. */
static int bad_name(const char *name)
{
    if (!name || !*name)
        return -EINVAL;
    return strnlen(name, NAME_MAX_LEN + 1) > NAME_MAX_LEN ? -ENAMETOOLONG : 0;
}

CB_API int cb_region_begin(const char *name)
{
    if (__builtin_expect(!markers.active, 1))
        return 0;
    if (!pthread_equal(pthread_self(), markers.thread))
        return other_thread("cb_region_begin", name);
    int bad = bad_name(name);
    if (bad)
        return bad;
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
    if (!pthread_equal(pthread_self(), markers.thread))
        return other_thread("cb_region_end", name);
    int bad = bad_name(name);
    if (bad)
        return bad;
    struct region *r = region_of(name, 0);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Why r's figures would be the clock's: its median pass, less the empty
 * pair, under CB_MARKER_RESOLUTIONS steps of the TSC.  1 with why set
 * (what it is and what to do), else 0. */
static int below_resolution(const struct region *r, char *why, size_t len)
{
    int t = markers.tsc;
    if (t < 0 || !(markers.res_ticks > 0) || !r->n)
        return 0;
    double *v = malloc(r->n * sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < r->n; i++)
        v[i] = r->s[i].value[t];
    qsort(v, r->n, sizeof *v, cmp_double);
    double med = v[r->n / 2] - (isnan(markers.overhead[t]) ? 0 : markers.overhead[t]);
    free(v);
    if (med >= CB_MARKER_RESOLUTIONS * markers.res_ticks)
        return 0;
    double ghz = markers.col.cs.tsc_ghz > 0 ? markers.col.cs.tsc_ghz : 1;
    snprintf(why, len, "below the timer's resolution (%.3g ns): a pass is under %d of the "
             "clock's steps, so its figure would be the clock's, not the code's; loop it "
             "(one region around many passes, divided by their count) or time it as a "
             "plugin (run --plugin)", markers.res_ticks / ghz < 1 ? 1 : markers.res_ticks / ghz,
             CB_MARKER_RESOLUTIONS);
    return 1;
}

/* One region as a case with all its samples; one below the clock's
 * resolution as a skipped case that says why, with none. */
static int store_region(const struct region *r)
{
    struct cb_collector *col = &markers.col;
    int ne = col->cs.n;
    char detail[400];
    snprintf(detail, sizeof detail, "region marker: not verified%s", r->dropped ? "; samples "
             "beyond the first 100000 were not kept" : "");
    struct cb_case_row row = {
        .probe = "region", .variant = r->name, .size = 0, .unit = "B", .op = "call",
        .mode = "warm", .verdict = "ok", .detail = detail,
    };
    if (below_resolution(r, detail, sizeof detail)) {
        row.verdict = "skipped";
        return cb_store_case_add(col->st, col->run_id, &row, NULL, 0, NULL);
    }
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
