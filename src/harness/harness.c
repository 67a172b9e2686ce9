/* harness.c — batches, overhead and the stopping rule (see harness.h). */
#define _GNU_SOURCE
#include "harness/harness.h"
#include "host/cpuclass.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/arrays.h"
#include "counters/meter.h"
#include "harness/stats.h"
#include "counters/tsc.h"
#include "harness/workset.h"

void cb_harness_defaults(struct cb_harness_opts *o)
{
    /* Whatever is not named here is zero: adaptive sampling, the default
     * cold working set, the real backend. */
    *o = (struct cb_harness_opts){
        .case_seconds = 0.1, .target_ci_pct = 1.0, .min_samples = 10, .max_samples = 5000,
        .min_batch_us = 20.0, .rounds = 1, .pause_ms = CB_ROUND_PAUSE_MS,
    };
}

int cb_pin_cpu(int cpu, int *pinned, struct cb_sb *err)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
        cb_sb_setf(err, "cannot read this process's CPU affinity: %s", strerror(errno));
        return -errno;
    }
    if (cpu == CB_CPU_DEFAULT)
        cpu = cb_cpu_default(NULL, &allowed);
    if (cpu < 0) {
        cpu = cpu == CB_CPU_FIRST ? -1 : sched_getcpu();
        if (cpu < 0 || !CPU_ISSET(cpu, &allowed)) {
            for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed); cpu++)
                ;
        }
    }
    if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
        char list[256] = "";
        size_t off = 0;
        for (int i = 0; i < CPU_SETSIZE && off < sizeof list - 8; i++)
            if (CPU_ISSET(i, &allowed))
                off += (size_t)snprintf(list + off, sizeof list - off, "%s%d", off ? "," : "", i);
        cb_sb_setf(err, "--cpu %d: no such CPU for this process: choose one of %s", cpu, list);
        return -EINVAL;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) < 0) {
        cb_sb_setf(err, "cannot pin to CPU %d: %s", cpu, strerror(errno));
        return -errno;
    }
    *pinned = cpu;
    return 0;
}

static int real_read(void *ctx, struct cb_counters *cs, struct cb_reading *r, int end)
{
    (void)ctx;
    return end ? cb_counters_read_end(cs, r) : cb_counters_read(cs, r);
}

static void real_run(void *ctx, struct cb_case *c, uint64_t iters)
{
    (void)ctx;
    c->probe->run(c, iters);
}

static double real_per_tick(void *ctx, int imul, int side)
{
    (void)ctx, (void)side;
    return cb_chain_ratio(imul, CB_CLOCK_TRIALS);
}

static double real_meter(void *ctx)
{
    (void)ctx;
    return cb_smt_contention();
}

const struct cb_backend cb_backend_real = {
    .name = "perf_event", .siblings = -1, .hypervisor = -1,
    .read = real_read, .run = real_run, .core_per_tick = real_per_tick, .meter = real_meter,
};

int cb_harness_init(struct cb_harness *h, struct cb_counters *cs, const struct cb_harness_opts *o)
{
    memset(h, 0, sizeof *h);
    h->o = *o;
    h->cs = cs;
    h->be = o->backend ? o->backend : &cb_backend_real;
    if (h->be->read_ticks > 0) {
        h->read_ticks = h->be->read_ticks;
        if (o->core_est && o->core_est->ghz > 0)
            h->run_ghz = o->core_est->ghz, h->chain_imul = o->core_est->imul;
    } else {
        struct cb_read_cost cost;
        int rc = cb_counters_read_cost(cs, 201, &cost);
        if (rc < 0)
            return rc;
        h->read_ticks = cost.read_ticks;
        /* The chain timed beside each sample is the one the run's estimate
         * chose (and the run's record names), with that chain's fixed cost. */
        struct cb_core_est e;
        const struct cb_core_est *use = o->core_est && o->core_est->ghz > 0 ? o->core_est : NULL;
        if (!use && cs->tsc_ghz > 0 && cb_core_estimate(cs->tsc_ghz, 15, &e) == 0)
            use = &e;
        if (use)
            h->run_ghz = use->ghz, h->chain_imul = use->imul;
    }
    int cpu = sched_getcpu();
    int sib = h->be->siblings >= 0 ? h->be->siblings : cb_meter_siblings(NULL, cpu);
    int hv = h->be->hypervisor >= 0 ? h->be->hypervisor : cb_meter_hypervisor();
    cb_meter_baseline(&h->meter, cpu, sib, hv, h->be->meter, h->be->ctx, CB_METER_BASELINE_N);
    h->primary = -1;
    int cyc = cb_counters_find(cs, "cycles");
    if (h->be->primary)
        h->primary = cb_counters_find(cs, h->be->primary);
    else if (cyc >= 0 && cs->c[cyc].supported)
        h->primary = cyc;
    else
        h->primary = cb_counters_find(cs, "tsc");
    return h->primary < 0 ? -EINVAL : 0;
}

static int push(struct cb_measurement *m, const struct cb_delta *d, int round)
{
    const struct cb_column cols[] = {CB_COLUMN(m->d), CB_COLUMN(m->smt), CB_COLUMN(m->round)};
    if (cb_grow_columns(cols, 3, &m->cap, m->n + 1, 64) < 0)
        return -ENOMEM;
    m->smt[m->n] = NAN;
    m->round[m->n] = round;
    m->d[m->n++] = *d;
    return 0;
}

uint64_t cb_measurement_iters(const struct cb_measurement *m, size_t k)
{
    return m->iters[m->round[k]];
}

double cb_measurement_overhead(const struct cb_measurement *m, size_t k, int i)
{
    return m->overhead[m->round[k]][i];
}

double cb_measurement_per_op(const struct cb_measurement *m, size_t k, int i)
{
    double v = m->d[k].value[i];
    double o = cb_measurement_overhead(m, k, i);
    uint64_t it = cb_measurement_iters(m, k);
    if (isnan(v))
        return NAN;
    if (!isnan(o))
        v -= o;
    return it ? v / (double)it : NAN;
}

/* Half-width of the primary counter's median CI over samples [from, n), in
 * % of the median. */
static double ci_pct(const struct cb_measurement *m, size_t from, int primary, double *scratch)
{
    size_t n = m->n - from;
    for (size_t k = 0; k < n; k++)
        scratch[k] = cb_measurement_per_op(m, from + k, primary);
    cb_sort_doubles(scratch, (size_t)n);
    double lo, hi, med = cb_quantile_sorted(scratch, n, 0.5);
    cb_median_ci(scratch, n, &lo, &hi);
    if (!(med > 0))
        return INFINITY;
    return (hi - lo) / 2.0 / med * 100.0;
}

/* Estimated cycles of every sample = its TSC ticks x the core/TSC ratio
 * of the clock chosen for the case (caseclock.h), and each round's empty
 * batch likewise.  One ratio for the whole case: a ratio per round or per
 * sample read the clock as the last batch left it. */
static void rescale_estimate(struct cb_measurement *m, const struct cb_counters *cs, int est,
                             double f)
{
    int tsc = cb_counters_find(cs, "tsc");
    if (est < 0 || tsc < 0 || !(f > 0))
        return;
    for (size_t k = 0; k < m->n; k++)
        m->d[k].value[est] = m->d[k].value[tsc] * f;
    for (int r = 0; r < m->rounds; r++) {
        double o = m->overhead[r][tsc];
        m->overhead[r][est] = isnan(o) ? NAN : o * f;
    }
}

/* Scratch space for one round, sized for its sample limit. */
struct round_buf {
    double *scratch, *cont;
    size_t ncont;
};

/* One timed batch through the backend; the TSC ticks it took. */
static double batch(struct cb_harness *h, struct cb_case *c, uint64_t iters, struct cb_reading *r0,
                    struct cb_reading *r1, struct cb_delta *d, int tsc)
{
    const struct cb_backend *be = h->be;
    be->read(be->ctx, h->cs, r0, 0);
    be->run(be->ctx, c, iters);
    be->read(be->ctx, h->cs, r1, 1);
    cb_counters_delta(h->cs, r0, r1, d);
    return tsc >= 0 ? d->value[tsc] : NAN;
}

/* The meter now, relative to the run's baseline; NAN when it is off. */
static double meter_now(const struct cb_harness *h)
{
    if (h->meter.kind != CB_METER_SMT && h->meter.kind != CB_METER_HOST)
        return NAN;
    return cb_meter_relative(&h->meter, h->be->meter(h->be->ctx));
}

/* One round of one case: what its steps share. */
struct round {
    struct cb_harness *h;
    struct cb_case *c;
    struct cb_measurement *m;
    struct round_buf *b;
    int round;
    int tsc;                    /* the tsc counter's index */
    uint64_t iters;             /* per batch, once sized */
};

/* Warm up (code, TLB, branch predictors; in warm mode the data) and grow
 * the batch until it is long enough: reads under 1% of it, at least
 * min_batch_us, and enough ticks that one tick is under 0.1% of it
 * (cb_min_batch_ticks).  The batch's iterations. */
static uint64_t size_batch(const struct round *rd)
{
    struct cb_harness *h = rd->h;
    struct cb_reading r0, r1;
    struct cb_delta d;
    double target = cb_min_batch_ticks(h->cs->tsc_ghz, h->o.min_batch_us, h->read_ticks);

    uint64_t iters = 1;
    h->be->run(h->be->ctx, rd->c, 1);
    if (h->be->batch_iters)
        return h->be->batch_iters;
    /* A counter of tens of MHz (CNTVCT; qemu-user's moves in 1 us steps):
     * one batch slowed by an interrupt or an emulator's stall must not size
     * the case, so a batch that reaches the target is timed again and the
     * faster taken.  Never with a TSC: x86 sizing is as it was. */
    int coarse = h->cs->tsc_ghz > 0 && h->cs->tsc_ghz < 0.2;
    for (int guard = 0; guard < 64; guard++) {
        double ticks = batch(h, rd->c, iters, &r0, &r1, &d, rd->tsc) - h->read_ticks;
        if (coarse && ticks >= target)
            ticks = fmin(ticks, batch(h, rd->c, iters, &r0, &r1, &d, rd->tsc) - h->read_ticks);
        if (ticks >= target || iters >= ((uint64_t)1 << 32))
            break;
        double grow = ticks > 0 ? target / ticks * 1.2 : 16.0;
        if (grow > 16.0)
            grow = 16.0;
        if (grow < 2.0)
            grow = 2.0;
        iters = (uint64_t)((double)iters * grow);
    }
    return iters;
}

/* The empty batch: the cost of the reads and the call itself, the median
 * of EMPTY for each counter, into the round's overhead. */
static void measure_overhead(const struct round *rd)
{
    enum { EMPTY = 31 };
    struct cb_counters *cs = rd->h->cs;
    struct cb_reading r0, r1;
    struct cb_delta d;
    double empty[CB_MAX_COUNTERS][EMPTY];
    for (int k = 0; k < EMPTY; k++) {
        batch(rd->h, rd->c, 0, &r0, &r1, &d, rd->tsc);
        for (int i = 0; i < cs->n; i++)
            empty[i][k] = d.value[i];
    }
    for (int i = 0; i < cs->n; i++) {
        if (isnan(empty[i][0])) {
            rd->m->overhead[rd->round][i] = NAN;
            continue;
        }
        cb_sort_doubles(empty[i], (size_t)EMPTY);
        rd->m->overhead[rd->round][i] = empty[i][EMPTY / 2];
    }
}

/* Samples until want, a stopping rule (the CI target, the time cap) or
 * *h->stop.  0, -EINTR when stopped, or the error of storing a sample. */
static int take_samples(const struct round *rd, int want, int min_samples, uint64_t cap_ticks)
{
    struct cb_harness *h = rd->h;
    struct cb_measurement *m = rd->m;
    struct round_buf *b = rd->b;
    struct cb_reading r0, r1;
    struct cb_delta d;
    size_t from = m->n;
    int rc = 0;
    /* The meter is read between samples: a sample's reading is the larger
     * of the one just before it and the one just after. */
    double prev_meter = meter_now(h);
    double elapsed = 0;
    m->why = h->o.reps > 0 ? CB_STOP_REPS : CB_STOP_MAX;
    for (int k = 0; k < want; k++) {
        if (h->stop && *h->stop)
            return -EINTR;
        double ticks = batch(h, rd->c, rd->iters, &r0, &r1, &d, rd->tsc);
        if ((rc = push(m, &d, rd->round)) < 0)
            return rc;
        double k_cont = meter_now(h);
        if (k_cont > 0 && prev_meter > 0) {
            double r = k_cont > prev_meter ? k_cont : prev_meter;
            m->smt[m->n - 1] = r;
            b->cont[b->ncont++] = r;
        }
        prev_meter = k_cont;
        /* The time cap counts the batches themselves (by the backend's
         * clock), not the meter and the clock chain between them. */
        elapsed += ticks > 0 ? ticks : 0;
        if (h->o.reps > 0)
            continue;
        int n = (int)(m->n - from);
        if (n >= min_samples && (n % 8 == 0 || n == min_samples)) {
            if (ci_pct(m, from, h->primary, b->scratch) <= h->o.target_ci_pct) {
                m->why = CB_STOP_CI;
                break;
            }
        }
        if (n >= min_samples && elapsed > (double)cap_ticks) {
            m->why = CB_STOP_TIME;
            break;
        }
    }
    return 0;
}

/* One round: set up, warm up, size the batch, measure the empty batch,
 * sample, tear down.  want: the round's sample limit; cap_ticks and
 * min_samples: its adaptive limits. */
static int measure_round(struct cb_harness *h, struct cb_case *c, struct cb_measurement *m,
                         int round, int want, int min_samples, uint64_t cap_ticks, int est,
                         struct round_buf *b, int last)
{
    const struct cb_probe *p = c->probe;
    struct round rd = {.h = h, .c = c, .m = m, .b = b, .round = round,
                       .tsc = cb_counters_find(h->cs, "tsc")};
    int rc = p->setup(c);
    if (rc < 0)
        return rc;
    rd.iters = size_batch(&rd);
    m->iters[round] = rd.iters;
    h->be->run(h->be->ctx, c, rd.iters);
    measure_overhead(&rd);
    m->rounds = round + 1;
    rc = take_samples(&rd, want, min_samples, cap_ticks);
    /* The bracket after the case: right after its last sample. */
    if (est >= 0 && (last || rc == -EINTR))
        cb_case_clock_side(h->be, h->chain_imul, 1, h->cs->tsc_ghz, &m->clock.after);
    p->teardown(c);
    return rc;
}

static void pause_ms(double ms)
{
    struct timespec ts = {.tv_sec = (time_t)(ms / 1e3),
                          .tv_nsec = (long)(fmod(ms, 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The bracket before the case: before any of its code has run, so that a
 * clock its own work moves shows on one side only.  Taken after the case's
 * warm-up instead, both brackets of the AVX2 and AVX-512 csum cases at
 * 1.5-4 KiB read one 100 MHz step low on this project's VM while their time
 * did not move (docs/measuring.md, "The clock of a case").  The pause first
 * lets the after-effect of the work before it (the last case, this
 * variant's verification) fade. */
static void clock_before(struct cb_harness *h, struct cb_measurement *m)
{
    if (h->be == &cb_backend_real)
        pause_ms(CB_CLOCK_SETTLE_MS);
    cb_case_clock_side(h->be, h->chain_imul, 0, h->cs->tsc_ghz, &m->clock.before);
}

/* The case's contention: the median meter reading and the share over the
 * shift. */
static void meter_summary(struct cb_measurement *m, struct round_buf *b)
{
    if (!b->ncont)
        return;
    size_t over = 0;
    for (size_t k = 0; k < b->ncont; k++)
        over += b->cont[k] > CB_METER_SHIFT;
    m->contended_share = (double)over / (double)b->ncont;
    cb_sort_doubles(b->cont, b->ncont);
    m->contention = cb_quantile_sorted(b->cont, b->ncont, 0.5);
}

int cb_harness_measure(struct cb_harness *h, struct cb_case *c, struct cb_measurement *m)
{
    const struct cb_probe *p = c->probe;
    struct cb_counters *cs = h->cs;
    struct round_buf b = {0};
    int rc = 0;
    int est = cb_counters_find(cs, "cycles-est");
    if (est >= 0 && !cs->c[est].supported)
        est = -1;

    memset(m, 0, sizeof *m);
    m->contention = m->contended_share = NAN;
    if (!c->cold_bytes)
        c->cold_bytes = h->o.cold_bytes ? h->o.cold_bytes : cb_workset_cold_bytes();
    if (!c->bytes_per_op && p->unit && strcmp(p->unit, "B") == 0)
        c->bytes_per_op = c->size;

    int rounds = h->o.rounds < 1 ? 1 : h->o.rounds > CB_MAX_ROUNDS ? CB_MAX_ROUNDS : h->o.rounds;
    int want, min_samples = h->o.min_samples;
    if (h->o.reps > 0) {
        want = (h->o.reps + rounds - 1) / rounds;
    } else {
        want = h->o.max_samples / rounds;
        min_samples = (h->o.min_samples + rounds - 1) / rounds;
        if (min_samples < 3)
            min_samples = 3;
        if (want < min_samples)
            want = min_samples;
    }
    double tsc_ghz = cs->tsc_ghz > 0 ? cs->tsc_ghz : 1.0;
    uint64_t cap_ticks = (uint64_t)(h->o.case_seconds / rounds * 1e9 * tsc_ghz);
    size_t total = (size_t)want * (size_t)rounds;
    b.scratch = malloc((size_t)want * sizeof *b.scratch);
    b.cont = malloc(total * sizeof *b.cont);
    if (!b.scratch || !b.cont) {
        rc = -ENOMEM;
        goto out;
    }
    if (est >= 0)
        clock_before(h, m);
    for (int r = 0; r < rounds; r++) {
        if (r > 0)
            pause_ms(h->o.pause_ms);
        rc = measure_round(h, c, m, r, want, min_samples, cap_ticks, est, &b, r == rounds - 1);
        if (rc < 0)
            break;
    }
    if (rc < 0 && !(rc == -EINTR && m->n))
        goto out;
    if (m->n) {
        double *all = realloc(b.scratch, m->n * sizeof *all);
        if (!all) {
            rc = -ENOMEM;
            goto out;
        }
        b.scratch = all;
        m->ci_pct = ci_pct(m, 0, h->primary, b.scratch);
    }
    if (est >= 0 && h->run_ghz > 0 && cs->tsc_ghz > 0) {
        struct cb_clock_side bf = m->clock.before, af = m->clock.after;
        cb_case_clock_choose(h->run_ghz, &bf, &af, &m->clock);
        m->core_per_tick = m->clock.used_ghz / cs->tsc_ghz;
        rescale_estimate(m, cs, est, m->core_per_tick);
    }
    meter_summary(m, &b);
out:
    free(b.scratch);
    free(b.cont);
    return rc;
}

void cb_measurement_free(struct cb_measurement *m)
{
    free(m->d);
    free(m->smt);
    free(m->round);
    memset(m, 0, sizeof *m);
}

int cb_stop_after(const struct cb_harness_opts *o, int n, double elapsed, double cap,
                  double (*ci_pct)(void *ctx), void *ctx)
{
    if (o->reps > 0 || n < o->min_samples)
        return 0;
    if ((n % 8 == 0 || n == o->min_samples) && ci_pct(ctx) <= o->target_ci_pct)
        return CB_STOP_CI;
    return elapsed > cap ? CB_STOP_TIME : 0;
}
