/* race_rounds.c — the buckets, rounds and decisions of a race (see race.h); its rows
 * are stored by race_store.c and shown by src/report/race_report.c. */
#include "analysis/race.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "config.h"
#include "util/dist.h"
#include "harness/stats.h"
#include "harness/ranktest.h"

/* ---------------------------------------------------------------- buckets */

static void bucket_set(struct cb_race_bucket *b, const char *name, uint64_t lo, uint64_t hi,
                       uint64_t size)
{
    snprintf(b->name, sizeof b->name, "%s", name);
    b->lo = lo;
    b->hi = hi;
    b->size = size;
}

size_t cb_race_default_buckets(struct cb_race_bucket *b, uint64_t stream_bytes)
{
    /* One representative size per bucket, the size that matters most in it:
     * a 40-byte IPv4+TCP header, a 1500-byte MTU frame, a page, a 64K
     * GSO/GRO super-packet, and a buffer no cache holds.  One size, not
     * several pooled: samples of different sizes have different costs, and
     * pooling them would test the size mix rather than the variants. */
    bucket_set(&b[0], "small", 0, 64, 40);
    bucket_set(&b[1], "packets", 64, 1500, 1500);
    bucket_set(&b[2], "pages", 1500, 4096, 4096);
    bucket_set(&b[3], "large", 4096, 65536, 65536);
    bucket_set(&b[4], "streaming", 65536, CB_RACE_UNBOUNDED,
               stream_bytes > 65536 ? stream_bytes : (64u << 20));
    return 5;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int cb_race_buckets_from_sizes(const uint64_t *sizes, size_t n, struct cb_race_bucket *b)
{
    if (n == 0 || n > CB_RACE_MAX_BUCKETS)
        return -EINVAL;
    uint64_t s[CB_RACE_MAX_BUCKETS];
    memcpy(s, sizes, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || s[i] != s[m - 1])
            s[m++] = s[i];
    for (size_t i = 0; i < m; i++) {
        char name[24];
        snprintf(name, sizeof name, "%llu", (unsigned long long)s[i]);
        bucket_set(&b[i], name, i ? s[i - 1] : 0, i + 1 < m ? s[i] : CB_RACE_UNBOUNDED, s[i]);
    }
    return (int)m;
}

const char *cb_race_decision_name(enum cb_race_decision d)
{
    switch (d) {
    case CB_RACE_CONFIDENT: return "confident";
    case CB_RACE_TIE: return "tie";
    case CB_RACE_ALONE: return "alone";
    default: return "none";
    }
}

const char *cb_race_verdict_name(enum cb_race_verdict v)
{
    return v == CB_RACE_OK ? "ok" : v == CB_RACE_BAD ? "bad" : "skipped";
}

/* ------------------------------------------------------------------ stats */

static double median_of(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return NAN;
    memcpy(t, v, n * sizeof *t);
    cb_sort_doubles(t, (size_t)n);
    double m = cb_quantile_sorted(t, n, 0.5);
    free(t);
    return m;
}

int cb_race_shift(const double *a, size_t na, const double *b, size_t nb, double alpha,
                  double *est, double *lo, double *hi)
{
    if (na == 0 || nb == 0 || !(alpha > 0 && alpha < 1))
        return -EINVAL;
    size_t n = na * nb;
    double *d = malloc(n * sizeof *d);
    if (!d)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            d[k++] = b[j] - a[i];
    cb_sort_doubles(d, (size_t)n);
    *est = cb_quantile_sorted(d, n, 0.5);
    /* The CI of the Hodges-Lehmann shift: order statistics of the pairwise
     * differences at the ranks where the Mann-Whitney U statistic would
     * reach its critical value (normal approximation, as cb_mann_whitney_p). */
    double z = cb_z_two_sided(alpha);
    double nn = (double)n;
    double c = floor(nn / 2 - z * sqrt(nn * (double)(na + nb + 1) / 12.0));
    size_t r = c > 0 ? (size_t)c : 0;
    if (r > (n - 1) / 2)
        r = (n - 1) / 2;
    *lo = d[r];
    *hi = d[n - 1 - r];
    free(d);
    return 0;
}

static int popcount(unsigned x)
{
    return __builtin_popcount(x);
}

/* The tie rule: 1 when variant a is preferred to b (see race.h). */
static int tie_before(const struct cb_variant *a, const struct cb_variant *b)
{
    int na = popcount(a->needs), nb = popcount(b->needs);
    if (na != nb)
        return na < nb;
    int ra = !!(a->flags & CB_VARIANT_REFERENCE), rb = !!(b->flags & CB_VARIANT_REFERENCE);
    if (ra != rb)
        return ra;
    return a < b; /* same table: the earlier row */
}

void cb_race_decide(struct cb_race_cell *c, double alpha, double min_margin)
{
    c->decision = CB_RACE_NONE;
    c->winner = c->runner_up = -1;
    c->p = c->margin = c->margin_lo = c->margin_hi = NAN;
    int fastest = -1, ncont = 0;
    for (size_t i = 0; i < c->ne; i++) {
        struct cb_race_entrant *e = &c->e[i];
        e->p = e->margin = NAN;
        e->beaten = 0;
        e->median = e->verdict == CB_RACE_OK ? median_of(e->vals, e->n) : NAN;
        if (e->verdict != CB_RACE_OK || e->n == 0 || isnan(e->median))
            continue;
        ncont++;
        /* Equal medians go to the variant the tie rule prefers, so the
         * choice never depends on the order of the table alone. */
        if (fastest < 0 || e->median < c->e[fastest].median ||
            (e->median == c->e[fastest].median && tie_before(e->v, c->e[fastest].v)))
            fastest = (int)i;
    }
    if (ncont == 0)
        return;
    if (ncont == 1) {
        c->decision = CB_RACE_ALONE;
        c->winner = fastest;
        return;
    }
    struct cb_race_entrant *f = &c->e[fastest];
    int winner = fastest, tied = 1;
    for (size_t i = 0; i < c->ne; i++) {
        struct cb_race_entrant *e = &c->e[i];
        if ((int)i == fastest || e->verdict != CB_RACE_OK || e->n == 0 || isnan(e->median))
            continue;
        e->p = cb_mw_p(f->vals, f->n, e->vals, e->n);
        double est, lo, hi;
        int have = cb_race_shift(f->vals, f->n, e->vals, e->n, alpha, &est, &lo, &hi) == 0 &&
                   f->median > 0;
        if (have)
            e->margin = est / f->median;
        /* Beaten: the rank test rejects "same distribution" AND even the
         * low end of the margin's CI is at least min_margin.  Both, because
         * with many samples the rank test finds differences far too small
         * to be worth a dispatch entry (or made by the machine, not the
         * code), while a large margin on few samples is not yet a finding. */
        e->beaten = !isnan(e->p) && e->p < alpha && have && lo / f->median >= min_margin;
        if (!e->beaten) {
            tied++;
            if (tie_before(e->v, c->e[winner].v))
                winner = (int)i;
        }
    }
    c->decision = tied > 1 ? CB_RACE_TIE : CB_RACE_CONFIDENT;
    c->winner = winner;
    struct cb_race_entrant *w = &c->e[winner];
    int ru = -1;
    for (size_t i = 0; i < c->ne; i++) {
        struct cb_race_entrant *e = &c->e[i];
        if ((int)i == winner || e->verdict != CB_RACE_OK || e->n == 0 || isnan(e->median))
            continue;
        if (ru < 0 || e->median < c->e[ru].median)
            ru = (int)i;
    }
    c->runner_up = ru;
    struct cb_race_entrant *u = &c->e[ru];
    c->p = cb_mw_p(w->vals, w->n, u->vals, u->n);
    double est, lo, hi;
    if (w->median > 0 && cb_race_shift(w->vals, w->n, u->vals, u->n, alpha, &est, &lo, &hi) == 0) {
        c->margin = est / w->median;
        c->margin_lo = lo / w->median;
        c->margin_hi = hi / w->median;
    }
}

/* --------------------------------------------------------------- the race */

/* splitmix64: a small, well-mixed generator whose whole state is one word,
 * so a seed replays the same order. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias. */
static uint64_t rng_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = rng_next(s);
    while (x >= lim);
    return x % n;
}

static int add_case(struct cb_race_entrant *e, int64_t id, int round)
{
    const struct cb_column cols[] = {CB_COLUMN(e->case_ids), CB_COLUMN(e->rounds)};
    if (cb_grow_columns(cols, 2, &e->capcases, e->ncases + 1, 64) < 0)
        return -ENOMEM;
    e->case_ids[e->ncases] = id;
    e->rounds[e->ncases] = round;
    e->ncases++;
    return 0;
}

/* One value per variant per round: the median of that round's samples.
 * Samples within a round are not independent (a neighbour's burst of load
 * or a frequency step slows a whole short case), so pooling them would let
 * the rank test count one unlucky round as several findings.  Rounds are
 * the independent units: the test and the margin use their medians, and
 * every raw sample is still stored. */
static int add_round(struct cb_race_entrant *e, const struct cb_measurement *m, int primary)
{
    if (cb_grow((void **)&e->vals, &e->cap, e->n + 1, 64, sizeof *e->vals) < 0)
        return -ENOMEM;
    double *t = malloc((m->n ? m->n : 1) * sizeof *t);
    if (!t)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        double v = cb_measurement_per_op(m, i, primary);
        if (!isnan(v))
            t[k++] = v;
    }
    if (k) {
        cb_sort_doubles(t, (size_t)k);
        e->vals[e->n++] = cb_quantile_sorted(t, k, 0.5);
    }
    free(t);
    return 0;
}

static int glob_match(const char *const *globs, const char *name)
{
    if (!globs)
        return 1;
    for (; *globs; globs++)
        if (fnmatch(*globs, name, 0) == 0)
            return 1;
    return 0;
}

/* The cells, probe by bucket, each with its entrants: every variant the
 * options let in at that bucket's size. */
static int make_cells(struct cb_race *r, const struct cb_race_opts *o)
{
    r->ncells = o->nprobes * o->nbuckets;
    r->cells = calloc(r->ncells, sizeof *r->cells);
    if (!r->cells)
        return -ENOMEM;
    for (size_t pi = 0; pi < o->nprobes; pi++) {
        const struct cb_probe *p = o->probes[pi];
        for (size_t bi = 0; bi < o->nbuckets; bi++) {
            struct cb_race_cell *c = &r->cells[pi * o->nbuckets + bi];
            c->probe = p;
            c->bucket = o->buckets[bi];
            c->winner = c->runner_up = -1;
            c->e = calloc(p->nvariants ? p->nvariants : 1, sizeof *c->e);
            if (!c->e)
                return -ENOMEM;
            for (size_t j = 0; j < p->nvariants; j++) {
                const struct cb_variant *v = &p->variants[j];
                if ((v->flags & CB_VARIANT_TESTONLY) && !o->include_testonly)
                    continue;
                if (!glob_match(o->variant_globs, v->name))
                    continue;
                /* A fixed-size variant belongs only to the bucket measured at
                 * its size: elsewhere it is not an entrant at all. */
                if (v->only_size && v->only_size != c->bucket.size)
                    continue;
                c->e[c->ne++] = (struct cb_race_entrant){.v = v, .verdict = CB_RACE_OK};
            }
        }
    }
    return 0;
}

/* Verification (and the CPU check) before any timing: BAD and unrunnable
 * variants get their stored case (round 0) and leave the race here. */
static int screen_entrants(struct cb_collector *col, const struct cb_race_opts *o,
                           struct cb_race *r)
{
    for (size_t ci = 0; ci < r->ncells; ci++) {
        struct cb_race_cell *c = &r->cells[ci];
        for (size_t i = 0; i < c->ne; i++) {
            struct cb_race_entrant *e = &c->e[i];
            int runnable = cb_variant_runnable(e->v, col->host.features);
            if (runnable) {
                const struct cb_verdict *vd = cb_collector_verdict(col, c->probe, e->v);
                if (!vd)
                    return o->stop && *o->stop ? -EINTR : -ENOMEM;   /* stopped while verifying */
                if (vd->ok)
                    continue;
                e->verdict = CB_RACE_BAD;
                snprintf(e->detail, sizeof e->detail, "%s", vd->detail);
            } else {
                e->verdict = CB_RACE_SKIPPED;
                char need[128];
                snprintf(e->detail, sizeof e->detail, "needs %s",
                         cb_cpu_feature_names(e->v->needs & ~col->host.features, need, sizeof need));
            }
            int64_t id;
            int rc = cb_collector_case(col, c->probe, e->v, c->bucket.size, o->mode, o->stop,
                                       &id, NULL);
            if (rc < 0)
                return rc;
            if ((rc = add_case(e, id, 0)) < 0)
                return rc;
        }
    }
    return 0;
}

/* The schedule: every correct (cell, entrant) once per round, as
 * cell << 16 | entrant; *sched is to be freed.  Room is made in r->order
 * for every round's. */
static int make_schedule(struct cb_race *r, int rounds, uint64_t **sched, size_t *nsched)
{
    size_t n = 0;
    for (size_t ci = 0; ci < r->ncells; ci++)
        for (size_t i = 0; i < r->cells[ci].ne; i++)
            n += r->cells[ci].e[i].verdict == CB_RACE_OK;
    uint64_t *s = malloc((n ? n : 1) * sizeof *s);
    r->order = malloc((n * (size_t)rounds + 1) * sizeof *r->order);
    if (!s || !r->order) {
        free(s);
        return -ENOMEM;
    }
    n = 0;
    for (size_t ci = 0; ci < r->ncells; ci++)
        for (size_t i = 0; i < r->cells[ci].ne; i++)
            if (r->cells[ci].e[i].verdict == CB_RACE_OK)
                s[n++] = (uint64_t)ci << 16 | i;
    *sched = s;
    *nsched = n;
    return 0;
}

/* Fisher-Yates, from the race's own generator. */
static void shuffle(uint64_t *v, size_t n, uint64_t *rng)
{
    for (size_t k = n; k > 1; k--) {
        size_t j = (size_t)rng_below(rng, k);
        uint64_t t = v[k - 1];
        v[k - 1] = v[j];
        v[j] = t;
    }
}

/* One entrant's short case in a round, and its value for that round. */
static int run_entrant(struct cb_collector *col, const struct cb_race_opts *o,
                       struct cb_race_cell *c, struct cb_race_entrant *e, int round)
{
    struct cb_measurement m;
    int64_t id;
    int rc = cb_collector_case(col, c->probe, e->v, c->bucket.size, o->mode, o->stop, &id, &m);
    if (rc < 0)
        return rc;
    int rc2 = add_case(e, id, round);
    if (rc == CB_CASE_MEASURED) {
        if (rc2 == 0)
            rc2 = add_round(e, &m, col->h.primary);
        cb_measurement_free(&m);
    } else {
        /* Setup failed (e.g. no memory for this size): drop the
         * variant from this bucket altogether, since samples from
         * only some rounds would no longer be interleaved fairly. */
        e->verdict = CB_RACE_SKIPPED;
        e->n = 0;
        snprintf(e->detail, sizeof e->detail, "could not be set up at %llu in round %d",
                 (unsigned long long)c->bucket.size, round);
    }
    return rc2 < 0 ? rc2 : 0;
}

/* Rounds.  Every entrant runs a short case (reps samples) once per
 * round, in an order shuffled afresh each round (Fisher-Yates), and
 * each round gives one value per variant (see add_round).  Whatever drifts during the race
 * (clock frequency, thermal state, a neighbour's load) lands on every
 * variant alike in expectation, instead of on whoever ran last, and a
 * burst of noise spoils one short case rather than all of a variant's
 * samples.  The order is the seed's alone, so it can be replayed. */
static int run_rounds(struct cb_collector *col, const struct cb_race_opts *o, struct cb_race *r,
                      uint64_t *sched, size_t nsched)
{
    uint64_t rng = o->seed;
    size_t done = 0, total = nsched * (size_t)o->rounds;
    for (int round = 1; round <= o->rounds; round++) {
        shuffle(sched, nsched, &rng);
        for (size_t k = 0; k < nsched; k++) {
            struct cb_race_cell *c = &r->cells[sched[k] >> 16];
            struct cb_race_entrant *e = &c->e[sched[k] & 0xffff];
            if (e->verdict != CB_RACE_OK)
                continue; /* its setup failed in an earlier round */
            if (o->progress)
                o->progress(o->progress_arg, ++done, total, c->probe, e->v, c->bucket.size, round);
            r->order[r->norder++] = sched[k];
            int rc = run_entrant(col, o, c, e, round);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int cb_race_run(struct cb_collector *col, const struct cb_race_opts *o, struct cb_race *r)
{
    memset(r, 0, sizeof *r);
    r->o = *o;
    r->run_id = col->run_id;
    r->reps = col->h.o.reps;
    if (o->nprobes == 0 || o->nbuckets == 0 || o->nbuckets > CB_RACE_MAX_BUCKETS ||
        o->rounds < 1 || !(o->alpha > 0 && o->alpha < 1) || !(o->min_margin >= 0) ||
        r->reps < 1 || col->h.primary < 0)
        return -EINVAL;
    snprintf(r->metric, sizeof r->metric, "%s", col->cs.c[col->h.primary].spec.part);
    int rc = make_cells(r, o);
    if (rc < 0 || (rc = screen_entrants(col, o, r)) < 0)
        return rc;
    uint64_t *sched;
    size_t nsched;
    if ((rc = make_schedule(r, o->rounds, &sched, &nsched)) < 0)
        return rc;
    rc = run_rounds(col, o, r, sched, nsched);
    free(sched);
    if (rc < 0)
        return rc;
    for (size_t ci = 0; ci < r->ncells; ci++) {
        if (o->context == CB_CONTEXT_KERNEL)
            cb_race_kernel_cell(o, &r->cells[ci]);
        cb_race_decide(&r->cells[ci], o->alpha, o->min_margin);
    }
    return 0;
}

double cb_race_budget_share(const struct cb_race_opts *o, const struct cb_race_cell *c)
{
    if (c->winner < 0 || !(o->tsc_ghz > 0))
        return NAN;
    struct cb_charge ch;
    cb_budget_charge(c->probe->name, c->probe->unit, c->bucket.size,
                     o->budget.frame ? o->budget.frame : CB_MIN_FRAME, &ch);
    double m = c->e[c->winner].median, q = o->fpu_ratio > 0 ? o->fpu_ratio : 1.0;
    return cb_budget_share(&o->budget, &ch, m / q / o->tsc_ghz, m);
}

double cb_race_kernel_charge(const struct cb_race_opts *o)
{
    if (!o->fpu.supported)
        return NAN;
    double q = o->fpu_ratio > 0 ? o->fpu_ratio : 1.0;
    return o->fpu_batch > 1 ? cb_fpu_batched(&o->fpu, q, o->fpu_batch) : cb_fpu_first(&o->fpu, q);
}

/* The entrant of c named name that ran, or NULL. */
static const struct cb_race_entrant *entrant(const struct cb_race_cell *c, const char *name)
{
    for (size_t i = 0; i < c->ne; i++)
        if (c->e[i].verdict == CB_RACE_OK && strcmp(c->e[i].v->name, name) == 0)
            return &c->e[i];
    return NULL;
}

void cb_race_kernel_cell(const struct cb_race_opts *o, struct cb_race_cell *c)
{
    double charge = cb_race_kernel_charge(o);
    for (size_t i = 0; i < c->ne; i++) {
        struct cb_race_entrant *e = &c->e[i];
        char twin[96];
        if (e->verdict != CB_RACE_OK)
            continue;
        snprintf(twin, sizeof twin, "%s+kflags", e->v->name);
        if (entrant(c, twin)) {
            e->verdict = CB_RACE_SKIPPED;
            snprintf(e->detail, sizeof e->detail, "kernel context: %s, built with the kernel's "
                     "flags, stands for it", twin);
        } else if ((e->v->flags & CB_VARIANT_VECTOR) && !isfinite(charge)) {
            e->verdict = CB_RACE_SKIPPED;
            snprintf(e->detail, sizeof e->detail, "kernel context: no FPU save measured here, so "
                     "its in-kernel cost is unknown");
        } else if (e->v->flags & CB_VARIANT_VECTOR) {
            for (size_t k = 0; k < e->n; k++)
                e->vals[k] += charge;
        }
    }
}

void cb_race_free(struct cb_race *r)
{
    for (size_t ci = 0; r->cells && ci < r->ncells; ci++) {
        struct cb_race_cell *c = &r->cells[ci];
        for (size_t i = 0; c->e && i < c->ne; i++)
            cb_free_all((void *[]){c->e[i].vals, c->e[i].case_ids, c->e[i].rounds}, 3);
        free(c->e);
    }
    cb_free_all((void *[]){r->cells, r->order}, 2);
    memset(r, 0, sizeof *r);
}

uint64_t cb_race_bucket_min(const struct cb_race_bucket *b)
{
    return b->lo == 0 ? 0 : b->lo + 1;
}
