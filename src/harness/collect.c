/* collect.c — a collecting session (see collect.h). */
#define _GNU_SOURCE
#include "harness/collect.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "host/codeid.h"
#include "config.h"
#include "host/cpupair.h"
#include "host/emulation.h"
#include "counters/events.h"
#include "host/fingerprint.h"
#include "host/gitinfo.h"
#include "harness/plugin.h"
#include "counters/tsc.h"

/* With real core cycles, measure the clock instead of estimating it. */
static void measure_core_clock(struct cb_collector *col)
{
    col->core_ghz = col->clk.core_ghz;
    col->core_source = "estimate";
    int cyc = cb_counters_find(&col->cs, "cycles");
    int t = cb_counters_find(&col->cs, "tsc");
    if (col->fake || cyc < 0 || t < 0 || !col->cs.c[cyc].supported ||
        col->cs.c[cyc].spec.source != CB_SRC_PMU)
        return;
    struct cb_reading r0, r1;
    struct cb_delta d;
    cb_counters_read(&col->cs, &r0);
    uint64_t t0 = cb_tsc_begin();
    while (cb_tsc_end() - t0 < (uint64_t)(20e6 * col->clk.tsc_ghz))
        ;
    cb_counters_read(&col->cs, &r1);
    cb_counters_delta(&col->cs, &r0, &r1, &d);
    if (d.value[t] > 0 && d.value[cyc] > 0) {
        col->core_ghz = d.value[cyc] / d.value[t] * col->clk.tsc_ghz;
        col->clk.core_spread = 0;
        col->core_source = "pmu";
    }
}

/* What opening a collector carries between its steps. */
struct open_ctx {
    struct cb_collector *col;
    const struct cb_collect_opts *o;
    struct cb_event_spec specs[CB_MAX_COUNTERS - 2];
    int nspec;
    struct cb_gitinfo git;
    struct cb_sb *err;
};

/* Everything the user gave, checked before anything is opened: the events,
 * the fake clock's spec, the CPU to pin to, the commit. */
static int check_args(struct open_ctx *x)
{
    struct cb_collector *col = x->col;
    const struct cb_collect_opts *o = x->o;
    int rc = cb_collect_resolve_events(o->events, x->specs, CB_MAX_COUNTERS - 2, &x->nspec,
                                       x->err);
    if (rc < 0)
        return rc;
    const char *fake = getenv(CB_FAKE_ENV);
    if (fake) {
        if ((rc = cb_fake_init(&col->fake_clock, fake, &col->fake_be, x->err)) < 0)
            return rc;
        col->fake = 1;
    }
    const char *ceil = getenv(CB_CEILINGS_ENV);
    if (ceil && *ceil && strcmp(ceil, "model") != 0 && strcmp(ceil, "off") != 0) {
        cb_sb_setf(x->err, "%s='%s': it takes 'model' (fixed figures, for tests) or "
                 "'off' (no ceilings); unset it to measure them", CB_CEILINGS_ENV, ceil);
        return -EINVAL;
    }
    if (cb_sim_requested()) {
        if (col->fake) {
            cb_sb_setf(x->err, "%s and %s are both set: a run is counted by one backend",
                     CB_FAKE_ENV, CB_SIM_ENV);
            return -EINVAL;
        }
        if ((rc = cb_sim_init(&col->sim_clock, &col->sim_be, x->err)) < 0)
            return rc;
        col->sim = 1;
    }
    /* The simulated counts do not depend on the CPU, but the fingerprint
     * records the pinned one and compare refuses runs whose fingerprints
     * differ: two --sim runs must pin alike wherever they were started. */
    int cpu = col->sim && o->cpu < 0 ? CB_CPU_FIRST : o->cpu;
    /* The mask as given (taskset, cpuset), before pinning narrows it: the
     * cross-CPU families take their second CPU from it. */
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    (void)sched_getaffinity(0, sizeof allowed, &allowed);
    if ((rc = cb_pin_cpu(cpu, &col->pinned, x->err)) < 0)
        return rc;
    col->peer = cb_pair_peer("", &allowed, col->pinned);
    if (cpu == CB_CPU_DEFAULT && !o->quiet)
        fprintf(stderr, "cyclebudget: pinned to CPU %d, the default: the last CPU this process may "
                        "use, of its fastest core type (--cpu N chooses)\n", col->pinned);
    rc = cb_gitinfo_read(o->repo, o->commit, &x->git);
    if (cb_gitinfo_cut(rc, o->repo, x->err))
        return rc;
    if (rc == -EINVAL) {
        cb_sb_setf(x->err, "--commit %s does not name a commit in %s", o->commit,
                 o->repo ? o->repo : "the current git tree");
        return rc;
    }
    if (rc == -ENOENT && o->repo) {
        cb_sb_setf(x->err, "--repo %s is not a git work tree with commits", o->repo);
        return rc;
    }
    return 0;
}

/* The TSC rate and the core clock: the model's under the fake clock, so
 * that nothing of this machine leaks in. */
static void take_clocks(struct cb_collector *col)
{
    cb_host_probe(&col->host);
    /* A machine that does not report its TSC rate is calibrated once per
     * boot, by the first run that this database sees. */
    double boot_ghz;
    if (cb_tsc_ghz_reported(NULL) <= 0 && cb_store_boot_tsc(col->st, &boot_ghz) == 0)
        cb_tsc_ghz_adopt(boot_ghz);
    if (!col->fake && !col->sim) {
        cb_clocks_measure(&col->clk);
        return;
    }
    memset(&col->clk, 0, sizeof col->clk);
    if (col->sim) {
        cb_host_identity_from_kernel(&col->host);
        /* Timed under valgrind, the clocks would be the simulator's; the
         * host's TSC rate (read by run --sim before valgrind started) is
         * kept only to turn budgets into cycles. */
        col->clk.tsc_ghz = col->sim_clock.ghz;
        col->clk.tsc_source = "";
        col->clk.est = (struct cb_core_est){.ghz = 0, .method = "none", .spread_pct = 0};
        return;
    }
    col->clk.tsc_ghz = CB_FAKE_TSC_GHZ;
    col->clk.tsc_source = "";
    col->clk.core_ghz = CB_FAKE_TSC_GHZ * CB_FAKE_CORE_PER_TICK;
    col->clk.est = (struct cb_core_est){.ghz = col->clk.core_ghz, .method = "none",
                                        .spread_pct = 0};
}

/* The counters, then the harness calibrated over them. */
static int open_counters(struct open_ctx *x)
{
    struct cb_collector *col = x->col;
    int rc = 0;
    if (col->sim)
        cb_sim_counters(&col->sim_clock, &col->cs);
    else
        rc = cb_counters_open(&col->cs, x->specs, x->nspec, col->clk.tsc_ghz, col->clk.core_ghz);
    if (rc < 0) {
        cb_sb_setf(x->err, "cannot set up counters: %s", strerror(-rc));
        return rc;
    }
    measure_core_clock(col);
    if (!x->o->quiet && col->cs.notice[0])
        fprintf(stderr, "cyclebudget: %s\n", col->cs.notice);
    if (col->fake)
        fprintf(stderr, "cyclebudget: %s is set: every figure of this run comes from a fake clock "
                        "(a test backend), not from this machine\n", CB_FAKE_ENV);
    struct cb_harness_opts ho = x->o->harness;
    ho.core_est = &col->clk.est;
    if (col->fake)
        ho.backend = &col->fake_be;
    if (col->sim) {
        ho.backend = &col->sim_be;
        ho.rounds = 1;
        if (ho.reps <= 0)
            ho.reps = CB_SIM_REPS;
        if (!ho.cold_bytes)
            ho.cold_bytes = col->sim_clock.cold_bytes;
    }
    if ((rc = cb_harness_init(&col->h, &col->cs, &ho)) < 0) {
        cb_sb_setf(x->err, "cannot calibrate the harness: %s", strerror(-rc));
        cb_counters_close(&col->cs);
        return rc;
    }
    return 0;
}

/* The environment variables that change the code or the figures a run
 * measures (codeid.h): the synthetic probe's planted slowdown, the CPU
 * features hidden from variant selection, the fake clock's model (its seed
 * left out) and the simulated machine.  A run with other values measured
 * other code, and must not teach the floor of this one. */
static const char *const code_envs[] = {"CB_SYNTH_SLOWDOWN", "CB_CPU_MASK", CB_FAKE_ENV,
                                        CB_SIM_MODEL_ENV, CB_SIM_COLD_ENV};

/* The run's row: host, build, commit, clocks, meter and fingerprint. */
static int begin_run(struct open_ctx *x)
{
    struct cb_collector *col = x->col;
    const struct cb_collect_opts *o = x->o;
    const struct cb_gitinfo *git = &x->git;
    /* Read after pinning, so the per-CPU fields are those of the run's CPU. */
    struct cb_fingerprint fp;
    char fps[1024];
    cb_fingerprint_read(&fp, NULL, col->pinned);
    cb_fingerprint_format(&fp, fps, sizeof fps);
    /* An emulated CPU's ticks time no machine: the run is labelled so. */
    struct cb_sb emul = CB_SB_INIT;
    int emulated = cb_emulation_live(&emul) == 1;
    if (emulated && !o->quiet)
        fprintf(stderr, "cyclebudget: EMULATED (%s): figures are not timings of any machine\n",
                emul.buf);
    struct cb_run_meta meta = {
        .fingerprint = fps,
        .host = &col->host, .tsc_ghz = col->clk.tsc_ghz, .tsc_source = col->clk.tsc_source,
        .core_ghz = col->core_ghz, .core_ghz_spread = col->clk.core_spread,
        /* libpfm4 under valgrind sees valgrind's virtual Intel CPU's PMU. */
        .core_ghz_source = col->core_source, .pmu = col->sim ? "" : cb_events_pmu(),
        .version = PACKAGE_VERSION, .compiler = CB_CC_VERSION, .cflags = CB_CFLAGS,
        .commit = git->commit, .subject = git->subject, .commit_date = git->date,
        .dirty = git->dirty, .cmdline = o->cmdline, .tag = o->tag, .cpu = col->pinned,
        .clock_backend = col->h.be->name, .core_est_method = col->clk.est.method,
        .core_est_ghz = col->clk.est.ghz, .core_est_spread = col->clk.est.spread_pct,
        .core_est_add_ghz = col->clk.est.add_ghz, .core_est_imul_ghz = col->clk.est.imul_ghz,
        .meter_kind = cb_meter_kind_name(col->h.meter.kind),
        .meter_baseline = col->h.meter.baseline > 0 ? col->h.meter.baseline : NAN,
        .meter_spread = col->h.meter.spread_pct, .meter_why = col->h.meter.why,
        .sim_model = col->sim ? col->sim_clock.model : NULL,
        .emulated = emulated ? emul.buf : NULL,
    };
    struct cb_codeid code;
    if (cb_codeid_read(&code, code_envs, sizeof code_envs / sizeof code_envs[0]) == 0) {
        meta.code_id = code.id;
        meta.code_what = code.what;
    }
    int rc = cb_store_run_begin(col->st, &meta, &col->run_id);
    cb_sb_release(&emul);
    if (rc < 0)
        cb_sb_setf(x->err, "cannot record the run in %s: %s", o->db, strerror(-rc));
    return rc;
}

/* The ceilings the run is judged against: the newest calibration of this
 * host and environment, or measured now and stored (the model's fixed
 * figures under the fake clock, so that tests time nothing).  The host key
 * is the one begin_run stored; the environment is the fingerprint's timing
 * lines, without the CPU number (every core has the same ceilings).  A
 * failure here costs the run its shares, not its cases: said, not fatal. */
static void link_ceilings(struct open_ctx *x)
{
    struct cb_collector *col = x->col;
    if (!x->o->ceilings || col->sim)
        return;
    struct cb_fingerprint fp;
    char lines[1024];
    cb_fingerprint_read(&fp, NULL, col->pinned);
    cb_fingerprint_lines(&fp, lines, sizeof lines);
    struct cb_run_meta meta = {.host = &col->host, .tsc_ghz = col->clk.tsc_ghz,
                               .tsc_source = col->clk.tsc_source, .pmu = cb_events_pmu()};
    const char *env = getenv(CB_CEILINGS_ENV);
    if (env && strcmp(env, "off") == 0)
        return;
    int model = col->fake || (env && strcmp(env, "model") == 0);
    int64_t id = 0;
    int reused = x->o->ceilings == 1 &&
                 cb_store_calibration_find(col->st, &meta, lines, model ? "model" : "measured",
                                           &id) == 0;
    if (!reused) {
        struct cb_ceilings cs;
        int rc = 0;
        if (model)
            cb_ceilings_model(&cs, CB_FAKE_TSC_GHZ, CB_FAKE_CORE_PER_TICK);
        else
            rc = cb_ceilings_measure(&cs, col->clk.tsc_ghz, col->clk.est.ghz, col->clk.est.method,
                                     CB_CEIL_TRIALS);
        if (rc == 0)
            rc = cb_store_calibration_add(col->st, &meta, lines, &cs, &id);
        if (rc < 0) {
            fprintf(stderr, "cyclebudget: the machine's ceilings were not recorded (%s): reports "
                            "of this run show no share of them\n", strerror(-rc));
            return;
        }
    }
    if (cb_store_run_calibration_set(col->st, col->run_id, id, reused) < 0)
        return;
    col->cal_id = id;
    col->cal_reused = reused;
    if (!x->o->quiet)
        fprintf(stderr, reused  ? "cyclebudget: ceilings: reusing calibration %lld, stored for this "
                                  "host and environment ('run --recalibrate' measures anew)\n"
                        : model ? "cyclebudget: ceilings: FIXED MODEL FIGURES (calibration %lld), "
                                  "not this machine's: written for this run, none measured\n"
                                : "cyclebudget: ceilings: measured for this run (calibration %lld)\n",
                (long long)id);
}

/* Each counter's row; on failure the run is marked aborted. */
static int record_events(struct open_ctx *x)
{
    struct cb_collector *col = x->col;
    for (int i = 0; i < col->cs.n; i++) {
        const struct cb_counter *c = &col->cs.c[i];
        struct cb_event_row row = {
            .name = c->spec.name, .part = c->spec.part, .pfm = c->spec.pfm,
            .encoding = c->spec.encoding, .source = cb_source_name(c->spec.source),
            .read_method = cb_read_method_name(c->method), .supported = c->supported,
            .why = c->why, /* for a counted one: why not read in user space, or "" */
        };
        int rc = cb_store_event_add(col->st, col->run_id, &row, &col->event_ids[i]);
        if (rc < 0) {
            cb_sb_setf(x->err, "cannot record events in %s: %s", x->o->db,
                     strerror(-rc));
            cb_store_run_finish(col->st, col->run_id, "aborted");
            return rc;
        }
    }
    return 0;
}

int cb_collector_open(struct cb_collector *col, const struct cb_collect_opts *o, struct cb_sb *err, int *usage)
{
    memset(col, 0, sizeof *col);
    col->quiet = o->quiet;
    snprintf(col->db, sizeof col->db, "%s", o->db);
    *usage = 1;
    struct open_ctx x = {.col = col, .o = o, .err = err};
    int rc = check_args(&x);
    if (rc < 0)
        return *usage = !cb_gitinfo_cut(rc, NULL, NULL), rc;   /* git cut short: no typo */
    /* The database last among the checks, so a refusal writes nothing. */
    rc = cb_store_open(o->db, CB_STORE_WRITE, 0, &col->st, err);
    if (rc < 0) {
        *usage = cb_store_refused(rc);
        return rc;
    }
    *usage = 0;
    take_clocks(col);
    if ((rc = open_counters(&x)) < 0)
        goto fail_store;
    if ((rc = begin_run(&x)) < 0 || (rc = record_events(&x)) < 0)
        goto fail_counters;
    link_ceilings(&x);
    /* The host's state: not under the simulator, whose counts it cannot move. */
    int tries = col->sim || o->state_tries < 0 ? 0 : o->state_tries ? o->state_tries : CB_STATE_TRIES;
    if (cb_runstate_begin(&col->rs, col->st, col->run_id, col->h.be, tries, o->quiet) < 0)
        fprintf(stderr, "cyclebudget: the host's state was not recorded: this run's cases are "
                        "not judged against the host's quiet figures\n");
    return 0;

fail_counters:
    cb_counters_close(&col->cs);
fail_store:
    cb_store_close(col->st);
    col->st = NULL;
    return rc;
}

static int store_unmeasured(struct cb_collector *col, struct cb_case_row *row, const char *verdict,
                            const char *detail, int64_t *case_id)
{
    row->verdict = verdict;
    row->detail = detail;
    return cb_store_case_add(col->st, col->run_id, row, NULL, 0, case_id);
}

/* Why a case whose setup failed is skipped: a cross-CPU family without a
 * second CPU says so (probe.h's peer_cpu).  Counted, the first kept, for
 * the run's end to say. */
static void setup_failure(struct cb_collector *col, const struct cb_case *c, int rc,
                          char *detail, size_t len)
{
    if (rc == -ENODEV && c->peer_cpu < 0)
        snprintf(detail, len, "needs a second CPU: this process may run on CPU %d only "
                 "(a 1-CPU host, or its affinity mask)", col->pinned);
    else
        snprintf(detail, len, "setup failed: %s", strerror(-rc));
    if (col->nfailed++ == 0) {
        col->first_fail = -rc;
        snprintf(col->first_failed, sizeof col->first_failed, "%s/%s/%zu/%s: %.120s",
                 c->probe->name, c->variant->name, c->size, cb_mode_name(c->mode), detail);
    }
}

/* Said before the first cold case that runs, not when the run starts: a
 * warm-only --sim run walks nothing. */
static void sim_cold_note(struct cb_collector *col, enum cb_mode mode)
{
    size_t walk = col->h.o.cold_bytes;
    if (!col->sim || mode != CB_MODE_COLD || walk <= ((size_t)256 << 20) || col->sim_cold_said ||
        col->quiet)
        return;
    fprintf(stderr, "\ncyclebudget: --sim: a cold case walks %zu MiB (twice the simulated LL) on "
                    "the simulator, about 30 s a case; --sim-caches LL=SIZE,WAYS,LINE simulates a "
                    "smaller one\n", walk >> 20);
    col->sim_cold_said = 1;
}

/* A measurement as the store's rows: one per sample per event (malloc'd;
 * NULL when out of memory). */
static struct cb_sample_row *sample_rows(const struct cb_collector *col,
                                         const struct cb_measurement *m, size_t *nrows)
{
    int ne = col->cs.n;
    *nrows = m->n * (size_t)ne;
    struct cb_sample_row *rows = malloc((*nrows ? *nrows : 1) * sizeof *rows);
    if (!rows)
        return NULL;
    size_t r = 0;
    for (size_t k = 0; k < m->n; k++)
        for (int e = 0; e < ne; e++)
            rows[r++] = (struct cb_sample_row){
                .seq = (int)k, .iters = cb_measurement_iters(m, k),
                .event_id = col->event_ids[e], .value = m->d[k].value[e],
                .overhead = cb_measurement_overhead(m, k, e), .enabled = m->d[k].enabled[e],
                .running = m->d[k].running[e], .scaled = m->d[k].scaled[e], .smt = m->smt[k],
                .round = m->round[k], .raw = m->d[k].raw[e],
                .method = isnan(m->d[k].value[e]) ? NULL : cb_read_method_name(m->d[k].method[e]),
            };
    return rows;
}

/* The clock the case's estimated cycles are at (caseclock.h), when one was
 * estimated. */
static void row_clock(struct cb_case_row *row, const struct cb_measurement *m)
{
    if (!(m->clock.run_ghz > 0 && m->clock.ghz > 0))
        return;
    row->clock_ghz = m->clock.ghz;
    row->clock_spread_pct = m->clock.spread_pct;
    row->clock_used = m->clock.used_case ? "case" : "run";
    row->clock_flagged = m->clock.flagged;
}

/* A measured case's row with all its samples (rows, freed here), then the
 * host's state it was measured in (runstate.h). */
static int store_measured(struct cb_collector *col, const struct cb_case_row *row,
                          struct cb_sample_row *rows, size_t nrows, int64_t *case_id)
{
    int rc = cb_store_case_add(col->st, col->run_id, row, rows, nrows, case_id);
    free(rows);
    return rc < 0 ? rc : cb_runstate_case_done(&col->rs, *case_id);
}

int cb_collector_case(struct cb_collector *col, const struct cb_probe *p,
                      const struct cb_variant *v, uint64_t size, enum cb_mode mode,
                      volatile sig_atomic_t *stop, int64_t *case_id, struct cb_measurement *out)
{
    struct cb_case_row row = {
        .probe = p->name, .variant = v->name, .size = size, .unit = p->unit, .op = p->op,
        .mode = cb_mode_name(mode), .verdict = "ok", .detail = "", .side = col->side,
    };
    char detail[300];
    int rc;
    int64_t id;
    if (!case_id)
        case_id = &id;
    if (out)
        memset(out, 0, sizeof *out);
    if (!cb_variant_runnable(v, col->host.features))
        return cb_collector_lacking(col, v, &row, case_id);
    /* Verify once per variant, before it is ever timed. */
    const struct cb_verdict *vd = cb_collector_verdict(col, p, v);
    if (!vd)
        return stop && *stop ? -EINTR : -ENOMEM;
    if (!vd->ok) {
        rc = store_unmeasured(col, &row, "bad", vd->detail, case_id);
        return rc < 0 ? rc : CB_CASE_BAD;
    }
    int guarded = !col->sim && cb_plugin_owns(p, v);   /* a plugin's code: plugin_case.c */
    if (guarded && cb_collector_size_bad(p, v, size, detail, sizeof detail))
        return cb_collector_case_bad(col, &row, p, v, detail, case_id);
    if (!vd->checked)
        row.detail = vd->detail;
    struct cb_case c = {
        .probe = p, .variant = v, .size = size, .mode = mode,
        .cold_bytes = col->h.o.cold_bytes, .peer_cpu = col->peer, .buf_pages = col->buf_pages,
    };
    struct cb_measurement m;
    col->h.stop = stop;
    sim_cold_note(col, mode);
    rc = cb_collector_time(col, guarded, &c, &m, detail, sizeof detail);
    if (rc == 1)   /* the plugin's code hurt its case */
        return cb_collector_case_bad(col, &row, p, v, detail, case_id);
    if (col->sim && col->sim_clock.failed) {
        /* A batch whose counts are unknown must not be stored as a count. */
        fprintf(stderr, "cyclebudget: --sim: %s\n", col->sim_clock.why);
        cb_measurement_free(&m);
        return -EIO;
    }
    if (rc == -EINTR) {
        cb_measurement_free(&m);
        return rc;
    }
    if (rc < 0) {
        setup_failure(col, &c, rc, detail, sizeof detail);
        cb_measurement_free(&m);
        rc = store_unmeasured(col, &row, "skipped", detail, case_id);
        return rc < 0 ? rc : CB_CASE_SKIPPED;
    }
    row.bytes_per_op = c.bytes_per_op;
    row.cpu_pair = c.pair;
    /* What was timed, apart from where it sat (codehash.h). */
    char code_hash[CB_CODE_HASH_LEN + 1];
    unsigned addr;
    cb_code_id_of(col->fake ? &col->fake_clock : NULL, p, v, col->side, code_hash, &addr);
    row.code_hash = code_hash;
    row.code_addr = (int)addr;
    size_t nrows;
    struct cb_sample_row *rows = sample_rows(col, &m, &nrows);
    if (!rows) {
        cb_measurement_free(&m);
        return -ENOMEM;
    }
    row.metered = !isnan(m.contention) && !isnan(m.contended_share);
    row.contention = m.contention;
    row.contended_share = m.contended_share;
    row_clock(&row, &m);
    rc = store_measured(col, &row, rows, nrows, case_id);
    if (out && rc >= 0)
        *out = m;
    else
        cb_measurement_free(&m);
    col->nmeasured += rc >= 0;
    return rc < 0 ? rc : CB_CASE_MEASURED;
}

int cb_collector_finish(struct cb_collector *col, const char *status)
{
    int rc = 0;
    if (col->st) {
        cb_runstate_finish(&col->rs);
        rc = cb_store_run_finish(col->st, col->run_id, status);
        cb_store_close(col->st);
        col->st = NULL;
    }
    cb_counters_close(&col->cs);
    free(col->vc);
    col->vc = NULL;
    col->nvc = col->capvc = 0;
    return rc;
}

size_t cb_collector_bad(const struct cb_collector *col, size_t *verified, char *first, size_t len)
{
    size_t bad = 0;
    if (len)
        first[0] = 0;
    for (size_t k = 0; k < col->nvc; k++) {
        const struct cb_verdict_cache *cv = &col->vc[k];
        if (cv->verdict.ok)
            continue;
        if (bad++ == 0 && len)
            snprintf(first, len, "%s: %s", cv->v->name, cv->verdict.detail);
    }
    *verified = col->nvc;
    return bad;
}
