/* harness.c — batches, overhead and the stopping rule (see harness.h). */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tsc.h"
#include "workset.h"

void cb_harness_defaults(struct cb_harness_opts *o)
{
    memset(o, 0, sizeof *o);
    o->case_seconds = 0.1;
    o->target_ci_pct = 1.0;
    o->min_samples = 10;
    o->max_samples = 5000;
    o->min_batch_us = 20.0;
}

int cb_pin_cpu(int cpu, int *pinned, char *err, size_t errlen)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) < 0) {
        snprintf(err, errlen, "cannot read this process's CPU affinity: %s", strerror(errno));
        return -errno;
    }
    if (cpu < 0) {
        cpu = sched_getcpu();
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
        snprintf(err, errlen, "--cpu %d: no such CPU for this process: choose one of %s", cpu, list);
        return -EINVAL;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) < 0) {
        snprintf(err, errlen, "cannot pin to CPU %d: %s", cpu, strerror(errno));
        return -errno;
    }
    *pinned = cpu;
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cb_harness_init(struct cb_harness *h, struct cb_counters *cs, const struct cb_harness_opts *o)
{
    memset(h, 0, sizeof *h);
    h->o = *o;
    h->cs = cs;
    struct cb_read_cost cost;
    int rc = cb_counters_read_cost(cs, 201, &cost);
    if (rc < 0)
        return rc;
    h->read_ticks = cost.read_ticks;
    h->primary = -1;
    int cyc = cb_counters_find(cs, "cycles");
    if (cyc >= 0 && cs->c[cyc].supported)
        h->primary = cyc;
    else
        h->primary = cb_counters_find(cs, "tsc");
    return h->primary < 0 ? -EINVAL : 0;
}

static int push(struct cb_measurement *m, const struct cb_delta *d)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        struct cb_delta *nd = realloc(m->d, cap * sizeof *nd);
        if (!nd)
            return -ENOMEM;
        m->d = nd;
        double *ns = realloc(m->smt, cap * sizeof *ns);
        if (!ns)
            return -ENOMEM;
        m->smt = ns;
        m->cap = cap;
    }
    m->smt[m->n] = NAN;
    m->d[m->n++] = *d;
    return 0;
}

double cb_measurement_per_op(const struct cb_measurement *m, size_t k, int i)
{
    double v = m->d[k].value[i];
    double o = m->overhead[i];
    if (isnan(v))
        return NAN;
    if (!isnan(o))
        v -= o;
    return m->iters ? v / (double)m->iters : NAN;
}

/* Half-width of the primary counter's median CI, in % of the median. */
static double ci_pct(const struct cb_measurement *m, int primary, double *scratch)
{
    for (size_t k = 0; k < m->n; k++)
        scratch[k] = cb_measurement_per_op(m, k, primary);
    qsort(scratch, m->n, sizeof *scratch, cmp_d);
    double lo, hi, med = cb_quantile_sorted(scratch, m->n, 0.5);
    cb_median_ci(scratch, m->n, &lo, &hi);
    if (!(med > 0))
        return INFINITY;
    return (hi - lo) / 2.0 / med * 100.0;
}

/* Estimated cycles of a case = its TSC ticks x the median core/TSC ratio
 * measured beside its samples.  One estimate per run (made at the start)
 * was not enough: on this project's VM the core clock moved by up to 7%
 * between runs, and A/A compares raised false alarms. */
static void rescale_estimate(struct cb_measurement *m, const struct cb_counters *cs, int est,
                             double *ratio, size_t n)
{
    int tsc = cb_counters_find(cs, "tsc");
    size_t good = 0;
    for (size_t k = 0; k < n; k++)
        if (ratio[k] > 0)
            ratio[good++] = ratio[k];
    if (est < 0 || tsc < 0 || good == 0)
        return;
    qsort(ratio, good, sizeof *ratio, cmp_d);
    double f = good & 1 ? ratio[good / 2] : (ratio[good / 2 - 1] + ratio[good / 2]) / 2;
    for (size_t k = 0; k < m->n; k++)
        m->d[k].value[est] = m->d[k].value[tsc] * f;
    m->overhead[est] = isnan(m->overhead[tsc]) ? NAN : m->overhead[tsc] * f;
    m->core_per_tick = f;
}

int cb_harness_measure(struct cb_harness *h, struct cb_case *c, struct cb_measurement *m)
{
    const struct cb_probe *p = c->probe;
    struct cb_counters *cs = h->cs;
    struct cb_reading r0, r1;
    struct cb_delta d;
    double *scratch = NULL, *ratio = NULL, *cont = NULL;
    size_t nratio = 0, ncont = 0;
    int rc;
    int est = cb_counters_find(cs, "cycles-est");
    if (est >= 0 && !cs->c[est].supported)
        est = -1;

    memset(m, 0, sizeof *m);
    m->contention = m->contended_share = NAN;
    if (!c->cold_bytes)
        c->cold_bytes = h->o.cold_bytes ? h->o.cold_bytes : cb_workset_cold_bytes();
    if (!c->bytes_per_op && p->unit && strcmp(p->unit, "B") == 0)
        c->bytes_per_op = c->size;
    rc = p->setup(c);
    if (rc < 0)
        return rc;

    double tsc_ghz = cs->tsc_ghz > 0 ? cs->tsc_ghz : 1.0;
    double target = h->read_ticks * 100.0;          /* reads under 1% of a batch */
    double floor_ticks = h->o.min_batch_us * 1e3 * tsc_ghz;
    if (target < floor_ticks)
        target = floor_ticks;

    /* Warm up (code, TLB, branch predictors; in warm mode the data) and grow
     * the batch until it is long enough. */
    uint64_t iters = 1;
    p->run(c, 1);
    for (int guard = 0; guard < 64; guard++) {
        uint64_t t0 = cb_tsc_begin();
        p->run(c, iters);
        uint64_t t1 = cb_tsc_end();
        double ticks = (double)(t1 - t0);
        if (ticks >= target || iters >= ((uint64_t)1 << 32))
            break;
        double grow = ticks > 0 ? target / ticks * 1.2 : 16.0;
        if (grow > 16.0)
            grow = 16.0;
        if (grow < 2.0)
            grow = 2.0;
        iters = (uint64_t)((double)iters * grow);
    }
    m->iters = iters;
    p->run(c, iters);

    /* The empty batch: the cost of the reads and the call itself. */
    enum { EMPTY = 31 };
    double empty[CB_MAX_COUNTERS][EMPTY];
    for (int k = 0; k < EMPTY; k++) {
        cb_counters_read(cs, &r0);
        p->run(c, 0);
        cb_counters_read(cs, &r1);
        cb_counters_delta(cs, &r0, &r1, &d);
        for (int i = 0; i < cs->n; i++)
            empty[i][k] = d.value[i];
    }
    for (int i = 0; i < cs->n; i++) {
        if (isnan(empty[i][0])) {
            m->overhead[i] = NAN;
            continue;
        }
        qsort(empty[i], EMPTY, sizeof(double), cmp_d);
        m->overhead[i] = empty[i][EMPTY / 2];
    }

    int want = h->o.reps > 0 ? h->o.reps : h->o.max_samples;
    scratch = malloc((size_t)want * sizeof *scratch);
    ratio = malloc((size_t)want * sizeof *ratio);
    cont = malloc((size_t)want * sizeof *cont);
    if (!scratch || !ratio || !cont) {
        rc = -ENOMEM;
        goto out;
    }
    uint64_t cap_ticks = (uint64_t)(h->o.case_seconds * 1e9 * tsc_ghz);
    /* The meter is read between samples: a sample's reading is the larger
     * of the one just before it and the one just after. */
    double prev_meter = cb_smt_contention();
    uint64_t start = cb_tsc_begin();
    m->why = h->o.reps > 0 ? CB_STOP_REPS : CB_STOP_MAX;
    for (int k = 0; k < want; k++) {
        if (h->stop && *h->stop) {
            rc = -EINTR;
            break;
        }
        cb_counters_read(cs, &r0);
        p->run(c, iters);
        cb_counters_read(cs, &r1);
        cb_counters_delta(cs, &r0, &r1, &d);
        if ((rc = push(m, &d)) < 0)
            goto out;
        /* The core clock beside this sample (~10k adds, about 1.5% of a
         * batch), for the case's estimated cycles. */
        if (est >= 0)
            ratio[nratio++] = cb_core_per_tick(10);
        double k_cont = cb_smt_contention();
        if (k_cont > 0 && prev_meter > 0) {
            double r = k_cont > prev_meter ? k_cont : prev_meter;
            m->smt[m->n - 1] = r;
            cont[ncont++] = r;
        }
        prev_meter = k_cont;
        if (h->o.reps > 0)
            continue;
        int n = (int)m->n;
        if (n >= h->o.min_samples && (n % 8 == 0 || n == h->o.min_samples)) {
            m->ci_pct = ci_pct(m, h->primary, scratch);
            if (m->ci_pct <= h->o.target_ci_pct) {
                m->why = CB_STOP_CI;
                break;
            }
        }
        if (n >= h->o.min_samples && cb_tsc_end() - start > cap_ticks) {
            m->why = CB_STOP_TIME;
            break;
        }
    }
    if (m->n)
        m->ci_pct = ci_pct(m, h->primary, scratch);
    rescale_estimate(m, cs, est, ratio, nratio);
    if (ncont) {
        size_t over = 0;
        for (size_t k = 0; k < ncont; k++)
            over += cont[k] > CB_CONTENDED_RATIO;
        m->contended_share = (double)over / (double)ncont;
        cb_sort_doubles(cont, ncont);
        m->contention = cb_quantile_sorted(cont, ncont, 0.5);
    }
out:
    free(scratch);
    free(ratio);
    free(cont);
    p->teardown(c);
    return rc;
}

void cb_measurement_free(struct cb_measurement *m)
{
    free(m->d);
    free(m->smt);
    memset(m, 0, sizeof *m);
}
