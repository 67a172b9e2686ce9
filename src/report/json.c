/* report_json.c — the JSON export (Google Benchmark's JSON: gbench.c).
 *
 * The cyclebudget JSON is the whole story of each run: host and build
 * metadata, every event with its source, and every sample, so that nothing
 * a report shows needs the database. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/fingerprint.h"
#include "host/machine.h"
#include "counters/meter.h"
#include "report/rank.h"
#include "report/report.h"

static void kv_str(FILE *out, const char *k, const char *v, int comma)
{
    fprintf(out, "%s\"%s\": ", comma ? ", " : "", k);
    cb_json_str(out, v);
}

static void kv_num(FILE *out, const char *k, double v)
{
    fprintf(out, ", \"%s\": ", k);
    cb_json_num(out, v);
}

static void u64_array(FILE *out, const char *k, const uint64_t *v, size_t n, int comma)
{
    fprintf(out, "%s\"%s\": [", comma ? ", " : "", k);
    for (size_t j = 0; j < n; j++)
        fprintf(out, "%s%" PRIu64, j ? "," : "", v[j]);
    fputc(']', out);
}

static void num_array(FILE *out, const char *k, const double *v, size_t n)
{
    fprintf(out, ", \"%s\": [", k);
    for (size_t j = 0; j < n; j++) {
        if (j)
            fputc(',', out);
        cb_json_num(out, v[j]);
    }
    fputc(']', out);
}

static void summary(FILE *out, const struct cb_summary *s)
{
    fprintf(out, "{\"n\": %zu", s->n);
    kv_num(out, "median", s->median);
    kv_num(out, "min", s->min);
    kv_num(out, "max", s->max);
    kv_num(out, "p25", s->p25);
    kv_num(out, "p75", s->p75);
    kv_num(out, "mean", s->mean);
    kv_num(out, "ci_lo", s->ci_lo);
    kv_num(out, "ci_hi", s->ci_hi);
    kv_num(out, "spread_pct", s->spread_pct);
    fputc('}', out);
}

/* An object that a run may not have: its members braced, or null. */
static void obj_or_null(FILE *out, int have, void (*members)(FILE *, const struct cb_run_info *),
                        const struct cb_run_info *u)
{
    if (!have) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    members(out, u);
    fputc('}', out);
}

static void run_head(FILE *out, const struct cb_run_info *u)
{
    fprintf(out, "{\"id\": %" PRId64, u->id);
    fputs(", \"uuid\": ", out);
    if (u->uuid[0])
        cb_json_str(out, u->uuid);
    else
        fputs("null", out);
    kv_str(out, "status", u->status, 1);
    kv_str(out, "started", u->started, 1);
    kv_str(out, "finished", u->finished, 1);
    kv_str(out, "cmdline", u->cmdline, 1);
    fputs(", \"tag\": ", out);
    if (u->tag[0])
        cb_json_str(out, u->tag);
    else
        fputs("null", out);
    fprintf(out, ", \"cpu\": %d", u->cpu);
    /* null: timed on this machine; else why its CPU was emulated, and no
     * figure of the run is a timing (emulation.h). */
    fputs(", \"emulated\": ", out);
    if (u->emulated[0])
        cb_json_str(out, u->emulated);
    else
        fputs("null", out);
}

static void host_json(FILE *out, const struct cb_run_info *u)
{
    fputs(",\n  \"host\": {", out);
    char machine[CB_MACHINE_ID_LEN + 1];
    cb_machine_id(u->hostname, u->vendor, u->family, u->model, u->stepping, u->model_name, machine);
    kv_str(out, "hostname", u->hostname, 0);
    kv_str(out, "machine", machine, 1);
    kv_str(out, "vendor", u->vendor, 1);
    fprintf(out, ", \"family\": %d, \"model\": %d, \"stepping\": %d", u->family, u->model,
            u->stepping);
    kv_str(out, "model_name", u->model_name, 1);
    kv_str(out, "microcode", u->microcode, 1);
    kv_str(out, "features", u->features, 1);
    fprintf(out, ", \"ncpus\": %d", u->ncpus);
    kv_str(out, "kernel", u->kernel, 1);
    kv_str(out, "pmu", u->pmu, 1);
    fputs("},\n  \"build\": {", out);
    kv_str(out, "version", u->version, 0);
    kv_str(out, "compiler", u->compiler, 1);
    kv_str(out, "cflags", u->cflags, 1);
    fputc('}', out);
}

static void commit_members(FILE *out, const struct cb_run_info *u)
{
    kv_str(out, "hash", u->commit, 0);
    kv_str(out, "subject", u->subject, 1);
    kv_str(out, "date", u->commit_date, 1);
    fprintf(out, ", \"dirty\": %s", u->dirty == 1 ? "true" : u->dirty == 0 ? "false" : "null");
}

static void core_estimate_members(FILE *out, const struct cb_run_info *u)
{
    kv_str(out, "method", u->core_est_method, 0);
    kv_num(out, "ghz", u->core_est_ghz);
    kv_num(out, "spread_pct", u->core_est_spread);
    kv_num(out, "add_chain_ghz", u->core_est_add_ghz);
    kv_num(out, "imul_chain_ghz", u->core_est_imul_ghz);
}

static void meter_members(FILE *out, const struct cb_run_info *u)
{
    kv_str(out, "kind", u->meter_kind, 0);
    kv_num(out, "baseline", u->meter_baseline);
    kv_num(out, "baseline_spread_pct", u->meter_spread);
    kv_num(out, "shift_threshold", CB_METER_SHIFT);
    kv_str(out, "why", u->meter_why, 1);
}

static void clocks_json(FILE *out, const struct cb_run_info *u)
{
    fputs(",\n  \"clocks\": {", out);
    fprintf(out, "\"tsc_ghz\": ");
    cb_json_num(out, u->tsc_ghz);
    kv_str(out, "tsc_source", u->tsc_source, 1);
    kv_num(out, "core_ghz", u->core_ghz);
    kv_num(out, "core_ghz_spread_pct", u->core_ghz_spread);
    kv_str(out, "core_ghz_source", u->core_ghz_source, 1);
    kv_str(out, "backend", u->clock_backend[0] ? u->clock_backend : "perf_event", 1);
    if (u->sim_model[0])
        kv_str(out, "sim_model", u->sim_model, 1);
    fputs(", \"core_estimate\": ", out);
    obj_or_null(out, u->core_est_method[0] != 0, core_estimate_members, u);
    fputs("},\n  \"contention_meter\": ", out);
    obj_or_null(out, u->meter_kind[0] != 0, meter_members, u);
}

/* Every field as recorded, "" where it could not be read; null for a run
 * from before the environment was stored. */
static void env_json(FILE *out, const struct cb_run_info *u)
{
    fputs(",\n  \"environment\": ", out);
    struct cb_fingerprint fp;
    if (!cb_report_env(u, &fp)) {
        fputs("null", out);
        return;
    }
    const char *key, *val;
    fputc('{', out);
    for (size_t i = 0; (val = cb_fingerprint_field(&fp, i, &key)) != NULL; i++)
        kv_str(out, key, val, i > 0);
    int sc = cb_fingerprint_scaling(&fp);
    fprintf(out, ", \"cpu_scaling\": %s}", sc < 0 ? "null" : sc ? "true" : "false");
}

static void cycles_json(FILE *out, const struct cb_report *r)
{
    fputs(",\n  \"cycles\": {", out);
    kv_str(out, "source", r->cyc_source, 0);
    kv_str(out, "event", r->cyc_event >= 0 ? r->events[r->cyc_event].name : "", 1);
    kv_str(out, "label", r->cyc_label, 1);
    kv_str(out, "ranked_by", cb_rank_by_time(r) ? "tsc" : "cycles", 1);
    fputs("},\n  \"budget_cycles\": {", out);
    fputs("\"10G\": ", out);
    cb_json_num(out, cb_report_budget_cycles(r, 10));
    kv_num(out, "40G", cb_report_budget_cycles(r, 40));
    kv_num(out, "100G", cb_report_budget_cycles(r, 100));
    fputs("},\n  \"budget_clock\": {\"ghz\": ", out);
    cb_json_num(out, r->core_ghz > 0 ? r->core_ghz : NAN);
    kv_str(out, "what", cb_report_budget_clock_what(r), 1);
    char rule[1024];
    fputs("},\n  \"budget\": {", out);
    kv_str(out, "label", r->budget.label, 0);
    fprintf(out, ", \"frame\": %u", r->budget.frame);
    kv_num(out, "gbps", r->budget.gbps > 0 ? r->budget.gbps : NAN);
    kv_num(out, "cycles", r->budget.cycles > 0 ? r->budget.cycles : NAN);
    kv_str(out, "rule", cb_budget_rule(r->budget.frame, rule, sizeof rule), 1);
    kv_str(out, "context", cb_context_name(r->context), 1);
    cb_report_context_line(r, rule, sizeof rule);
    kv_str(out, "context_what", rule, 1);
    fputc('}', out);
}

static void events_json(FILE *out, const struct cb_report *r)
{
    fputs(",\n  \"events\": [", out);
    for (size_t e = 0; e < r->nevents; e++) {
        const struct cb_event_info *ev = &r->events[e];
        fprintf(out, "%s\n    {", e ? "," : "");
        kv_str(out, "name", ev->name, 0);
        kv_str(out, "part", ev->part, 1);
        kv_str(out, "pfm", ev->pfm, 1);
        kv_str(out, "encoding", ev->encoding, 1);
        kv_str(out, "source", ev->source, 1);
        kv_str(out, "read_method", ev->read_method, 1);
        fprintf(out, ", \"supported\": %s", ev->supported ? "true" : "false");
        kv_str(out, "why", ev->why, 1);
        fputc('}', out);
    }
    fputc(']', out);
}

/* One event's samples as parallel arrays. */
static void series_json(FILE *out, const struct cb_report_series *s)
{
    u64_array(out, "iters", s->iters, s->n, 0);
    num_array(out, "per_op", s->v, s->n);
    /* The stored figures behind per_op, so that any scaling can be
     * redone: value = raw * enabled / running when multiplexed. */
    num_array(out, "raw", s->raw, s->n);
    u64_array(out, "enabled_ns", s->enabled, s->n, 1);
    u64_array(out, "running_ns", s->running, s->n, 1);
    fputs(", \"method\": [", out);
    for (size_t j = 0; j < s->n; j++) {
        if (j)
            fputc(',', out);
        if (s->method[j][0])
            cb_json_str(out, s->method[j]);
        else
            fputs("null", out);
    }
    fputc(']', out);
}

static void median_value(FILE *out, const struct cb_report_case *c, size_t e)
{
    cb_json_num(out, c->ev_median[e]);
}

static void samples_value(FILE *out, const struct cb_report_case *c, size_t e)
{
    fputc('{', out);
    series_json(out, &c->ev[e]);
    fputc('}', out);
}

/* Members keyed by the part of each event the case counted, sep between
 * them, each value written by value. */
static void per_event(FILE *out, const struct cb_report *r, const struct cb_report_case *c,
                      const char *sep, void (*value)(FILE *, const struct cb_report_case *, size_t))
{
    int first = 1;
    for (size_t e = 0; e < r->nevents; e++) {
        if (c->ev[e].n == 0)
            continue;
        fputs(first ? "" : sep, out);
        cb_json_str(out, r->events[e].part);
        fputs(": ", out);
        value(out, c, e);
        first = 0;
    }
}

/* A case's per-op medians and its samples, for the events it counted. */
static void case_events_json(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    fputs(",\n     \"median_per_op\": {", out);
    per_event(out, r, c, ", ", median_value);
    fputs("},\n     \"samples\": {", out);
    per_event(out, r, c, ",\n       ", samples_value);
    fputc('}', out);
}

/* The case against the machine's ceilings: null when the run has none or
 * the case is not byte-oriented; shares are fractions (0.42), null where
 * unknown. */
static void case_ceiling_json(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    if (c->ceil_level < 0) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    kv_str(out, "level", cb_ceil_level_name(c->ceil_level), 0);
    kv_num(out, "load_bytes_per_tick", c->ceil_load);
    kv_num(out, "load_share", c->share_load);
    kv_num(out, "store_bytes_per_tick", c->ceil_store);
    kv_num(out, "store_share", c->share_store);
    struct cb_sb why = CB_SB_INIT;
    const char *over = cb_report_ceil_over(r, c, &why);
    if (over)
        kv_str(out, "over", over, 1); /* above 100%: why */
    else
        fputs(", \"over\": null", out);
    cb_sb_release(&why);
    fputc('}', out);
}

/* The run's calibration: when and how it was had, the cache sizes that
 * place a working set, and every ceiling; null when none is stored. */
static void calibration_json(FILE *out, const struct cb_report *r)
{
    fputs(",\n  \"calibration\": ", out);
    if (!r->has_ceil) {
        fputs("null", out);
        return;
    }
    const struct cb_ceilings *cs = &r->ceil;
    fprintf(out, "{\"id\": %lld, \"reused\": %s", (long long)r->cal_id,
            r->cal_reused ? "true" : "false");
    kv_str(out, "taken", r->cal_taken, 1);
    kv_str(out, "source", cs->source, 1);
    kv_num(out, "tsc_ghz", cs->tsc_ghz);
    kv_num(out, "core_ghz_estimated", cs->core_ghz > 0 ? cs->core_ghz : NAN);
    kv_str(out, "core_method", cs->core_method, 1);
    fprintf(out, ", \"cache_bytes\": {\"L1\": %llu, \"L2\": %llu, \"L3\": %llu}",
            (unsigned long long)cs->cache[0], (unsigned long long)cs->cache[1],
            (unsigned long long)cs->cache[2]);
    kv_str(out, "note", cs->note, 1);
    fputs(",\n    \"ceilings\": [", out);
    for (size_t i = 0; i < cs->n; i++) {
        const struct cb_ceiling *e = &cs->c[i];
        fputs(i ? ",\n      {" : "\n      {", out);
        kv_str(out, "kind", e->kind, 0);
        kv_str(out, "level", cb_ceil_level_name(e->level), 1);
        kv_str(out, "isa", e->isa, 1);
        fprintf(out, ", \"set_bytes\": %llu", (unsigned long long)e->set_bytes);
        kv_num(out, "bytes_per_tick", e->bpt);
        kv_num(out, "bytes_per_est_cycle", e->bpc);
        kv_num(out, "spread_pct", e->spread_pct);
        fprintf(out, ", \"trials\": %d}", e->trials);
    }
    fputs("]}", out);
}

/* The clock a case's estimated cycles are at (caseclock.h): null for a
 * case with none (PMU or simulated cycles, not measured, older runs). */
static void case_clock_json(FILE *out, const struct cb_report_case *c)
{
    const struct cb_case_info *i = &c->info;
    if (!i->clock_used[0] || !(i->clock_ghz > 0)) {
        fputs("null", out);
        return;
    }
    fputs("{\"ghz\": ", out);
    cb_json_num(out, i->clock_ghz);
    kv_num(out, "spread_pct", i->clock_spread_pct);
    kv_str(out, "used", i->clock_used, 1);
    fprintf(out, ", \"flagged\": %s}", i->clock_flagged ? "true" : "false");
}

/* Fractions of the charged frames' time (budget.h's rule) at each link
 * rate, at the report's frame. */
static void case_budget_json(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    if (!c->measured) {
        fputs("null", out);
        return;
    }
    fputs("{\"10G\": ", out);
    cb_json_num(out, cb_report_share_at(r, c, 10));
    kv_num(out, "25G", cb_report_share_at(r, c, 25));
    kv_num(out, "40G", cb_report_share_at(r, c, 40));
    kv_num(out, "100G", cb_report_share_at(r, c, 100));
    fputc('}', out);
}

/* The share against the report's budget, and what it was charged to. */
static void case_charge_json(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    static const char *const kinds[] = {"packet", "bytes", "mtu"};
    struct cb_charge ch;
    cb_report_case_charge(c, r->budget.frame, &ch);
    fputs(", \"budget\": {\"share\": ", out);
    cb_json_num(out, cb_report_share(r, c, &r->budget));
    kv_str(out, "charged", kinds[ch.kind], 1);
    fprintf(out, ", \"frame_bytes\": %u, \"frames\": %" PRIu64 "}", ch.frame, ch.frames);
}

static void case_json(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    fprintf(out, "{\"id\": %" PRId64, c->info.id);
    kv_str(out, "probe", c->info.probe, 1);
    kv_str(out, "variant", c->info.variant, 1);
    fprintf(out, ", \"size\": %" PRIu64, c->info.size);
    kv_str(out, "unit", c->info.unit, 1);
    kv_str(out, "mode", c->info.mode, 1);
    kv_str(out, "op", c->info.op, 1);
    fprintf(out, ", \"bytes_per_op\": %" PRIu64, c->info.bytes_per_op);
    kv_str(out, "verdict", c->info.verdict, 1);
    kv_str(out, "detail", c->info.detail, 1);
    if (c->info.cpu_pair[0])
        kv_str(out, "cpu_pair", c->info.cpu_pair, 1);
    kv_num(out, "smt_contention", c->info.contention);
    kv_num(out, "contended_share", c->info.contended_share);
    fputs(",\n     \"cycles\": ", out);
    if (c->measured)
        summary(out, &c->cyc);
    else
        fputs("null", out);
    kv_num(out, "ns_per_op", c->ns_per_op);
    fputs(", \"clock\": ", out);
    case_clock_json(out, c);
    cb_report_state_json_case(out, c);
    /* The timed code's identity (compare's "placement"): null unknown. */
    if (c->info.code_hash[0]) {
        kv_str(out, "code_hash", c->info.code_hash, 1);
        if (c->info.code_addr >= 0)
            fprintf(out, ", \"code_addr_mod_4096\": %d", c->info.code_addr);
        else
            fputs(", \"code_addr_mod_4096\": null", out);
    } else {
        fputs(", \"code_hash\": null, \"code_addr_mod_4096\": null", out);
    }
    fputs(", \"budget_share\": ", out);
    case_budget_json(out, r, c);
    case_charge_json(out, r, c);
    kv_num(out, "bytes_per_cycle", cb_report_bpc(c));
    fprintf(out, ", \"scaled\": %s", c->scaled ? "true" : "false");
    kv_num(out, "bytes_per_tick", c->bpt);
    fputs(",\n     \"ceiling\": ", out);
    case_ceiling_json(out, r, c);
    case_events_json(out, r, c);
    fputc('}', out);
}

static void run_json(const struct cb_report *r, FILE *out)
{
    const struct cb_run_info *u = &r->run;
    run_head(out, u);
    host_json(out, u);
    fputs(",\n  \"commit\": ", out);
    obj_or_null(out, u->commit[0] != 0, commit_members, u);
    /* run --plugin: which builds of the user's code were measured. */
    if (u->plugins[0]) {
        fputs(",\n  \"plugins\": ", out);
        cb_json_str(out, u->plugins);
    }
    clocks_json(out, u);
    cb_report_state_json_run(out, u);
    env_json(out, u);
    cycles_json(out, r);
    calibration_json(out, r);
    cb_report_kernel_json(r, out);
    cb_report_inkernel_json(out, r);
    events_json(out, r);
    fputs(",\n  \"cases\": [", out);
    for (size_t k = 0; k < r->ncases; k++) {
        fputs(k ? ",\n    " : "\n    ", out);
        case_json(out, r, &r->cases[k]);
    }
    fputs("]}", out);
}

int cb_report_json(const struct cb_report *runs, size_t nruns, FILE *out)
{
    fputs("{\"format\": \"cyclebudget-report\", \"format_version\": 1, \"runs\": [\n", out);
    for (size_t i = 0; i < nruns; i++) {
        if (i)
            fputs(",\n", out);
        run_json(&runs[i], out);
    }
    fputs("\n]}\n", out);
    return ferror(out) ? -EIO : 0;
}
