/* cmp_stats.c — the statistics of a verdict (see compare.h). */
#include "analysis/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "counters/meter.h"
#include "util/dist.h"
#include "harness/stats.h"
#include "counters/tsc.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cb_rng_seed(struct cb_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t cb_rng_next(struct cb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t cb_rng_below(struct cb_rng *r, uint64_t n)
{
    /* Reject the top partial block so every residue is equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = cb_rng_next(r);
    while (x >= limit);
    return x % n;
}

/* k-th smallest (0-based) of v[0..n), partially reordering v (Hoare's
 * selection with a middle pivot: samples are often nearly sorted runs). */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

double cb_median_inplace(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    size_t k = n / 2;
    double upper = select_kth(v, n, k);
    if (n % 2)
        return upper;
    /* After selection everything below index k is <= upper: the lower
     * middle value is their maximum. */
    double lower = v[0];
    for (size_t i = 1; i < k; i++)
        if (v[i] > lower)
            lower = v[i];
    return (lower + upper) / 2.0;
}

int cb_boot_rel_change(const double *a, size_t na, const double *b, size_t nb, int resamples,
                       uint64_t seed, double level, double *est, double *lo, double *hi)
{
    *est = *lo = *hi = NAN;
    if (na == 0 || nb == 0 || resamples < 10 || !(level > 0 && level < 1))
        return -EINVAL;
    void *blk[3];
    if (cb_alloc_all(blk, (const size_t[]){na * sizeof(double), nb * sizeof(double),
                                           (size_t)resamples * sizeof(double)}, 3) < 0)
        return -ENOMEM;
    double *ta = blk[0], *tb = blk[1], *stat = blk[2];
    memcpy(ta, a, na * sizeof *ta);
    memcpy(tb, b, nb * sizeof *tb);
    double ma = cb_median_inplace(ta, na), mb = cb_median_inplace(tb, nb);
    int rc = 0;
    if (!(ma > 0) || !isfinite(mb)) {
        rc = -EINVAL;
        goto out;
    }
    *est = mb / ma - 1.0;
    struct cb_rng r;
    cb_rng_seed(&r, seed);
    int kept = 0;
    for (int k = 0; k < resamples; k++) {
        for (size_t i = 0; i < na; i++)
            ta[i] = a[cb_rng_below(&r, na)];
        for (size_t i = 0; i < nb; i++)
            tb[i] = b[cb_rng_below(&r, nb)];
        double ra = cb_median_inplace(ta, na), rb = cb_median_inplace(tb, nb);
        if (ra > 0)
            stat[kept++] = rb / ra - 1.0;
    }
    if (kept < 10) {
        rc = -EINVAL;
        goto out;
    }
    cb_sort_doubles(stat, (size_t)kept);
    *lo = cb_quantile_sorted(stat, (size_t)kept, (1.0 - level) / 2.0);
    *hi = cb_quantile_sorted(stat, (size_t)kept, 1.0 - (1.0 - level) / 2.0);
out:
    cb_free_all(blk, 3);
    return rc;
}

struct pidx {
    double p;
    size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
    const struct pidx *a = x, *b = y;
    if (a->p != b->p)
        return (a->p > b->p) - (a->p < b->p);
    return (a->i > b->i) - (a->i < b->i);
}

/* The finite p-values in ascending order; *k gets how many.  A missing
 * p-value stays missing: its adj[] is NAN whichever method runs. */
static struct pidx *sorted_p(const double *p, size_t m, double *adj, size_t *k)
{
    struct pidx *s = malloc((m ? m : 1) * sizeof *s);
    if (!s)
        return NULL;
    *k = 0;
    for (size_t i = 0; i < m; i++) {
        if (isnan(p[i]))
            adj[i] = NAN;
        else
            s[(*k)++] = (struct pidx){p[i], i};
    }
    qsort(s, *k, sizeof *s, cmp_pidx);
    return s;
}

/* Holm's step-down: the j-th smallest is multiplied by (k - j), capped at 1,
 * and the adjusted values are made monotone from the smallest upwards. */
static void holm_steps(const struct pidx *s, size_t k, double *adj)
{
    double run = 0;
    for (size_t j = 0; j < k; j++) {
        double v = s[j].p * (double)(k - j);
        run = v > 1 ? 1 : v < run ? run : v;
        adj[s[j].i] = run;
    }
}

/* Benjamini-Hochberg's step-up: the j-th smallest (1-based) is multiplied by
 * k / j, and the adjusted values are made monotone from the largest down. */
static void bh_steps(const struct pidx *s, size_t k, double *adj)
{
    double run = 1;
    for (size_t j = k; j-- > 0;) {
        double v = s[j].p * (double)k / (double)(j + 1);
        run = v > run ? run : v;
        adj[s[j].i] = run;
    }
}

static int p_adjust(const double *p, size_t m, double *adj,
                    void (*steps)(const struct pidx *, size_t, double *))
{
    size_t k;
    struct pidx *s = sorted_p(p, m, adj, &k);
    if (!s)
        return -ENOMEM;
    steps(s, k, adj);
    free(s);
    return 0;
}

int cb_p_adjust_holm(const double *p, size_t m, double *adj)
{
    return p_adjust(p, m, adj, holm_steps);
}

int cb_p_adjust_bh(const double *p, size_t m, double *adj)
{
    return p_adjust(p, m, adj, bh_steps);
}

const char *cb_cmp_verdict_name(enum cb_cmp_verdict v)
{
    switch (v) {
    case CB_CMP_UNCHANGED: return "unchanged";
    case CB_CMP_IMPROVED: return "improved";
    case CB_CMP_REGRESSED: return "regressed";
    default: return "unsure";
    }
}

int cb_bisect_exit(const struct cb_bisect_row *rows, size_t n)
{
    int doubt = n == 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].v == CB_CMP_REGRESSED && !rows[i].acked) {
            if (!rows[i].shared)
                return 1;
            doubt = 1;
        } else if (rows[i].v == CB_CMP_UNSURE) {
            doubt = 1;
        }
    }
    return doubt ? 125 : 0;
}

enum cb_cmp_verdict cb_cmp_decide(double p_adj, double lo, double hi, double alpha,
                                  double threshold)
{
    if (isnan(lo) || isnan(hi))
        return CB_CMP_UNSURE;
    int significant = !isnan(p_adj) && p_adj < alpha;
    if (significant && lo > threshold)
        return CB_CMP_REGRESSED;
    if (significant && hi < -threshold)
        return CB_CMP_IMPROVED;
    /* Equivalence: even the interval's ends are within the band, so any
     * real change is too small to matter, significant or not. */
    if (lo >= -threshold && hi <= threshold)
        return CB_CMP_UNCHANGED;
    return CB_CMP_UNSURE;
}

int cb_cmp_stats(const double *a, size_t na, const double *b, size_t nb, struct cb_cmp_stats *s)
{
    memset(s, 0, sizeof *s);
    s->na = na;
    s->nb = nb;
    s->med_a = s->med_b = s->change = s->lo = s->hi = s->p = NAN;
    if (na == 0 || nb == 0)
        return -EINVAL;
    double *t = malloc((na > nb ? na : nb) * sizeof *t);
    if (!t)
        return -ENOMEM;
    memcpy(t, a, na * sizeof *t);
    s->med_a = cb_median_inplace(t, na);
    memcpy(t, b, nb * sizeof *t);
    s->med_b = cb_median_inplace(t, nb);
    free(t);
    s->p = cb_mann_whitney_p(a, na, b, nb);
    int rc = cb_boot_rel_change(a, na, b, nb, CB_BOOT_RESAMPLES, CB_BOOT_SEED, 0.95, &s->change,
                                &s->lo, &s->hi);
    return rc == -EINVAL ? 0 : rc;
}

/* Trimmed mean and Yuen's squared standard error term of sorted v. */
static void trimmed(const double *v, size_t n, double trim, double *tm, double *d, size_t *h)
{
    size_t g = (size_t)floor(trim * (double)n);
    *h = n - 2 * g;
    double sum = 0;
    for (size_t i = g; i < n - g; i++)
        sum += v[i];
    *tm = sum / (double)*h;
    /* The winsorised variance: the g smallest become v[g], the g largest
     * v[n-g-1]. */
    double wsum = 0, wsq = 0;
    for (size_t i = 0; i < n; i++) {
        double w = i < g ? v[g] : i >= n - g ? v[n - g - 1] : v[i];
        wsum += w;
    }
    double wmean = wsum / (double)n;
    for (size_t i = 0; i < n; i++) {
        double w = i < g ? v[g] : i >= n - g ? v[n - g - 1] : v[i];
        wsq += (w - wmean) * (w - wmean);
    }
    double s2 = wsq / (double)(n - 1);
    *d = (double)(n - 1) * s2 / ((double)*h * (double)(*h - 1));
}

int cb_yuen(const double *x, size_t nx, const double *y, size_t ny, double trim, double level,
            struct cb_yuen *out)
{
    out->tm_x = out->tm_y = out->est = out->lo = out->hi = out->t = out->df = out->p = NAN;
    if (!(trim >= 0 && trim < 0.5) || !(level > 0 && level < 1))
        return -EINVAL;
    size_t gx = (size_t)floor(trim * (double)nx), gy = (size_t)floor(trim * (double)ny);
    if (nx < 2 || ny < 2 || nx - 2 * gx < 2 || ny - 2 * gy < 2)
        return -EINVAL;
    double *sx = malloc(nx * sizeof *sx), *sy = malloc(ny * sizeof *sy);
    if (!sx || !sy) {
        free(sx);
        free(sy);
        return -ENOMEM;
    }
    memcpy(sx, x, nx * sizeof *sx);
    memcpy(sy, y, ny * sizeof *sy);
    cb_sort_doubles(sx, nx);
    cb_sort_doubles(sy, ny);
    double dx, dy;
    size_t hx, hy;
    trimmed(sx, nx, trim, &out->tm_x, &dx, &hx);
    trimmed(sy, ny, trim, &out->tm_y, &dy, &hy);
    free(sx);
    free(sy);
    out->est = out->tm_y - out->tm_x;
    double se2 = dx + dy;
    if (!(se2 > 0)) {
        /* No spread on either side: the difference is exact. */
        out->lo = out->hi = out->est;
        out->p = out->est == 0 ? 1.0 : 0.0;
        out->t = out->est == 0 ? 0 : copysign(INFINITY, out->est);
        return 0;
    }
    double se = sqrt(se2);
    out->df = se2 * se2 / (dx * dx / (double)(hx - 1) + dy * dy / (double)(hy - 1));
    out->t = out->est / se;
    double q = cb_t_quantile(0.5 + level / 2.0, out->df);
    out->lo = out->est - q * se;
    out->hi = out->est + q * se;
    out->p = 2.0 * cb_t_cdf(-fabs(out->t), out->df);
    if (out->p > 1)
        out->p = 1;
    return 0;
}

/* The log of each run's q-quantile into out; -EINVAL when one is not
 * positive. */
static int run_log_quantiles(const double *v, const size_t *end, size_t runs, double q, double *out)
{
    size_t longest = 0;
    for (size_t r = 0; r < runs; r++) {
        size_t len = end[r] - (r ? end[r - 1] : 0);
        if (len > longest)
            longest = len;
    }
    double *t = malloc((longest ? longest : 1) * sizeof *t);
    if (!t)
        return -ENOMEM;
    int rc = 0;
    for (size_t r = 0; r < runs && rc == 0; r++) {
        size_t from = r ? end[r - 1] : 0, len = end[r] - from;
        memcpy(t, v + from, len * sizeof *t);
        cb_sort_doubles(t, len);
        double m = cb_quantile_sorted(t, len, q);
        if (!(m > 0) || !isfinite(m))
            rc = -EINVAL;
        else
            out[r] = log(m);
    }
    free(t);
    return rc;
}

size_t cb_runs_quiet(const double *v, const double *smt, const size_t *end, size_t runs,
                     size_t min_quiet, double *out_v, size_t *out_end, size_t *dropped)
{
    size_t kept = 0, n = 0;
    *dropped = 0;
    for (size_t r = 0; r < runs; r++) {
        size_t from = r ? end[r - 1] : 0, quiet = 0, known = 0;
        for (size_t i = from; smt && i < end[r]; i++) {
            known += !isnan(smt[i]);
            quiet += smt[i] <= CB_METER_SHIFT;
        }
        if (!known) {
            memcpy(out_v + n, v + from, (end[r] - from) * sizeof *v);
            n += end[r] - from;
        } else if (quiet >= min_quiet || quiet == end[r] - from) {
            for (size_t i = from; i < end[r]; i++)
                if (smt[i] <= CB_METER_SHIFT)
                    out_v[n++] = v[i];
            *dropped += end[r] - from - quiet;
        } else {
            continue;
        }
        out_end[kept++] = n;
    }
    return kept;
}

int cb_run_log_values(const double *v, const double *smt, const size_t *end, size_t runs,
                      double q, double *out, int *quiet)
{
    size_t longest = 0;
    for (size_t r = 0; r < runs; r++)
        if (end[r] - (r ? end[r - 1] : 0) > longest)
            longest = end[r] - (r ? end[r - 1] : 0);
    double *qv = malloc((longest ? longest : 1) * sizeof *qv);
    if (!qv)
        return -ENOMEM;
    int rc = 0;
    for (size_t r = 0; r < runs && rc == 0; r++) {
        size_t from = r ? end[r - 1] : 0, len = end[r] - from, qe, dropped;
        quiet[r] = cb_runs_quiet(v + from, smt ? smt + from : NULL, &len, 1, CB_QUIET_MIN, qv, &qe,
                                 &dropped) == 1;
        rc = quiet[r] ? run_log_quantiles(qv, &qe, 1, q, &out[r])
                      : run_log_quantiles(v + from, &len, 1, q, &out[r]);
    }
    free(qv);
    return rc;
}

int cb_cmp_stats_runs(const double *a, const size_t *a_end, size_t a_runs, const double *b,
                      const size_t *b_end, size_t b_runs, double q, double trim,
                      struct cb_cmp_stats *s)
{
    memset(s, 0, sizeof *s);
    s->med_a = s->med_b = s->change = s->lo = s->hi = s->p = NAN;
    if (a_runs < 2 || b_runs < 2 || !(q >= 0 && q <= 1) || !(trim >= 0 && trim < 0.5))
        return -EINVAL;
    s->na = a_end[a_runs - 1];
    s->nb = b_end[b_runs - 1];
    s->runs_a = a_runs;
    s->runs_b = b_runs;
    double *la = malloc(a_runs * sizeof *la), *lb = malloc(b_runs * sizeof *lb);
    if (!la || !lb) {
        free(la);
        free(lb);
        return -ENOMEM;
    }
    int rc = run_log_quantiles(a, a_end, a_runs, q, la);
    if (rc == 0)
        rc = run_log_quantiles(b, b_end, b_runs, q, lb);
    struct cb_yuen y;
    if (rc == 0)
        rc = cb_yuen(la, a_runs, lb, b_runs, trim, 0.95, &y);
    free(la);
    free(lb);
    if (rc == -EINVAL)
        return 0;   /* a non-positive run figure: no verdict but "unsure" */
    if (rc < 0)
        return rc;
    s->med_a = exp(y.tm_x);
    s->med_b = exp(y.tm_y);
    s->change = expm1(y.est);
    s->lo = expm1(y.lo);
    s->hi = expm1(y.hi);
    s->p = y.p;
    return 0;
}
