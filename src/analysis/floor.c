/* floor.c — the between-run noise floor (see floor.h). */
#define _GNU_SOURCE
#include "analysis/floor.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "store/lookup.h"
#include "store/store.h"
#include "host/fingerprint.h"
#include "util/dist.h"
#include "harness/stats.h"

/* The median of v[n], reordering v; NAN for none. */
static double median_of(double *v, size_t n)
{
    if (!n)
        return NAN;
    cb_sort_doubles(v, (size_t)n);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const struct cb_floor_case *cb_floor_find(const struct cb_floor *f, const char *key)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (strcmp(f->c[i].key, key) == 0)
            return &f->c[i];
    return NULL;
}

int cb_floor_add(struct cb_floor *f, const char *key, const double *x, size_t n)
{
    if (n < 2)
        return 0;
    struct cb_floor_case *c = (struct cb_floor_case *)cb_floor_find(f, key);
    if (!c) {
        if (cb_grow((void **)&f->c, &f->cap, f->n + 1, 64, sizeof *f->c) < 0)
            return -ENOMEM;
        c = &f->c[f->n++];
        memset(c, 0, sizeof *c);
        c->sd = NAN;
        snprintf(c->key, sizeof c->key, "%s", key);
    }
    double *m = malloc(n * sizeof *m);
    if (!m || cb_grow((void **)&c->res, &c->cap, c->nres + n, 16, sizeof *c->res) < 0) {
        free(m);
        return -ENOMEM;
    }
    memcpy(m, x, n * sizeof *m);
    double mid = median_of(m, n), scale = sqrt((double)n / (double)(n - 1));
    free(m);
    for (size_t i = 0; i < n; i++)
        c->res[c->nres++] = (x[i] - mid) * scale;
    c->df += n - 1;
    return 0;
}

double cb_floor_robust_sd(const double *res, size_t n, size_t *rejected)
{
    *rejected = 0;
    if (!n)
        return NAN;
    double *a = malloc(n * sizeof *a);
    if (!a)
        return NAN;
    for (size_t i = 0; i < n; i++)
        a[i] = fabs(res[i]);
    double cap = CB_FLOOR_REJECT * 1.4826 * median_of(a, n), ss = 0;
    free(a);
    /* A MAD of 0 (most deviations exactly 0: ticks are whole numbers)
     * rejects nothing rather than everything. */
    for (size_t i = 0; i < n; i++) {
        if (cap > 0 && res[i] > cap)
            (*rejected)++;
        else
            ss += res[i] * res[i];
    }
    return n > *rejected ? sqrt(ss / (double)(n - *rejected)) : NAN;
}

double cb_floor_sd(const struct cb_floor_case *c)
{
    return c && c->df >= CB_FLOOR_MIN_DF ? c->sd : NAN;
}

void cb_floor_free(struct cb_floor *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->c[i].res);
    free(f->c);
    memset(f, 0, sizeof *f);
}

void cb_floor_finish(struct cb_floor *f)
{
    double *v = malloc((f->n ? f->n : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        struct cb_floor_case *c = &f->c[i];
        size_t rejected;
        c->sd = cb_floor_robust_sd(c->res, c->nres, &rejected);
        c->rejected = rejected;
        c->df = c->df > rejected ? c->df - rejected : 0;
        if (c->df < CB_FLOOR_MIN_DF)
            c->sd = NAN;
        if (v && !isnan(c->sd))
            v[k++] = c->sd;
    }
    f->s0 = v ? median_of(v, k) : NAN;
    free(v);
}

/* One candidate run: the bytes it measured, as a key two runs of the same
 * bytes share. */
struct cand {
    int64_t id;
    char what[400];
};

/* A key being built, and how far it is filled. */
struct key {
    char *buf;
    size_t len, off;
};

static int add_hash(const char *sha256, void *ctx)
{
    struct key *k = ctx;
    if (k->off < k->len)
        k->off += (size_t)snprintf(k->buf + k->off, k->len - k->off, "|%.16s", sha256);
    return 0;
}

/* The plugins a run loaded, by hash, appended to key (schema 11 on). */
static int plugin_hashes(struct cb_store *st, int64_t run, char *key, size_t len)
{
    struct key k = {key, len, strlen(key)};
    return cb_store_each_run_plugin(st, run, add_hash, &k);
}

static int skipped(int64_t id, const int64_t *skip, size_t nskip)
{
    for (size_t i = 0; i < nskip; i++)
        if (skip[i] == id)
            return 1;
    return 0;
}

/* The candidates being gathered. */
struct gather {
    const int64_t *skip;
    size_t nskip;
    struct cand *c;
    size_t n, cap, unkeyed;
};

static int add_candidate(int64_t id, const char *code_id, const char *clock, void *ctx)
{
    struct gather *g = ctx;
    if (skipped(id, g->skip, g->nskip))
        return 0;
    if (!code_id) {
        g->unkeyed++;
        return 0;
    }
    if (cb_grow((void **)&g->c, &g->cap, g->n + 1, 64, sizeof *g->c) < 0)
        return -ENOMEM;
    struct cand *c = &g->c[g->n++];
    c->id = id;
    snprintf(c->what, sizeof c->what, "%s|%s", code_id, clock);
    return 0;
}

/* The host's newest complete runs, each with the bytes it measured; those
 * with no code identity (recorded before 0020_code_id.sql) are counted in
 * *unkeyed and left out.  So are runs a slowed host measured
 * (0024_hoststate.sql): the floor is what quiet runs of this host spread by,
 * and a third of runs 1.7x slow taught it a floor no change could pass. */
static int candidates(struct cb_store *st, int64_t ref, const int64_t *skip, size_t nskip,
                      struct cand **out, size_t *n, size_t *unkeyed)
{
    struct gather g = {.skip = skip, .nskip = nskip};
    int rc = cb_store_each_host_run(st, ref, CB_FLOOR_MAX_RUNS + (int64_t)nskip, add_candidate, &g);
    *out = g.c;
    *n = g.n;
    *unkeyed = g.unkeyed;
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < *n; i++)
        if ((rc = plugin_hashes(st, (*out)[i].id, (*out)[i].what, sizeof (*out)[i].what)) < 0)
            return rc;
    return 0;
}

/* Keep the candidates measured in ref's environment. */
static int same_env(struct cb_store *st, int64_t ref, struct cand *c, size_t *n)
{
    char fr[2048], fo[2048];
    int rc = cb_run_fingerprint(st, ref, fr, sizeof fr);
    if (rc < 0)
        return rc;
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if ((rc = cb_run_fingerprint(st, c[i].id, fo, sizeof fo)) < 0)
            return rc;
        if (!cb_fingerprint_diff(fr, fo, NULL))
            c[kept++] = c[i];
    }
    *n = kept;
    return 0;
}

/* One group of runs of the same bytes: each case's run figures, of the
 * runs that measured it in a quiet state.  A case run in a host state
 * (cases.state slowed, or its clock flagged and the run's used: sides.h)
 * is left out, as the verdict leaves it out of a side.  In 64 runs of one
 * scalar case on this project's Xeon guest, 8 of the 15 whose clock was
 * flagged read 2.6-7.4% off (the clock stepped inside the case) and 3 of
 * the other 49, the rest within 0.3%: a history holding such runs widened
 * the floor until a +10% change one run a side read unsure. */
static int add_group(struct cb_store *st, struct cb_side *g, const char *metric, double q,
                     int keep_contended, struct cb_floor *f)
{
    int rc = cb_side_load(st, g, metric);
    for (size_t i = 0; rc == 0 && i < g->ncases; i++) {
        const struct cb_side_case *c = &g->cases[i];
        double *x = malloc((c->nruns ? c->nruns : 1) * sizeof *x);
        int *quiet = malloc((c->nruns ? c->nruns : 1) * sizeof *quiet);
        if (!x || !quiet)
            rc = -ENOMEM;
        else if (cb_run_log_values(c->v, keep_contended ? NULL : c->smt, c->ends, c->nruns, q, x,
                                   quiet) == 0) {
            size_t k = 0;
            for (size_t r = 0; r < c->nruns; r++)
                if (keep_contended || (quiet[r] && !cb_side_run_flagged(c, r)))
                    x[k++] = x[r];
            rc = cb_floor_add(f, c->key, x, k);
        }
        free(x);
        free(quiet);
    }
    return rc;
}

int cb_floor_learn(struct cb_store *st, int64_t ref_run, const char *metric, double q,
                   int keep_contended, const int64_t *skip, size_t nskip, struct cb_floor *f)
{
    int rc = cb_floor_learn_groups(st, ref_run, metric, q, keep_contended, skip, nskip, f);
    cb_floor_finish(f);
    return rc;
}

int cb_floor_learn_groups(struct cb_store *st, int64_t ref_run, const char *metric, double q,
                          int keep_contended, const int64_t *skip, size_t nskip,
                          struct cb_floor *f)
{
    memset(f, 0, sizeof *f);
    f->s0 = NAN;
    struct cand *c = NULL;
    size_t n = 0;
    int rc = candidates(st, ref_run, skip, nskip, &c, &n, &f->unkeyed);
    if (rc == 0)
        rc = same_env(st, ref_run, c, &n);
    /* Group by the bytes measured: n is small, so a quadratic pass. */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (c[i].id == 0)
            continue;
        struct cb_side g;
        memset(&g, 0, sizeof g);
        for (size_t j = i; rc == 0 && j < n; j++)
            if (c[j].id && strcmp(c[j].what, c[i].what) == 0) {
                rc = cb_side_add_run(&g, c[j].id);
                if (j > i)
                    c[j].id = 0;
            }
        if (rc == 0 && g.nruns >= 2) {
            f->runs += g.nruns;
            f->groups++;
            rc = add_group(st, &g, metric, q, keep_contended, f);
        }
        cb_side_free(&g);
    }
    free(c);
    return rc;
}

void cb_floor_moderate(const struct cb_floor *f, const struct cb_floor_case *c, double *sd,
                       double *df)
{
    *sd = cb_floor_sd(c);
    *df = c ? (double)c->df : 0;
    if (!f || isnan(f->s0) || isnan(*sd))
        return;
    double dc = (double)c->df;
    *sd = sqrt((dc * *sd * *sd + CB_FLOOR_PRIOR_DF * f->s0 * f->s0) / (dc + CB_FLOOR_PRIOR_DF));
    if (*sd < f->s0)
        *sd = f->s0;
    *df = dc + CB_FLOOR_PRIOR_DF;
}

int cb_floor_stats(const double *la, size_t na, const double *lb, size_t nb, double sd, double df,
                   struct cb_cmp_stats *s)
{
    memset(s, 0, sizeof *s);
    s->med_a = s->med_b = s->change = s->lo = s->hi = s->p = NAN;
    if (!na || !nb || !(sd >= 0) || !(df >= 1))
        return -EINVAL;
    double ma = 0, mb = 0;
    for (size_t i = 0; i < na; i++)
        ma += la[i] / (double)na;
    for (size_t i = 0; i < nb; i++)
        mb += lb[i] / (double)nb;
    s->med_a = exp(ma);
    s->med_b = exp(mb);
    s->runs_a = na;
    s->runs_b = nb;
    double d = mb - ma, se = sd * sqrt(1.0 / (double)na + 1.0 / (double)nb);
    s->change = expm1(d);
    if (!(se > 0)) {
        /* Identical builds that never moved: the change is exact. */
        s->lo = s->hi = s->change;
        s->p = d == 0 ? 1.0 : 0.0;
        return 0;
    }
    if (df > CB_FLOOR_TAIL_DF)
        df = CB_FLOOR_TAIL_DF;
    double t = cb_t_quantile(0.975, df);
    s->lo = expm1(d - t * se);
    s->hi = expm1(d + t * se);
    s->p = fmin(1.0, 2.0 * cb_t_cdf(-fabs(d / se), df));
    return 0;
}

/* The margin a test on n runs a side (df 2n - 2) needs, in standard
 * errors, for 80% power at a critical quantile p: the critical value plus
 * the power quantile. */
static double margin(size_t n, double p)
{
    double df = 2.0 * (double)n - 2.0;
    return cb_t_quantile(p, df) + cb_t_quantile(CB_FLOOR_POWER, df);
}

size_t cb_floor_runs_needed(double change, double sd, double alpha, size_t m, double threshold)
{
    double d = fabs(log1p(change)), thr = log1p(threshold);
    if (!(sd >= 0) || !isfinite(d) || !(fabs(d - thr) > 0))
        return CB_FLOOR_RUNS_CAP;
    double holm = 1 - alpha / (2.0 * (double)(m ? m : 1));
    for (size_t n = 3; n < CB_FLOOR_RUNS_CAP; n++) {
        double se = sd * sqrt(2.0 / (double)n);
        /* A change: the interval beyond the band and p under alpha at
         * Holm's first step.  Unchanged: the interval within the band. */
        int decided = d > thr ? d - thr >= margin(n, 0.975) * se && d >= margin(n, holm) * se
                              : thr - d >= margin(n, 0.975) * se;
        if (decided)
            return n;
    }
    return CB_FLOOR_RUNS_CAP;
}
