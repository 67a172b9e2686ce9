/* cmd_calibrate.c — `cyclebudget calibrate`: what measuring costs here.
 *
 * Reading a counter is not free (Weaver: read() ~900-1600 cycles, rdpmc
 * ~140-200); the harness sizes batches from these figures, and users should
 * see them. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/ceilings.h"
#include "cli/cmd.h"
#include "harness/collect.h"
#include "counters/counters.h"
#include "counters/events.h"
#include "harness/fakeclock.h"
#include "host/fingerprint.h"
#include "harness/harness.h"
#include "store/hoststate.h"
#include "counters/meter.h"
#include "counters/refset.h"
#include "harness/stats.h"
#include "store/store.h"
#include "counters/tsc.h"

static void ticks_line(const char *what, double ticks, double ratio)
{
    if (isnan(ticks))
        printf("  %-26s %s\n", what, "not available");
    else
        printf("  %-26s %8.0f " CB_TSC_NAME " ticks  (~%.0f core cycles, estimated)\n", what, ticks,
               ticks * ratio);
}

/* Readings of the meter over about 100 ms on the calling thread's CPU
 * (the sibling's load comes and goes within milliseconds, so one instant
 * says little), relative to m's baseline.  Busy-waits between readings:
 * sleeping would hand the core to whoever shares it. */
static void meter_now(const struct cb_meter *m, double tsc_ghz, double *median, double *shifted)
{
    enum { N = 200 };
    double r[N];
    int n = 0, over = 0;
    uint64_t gap = (uint64_t)(500e3 * (tsc_ghz > 0 ? tsc_ghz : 2.0)); /* 0.5 ms */
    for (int i = 0; i < N; i++) {
        double v = cb_meter_relative(m, cb_smt_contention());
        if (v > 0) {
            r[n++] = v;
            over += v > CB_METER_SHIFT;
        }
        uint64_t t0 = cb_tsc_begin();
        while (cb_tsc_end() - t0 < gap)
            ;
    }
    cb_sort_doubles(r, (size_t)n);
    *median = n ? cb_quantile_sorted(r, (size_t)n, 0.5) : NAN;
    *shifted = n ? (double)over / n : NAN;
}

static void siblings_text(int cpu, char *buf, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    FILE *f = fopen(path, "r");
    snprintf(buf, len, "unreadable");
    if (f) {
        if (fgets(buf, (int)len, f))
            buf[strcspn(buf, "\n")] = 0;
        fclose(f);
    }
}

/* The meter on the calling thread's CPU: its raw figures, what it
 * concludes from them and why.  *baseline: its raw baseline (NAN none),
 * stored with the calibration as a run stores its own. */
static void meter_report(int cpu, double tsc_ghz, double *baseline)
{
    struct cb_meter m;
    char sib[64];
    siblings_text(cpu, sib, sizeof sib);
    int nsib = cb_meter_siblings(NULL, cpu), hv = cb_meter_hypervisor();
    cb_meter_baseline(&m, cpu, nsib, hv, NULL, NULL, CB_METER_BASELINE_N);
    *baseline = m.n && m.baseline > 0 ? m.baseline : NAN;
#if defined(__x86_64__)
    printf("contention meter   %s (%s): thread_siblings_list of cpu%d is \"%s\", cpuid hypervisor "
           "bit %s\n", cb_meter_kind_name(m.kind), cb_meter_label(m.kind), cpu, sib,
           hv ? "set" : "clear");
#else
    char what[256];
    cb_meter_guess_vm(NULL, what, sizeof what);
    printf("contention meter   %s (%s): thread_siblings_list of cpu%d is \"%s\", hypervisor: %s "
           "(%s)\n", cb_meter_kind_name(m.kind), cb_meter_label(m.kind), cpu, sib,
           hv ? "likely" : "not known", what);
#endif
    printf("  raw reading      time per add of a straddling add/" CB_LOOP_DEC_BRANCH
           " loop over that of an unrolled\n"
           "                   add chain (a busy sibling slows the loop, barely the chain)\n");
    if (m.n)
        printf("  baseline         %d readings: min %.3f  p25 %.3f  median %.3f  p75 %.3f  max %.3f "
               "(middle half %.1f%% wide)\n", m.n, m.q[0], m.q[1], m.q[2], m.q[3], m.q[4], m.spread_pct);
    if (m.kind == CB_METER_SMT || m.kind == CB_METER_HOST) {
        double med, shifted;
        meter_now(&m, tsc_ghz, &med, &shifted);
        printf("  since            200 readings over ~0.1 s: median %.2fx the baseline, %.0f%% over "
               "%.2fx: %s\n", med, 100 * shifted, CB_METER_SHIFT,
               shifted > 0.5 ? "something started using this core since the baseline"
                             : "no shift from the baseline");
    }
    printf("  conclusion       %s\n", m.why);
}

/* `calibrate --smt`: the meter on every CPU this process may use, one line
 * each, so a user (or bench/detection.sh) can pin runs to a quiet one: a
 * lower raw baseline is a quieter core. */
static int smt_all(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        cb_error("cannot read this process's CPU affinity");
        return 1;
    }
    printf("contention meter per CPU (raw: straddling add loop / unrolled add chain; a run flags a\n"
           "sample over %.2fx its own baseline; a lower raw baseline is a quieter core)\n",
           CB_METER_SHIFT);
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        char sib[64];
        struct cb_sb err = CB_SB_INIT;
        int pinned;
        /* Back to the whole set first: pinning checks against the current one. */
        if (sched_setaffinity(0, sizeof set, &set) != 0 || cb_pin_cpu(c, &pinned, &err) < 0)
            continue;
        struct cb_meter m;
        siblings_text(c, sib, sizeof sib);
        cb_meter_baseline(&m, c, cb_meter_siblings(NULL, c), cb_meter_hypervisor(), NULL, NULL,
                          CB_METER_BASELINE_N);
        if (m.n)
            printf("cpu %d  %-8s siblings \"%s\"  raw median %.3f  middle half %.1f%% wide\n", c,
                   cb_meter_kind_name(m.kind), sib, m.baseline, m.spread_pct);
        else
            printf("cpu %d  %-8s siblings \"%s\"  not read: %s\n", c, cb_meter_kind_name(m.kind), sib,
                   m.why);
    }
    return 0;
}

static const char *kind_label(const char *kind)
{
    return strcmp(kind, "adc") == 0     ? "adc 1 chain"
           : strcmp(kind, "adcx2") == 0 ? "adcx+adox 2"
           : strcmp(kind, "movsb") == 0 ? "rep movsb"
           : strcmp(kind, "stosb") == 0 ? "rep stosb"
                                        : kind;
}

static const char *bytes_text(uint64_t b, char *buf, size_t len)
{
    if (b >= (1ull << 20) && b % (1ull << 20) == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
    else
        snprintf(buf, len, "%llu B", (unsigned long long)b);
    return buf;
}

/* What kernel_fpu_begin()/end() cost here (fpu.h): the charge reports add
 * to SIMD variants for running in the kernel. */
static void fpu_print(FILE *out, const struct cb_ceilings *cs)
{
    const struct cb_fpu_cost *f = &cs->fpu;
    if (!f->supported) {
        fprintf(out, "kernel FPU use     not measured: this CPU has no XSAVE (or the OS left it off)\n");
        return;
    }
    int neon = strcmp(f->save_insn, "stp q") == 0; /* arm64's model (fpu.h) */
    double r = cs->core_ghz > 0 && cs->tsc_ghz > 0 ? cs->core_ghz / cs->tsc_ghz : NAN;
    if (neon)
        fprintf(out, "kernel FPU use     kernel_neon_begin/end%s: %s of %u B of state (v0-v31, "
                "FPSR, FPCR)\n", strcmp(f->source, "model") == 0 ? " (FIXED MODEL FIGURES)" : "",
                f->save_insn, f->state_bytes);
    else
        fprintf(out, "kernel FPU use     kernel_fpu_begin/end%s: %s of %u B of state (XCR0 %#llx%s)\n",
                strcmp(f->source, "model") == 0 ? " (FIXED MODEL FIGURES)" : "", f->save_insn,
                f->state_bytes, (unsigned long long)f->xcr0,
                f->xcr0 != f->saved_mask ? ", AMX tiles left out" : "");
    /* arm64's figures are per save over 1000 repeats: fractions of a tick. */
    fprintf(out, neon ? "  first use        %6.1f " CB_TSC_NAME " ticks" : "  first use        %6.0f "
                                                                            CB_TSC_NAME " ticks",
            f->first_ticks);
    if (isfinite(r))
        fprintf(out, " (~%.0f core cycles)", f->first_ticks * r);
    fprintf(out, neon ? ": save %.1f, restore %.1f%s\n" : ": save %.0f, restore %.0f%s\n",
            f->save_ticks, f->restore_ticks, neon ? "" : ", fninit");
    fprintf(out, neon ? "  later use        %6.1f " CB_TSC_NAME " ticks" : "  later use        %6.0f "
                                                                            CB_TSC_NAME " ticks",
            f->later_ticks);
    if (isfinite(r))
        fprintf(out, " (~%.0f core cycles)", f->later_ticks * r);
    fprintf(out, "%s\n", neon ? ": nothing (the state is saved already)" : ": fninit, ldmxcsr (no save)");
}

/* The ceilings as a table: what, where, how fast in both units. */
static void ceilings_print(FILE *out, const struct cb_ceilings *cs)
{
    char a[32], b[32], c[32];
    fprintf(out,
            "ceilings (%s): bytes per " CB_TSC_NAME " tick at %.3f GHz, and per estimated core cycle",
            strcmp(cs->source, "model") == 0 ? "FIXED MODEL FIGURES, not this machine" : cs->source,
            cs->tsc_ghz);
    if (cs->core_ghz > 0)
        fprintf(out, " at %.3f GHz (%s)\n", cs->core_ghz, cs->core_method);
    else
        fprintf(out, " (no core-clock estimate: '-')\n");
    fprintf(out, "  caches           L1d %s, L2 %s, L3 %s (0: unknown)\n",
            bytes_text(cs->cache[0], a, sizeof a), bytes_text(cs->cache[1], b, sizeof b),
            bytes_text(cs->cache[2], c, sizeof c));
    if (cs->note[0])
        fprintf(out, "  note             %s\n", cs->note);
    fprintf(out, "  %-12s %-5s %11s  %-6s  %8s  %11s  %7s\n", "ceiling", "level", "working set",
            "ISA", "B/tick", "B/est-cycle", "spread");
    for (size_t i = 0; i < cs->n; i++) {
        const struct cb_ceiling *e = &cs->c[i];
        char bpc[32];
        if (isfinite(e->bpc))
            snprintf(bpc, sizeof bpc, "%.2f", e->bpc);
        else
            snprintf(bpc, sizeof bpc, "-");
        fprintf(out, "  %-12s %-5s %11s  %-6s  %8.2f  %11s  %6.1f%%\n", kind_label(e->kind),
                cb_ceil_level_name(e->level), bytes_text(e->set_bytes, a, sizeof a), e->isa, e->bpt,
                bpc, isfinite(e->spread_pct) ? e->spread_pct : 0);
    }
    fprintf(out, "  (each the best of its trials; spread: the middle half of the trials, %% of the "
                 "best; rep movsb counts bytes copied, its set holds source and destination)\n");
    fpu_print(out, cs);
}

struct calib_opts {
    int smt, only_ceilings, trials, no_store;
    const char *db;
};

enum { OPT_TRIALS = CB_OPT_LONG_ONLY };

static int calib_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct calib_opts *o = ctx;
    char *end;
    (void)id;
    o->trials = (int)strtol(arg, &end, 10);
    if (end == arg || *end || o->trials < 1 || o->trials > 32) {
        cb_sb_setf(err, "calibrate: --trials '%s' is not a number from 1 to 32", arg);
        return -EINVAL;
    }
    return 0;
}

static int parse(int argc, char **argv, struct calib_opts *o)
{
    static const struct cb_option options[] = {
        CB_OPT_BOOL(0, "ceilings", struct calib_opts, only_ceilings,
                    "only the clocks and the ceilings"),
        CB_OPT_CALL(OPT_TRIALS, "trials", "N",
                    "trials per ceiling, the best kept (default 7; DRAM at most 3)"),
        CB_OPT_STR(0, "db", struct calib_opts, db, "PATH",
                   "store the ceilings there, for runs of this host and environment to reuse "
                   "(default: ./" CB_DEFAULT_DB ")"),
        CB_OPT_BOOL(0, "no-store", struct calib_opts, no_store, "print only"),
        CB_OPT_BOOL(0, "smt", struct calib_opts, smt,
                    "only the meter's baseline, for every CPU this process may use"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "calibrate",
        .synopsis =
            "usage: cyclebudget calibrate [--ceilings] [--trials N] [--db PATH | --no-store]\n"
            "       cyclebudget calibrate --smt\n"
            "  prints counter read costs, the TSC frequency, the core-clock estimate (both\n"
            "  estimators), the contention meter's raw figures and conclusion, and the\n"
            "  machine's ceilings: load and store bandwidth from L1, L2, L3 and DRAM (widest\n"
            "  vector ISA and scalar), add-with-carry throughput, rep movsb/stosb, in bytes\n"
            "  per TSC tick and per estimated core cycle\n",
        .options = options,
        .footer = "  With CB_FAKE_CLOCK or CB_CEILINGS=model set the ceilings are fixed model\n"
                  "  figures (tests), stored as such.\n",
        .option = calib_option,
    };
    *o = (struct calib_opts){.trials = CB_CEIL_TRIALS, .db = CB_DEFAULT_DB};
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_parsed(cb_getopt(argc, argv, &parser, o, &err), &err, CB_EXIT_USAGE);
    if (rc != CB_GO_ON)
        return rc;
    if (optind < argc) {
        cb_error("calibrate: unexpected '%s' (see 'cyclebudget calibrate --help')", argv[optind]);
        return CB_EXIT_USAGE;
    }
    if (o->no_store && o->db != (const char *)CB_DEFAULT_DB) {
        cb_error("calibrate: --db and --no-store contradict each other: give one");
        return CB_EXIT_USAGE;
    }
    if (o->smt && o->only_ceilings) {
        cb_error("calibrate: --smt and --ceilings measure different things: give one");
        return CB_EXIT_USAGE;
    }
    return CB_GO_ON;
}

/* The store, opened before anything is measured or printed: a --db that
 * cannot take the ceilings is refused at once, not after a minute of
 * figures.  0, or the exit status (said). */
static int open_store(const char *db, struct cb_store **st)
{
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_store_open(db, CB_STORE_WRITE, 0, st, &err);
    if (rc < 0) {
        cb_error("calibrate: %s", err.buf);
        cb_sb_release(&err);
        return cb_store_refused(rc) ? CB_EXIT_USAGE : 1;
    }
    cb_sb_release(&err);
    return 0;
}

/* The ceilings into the store, keyed as a run of this host would key them
 * (collect.c): the hosts row and the environment's timing lines.  Closes
 * st. */
static int store_ceilings(struct cb_store *st, const char *db, int cpu, const struct cb_ceilings *cs,
                          const struct cb_clocks *k, const struct cb_refs *refs,
                          double meter_baseline)
{
    int rc;
    struct cb_host host;
    cb_host_probe(&host);
    struct cb_fingerprint fp;
    char lines[1024];
    cb_fingerprint_read(&fp, NULL, cpu);
    cb_fingerprint_lines(&fp, lines, sizeof lines);
    int fake = getenv(CB_FAKE_ENV) != NULL;
    cb_events_init();
    struct cb_run_meta meta = {.host = &host, .tsc_ghz = fake ? CB_FAKE_TSC_GHZ : k->tsc_ghz,
                               .tsc_source = fake ? "" : k->tsc_source, .pmu = cb_events_pmu()};
    int64_t id;
    rc = cb_store_calibration_add(st, &meta, lines, cs, &id);
    struct cb_refs none;
    cb_refs_clear(&none);
    if (rc == 0 && ((refs && cb_refs_any(refs)) || meter_baseline > 0))
        rc = cb_store_calibration_refs_set(st, id, cpu, refs ? refs : &none, meter_baseline);
    cb_store_close(st);
    if (rc < 0) {
        cb_error("calibrate: cannot store the ceilings in %s: %s", db, strerror(-rc));
        return 1;
    }
    printf("stored as calibration %lld in %s: runs of this host and environment reuse it\n",
           (long long)id, db);
    return 0;
}

/* The clocks the ceilings are stated in, then the ceilings: the model's
 * under the fake clock, so that tests see fixed figures. */
static int model_ceilings(void)
{
    const char *e = getenv(CB_CEILINGS_ENV);
    return getenv(CB_FAKE_ENV) || (e && strcmp(e, "model") == 0);
}

static int ceilings_section(const struct cb_clocks *k, int trials, struct cb_ceilings *cs)
{
    if (model_ceilings()) {
        cb_ceilings_model(cs, CB_FAKE_TSC_GHZ, CB_FAKE_CORE_PER_TICK);
    } else if (cb_ceilings_measure(cs, k->tsc_ghz, k->est.ghz, k->est.method, trials) < 0) {
        cb_error("calibrate: cannot map memory for the ceilings' working sets");
        return 1;
    }
    ceilings_print(stdout, cs);
    return 0;
}

/* The fixed-rate counter (on arm64 with its resolution) and the core-clock
 * estimate with both chains. */
static void clocks_report(const struct cb_clocks *k)
{
    printf("%-18s %.4f GHz (%s)\n", CB_TSC_NAME " frequency", k->tsc_ghz, k->tsc_source);
    if (CB_CHAIN_ARM64)
        printf("  resolution       %.2f ns a tick: a sample spans >= %.0f ticks (%.1f us) for "
               "quantisation under %.1f%%\n", cb_tsc_tick_ns(k->tsc_ghz), CB_TSC_QUANT_TICKS,
               CB_TSC_QUANT_TICKS * cb_tsc_tick_ns(k->tsc_ghz) / 1e3, CB_TSC_QUANT_BOUND * 100);
    printf("core clock         %.3f GHz estimated by the %s (spread %.2f%%)\n", k->core_ghz,
           k->est.method, isfinite(k->est.spread_pct) ? k->est.spread_pct : 0);
    double w = (double)cb_chain_scale(k->tsc_ghz); /* longer windows for a slow counter */
    printf("  add chain        %.3f GHz (dependent adds, latency 1; slope of the fastest %.0fk- and "
           "%.0fk-add windows)\n", k->est.add_ghz, 20 * w, 60 * w);
    if (CB_CHAIN_ARM64)
        printf("  mul chain        %.3f GHz (dependent muls taken as latency 2, the least of any "
               "core: a lower bound, the check)\n", k->est.imul_ghz);
    else
        printf("  imul chain       %.3f GHz (dependent imuls, latency 3: the independent check)\n",
               k->est.imul_ghz);
    double r = k->est.imul_ghz > 0 ? k->est.add_ghz / k->est.imul_ghz : NAN;
    if (CB_CHAIN_ARM64 && k->est.add_ghz > 0 && k->est.imul_ghz > 0)
        printf("  agreement        add/mul %.2f: %s\n", r,
               strcmp(k->est.method, "add-chain") == 0
                   ? "between 1 and 5/2 (a mul of 2-5 cycles): the add chain is taken"
                   : "outside 1..5/2: the mul chain's lower bound is taken (see tsc.h)");
    else
        printf("  agreement        %s\n",
               k->est.add_ghz > 0 && k->est.imul_ghz > 0 && fabs(r - 1) <= CB_CORE_AGREE
                   ? "within 3%: the add chain is taken"
                   : "they disagree: the physically consistent one is taken (see tsc.h)");
}

/* The reference set on the calling thread's CPU (refset.h): stored with
 * the calibration, it joins the runs' start readings in this host's quiet
 * figures.  Under the fake clock nothing is timed. */
static void refs_report(struct cb_refs *r)
{
    cb_refs_clear(r);
    if (model_ceilings()) {
        printf("reference set      not timed (%s or %s=model: fixed figures)\n", CB_FAKE_ENV,
               CB_CEILINGS_ENV);
        return;
    }
    cb_refs_measure(r);
    printf("reference set      " CB_TSC_NAME " ticks an op, the median of short windows: the host's "
           "state\n                   (a run is slowed over %.2fx this host's quiet figures)\n ",
           CB_STATE_SLOWED);
    for (int i = 0; i < CB_NREFS; i++)
        printf(" %s %.3f", cb_ref_name(i), r->v[i]);
    printf("\n");
}

/* One group as the default run opens it (hardware events where the PMU
 * allows, the software clock always) and what reading it costs. */
static int counters_report(const struct cb_clocks *k, double ratio)
{
    const char *names[] = {"cycles", "instructions", "task-clock"};
    struct cb_event_spec specs[8];
    int n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t got = 0;
        if (cb_events_resolve(names[i], &specs[n], 8 - (size_t)n, &got) == 0 && got)
            n += (int)got;
    }
    struct cb_counters cs;
    if (cb_counters_open(&cs, specs, n, k->tsc_ghz, k->core_ghz) < 0) {
        cb_error("cannot open counters");
        return 1;
    }
    printf("PMU (libpfm4)      %s\n", cb_events_pmu());
    if (cs.notice[0])
        printf("note               %s\n", cs.notice);
    for (int i = 0; i < cs.n; i++)
        printf("  %-14s %-9s %-8s %s\n", cs.c[i].spec.part,
               cs.c[i].supported ? cb_source_name(cs.c[i].spec.source) : "-",
               cs.c[i].supported ? cb_read_method_name(cs.c[i].method) : "-",
               cs.c[i].supported ? cs.c[i].spec.encoding : cs.c[i].why);
    struct cb_read_cost cost;
    cb_counters_read_cost(&cs, 2001, &cost);
    printf("read cost (median of 2001 reads)\n");
    ticks_line(CB_TSC_READ " begin+end pair", cost.rdtsc_ticks, ratio);
    ticks_line("read() of the group", cost.syscall_ticks, ratio);
    ticks_line("rdpmc of the group", cost.rdpmc_ticks, ratio);
    ticks_line("one full sample read", cost.read_ticks, ratio);
    printf("a batch must last >= %.0f ticks (%.1f us) for reads to cost < 1%%\n",
           cost.read_ticks * 100, cost.read_ticks * 100 / (k->tsc_ghz * 1e3));
    if (CB_CHAIN_ARM64) {
        struct cb_harness_opts ho;
        cb_harness_defaults(&ho);
        double mb = cb_min_batch_ticks(k->tsc_ghz, ho.min_batch_us, cost.read_ticks);
        printf("the harness's batch: >= %.0f ticks (%.1f us): reads < 1%%, >= %.0f us, >= %.0f ticks "
               "(one tick < %.1f%%)\n", mb, mb * cb_tsc_tick_ns(k->tsc_ghz) / 1e3, ho.min_batch_us,
               CB_TSC_QUANT_TICKS, CB_TSC_QUANT_BOUND * 100);
    }
    cb_counters_close(&cs);
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    int cpu = CB_CPU_DEFAULT;   /* the CPU a run pins to by default */
    struct calib_opts o;
    int rc = parse(argc, argv, &o);
    if (rc != CB_GO_ON)
        return rc;
    if (o.smt)
        return smt_all();
    struct cb_store *st = NULL;
    if (!o.no_store && (rc = open_store(o.db, &st)) != 0)
        return rc;
    struct cb_sb err = CB_SB_INIT;
    int pinned, unpinned = cb_pin_cpu(cpu, &pinned, &err) < 0;
    if (unpinned)
        cb_error("%s", err.buf);
    cb_sb_release(&err);
    struct cb_ceilings ceil;
    struct cb_clocks k;
    struct cb_refs refs, *rp = NULL;
    double meter_base = NAN;
    if (unpinned) {
        rc = 1;
    } else if (o.only_ceilings) {
        if (getenv(CB_FAKE_ENV))
            memset(&k, 0, sizeof k);
        else
            cb_clocks_measure(&k);
        printf("CPU %d\n", pinned);
        rc = ceilings_section(&k, o.trials, &ceil);
    } else {
        cb_events_init();
        cb_clocks_measure(&k);
        printf("CPU %d\n", pinned);
        clocks_report(&k);
        meter_report(pinned, k.tsc_ghz, &meter_base);
        refs_report(&refs);
        rp = &refs;
        rc = counters_report(&k, k.tsc_ghz > 0 ? k.core_ghz / k.tsc_ghz : NAN);
        if (rc == 0)
            rc = ceilings_section(&k, o.trials, &ceil);
    }
    if (rc || !st) {
        if (st)
            cb_store_close(st);
        return rc;
    }
    return store_ceilings(st, o.db, pinned, &ceil, &k, rp, meter_base);
}
