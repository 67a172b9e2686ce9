/* race.c — rounds, decisions, storage and emission of a race (see race.h). */
#include "race.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "config.h"
#include "stats.h"

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

static const char *verdict_name(enum cb_race_verdict v)
{
    return v == CB_RACE_OK ? "ok" : v == CB_RACE_BAD ? "bad" : "skipped";
}

/* ------------------------------------------------------------------ stats */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return NAN;
    memcpy(t, v, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_d);
    double m = cb_quantile_sorted(t, n, 0.5);
    free(t);
    return m;
}

/* z with P(|Z| > z) = alpha, by bisection on erfc: monotone and exact
 * enough (1e-12) without a table or a rational approximation. */
static double z_two_sided(double alpha)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / sqrt(2.0)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
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
    qsort(d, n, sizeof *d, cmp_d);
    *est = cb_quantile_sorted(d, n, 0.5);
    /* The CI of the Hodges-Lehmann shift: order statistics of the pairwise
     * differences at the ranks where the Mann-Whitney U statistic would
     * reach its critical value (normal approximation, as cb_mann_whitney_p). */
    double z = z_two_sided(alpha);
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
        e->p = cb_mann_whitney_p(f->vals, f->n, e->vals, e->n);
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
    c->p = cb_mann_whitney_p(w->vals, w->n, u->vals, u->n);
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

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap * 2 : 64;
    while (cap2 < need)
        cap2 *= 2;
    void *np = realloc(*p, cap2 * elem);
    if (!np)
        return -ENOMEM;
    *p = np;
    *cap = cap2;
    return 0;
}

static int add_case(struct cb_race_entrant *e, int64_t id, int round)
{
    size_t cap = e->capcases;
    if (grow((void **)&e->case_ids, &cap, e->ncases + 1, sizeof *e->case_ids) < 0)
        return -ENOMEM;
    cap = e->capcases;
    if (grow((void **)&e->rounds, &cap, e->ncases + 1, sizeof *e->rounds) < 0)
        return -ENOMEM;
    e->capcases = cap;
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
    if (grow((void **)&e->vals, &e->cap, e->n + 1, sizeof *e->vals) < 0)
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
        qsort(t, k, sizeof *t, cmp_d);
        e->vals[e->n++] = cb_quantile_sorted(t, k, 0.5);
    }
    free(t);
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
    r->ncells = o->nprobes * o->nbuckets;
    r->cells = calloc(r->ncells, sizeof *r->cells);
    if (!r->cells)
        return -ENOMEM;
    int rc;
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
                /* A fixed-size variant belongs only to the bucket measured at
                 * its size: elsewhere it is not an entrant at all. */
                if (v->only_size && v->only_size != c->bucket.size)
                    continue;
                c->e[c->ne++] = (struct cb_race_entrant){.v = v, .verdict = CB_RACE_OK};
            }
        }
    }

    /* Verification (and the CPU check) before any timing: BAD and unrunnable
     * variants get their stored case (round 0) and leave the race here. */
    for (size_t ci = 0; ci < r->ncells; ci++) {
        struct cb_race_cell *c = &r->cells[ci];
        for (size_t i = 0; i < c->ne; i++) {
            struct cb_race_entrant *e = &c->e[i];
            int runnable = cb_variant_runnable(e->v, col->host.features);
            if (runnable) {
                const struct cb_verdict *vd = cb_collector_verdict(col, c->probe, e->v);
                if (!vd)
                    return -ENOMEM;
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
            rc = cb_collector_case(col, c->probe, e->v, c->bucket.size, o->mode, o->stop, &id, NULL);
            if (rc < 0)
                return rc;
            if ((rc = add_case(e, id, 0)) < 0)
                return rc;
        }
    }

    /* The schedule: every correct (cell, entrant) once per round. */
    size_t nsched = 0;
    for (size_t ci = 0; ci < r->ncells; ci++)
        for (size_t i = 0; i < r->cells[ci].ne; i++)
            nsched += r->cells[ci].e[i].verdict == CB_RACE_OK;
    uint64_t *sched = malloc((nsched ? nsched : 1) * sizeof *sched);
    r->order = malloc((nsched * (size_t)o->rounds + 1) * sizeof *r->order);
    if (!sched || !r->order) {
        free(sched);
        return -ENOMEM;
    }
    nsched = 0;
    for (size_t ci = 0; ci < r->ncells; ci++)
        for (size_t i = 0; i < r->cells[ci].ne; i++)
            if (r->cells[ci].e[i].verdict == CB_RACE_OK)
                sched[nsched++] = (uint64_t)ci << 16 | i;

    /* Rounds.  Every entrant runs a short case (reps samples) once per
     * round, in an order shuffled afresh each round (Fisher-Yates), and
     * each round gives one value per variant (see add_round).  Whatever drifts during the race
     * (clock frequency, thermal state, a neighbour's load) lands on every
     * variant alike in expectation, instead of on whoever ran last, and a
     * burst of noise spoils one short case rather than all of a variant's
     * samples.  The order is the seed's alone, so it can be replayed. */
    uint64_t rng = o->seed;
    size_t done = 0, total = nsched * (size_t)o->rounds;
    rc = 0;
    for (int round = 1; round <= o->rounds && rc >= 0; round++) {
        for (size_t k = nsched; k > 1; k--) {
            size_t j = (size_t)rng_below(&rng, k);
            uint64_t t = sched[k - 1];
            sched[k - 1] = sched[j];
            sched[j] = t;
        }
        for (size_t k = 0; k < nsched; k++) {
            struct cb_race_cell *c = &r->cells[sched[k] >> 16];
            struct cb_race_entrant *e = &c->e[sched[k] & 0xffff];
            if (e->verdict != CB_RACE_OK)
                continue; /* its setup failed in an earlier round */
            if (o->progress)
                o->progress(o->progress_arg, ++done, total, c->probe, e->v, c->bucket.size, round);
            r->order[r->norder++] = sched[k];
            struct cb_measurement m;
            int64_t id;
            rc = cb_collector_case(col, c->probe, e->v, c->bucket.size, o->mode, o->stop, &id, &m);
            if (rc < 0)
                break;
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
            if (rc2 < 0) {
                rc = rc2;
                break;
            }
        }
    }
    free(sched);
    if (rc < 0)
        return rc;
    for (size_t ci = 0; ci < r->ncells; ci++)
        cb_race_decide(&r->cells[ci], o->alpha, o->min_margin);
    return 0;
}

void cb_race_free(struct cb_race *r)
{
    for (size_t ci = 0; r->cells && ci < r->ncells; ci++) {
        struct cb_race_cell *c = &r->cells[ci];
        for (size_t i = 0; c->e && i < c->ne; i++) {
            free(c->e[i].vals);
            free(c->e[i].case_ids);
            free(c->e[i].rounds);
        }
        free(c->e);
    }
    free(r->cells);
    free(r->order);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------ store */

static void bind_real(sqlite3_stmt *s, int i, double v)
{
    if (isnan(v) || isinf(v))
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_double(s, i, v);
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *t)
{
    if (t)
        sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* The variants tied with the fastest (not beaten by it), comma-separated. */
static void tied_list(const struct cb_race_cell *c, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    if (c->decision != CB_RACE_TIE && c->decision != CB_RACE_CONFIDENT && c->winner >= 0) {
        snprintf(buf, len, "%s", c->e[c->winner].v->name);
        return;
    }
    for (size_t i = 0; i < c->ne && off + 1 < len; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        if (e->verdict != CB_RACE_OK || e->n == 0 || e->beaten)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", e->v->name);
    }
}

static uint64_t min_size_of(const struct cb_race_bucket *b)
{
    return b->lo == 0 ? 0 : b->lo + 1;
}

int cb_race_store(struct cb_collector *col, struct cb_race *r)
{
    sqlite3 *db = cb_store_sqlite(col->st);
    sqlite3_stmt *sr = NULL, *sres = NULL, *sent = NULL, *scase = NULL;
    int rc = -EIO;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return -EBUSY;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO races (run_id, mode, metric, alpha, min_margin, rounds, reps, seed)"
                           " VALUES (?,?,?,?,?,?,?,?)", -1, &sr, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO race_results (race_id, probe, bucket, min_size, max_size, size,"
                           " decision, winner, winner_needs, winner_median, runner_up, runner_up_median,"
                           " margin, margin_lo, margin_hi, p_value, tied)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &sres, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db,
                           "INSERT INTO race_entrants (result_id, variant, verdict, n, median,"
                           " p_vs_fastest, margin_vs_fastest, beaten, detail) VALUES (?,?,?,?,?,?,?,?,?)",
                           -1, &sent, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO race_cases (result_id, case_id, round) VALUES (?,?,?)",
                           -1, &scase, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(sr, 1, r->run_id);
    sqlite3_bind_text(sr, 2, cb_mode_name(r->o.mode), -1, SQLITE_STATIC);
    sqlite3_bind_text(sr, 3, r->metric, -1, SQLITE_STATIC);
    sqlite3_bind_double(sr, 4, r->o.alpha);
    sqlite3_bind_double(sr, 5, r->o.min_margin);
    sqlite3_bind_int(sr, 6, r->o.rounds);
    sqlite3_bind_int(sr, 7, r->reps);
    sqlite3_bind_int64(sr, 8, (int64_t)r->o.seed);
    if (sqlite3_step(sr) != SQLITE_DONE)
        goto fail;
    r->race_id = sqlite3_last_insert_rowid(db);
    for (size_t ci = 0; ci < r->ncells; ci++) {
        const struct cb_race_cell *c = &r->cells[ci];
        const struct cb_race_entrant *w = c->winner >= 0 ? &c->e[c->winner] : NULL;
        const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
        char needs[128], tied[1024];
        cb_cpu_feature_names(w ? w->v->needs : 0, needs, sizeof needs);
        tied_list(c, tied, sizeof tied);
        sqlite3_reset(sres);
        sqlite3_bind_int64(sres, 1, r->race_id);
        sqlite3_bind_text(sres, 2, c->probe->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(sres, 3, c->bucket.name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(sres, 4, (int64_t)min_size_of(&c->bucket));
        if (c->bucket.hi == CB_RACE_UNBOUNDED)
            sqlite3_bind_null(sres, 5);
        else
            sqlite3_bind_int64(sres, 5, (int64_t)c->bucket.hi);
        sqlite3_bind_int64(sres, 6, (int64_t)c->bucket.size);
        sqlite3_bind_text(sres, 7, cb_race_decision_name(c->decision), -1, SQLITE_STATIC);
        bind_text_or_null(sres, 8, w ? w->v->name : NULL);
        sqlite3_bind_text(sres, 9, needs, -1, SQLITE_TRANSIENT);
        bind_real(sres, 10, w ? w->median : NAN);
        bind_text_or_null(sres, 11, u ? u->v->name : NULL);
        bind_real(sres, 12, u ? u->median : NAN);
        int have = !isnan(c->margin) && !isnan(c->margin_lo) && !isnan(c->margin_hi);
        bind_real(sres, 13, have ? c->margin : NAN);
        bind_real(sres, 14, have ? c->margin_lo : NAN);
        bind_real(sres, 15, have ? c->margin_hi : NAN);
        bind_real(sres, 16, c->p);
        sqlite3_bind_text(sres, 17, tied, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(sres) != SQLITE_DONE)
            goto fail;
        int64_t res_id = sqlite3_last_insert_rowid(db);
        for (size_t i = 0; i < c->ne; i++) {
            const struct cb_race_entrant *e = &c->e[i];
            sqlite3_reset(sent);
            sqlite3_bind_int64(sent, 1, res_id);
            sqlite3_bind_text(sent, 2, e->v->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(sent, 3, verdict_name(e->verdict), -1, SQLITE_STATIC);
            sqlite3_bind_int64(sent, 4, e->verdict == CB_RACE_OK ? (int64_t)e->n : 0);
            bind_real(sent, 5, e->median);
            bind_real(sent, 6, e->p);
            bind_real(sent, 7, e->margin);
            sqlite3_bind_int(sent, 8, e->verdict == CB_RACE_OK && e->beaten);
            sqlite3_bind_text(sent, 9, e->detail, -1, SQLITE_STATIC);
            if (sqlite3_step(sent) != SQLITE_DONE)
                goto fail;
            for (size_t k = 0; k < e->ncases; k++) {
                sqlite3_reset(scase);
                sqlite3_bind_int64(scase, 1, res_id);
                sqlite3_bind_int64(scase, 2, e->case_ids[k]);
                sqlite3_bind_int(scase, 3, e->rounds[k]);
                if (sqlite3_step(scase) != SQLITE_DONE)
                    goto fail;
            }
        }
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cyclebudget: storing the race failed: %s\n", sqlite3_errmsg(db));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    r->race_id = 0;
out:
    sqlite3_finalize(sr);
    sqlite3_finalize(sres);
    sqlite3_finalize(sent);
    sqlite3_finalize(scase);
    return rc;
}

/* ------------------------------------------------------------------- emit */

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static void json_num(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fprintf(out, "%.6g", v);
}

/* "avx2+adx" as a JSON array of names. */
static void json_features(FILE *out, unsigned mask)
{
    char names[128];
    cb_cpu_feature_names(mask, names, sizeof names);
    fputc('[', out);
    int first = 1;
    for (char *tok = strtok(names, "+"); tok; tok = strtok(NULL, "+")) {
        fputs(first ? "" : ", ", out);
        json_str(out, tok);
        first = 0;
    }
    fputc(']', out);
}

int cb_race_emit_json(const struct cb_race *r, const struct cb_host *h, FILE *out)
{
    fprintf(out, "{\n  \"generator\": \"cyclebudget %s\",\n", PACKAGE_VERSION);
    fprintf(out, "  \"race\": %lld,\n  \"run\": %lld,\n", (long long)r->race_id,
            (long long)r->run_id);
    fputs("  \"host\": {\"hostname\": ", out);
    json_str(out, h->hostname);
    fputs(", \"vendor\": ", out);
    json_str(out, h->vendor);
    fprintf(out, ", \"family\": %d, \"model\": %d, \"stepping\": %d, \"model_name\": ", h->family,
            h->model, h->stepping);
    json_str(out, h->model_name);
    fputs(", \"microcode\": ", out);
    json_str(out, h->microcode);
    fputs(", \"features\": ", out);
    json_features(out, h->features);
    fputs(", \"kernel\": ", out);
    json_str(out, h->kernel);
    fprintf(out, ", \"ncpus\": %d, \"llc_bytes\": %zu},\n", h->ncpus, h->llc_bytes);
    fprintf(out, "  \"mode\": \"%s\",\n  \"metric\": ", cb_mode_name(r->o.mode));
    json_str(out, r->metric);
    fprintf(out, ",\n  \"alpha\": %.6g,\n  \"min_margin\": %.6g,\n  \"rounds\": %d,\n  \"reps\": %d,\n"
                 "  \"seed\": %llu,\n  \"families\": [",
            r->o.alpha, r->o.min_margin, r->o.rounds, r->reps, (unsigned long long)r->o.seed);
    for (size_t pi = 0; pi < r->o.nprobes; pi++) {
        const struct cb_probe *p = r->o.probes[pi];
        fprintf(out, "%s\n    {\"probe\": ", pi ? "," : "");
        json_str(out, p->name);
        fputs(", \"unit\": ", out);
        json_str(out, p->unit);
        fputs(", \"buckets\": [", out);
        for (size_t bi = 0; bi < r->o.nbuckets; bi++) {
            const struct cb_race_cell *c = &r->cells[pi * r->o.nbuckets + bi];
            const struct cb_race_entrant *w = c->winner >= 0 ? &c->e[c->winner] : NULL;
            const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
            fprintf(out, "%s\n      {\"bucket\": ", bi ? "," : "");
            json_str(out, c->bucket.name);
            fprintf(out, ", \"min_size\": %llu, \"max_size\": ",
                    (unsigned long long)min_size_of(&c->bucket));
            if (c->bucket.hi == CB_RACE_UNBOUNDED)
                fputs("null", out);
            else
                fprintf(out, "%llu", (unsigned long long)c->bucket.hi);
            fprintf(out, ", \"size\": %llu, \"decision\": \"%s\",\n       \"winner\": ",
                    (unsigned long long)c->bucket.size, cb_race_decision_name(c->decision));
            if (w)
                json_str(out, w->v->name);
            else
                fputs("null", out);
            fputs(", \"winner_needs\": ", out);
            json_features(out, w ? w->v->needs : 0);
            fputs(", \"winner_median\": ", out);
            json_num(out, w ? w->median : NAN);
            fputs(",\n       \"runner_up\": ", out);
            if (u)
                json_str(out, u->v->name);
            else
                fputs("null", out);
            fputs(", \"runner_up_median\": ", out);
            json_num(out, u ? u->median : NAN);
            fputs(", \"margin\": ", out);
            json_num(out, c->margin);
            fputs(", \"margin_ci\": ", out);
            if (isnan(c->margin_lo) || isnan(c->margin_hi)) {
                fputs("null", out);
            } else {
                fputc('[', out);
                json_num(out, c->margin_lo);
                fputs(", ", out);
                json_num(out, c->margin_hi);
                fputc(']', out);
            }
            fputs(", \"p_value\": ", out);
            json_num(out, c->p);
            fputs(",\n       \"entrants\": [", out);
            for (size_t i = 0; i < c->ne; i++) {
                const struct cb_race_entrant *e = &c->e[i];
                fprintf(out, "%s{\"variant\": ", i ? ", " : "");
                json_str(out, e->v->name);
                fprintf(out, ", \"verdict\": \"%s\", \"n\": %zu, \"median\": ", verdict_name(e->verdict),
                        e->verdict == CB_RACE_OK ? e->n : 0);
                json_num(out, e->median);
                fprintf(out, ", \"beaten\": %s", e->beaten ? "true" : "false");
                if (e->detail[0]) {
                    fputs(", \"detail\": ", out);
                    json_str(out, e->detail);
                }
                fputc('}', out);
            }
            fputs("]}", out);
        }
        fputs("\n    ]}", out);
    }
    fputs("\n  ]\n}\n", out);
    return ferror(out) ? -EIO : 0;
}

/* "csum_copy" -> "csum_copy" (lower) or "CSUM_COPY" (upper): a C identifier. */
static void ident(const char *name, int upper, char *buf, size_t len)
{
    size_t k = 0;
    for (; *name && k + 1 < len; name++) {
        unsigned char ch = (unsigned char)*name;
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        char out = alnum ? (char)ch : '_';
        if (upper && out >= 'a' && out <= 'z')
            out = (char)(out - 'a' + 'A');
        if (!upper && out >= 'A' && out <= 'Z')
            out = (char)(out - 'A' + 'a');
        buf[k++] = out;
    }
    buf[k] = '\0';
}

static void fmt_margin(const struct cb_race_cell *c, char *buf, size_t len)
{
    if (isnan(c->margin))
        snprintf(buf, len, "-");
    else if (isnan(c->margin_lo))
        snprintf(buf, len, "%+.1f%%", c->margin * 100);
    else
        snprintf(buf, len, "%+.1f%% [%+.1f, %+.1f]", c->margin * 100, c->margin_lo * 100,
                 c->margin_hi * 100);
}

int cb_race_emit_header(const struct cb_race *r, const struct cb_host *h, FILE *out)
{
    fprintf(out,
            "/* cyclebudget race: which variant to use for which size, measured on one machine.\n"
            " *\n"
            " * Generated by cyclebudget %s: race %lld (run %lld).\n"
            " * Host: %s, %s (%s family %d model %d stepping %d, microcode %s),\n"
            " *       kernel %s.\n"
            " * Mode %s; ranked by %s per operation; %d rounds x %d samples per variant,\n"
            " * in a shuffled order each round (seed %llu).  A winner is confident when it\n"
            " * beats every other variant by the Mann-Whitney test at alpha %g and by a\n"
            " * margin whose CI's lower bound is at least %g%%; otherwise the variants it\n"
            " * did not beat are tied, and the one needing the fewest CPU features (then\n"
            " * the family's reference, then the earlier in its table) is chosen.\n"
            " * A margin is how much more the runner-up costs than the winner, with its\n"
            " * CI; negative: the runner-up was faster by median, but not confidently.\n"
            " *\n"
            " * Each table is valid only where the CPU has the features named in its\n"
            " * CB_RACE_<FAMILY>_REQUIRES ('+'-separated, as 'cyclebudget list' names\n"
            " * them), and is this machine's answer: race again on another. */\n"
            "#ifndef CB_RACE_GENERATED_H\n#define CB_RACE_GENERATED_H\n\n"
            "#include <stddef.h>\n#include <stdint.h>\n\n"
            "#ifndef CB_RACE_ENTRY_DEFINED\n#define CB_RACE_ENTRY_DEFINED\n"
            "struct cb_race_entry {\n"
            "    size_t max_size;       /* sizes up to this one (inclusive) use variant */\n"
            "    const char *variant;   /* the variant's name in cyclebudget's family */\n"
            "    const char *needs;     /* the CPU features it needs, \"\" for none */\n"
            "};\n"
            "#if defined(__GNUC__)\n#define CB_RACE_UNUSED __attribute__((unused))\n#else\n"
            "#define CB_RACE_UNUSED\n#endif\n#endif\n",
            PACKAGE_VERSION, (long long)r->race_id, (long long)r->run_id, h->hostname,
            h->model_name, h->vendor, h->family, h->model, h->stepping,
            h->microcode[0] ? h->microcode : "unknown", h->kernel, cb_mode_name(r->o.mode),
            r->metric, r->o.rounds, r->reps, (unsigned long long)r->o.seed, r->o.alpha,
            r->o.min_margin * 100);
    for (size_t pi = 0; pi < r->o.nprobes; pi++) {
        const struct cb_probe *p = r->o.probes[pi];
        const struct cb_race_cell *cells = &r->cells[pi * r->o.nbuckets];
        char lo[64], up[64], req[128];
        ident(p->name, 0, lo, sizeof lo);
        ident(p->name, 1, up, sizeof up);
        unsigned needs = 0;
        size_t nent = 0;
        /* Adjacent buckets with the same winner share one entry: the table
         * holds only the thresholds where the choice changes. */
        for (size_t bi = 0; bi < r->o.nbuckets; bi++) {
            const struct cb_race_cell *c = &cells[bi];
            if (c->winner < 0)
                continue;
            needs |= c->e[c->winner].v->needs;
            size_t nb = bi + 1;
            while (nb < r->o.nbuckets && cells[nb].winner < 0)
                nb++;
            if (nb == r->o.nbuckets || cells[nb].e[cells[nb].winner].v != c->e[c->winner].v)
                nent++;
        }
        fprintf(out, "\n/* %s: %s */\n", p->name, p->desc ? p->desc : "");
        if (nent == 0) {
            fprintf(out, "/* no variant of %s could be measured here: no table */\n", p->name);
            continue;
        }
        fprintf(out, "#define CB_RACE_%s_REQUIRES \"%s\"\n", up,
                cb_cpu_feature_names(needs, req, sizeof req));
        fprintf(out, "#define CB_RACE_%s_COUNT %zu\n", up, nent);
        fprintf(out, "static const struct cb_race_entry cb_race_%s[CB_RACE_%s_COUNT] CB_RACE_UNUSED = {\n",
                lo, up);
        size_t emitted = 0;
        for (size_t bi = 0; bi < r->o.nbuckets; bi++) {
            const struct cb_race_cell *c = &cells[bi];
            if (c->winner < 0)
                continue;
            const struct cb_variant *v = c->e[c->winner].v;
            char m[96], vn[128], entry[256];
            fmt_margin(c, m, sizeof m);
            size_t nb = bi + 1;
            while (nb < r->o.nbuckets && cells[nb].winner < 0)
                nb++;
            int last_of_run = nb == r->o.nbuckets || cells[nb].e[cells[nb].winner].v != v;
            snprintf(vn, sizeof vn, "\"%s\",", v->name);
            if (last_of_run) {
                emitted++;
                char sz[32];
                if (emitted == nent)
                    snprintf(sz, sizeof sz, "SIZE_MAX");
                else
                    snprintf(sz, sizeof sz, "%llu", (unsigned long long)c->bucket.hi);
                snprintf(entry, sizeof entry, "    {%s, %s \"%s\"},", sz, vn,
                         cb_cpu_feature_names(v->needs, req, sizeof req));
            } else {
                snprintf(entry, sizeof entry, "    /* (continues below) */");
            }
            const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
            fprintf(out, "%-44s /* %s @%llu: %s", entry, c->bucket.name,
                    (unsigned long long)c->bucket.size, cb_race_decision_name(c->decision));
            if (u)
                fprintf(out, ", %s vs %s", m, u->v->name);
            fputs(" */\n", out);
        }
        fputs("};\n", out);
        fprintf(out,
                "static inline CB_RACE_UNUSED const char *cb_race_%s_pick(size_t len)\n{\n"
                "    for (size_t i = 0; i + 1 < CB_RACE_%s_COUNT; i++)\n"
                "        if (len <= cb_race_%s[i].max_size)\n"
                "            return cb_race_%s[i].variant;\n"
                "    return cb_race_%s[CB_RACE_%s_COUNT - 1].variant;\n}\n",
                lo, up, lo, lo, lo, up);
    }
    fputs("\n#endif\n", out);
    return ferror(out) ? -EIO : 0;
}

/* ----------------------------------------------------------------- report */

static const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : "";
}

static double col_real(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static void fmt_range(sqlite3_stmt *s, int ilo, int ihi, char *buf, size_t len)
{
    long long lo = sqlite3_column_int64(s, ilo);
    if (sqlite3_column_type(s, ihi) == SQLITE_NULL)
        snprintf(buf, len, "%lld..", lo);
    else
        snprintf(buf, len, "%lld..%lld", lo, (long long)sqlite3_column_int64(s, ihi));
}

int cb_race_print(struct cb_store *st, int64_t race_id, FILE *out)
{
    sqlite3 *db = cb_store_sqlite(st);
    sqlite3_stmt *s = NULL;
    int rc = -ENOENT;
    if (sqlite3_prepare_v2(db,
                           "SELECT ra.id, r.id, r.started, h.hostname, h.model_name, ra.mode,"
                           " ra.metric, ra.alpha, ra.min_margin, ra.rounds, ra.reps"
                           "  FROM races ra JOIN runs r ON r.id = ra.run_id"
                           "  JOIN hosts h ON h.id = r.host_id WHERE ra.id = ?",
                           -1, &s, NULL) != SQLITE_OK)
        return -EIO;
    sqlite3_bind_int64(s, 1, race_id);
    if (sqlite3_step(s) == SQLITE_ROW) {
        fprintf(out,
                "race %lld (run %lld, %s) on %s, %s\n"
                "  %s, ranked by %s per op, %d rounds x %d samples, alpha %g, min margin %g%%\n",
                (long long)sqlite3_column_int64(s, 0), (long long)sqlite3_column_int64(s, 1),
                col_text(s, 2), col_text(s, 3), col_text(s, 4), col_text(s, 5), col_text(s, 6),
                sqlite3_column_int(s, 9), sqlite3_column_int(s, 10), sqlite3_column_double(s, 7),
                sqlite3_column_double(s, 8) * 100);
        rc = 0;
    }
    sqlite3_finalize(s);
    if (rc < 0)
        return rc;
    if (sqlite3_prepare_v2(db,
                           "SELECT rr.probe, rr.bucket, rr.min_size, rr.max_size, rr.size, rr.decision,"
                           " rr.winner, rr.margin, rr.margin_lo, rr.margin_hi, rr.runner_up,"
                           " (SELECT rs.prev_winner FROM race_summary rs WHERE rs.race_id = rr.race_id"
                           "   AND rs.probe = rr.probe AND rs.bucket = rr.bucket),"
                           " (SELECT group_concat(variant, ',') FROM race_entrants re"
                           "   WHERE re.result_id = rr.id AND re.verdict = 'bad')"
                           "  FROM race_results rr WHERE rr.race_id = ? ORDER BY rr.id",
                           -1, &s, NULL) != SQLITE_OK)
        return -EIO;
    sqlite3_bind_int64(s, 1, race_id);
    fprintf(out, "  %-10s %-10s %-14s %-14s %-10s %-26s %-14s %s\n", "family", "bucket", "sizes",
            "winner", "decision", "margin [CI], %", "runner-up", "before");
    while (sqlite3_step(s) == SQLITE_ROW) {
        char range[48], margin[64], before[96];
        fmt_range(s, 2, 3, range, sizeof range);
        double m = col_real(s, 7), lo = col_real(s, 8), hi = col_real(s, 9);
        if (isnan(m))
            snprintf(margin, sizeof margin, "-");
        else
            snprintf(margin, sizeof margin, "%+.1f [%+.1f, %+.1f]", m * 100, lo * 100, hi * 100);
        const char *prev = col_text(s, 11), *win = col_text(s, 6);
        if (sqlite3_column_type(s, 11) == SQLITE_NULL)
            snprintf(before, sizeof before, "-");
        else if (strcmp(prev, win) == 0)
            snprintf(before, sizeof before, "same");
        else
            snprintf(before, sizeof before, "was %s", prev);
        fprintf(out, "  %-10s %-10s %-14s %-14s %-10s %-26s %-14s %s", col_text(s, 0),
                col_text(s, 1), range, win[0] ? win : "-", col_text(s, 5), margin,
                sqlite3_column_type(s, 10) == SQLITE_NULL ? "-" : col_text(s, 10), before);
        if (sqlite3_column_type(s, 12) != SQLITE_NULL)
            fprintf(out, "  (BAD, excluded: %s)", col_text(s, 12));
        fputc('\n', out);
    }
    sqlite3_finalize(s);
    return 0;
}

int cb_race_report_text(struct cb_store *st, FILE *out)
{
    sqlite3 *db = cb_store_sqlite(st);
    sqlite3_stmt *s = NULL;
    /* A store from before races has no table: nothing to show, no error. */
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'races'",
                           -1, &s, NULL) != SQLITE_OK)
        return -EIO;
    int have = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (!have)
        return 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT MAX(ra.id) FROM races ra JOIN runs r ON r.id = ra.run_id"
                           "  JOIN hosts h ON h.id = r.host_id WHERE r.status = 'complete'"
                           " GROUP BY h.hostname, h.model_name, ra.mode ORDER BY 1",
                           -1, &s, NULL) != SQLITE_OK)
        return -EIO;
    int n = 0, rc = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (n)
            fputc('\n', out);
        if ((rc = cb_race_print(st, sqlite3_column_int64(s, 0), out)) < 0)
            break;
        n++;
    }
    sqlite3_finalize(s);
    return rc < 0 ? rc : n;
}
