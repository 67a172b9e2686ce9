/* kernel_store.c — an in-kernel run in the store: begun, every case
 * verified then timed through the module, every sample written, finished
 * (kernel_store.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/events.h"
#include "counters/tsc.h"
#include "harness/kernel_store.h"
#include "harness/stats.h"
#include "host/cpu.h"
#include "host/emulation.h"
#include "store/store.h"
#include "util/sort.h"

/* The run's row: the module's identity as its build, the kernel's
 * release; emulated when the CPU is (CI's qemu). */
static int begin(struct cb_kernel_run *x, struct cb_host *host)
{
    const struct cb_kernel_run *k = x;
    const char *how = "";
    char version[96], compiler[96], cflags[128];
    struct cb_sb emul = CB_SB_INIT;
    (void)cb_events_init();
    cb_host_probe(host);
    x->tsc_ghz = cb_tsc_ghz(&how);
    int emulated = cb_emulation_live(&emul) == 1;
    if (emulated && !k->quiet)
        fprintf(stderr, "cyclebudget: EMULATED (%s): figures are not timings of any machine\n", emul.buf);
    snprintf(version, sizeof version, "cb_kmod %.64s", k->info->src_sha256[0] ? k->info->src_sha256 : "unknown");
    snprintf(compiler, sizeof compiler, "linux %.64s", k->info->release);
    snprintf(cflags, sizeof cflags, "config sha256 %.64s",
             k->info->config_sha256[0] ? k->info->config_sha256 : "unknown");
    struct cb_run_meta meta = {
        .host = host, .tsc_ghz = x->tsc_ghz, .tsc_source = how, .core_ghz = 0,
        .core_ghz_source = "", .pmu = cb_events_pmu(), .version = version, .compiler = compiler,
        .cflags = cflags, .commit = "", .subject = "", .commit_date = "", .dirty = -1,
        .cmdline = k->cmdline, .tag = k->tag, .cpu = k->pinned,
        .emulated = emulated ? emul.buf : NULL, .source = "in-kernel",
    };
    int rc = cb_store_run_begin(x->st, &meta, &x->run_id);
    cb_sb_release(&emul);
    return rc;
}

/* tsc (always) and cycles (the kernel's PMU counter, or why not). */
static int record_events(struct cb_kernel_run *x)
{
    struct cb_sb why = CB_SB_INIT;
    int err = x->info->pmu_err;
    cb_sb_addf(&why, "perf_event_create_kernel_counter(PERF_COUNT_HW_CPU_CYCLES) on CPU %d "
               "failed in the kernel: %s (no PMU this kernel drives: a VM without a virtual PMU, "
               "or an emulator)", x->pinned, strerror(-err));
    struct cb_event_row tsc = {.name = "tsc", .part = "tsc", .pfm = "", .encoding = "",
                               .source = "tsc", .read_method = "rdtsc", .supported = 1, .why = ""};
    struct cb_event_row cyc = {.name = "cycles", .part = "cycles", .pfm = "PERF_COUNT_HW_CPU_CYCLES",
                               .encoding = "type=0 config=0x0", .source = "pmu",
                               .read_method = "read", .supported = err == 0, .why = err ? why.buf : ""};
    int rc = cb_store_event_add(x->st, x->run_id, &tsc, &x->ev_tsc);
    if (rc >= 0)
        rc = cb_store_event_add(x->st, x->run_id, &cyc, &x->ev_cyc);
    cb_sb_release(&why);
    return rc;
}

static struct cb_case_row case_row(const struct cb_kcase *c)
{
    int bytes = c->func == CB_KF_CSUM || c->func == CB_KF_CSUM_COPY || c->func == CB_KF_MEMCPY ||
                c->func == CB_KF_MEMSET;
    return (struct cb_case_row){
        .probe = c->probe, .variant = c->variant, .size = c->size, .unit = c->unit, .op = c->op,
        .mode = c->mode ? "cold" : "warm", .bytes_per_op = bytes ? c->size : 0,
        .clock_ghz = NAN, .clock_spread_pct = NAN};
}

/* Every sample: its TSC ticks and its cycles (NULL when not counted), the
 * empty batch as the overhead the views subtract. */
static int store_measured(struct cb_kernel_run *x, const struct cb_kcase *c, const struct cb_kmeasurement *m)
{
    struct cb_sample_row *s = calloc(2 * m->n + 1, sizeof *s);
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < m->n; i++) {
        for (int e = 0; e < 2; e++) {
            struct cb_sample_row *r = &s[2 * i + (size_t)e];
            *r = (struct cb_sample_row){.seq = (int)i, .iters = m->s[i].iters, .smt = NAN, .raw = NAN};
            r->event_id = e ? x->ev_cyc : x->ev_tsc;
            r->value = e ? m->s[i].cycles : m->s[i].ticks;
            r->overhead = e ? m->overhead_cycles : m->overhead_ticks;
        }
    }
    struct cb_case_row row = case_row(c);
    row.verdict = "ok";
    row.detail = "";
    int64_t id;
    int rc = cb_store_case_add(x->st, x->run_id, &row, s, 2 * m->n, &id);
    free(s);
    return rc;
}

static void progress(const struct cb_kernel_run *x, const struct cb_kcase *c, const struct cb_kmeasurement *m)
{
    double *v = malloc(sizeof *v * (m->n ? m->n : 1));
    if (!v)
        return;
    for (size_t i = 0; i < m->n; i++)
        v[i] = (m->s[i].ticks - m->overhead_ticks) / (double)m->s[i].iters;
    cb_sort_doubles(v, m->n);
    double med = m->n ? cb_quantile_sorted(v, m->n, 0.5) : NAN;
    free(v);
    fprintf(stderr, "  %-9s %-28s %8u B %s  %10.1f " CB_TSC_NAME " ticks/%s  (%zu samples)\n",
            c->probe, c->variant, c->size, c->mode ? "cold" : "warm", med, c->op, m->n);
    (void)x;
}

/* One case: verified, then timed and stored; BAD is stored untimed. */
static int one_case(struct cb_kernel_run *x, const struct cb_kcase *c, volatile sig_atomic_t *stop,
                    struct cb_sb *err)
{
    char detail[256] = "";
    struct cb_case_row row = case_row(c);
    int v = cb_kverify(x->fd, c, detail, sizeof detail);
    if (v <= 0) {
        if (v == -EOPNOTSUPP && c->func == CB_KF_PAGE_POOL)
            snprintf(detail, sizeof detail, "this kernel has no page_pool (CONFIG_PAGE_POOL is off)");
        else if (v < 0)
            snprintf(detail, sizeof detail, "the module could not run it: %s", strerror(-v));
        row.verdict = v < 0 ? "skipped" : "bad";
        row.detail = detail;
        x->nbad += v == 0 || v != -EOPNOTSUPP;
        if (!x->quiet)
            fprintf(stderr, "cyclebudget: %s %s %s %u B: %s (not timed)\n", v < 0 ? "SKIPPED" : "BAD",
                    c->probe, c->variant, c->size, detail);
        int64_t id;
        return cb_store_case_add(x->st, x->run_id, &row, NULL, 0, &id);
    }
    struct cb_kmeasurement m;
    int rc = cb_kmeasure(x->fd, c, x->harness, x->tsc_ghz, stop, &m);
    if (rc == 0 || (rc == -EINTR && m.n)) {
        int w = store_measured(x, c, &m);
        if (w < 0)
            rc = w;
        x->nmeasured++;
        if (!x->quiet)
            progress(x, c, &m);
    } else if (rc < 0 && rc != -EINTR) {
        cb_sb_setf(err, "%s %s %u B: the module failed: %s", c->probe, c->variant, c->size,
                   strerror(-rc));
    }
    cb_kmeasurement_free(&m);
    return rc;
}

int cb_kernel_run_begin(struct cb_kernel_run *r, struct cb_store *st)
{
    struct cb_host host;
    int rc;
    r->st = st;
    if ((rc = begin(r, &host)) < 0 || (rc = record_events(r)) < 0) {
        if (r->run_id)
            cb_store_run_finish(st, r->run_id, "aborted");
    }
    return rc < 0 ? rc : 0;
}

int cb_kernel_run_cases(struct cb_kernel_run *r, volatile sig_atomic_t *stop, struct cb_sb *err)
{
    int rc = 0;
    for (size_t i = 0; i < r->ncases && rc >= 0; i++)
        rc = one_case(r, &r->cases[i], stop, err);
    cb_store_run_finish(r->st, r->run_id, rc < 0 ? "aborted" : "complete");
    return rc < 0 ? rc : 0;
}
