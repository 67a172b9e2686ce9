/* bpf_store.c — a BPF run in the store: begun, every case verified then
 * timed beside its empty program, every sample written, finished
 * (bpf_store.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/events.h"
#include "counters/tsc.h"
#include "harness/bpf_store.h"
#include "harness/stats.h"
#include "host/cpu.h"
#include "host/emulation.h"
#include "host/gitinfo.h"
#include "host/sha256.h"
#include "store/store.h"

/* The run's row: the programs as its build, the kernel's release and
 * config; the core clock estimated as every run's is, so that cycles are
 * estimated (and labelled so) by the same rule. */
static int begin(struct cb_bpf_run *x, struct cb_host *host)
{
    const struct cb_bpf_run *b = x;
    char version[96], compiler[160], cflags[96], code_what[256];
    struct cb_sb emul = CB_SB_INIT;
    (void)cb_events_init();
    cb_host_probe(host);
    cb_clocks_measure(&x->clk);
    int emulated = cb_emulation_live(&emul) == 1;
    if (emulated && !b->quiet)
        fprintf(stderr, "cyclebudget: EMULATED (%s): figures are not timings of any machine\n", emul.buf);
    snprintf(version, sizeof version, "bpf %.64s", b->xdp ? b->user_sha : b->tool_sha);
    snprintf(compiler, sizeof compiler, "linux %.128s", b->release);
    snprintf(cflags, sizeof cflags, "config sha256 %.64s", b->config_sha);
    /* The bytes measured: every object loaded. */
    struct cb_sha256 s;
    char code_id[65];
    cb_sha256_init(&s);
    cb_sha256_update(&s, b->tool_sha, 64);
    if (b->xdp)
        cb_sha256_update(&s, b->user_sha, 64);
    cb_sha256_hex(&s, code_id);
    snprintf(code_what, sizeof code_what, "bpf cb_bpf.bpf.o %.16s%s%.120s%s%.16s", b->tool_sha,
             b->xdp ? "; " : "", b->xdp ? b->xdp : "", b->xdp ? " " : "", b->xdp ? b->user_sha : "");
    /* The commit of the tree the program comes from, so that history
     * follows it: the --xdp object's folder, else this one. */
    struct cb_gitinfo git;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", b->xdp ? b->xdp : ".");
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    if (cb_gitinfo_read(dir, NULL, &git) < 0)
        memset(&git, 0, sizeof git), git.dirty = -1;
    struct cb_run_meta meta = {
        .host = host, .tsc_ghz = x->clk.tsc_ghz, .tsc_source = x->clk.tsc_source,
        .core_ghz = x->clk.core_ghz, .core_ghz_spread = x->clk.core_spread,
        .core_ghz_source = x->clk.core_ghz > 0 ? "estimate" : "", .pmu = cb_events_pmu(),
        .version = version, .compiler = compiler, .cflags = cflags, .commit = git.commit, .subject = git.subject,
        .commit_date = git.date, .dirty = git.dirty, .cmdline = b->cmdline, .tag = b->tag, .cpu = b->pinned,
        .core_est_method = x->clk.est.method, .core_est_ghz = x->clk.est.ghz,
        .core_est_spread = x->clk.est.spread_pct, .core_est_add_ghz = x->clk.est.add_ghz,
        .core_est_imul_ghz = x->clk.est.imul_ghz,
        .emulated = emulated ? emul.buf : NULL, .source = "bpf", .code_id = code_id,
        .code_what = code_what,
    };
    int rc = cb_store_run_begin(x->st, &meta, &x->run_id);
    cb_sb_release(&emul);
    return rc;
}

/* tsc around each call, and the kernel's own duration. */
static int record_events(struct cb_bpf_run *x)
{
    struct cb_event_row tsc = {.name = "tsc", .part = "tsc", .pfm = "", .encoding = "",
                               .source = "tsc", .read_method = "rdtsc", .supported = 1, .why = ""};
    struct cb_event_row kns = {.name = "bpf_duration", .part = "bpf_duration", .pfm = "",
                               .encoding = "BPF_PROG_TEST_RUN duration (ns per run) x repeat",
                               .source = "software", .read_method = "read", .supported = 1,
                               .why = ""};
    struct cb_event_row est = {.name = "cycles-est", .part = "cycles-est", .pfm = "",
                               .encoding = "", .source = "estimate", .read_method = "derived",
                               .supported = x->est_per_tick > 0,
                               .why = x->est_per_tick > 0 ? "" : "no core clock estimate"};
    int rc = cb_store_event_add(x->st, x->run_id, &tsc, &x->ev_tsc);
    if (rc >= 0)
        rc = cb_store_event_add(x->st, x->run_id, &kns, &x->ev_kns);
    if (rc >= 0)
        rc = cb_store_event_add(x->st, x->run_id, &est, &x->ev_est);
    return rc;
}

static struct cb_case_row case_row(const struct cb_bpf_run *x, const struct cb_bpf_case *c,
                                   const char *variant, const char *tag, int addr)
{
    return (struct cb_case_row){
        .probe = c->probe, .variant = variant, .size = c->size, .unit = "B",
        .op = c->xdp ? "packet" : "call", .mode = "warm",
        .bytes_per_op = c->size, .clock_ghz = x->clk.core_ghz > 0 ? x->clk.core_ghz : NAN,
        .clock_spread_pct = x->clk.core_spread, .clock_used = x->clk.core_ghz > 0 ? "run" : NULL,
        .code_hash = tag, .code_addr = tag ? addr : -1, .verdict = "ok", .detail = ""};
}

/* One side's samples: ticks, the kernel's ns and the estimated cycles
 * (ticks at the run's clock), each less its overhead: the sample of ov
 * taken beside it, or (ov NULL) the fixed figures given. */
static int store_side(struct cb_bpf_run *x, struct cb_case_row *row, const struct cb_bpf_sample *v,
                      size_t n, const struct cb_bpf_sample *ov, double ov_ticks, double ov_kns)
{
    struct cb_sample_row *s = calloc(3 * n + 1, sizeof *s);
    double k = x->est_per_tick;
    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct cb_sample_row *r = &s[3 * i];
        if (ov) {
            ov_ticks = ov[i].ticks;
            ov_kns = ov[i].kns;
        }
        r[0] = (struct cb_sample_row){.seq = (int)i, .iters = v[i].iters, .event_id = x->ev_tsc,
                                      .value = v[i].ticks, .overhead = ov_ticks, .smt = NAN,
                                      .raw = v[i].ticks};
        r[1] = (struct cb_sample_row){.seq = (int)i, .iters = v[i].iters, .event_id = x->ev_kns,
                                      .value = v[i].kns, .overhead = ov_kns, .smt = NAN,
                                      .raw = v[i].kns};
        r[2] = (struct cb_sample_row){.seq = (int)i, .iters = v[i].iters, .event_id = x->ev_est,
                                      .value = k > 0 ? v[i].ticks * k : NAN,
                                      .overhead = k > 0 ? ov_ticks * k : NAN, .smt = NAN,
                                      .raw = v[i].ticks};
    }
    int64_t id;
    int rc = cb_store_case_add(x->st, x->run_id, row, s, 3 * n, &id);
    free(s);
    return rc;
}

/* The case, each sample less the empty program's batch taken right after
 * it; then the empty program as its own case, less the call's fixed cost. */
static int store_measured(struct cb_bpf_run *x, const struct cb_bpf_case *c,
                          const struct cb_bpf_measurement *m)
{
    const struct cb_bpf_code *code = c->xdp ? &x->prog : &x->csum;
    const struct cb_bpf_code *empty = c->live ? &x->empty_drop : &x->empty;
    struct cb_case_row row = case_row(x, c, c->variant, code->tag, code->addr);
    int rc = store_side(x, &row, m->prog, m->n, m->empty, 0, 0);
    if (rc < 0)
        return rc;
    char variant[40];
    snprintf(variant, sizeof variant, "for-%s%s", c->probe, c->live ? "+live" : "");
    struct cb_bpf_case e = *c;
    e.probe = "bpf_empty";
    struct cb_case_row er = case_row(x, &e, variant, empty->tag, empty->addr);
    er.unit = "run";   /* charged per packet, against the chosen frame */
    er.op = "call";
    er.bytes_per_op = 0;
    return store_side(x, &er, m->empty, m->n, NULL, m->fixed_ticks, 0);
}

static double net_median(const struct cb_bpf_measurement *m, int empty)
{
    double *v = malloc(sizeof *v * (m->n ? m->n : 1));
    if (!v)
        return NAN;
    for (size_t i = 0; i < m->n; i++)
        v[i] = empty ? (m->empty[i].ticks - m->fixed_ticks) / (double)m->empty[i].iters
                     : (m->prog[i].ticks - m->empty[i].ticks) / (double)m->prog[i].iters;
    cb_sort_doubles(v, m->n);
    double med = m->n ? cb_quantile_sorted(v, m->n, 0.5) : NAN;
    free(v);
    return med;
}

static void progress(const struct cb_bpf_case *c, const struct cb_bpf_measurement *m,
                     uint32_t retval)
{
    const char *act = cb_xdp_action_name(retval);
    fprintf(stderr, "  %-5s %-28s %5u B  %8.1f " CB_TSC_NAME " ticks/run less the empty's %6.1f "
            "(%zu samples of %" PRIu64 " runs%s%s)\n", c->probe, c->variant, c->size,
            net_median(m, 0), net_median(m, 1), m->n, m->n ? m->prog[0].iters : 0,
            c->xdp ? ", " : "", c->xdp && act ? act : "");
}

/* One case: verified, then timed and stored; BAD is stored untimed. */
static int one_case(struct cb_bpf_run *x, const struct cb_bpf_case *c, volatile sig_atomic_t *stop,
                    struct cb_sb *err)
{
    char detail[256] = "";
    struct cb_sb why = CB_SB_INIT;
    uint32_t retval;
    int v = cb_bpf_verify(c, &retval, detail, sizeof detail, &why), rc = 0;
    if (v <= 0) {
        if (v < 0)
            snprintf(detail, sizeof detail, "the kernel could not run it: %s", why.buf);
        struct cb_case_row row = case_row(x, c, c->variant, NULL, -1);
        row.verdict = v < 0 ? "skipped" : "bad";
        row.detail = detail;
        x->nbad += v == 0;
        x->nskipped += v < 0;
        if (!x->quiet)
            fprintf(stderr, "cyclebudget: %s %s %s %u B: %s (not timed)\n", v < 0 ? "SKIPPED" : "BAD",
                    c->probe, c->variant, c->size, detail);
        int64_t id;
        cb_sb_release(&why);
        return cb_store_case_add(x->st, x->run_id, &row, NULL, 0, &id);
    }
    struct cb_bpf_measurement m;
    rc = cb_bpf_measure(c, x->harness, x->clk.tsc_ghz, stop, &m, &why);
    if (rc == 0 || (rc == -EINTR && m.n)) {
        int w = store_measured(x, c, &m);
        if (w < 0)
            rc = w;
        x->nmeasured++;
        if (!x->quiet)
            progress(c, &m, retval);
    } else if (rc < 0 && rc != -EINTR) {
        cb_sb_setf(err, "%s %s %u B: %s", c->probe, c->variant, c->size, why.buf);
    }
    cb_bpf_measurement_free(&m);
    cb_sb_release(&why);
    return rc;
}

int cb_bpf_run_begin(struct cb_bpf_run *r, struct cb_store *st)
{
    struct cb_host host;
    int rc;
    r->st = st;
    if ((rc = begin(r, &host)) == 0 && r->clk.core_ghz > 0 && r->clk.tsc_ghz > 0)
        r->est_per_tick = r->clk.core_ghz / r->clk.tsc_ghz;
    if (rc < 0 || (rc = record_events(r)) < 0) {
        if (r->run_id)
            cb_store_run_finish(st, r->run_id, "aborted");
    }
    return rc < 0 ? rc : 0;
}

int cb_bpf_run_cases(struct cb_bpf_run *r, volatile sig_atomic_t *stop, struct cb_sb *err)
{
    int rc = 0;
    for (size_t i = 0; i < r->ncases && rc >= 0; i++)
        rc = one_case(r, &r->cases[i], stop, err);
    cb_store_run_finish(r->st, r->run_id, rc < 0 ? "aborted" : "complete");
    return rc < 0 ? rc : 0;
}
