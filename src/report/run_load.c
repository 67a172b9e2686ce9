/* run_load.c — load a run and summarise its cases (see report.h). */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/lookup.h"

#include "harness/arrays.h"
#include "host/fingerprint.h"
#include "harness/probe.h"

static int find_event(const struct cb_report *r, const char *part, int need_supported)
{
    for (size_t i = 0; i < r->nevents; i++)
        if (strcmp(r->events[i].part, part) == 0 && (!need_supported || r->events[i].supported))
            return (int)i;
    return -1;
}

static int is_simulated(const struct cb_report *r)
{
    return strcmp(r->cyc_source, "simulated") == 0;
}

/* An arm64 run: its counter's rate came from CNTFRQ_EL0, or its features
 * are arm64's. */
static int arm64_run(const struct cb_run_info *u)
{
    return strcmp(u->tsc_source, "cntfrq") == 0 || strncmp(u->features, "asimd", 5) == 0 ||
           strstr(u->features, "+asimd") != NULL;
}

const char *cb_report_counter(const struct cb_run_info *u)
{
    return arm64_run(u) ? "CNTVCT" : "TSC";
}

const char *cb_report_time_what(const struct cb_report *r)
{
    return arm64_run(&r->run) ? "CNTVCT time" : "TSC time";
}

const char *cb_report_cycles_what(const struct cb_report *r)
{
    int arm = arm64_run(&r->run);
    return strcmp(r->cyc_source, "pmu") == 0         ? "PMU core cycles"
           : strcmp(r->cyc_source, "simulated") == 0 ? "SIMULATED cycles"
           : strcmp(r->cyc_source, "estimate") == 0  ? "ESTIMATED core cycles"
           : arm                                     ? "CNTVCT reference ticks"
                                                     : "TSC reference cycles";
}

int cb_report_event(const struct cb_report *r, const char *part)
{
    int e = find_event(r, part, 1);
    if (e < 0)
        for (size_t i = 0; i < r->nevents; i++)
            if (strcmp(r->events[i].name, part) == 0 && r->events[i].supported)
                return (int)i;
    return e;
}

double cb_report_bpc(const struct cb_report_case *c)
{
    if (!c->measured || c->info.bytes_per_op == 0 || !(c->cyc.median > 0))
        return NAN;
    return (double)c->info.bytes_per_op / c->cyc.median;
}

static unsigned shape_of(const char *probe)
{
    const struct cb_probe *p = cb_probe_find(probe);
    return p ? p->shape : 0;
}

uint64_t cb_report_working_set(const char *probe, uint64_t bytes_per_op)
{
    return shape_of(probe) & CB_SHAPE_TWO_BUFFERS ? 2 * bytes_per_op : bytes_per_op;
}

int cb_report_stores(const char *probe)
{
    return (shape_of(probe) & CB_SHAPE_STORES) != 0;
}

void cb_report_case_ceilings(struct cb_report_case *c, const struct cb_ceilings *cs)
{
    c->ceil_level = -1;
    c->bpt = c->ceil_load = c->share_load = c->ceil_store = c->share_store = NAN;
    if (c->measured && c->info.bytes_per_op > 0 && c->tsc.median > 0)
        c->bpt = (double)c->info.bytes_per_op / c->tsc.median;
    if (!cs || !cs->n || c->info.bytes_per_op == 0 || strcmp(c->info.unit, "B") != 0)
        return;
    uint64_t ws = cb_report_working_set(c->info.probe, c->info.bytes_per_op);
    c->ceil_level = cb_ceil_level_for(cs->cache, ws, strcmp(c->info.mode, "cold") == 0);
    const struct cb_ceiling *ld = cb_ceil_best(cs, "load", c->ceil_level);
    c->ceil_load = ld ? ld->bpt : NAN;
    c->share_load = cb_ceil_share(c->bpt, c->ceil_load);
    if (cb_report_stores(c->info.probe)) {
        const struct cb_ceiling *sto = cb_ceil_best(cs, "store", c->ceil_level);
        c->ceil_store = sto ? sto->bpt : NAN;
        c->share_store = cb_ceil_share(c->bpt, c->ceil_store);
    }
}

double cb_report_ceil_share(const struct cb_report_case *c)
{
    return cb_report_stores(c->info.probe) ? c->share_store : c->share_load;
}

void cb_report_ceil_line(const struct cb_report *r, char *buf, size_t len)
{
    if (!r->has_ceil) {
        snprintf(buf, len, "none linked to this run (only 'run' links them, not --sim, race or "
                           "compare --rerun; nor with CB_CEILINGS=off or before migration 9): no "
                           "share of a ceiling is shown");
        return;
    }
    const struct cb_ceilings *cs = &r->ceil;
    int model = strcmp(cs->source, "model") == 0;
    /* A model's figures are written, never measured: the run measured none. */
    int n = snprintf(buf, len, "calibration %lld (%s by this run, taken %s), %s: load",
                     (long long)r->cal_id,
                     r->cal_reused ? "stored earlier and reused" : model ? "written" : "measured",
                     r->cal_taken[0] ? r->cal_taken : "at an unknown time",
                     model ? "FIXED MODEL FIGURES (a test's), not this machine" : "measured on this host");
    for (int l = 0; l < CB_NLEVELS && n > 0 && (size_t)n < len; l++) {
        const struct cb_ceiling *c = cb_ceil_best(cs, "load", l);
        if (c)
            n += snprintf(buf + n, len - (size_t)n, " %s %.1f", cb_ceil_level_name(l), c->bpt);
    }
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, " B/TSC tick; %% ceil = the case's bytes per TSC "
                                                "tick over that of its working set's level (DRAM "
                                                "when cold)%s%s",
                      cs->note[0] ? "; " : "", cs->note);
}

double cb_report_budget_cycles(const struct cb_report *r, double gbps)
{
    unsigned frame = r->budget.frame ? r->budget.frame : CB_MIN_FRAME;
    return r->core_ghz > 0 ? cb_budget_ns(gbps, frame) * r->core_ghz : NAN;
}

const char *cb_report_budget_clock_what(const struct cb_report *r)
{
    if (r->clock_given)
        return "given with --ghz";
    if (is_simulated(r))
        return "none: simulated cycles have no time; give --ghz to convert the budget";
    if (strcmp(r->run.core_ghz_source, "pmu") == 0)
        return "the run's core clock, measured by the PMU";
    if (r->run.core_ghz > 0)
        return "the run's estimated core clock";
    return "the TSC rate (no core clock known)";
}

void cb_report_set_clock(struct cb_report *r, double ghz)
{
    r->core_ghz = ghz;
    r->clock_given = 1;
}

void cb_report_default_budget(struct cb_budget *b)
{
    cb_budget_parse("10G", CB_MIN_FRAME, b, NULL);
}

void cb_report_case_charge(const struct cb_report_case *c, unsigned frame, struct cb_charge *ch)
{
    cb_budget_charge(c->info.probe, c->info.unit, c->info.size, frame, ch);
}

double cb_report_share(const struct cb_report *r, const struct cb_report_case *c,
                       const struct cb_budget *b)
{
    if (!c->measured)
        return NAN;
    struct cb_charge ch;
    cb_report_case_charge(c, b->frame ? b->frame : CB_MIN_FRAME, &ch);
    double cyc = cb_report_context_cycles(r, c);
    /* Shares are from time (ns per op), so they do not move with a clock
     * estimate; a kernel-context charge scales the time as it scales the
     * cycles.  Simulated cycles have no time: at r->core_ghz, NAN without. */
    double ns = is_simulated(r) ? (r->core_ghz > 0 ? cyc / r->core_ghz : NAN)
                                : c->ns_per_op * (c->cyc.median > 0 ? cyc / c->cyc.median : 1.0);
    return cb_budget_share(b, &ch, ns, cyc);
}

double cb_report_case_budget_cycles(const struct cb_report *r, const struct cb_report_case *c,
                                    double gbps)
{
    struct cb_charge ch;
    cb_report_case_charge(c, r->budget.frame ? r->budget.frame : CB_MIN_FRAME, &ch);
    return r->core_ghz > 0 ? cb_budget_charge_ns(&ch, gbps) * r->core_ghz : NAN;
}

double cb_report_share_at(const struct cb_report *r, const struct cb_report_case *c, double gbps)
{
    struct cb_budget b = {.gbps = gbps, .frame = r->budget.frame ? r->budget.frame : CB_MIN_FRAME};
    return cb_report_share(r, c, &b);
}

const char *cb_report_shared_what(const struct cb_run_info *u)
{
    if (strcmp(u->meter_kind, "host") == 0)
        return "the host's core contended (the contention meter shifted from this run's baseline; "
               "this guest shows no sibling thread, so the load is on the host, not SMT seen here)";
    return "this core's SMT sibling busy (another tenant's load)";
}

int cb_report_is_fake(const struct cb_run_info *u)
{
    return strcmp(u->clock_backend, "fake") == 0;
}

void cb_report_clock_line(const struct cb_run_info *u, char *buf, size_t len)
{
    if (u->sim_model[0]) {
        /* Under valgrind the clocks would be the simulator's: none is read. */
        snprintf(buf, len, "none: counted under callgrind, not timed; the host's TSC rate, %.3f GHz "
                           "(read before valgrind started), only turns the budget into cycles",
                 u->tsc_ghz);
        return;
    }
    int n = snprintf(buf, len, "%s %.3f GHz (%s); core %.2f GHz (%s", cb_report_counter(u), u->tsc_ghz,
                     u->tsc_source[0] ? u->tsc_source : "unknown", u->core_ghz,
                     u->core_ghz_source[0] ? u->core_ghz_source : "unknown");
    if (n < 0 || (size_t)n >= len)
        return;
    int pmu = strcmp(u->core_ghz_source, "pmu") == 0;
    if (cb_report_is_fake(u))
        n += snprintf(buf + n, len - (size_t)n, ", the fake clock's model)");
    else if (!u->core_est_method[0])
        n += snprintf(buf + n, len - (size_t)n, ", spread %.1f%%)", u->core_ghz_spread);
    else if (pmu && u->core_est_ghz > 0)
        n += snprintf(buf + n, len - (size_t)n, "); estimate %.2f GHz by %s: PMU/estimate %.3f",
                      u->core_est_ghz, u->core_est_method, u->core_ghz / u->core_est_ghz);
    else
        n += snprintf(buf + n, len - (size_t)n, ": %s, spread %.2f%%; add chain %.3f, imul chain %.3f GHz)",
                      u->core_est_method, isfinite(u->core_est_spread) ? u->core_est_spread : 0,
                      isfinite(u->core_est_add_ghz) ? u->core_est_add_ghz : 0,
                      isfinite(u->core_est_imul_ghz) ? u->core_est_imul_ghz : 0);
    (void)n;
}

void cb_report_meter_line(const struct cb_run_info *u, char *buf, size_t len)
{
    if (!u->meter_kind[0] || u->sim_model[0]) {
        buf[0] = 0;
        return;
    }
    snprintf(buf, len, "%s: %s", u->meter_kind, u->meter_why);
}

int cb_report_env(const struct cb_run_info *u, struct cb_fingerprint *fp)
{
    if (u->fingerprint[0] && cb_fingerprint_parse(u->fingerprint, fp) == 0)
        return 1;
    memset(fp, 0, sizeof *fp);
    return 0;
}

void cb_report_env_line(const struct cb_run_info *u, char *buf, size_t len)
{
    struct cb_fingerprint fp;
    if (cb_report_env(u, &fp))
        cb_fingerprint_describe(&fp, buf, len);
    else
        snprintf(buf, len, "not recorded (a run from before cyclebudget stored its environment)");
}

void cb_report_run_lines(const struct cb_run_info *u, const struct cb_run_lines *l, char *buf,
                         size_t len)
{
    cb_report_clock_line(u, buf, len);
    l->emit(l->ctx, l->clock, buf);
    cb_report_meter_line(u, buf, len);
    if (buf[0])
        l->emit(l->ctx, l->meter, buf);
    cb_report_env_line(u, buf, len);
    l->emit(l->ctx, l->env, buf);
    cb_report_state_line(u, buf, len);
    if (buf[0])
        l->emit(l->ctx, l->state, buf);
}

struct cb_summary cb_report_shown_cyc(const struct cb_report_case *c)
{
    if (c->measured)
        return c->cyc;
    return (struct cb_summary){.n = 0, .min = NAN, .max = NAN, .median = NAN, .p25 = NAN,
                               .p75 = NAN, .mean = NAN, .ci_lo = NAN, .ci_hi = NAN,
                               .spread_pct = NAN, .ci_pct = NAN};
}

/* Grow one array of a series to nc elements. */
static int grow_to(void **p, size_t nc, size_t size)
{
    void *n = realloc(*p, nc * size);
    if (!n)
        return -ENOMEM;
    *p = n;
    return 0;
}

/* One sample of the store's walk. */
static int series_push(struct cb_report_series *s, size_t *cap, const struct cb_store_sample *x)
{
    if (s->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        if (grow_to((void **)&s->v, nc, sizeof *s->v) < 0 ||
            grow_to((void **)&s->iters, nc, sizeof *s->iters) < 0 ||
            grow_to((void **)&s->raw, nc, sizeof *s->raw) < 0 ||
            grow_to((void **)&s->enabled, nc, sizeof *s->enabled) < 0 ||
            grow_to((void **)&s->running, nc, sizeof *s->running) < 0 ||
            grow_to((void **)&s->method, nc, sizeof *s->method) < 0)
            return -ENOMEM;
        *cap = nc;
    }
    size_t i = s->n++;
    s->iters[i] = x->iters;
    s->v[i] = x->per_op;
    s->raw[i] = x->raw;
    s->enabled[i] = x->enabled;
    s->running[i] = x->running;
    snprintf(s->method[i], sizeof s->method[i], "%s", x->method);
    return 0;
}

/* Where the walk over a run's samples is: the case and event of the series
 * being filled. */
struct sample_walk {
    struct cb_report *r;
    size_t k, e, cap;
    int64_t last_case, last_ev;
};

static int add_sample(const struct cb_store_sample *x, void *ctx)
{
    struct sample_walk *w = ctx;
    struct cb_report *r = w->r;
    if (x->case_id != w->last_case || x->event_id != w->last_ev) {
        while (w->k < r->ncases && r->cases[w->k].info.id != x->case_id)
            w->k++;
        if (w->k == r->ncases)
            return -EBADMSG;     /* a sample of no case of the run: damage */
        for (w->e = 0; w->e < r->nevents && r->events[w->e].id != x->event_id; w->e++)
            ;
        if (w->e == r->nevents)
            return -EBADMSG;     /* of an event the run has not */
        w->last_case = x->case_id;
        w->last_ev = x->event_id;
        w->cap = r->cases[w->k].ev[w->e].n;  /* fresh series: n == 0 */
    }
    /* A value or count that is not a number (only SQLite lets one in: its
     * columns take any type) would become a figure: refuse it. */
    if (x->damaged)
        return -EBADMSG;
    struct cb_report_series *sr = &r->cases[w->k].ev[w->e];
    int err = series_push(sr, &w->cap, x);
    if (err < 0)
        return err;
    sr->scaled |= x->scaled;
    return 0;
}

/* Every sample of the run in one ordered scan: per case, per event, in
 * sample order (cb_store_each_run_sample). */
static int load_samples(struct cb_store *st, struct cb_report *r)
{
    struct sample_walk w = {.r = r, .last_case = -1, .last_ev = -1};
    return cb_store_each_run_sample(st, r->run.id, add_sample, &w);
}

/* Where the cycle figures come from, best first: the PMU, callgrind's
 * simulation, the core-clock estimate, else the TSC; and the label every
 * report prints for it. */
static void choose_cycles(struct cb_report *r)
{
    r->tsc_event = find_event(r, "tsc", 1);
    if ((r->cyc_event = find_event(r, "cycles", 1)) >= 0 &&
        strcmp(r->events[r->cyc_event].source, "pmu") == 0) {
        snprintf(r->cyc_source, sizeof r->cyc_source, "pmu");
        snprintf(r->cyc_label, sizeof r->cyc_label, "core cycles counted by the PMU (%.100s)",
                 r->events[r->cyc_event].pfm);
    } else if ((r->cyc_event = find_event(r, "cycles-sim", 1)) >= 0 &&
               strcmp(r->events[r->cyc_event].source, "simulated") == 0) {
        snprintf(r->cyc_source, sizeof r->cyc_source, "simulated");
        snprintf(r->cyc_label, sizeof r->cyc_label,
                 "SIMULATED cycles: callgrind's counts on its model of this CPU's caches, as L1 "
                 "hits + 5 x LL hits + 35 x RAM hits (iai-callgrind's estimate); counted, not timed");
    } else if ((r->cyc_event = find_event(r, "cycles-est", 1)) >= 0) {
        snprintf(r->cyc_source, sizeof r->cyc_source, "estimate");
        snprintf(r->cyc_label, sizeof r->cyc_label,
                 "ESTIMATED core cycles: each case's %s ticks x a core clock, from a "
                 "dependent-%s chain timed before and after the case: the case's own where it "
                 "agrees with the run's %.2f GHz (spread %.1f%%), else the run's, the case "
                 "flagged; no PMU cycles",
                 cb_report_counter(&r->run), strcmp(r->run.core_est_method, "imul-chain") == 0   ? "imul"
                 : strcmp(r->run.core_est_method, "mul-chain") == 0 ? "mul" /* arm64 */
                                                                    : "add",
                 r->run.core_ghz, r->run.core_ghz_spread);
    } else {
        r->cyc_event = r->tsc_event;
        snprintf(r->cyc_source, sizeof r->cyc_source, "tsc");
        snprintf(r->cyc_label, sizeof r->cyc_label,
                 "%s reference %s at %.3f GHz (not core cycles: no PMU, no estimate)",
                 cb_report_counter(&r->run), arm64_run(&r->run) ? "ticks" : "cycles",
                 r->run.tsc_ghz);
    }
}

/* Each measured case's medians per event, its cycles and its TSC time. */
static void summarize_cases(struct cb_report *r)
{
    for (size_t k = 0; k < r->ncases; k++) {
        struct cb_report_case *c = &r->cases[k];
        if (strcmp(c->info.verdict, "ok") != 0 || c->info.nsamples == 0)
            continue;
        for (size_t e = 0; e < r->nevents; e++) {
            struct cb_summary s;
            if (c->ev[e].n == 0 || cb_summarize(c->ev[e].v, c->ev[e].n, &s) < 0)
                continue;
            c->ev_median[e] = s.median;
            if ((int)e == r->cyc_event) {
                c->cyc = s;
                c->measured = 1;
                c->scaled = c->ev[e].scaled;
            }
            if ((int)e == r->tsc_event) {
                c->tsc = s;
                if (r->run.tsc_ghz > 0)
                    c->ns_per_op = s.median / r->run.tsc_ghz;
            }
        }
    }
}

int cb_report_load(struct cb_store *st, int64_t run_id, struct cb_report *r)
{
    memset(r, 0, sizeof *r);
    r->fpu_batch = CB_FPU_BATCH_DEFAULT;
    cb_report_default_budget(&r->budget);
    int rc = cb_store_run_get(st, run_id, &r->run);
    if (rc < 0)
        return rc;
    if ((rc = cb_store_events(st, run_id, &r->events, &r->nevents)) < 0)
        return rc;
    struct cb_case_info *ci = NULL;
    if ((rc = cb_store_cases(st, run_id, &ci, &r->ncases)) < 0)
        return rc;
    r->cases = calloc(r->ncases ? r->ncases : 1, sizeof *r->cases);
    if (!r->cases) {
        free(ci);
        return -ENOMEM;
    }
    choose_cycles(r);
    /* Simulated cycles have no clock: the run's TSC rate only says where
     * the simulation was started, so a budget in cycles needs --ghz. */
    r->core_ghz = is_simulated(r)          ? 0
                  : r->run.core_ghz > 0 ? r->run.core_ghz
                                        : r->run.tsc_ghz;

    size_t ne = r->nevents ? r->nevents : 1;
    for (size_t k = 0; k < r->ncases; k++) {
        struct cb_report_case *c = &r->cases[k];
        c->info = ci[k];
        c->ns_per_op = NAN;
        c->ev_median = malloc(ne * sizeof(double));
        c->ev = calloc(ne, sizeof *c->ev);
        if (!c->ev_median || !c->ev) {
            free(ci);
            return -ENOMEM;
        }
        for (size_t e = 0; e < r->nevents; e++)
            c->ev_median[e] = NAN;
    }
    free(ci);
    if ((rc = load_samples(st, r)) < 0 || (rc = cb_report_load_states(st, r)) < 0)
        return rc;

    summarize_cases(r);
    if (cb_store_run_calibration(st, run_id, &r->cal_id, &r->cal_reused) == 0 &&
        cb_store_calibration_get(st, r->cal_id, &r->ceil, r->cal_taken, sizeof r->cal_taken) == 0)
        r->has_ceil = r->ceil.n > 0;
    if ((rc = cb_report_inkernel_load(st, r)) < 0)
        return rc;
    for (size_t k = 0; k < r->ncases; k++)
        cb_report_case_ceilings(&r->cases[k], r->has_ceil ? &r->ceil : NULL);
    /* Without them a report still stands, its claims within one run. */
    if (cb_report_load_peers(st, r) < 0)
        r->npeers = 0;
    return 0;
}

void cb_report_free(struct cb_report *r)
{
    cb_report_inkernel_free(r);
    for (size_t k = 0; k < r->ncases; k++) {
        struct cb_report_case *c = &r->cases[k];
        for (size_t e = 0; c->ev && e < r->nevents; e++) {
            struct cb_report_series *x = &c->ev[e];
            cb_free_all((void *const[]){x->v, x->iters, x->raw, x->enabled, x->running, x->method}, 6);
        }
        free(c->ev);
        free(c->ev_median);
        free(c->peer);
    }
    free(r->cases);
    free(r->events);
    memset(r, 0, sizeof *r);
}

/* A region marker's case has no size and is not a warm or cold buffer of
 * the harness's ("0 B warm" read as a measurement of nothing). */
const char *cb_report_where(const struct cb_case_info *g, const char *sep, char *buf, size_t len)
{
    char sz[32];
    if (strcmp(g->probe, "region") == 0 && g->size == 0)
        snprintf(buf, len, "marked regions");
    else
        snprintf(buf, len, "%s%s%s", cb_fmt_size(g->size, g->unit, sz, sizeof sz), sep, g->mode);
    return buf;
}

