/* dist.c — rank tests and the t and normal distributions (see dist.h). */
#include "util/dist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

struct ranked {
    double v;
    int group;
};

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;
    return (x > y) - (x < y);
}

double cb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    if (na == 0 || nb == 0)
        return NAN;
    struct ranked *r = malloc(n * sizeof *r);
    if (!r)
        return NAN;
    for (size_t i = 0; i < na; i++)
        r[i] = (struct ranked){a[i], 0};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (struct ranked){b[i], 1};
    qsort(r, n, sizeof *r, cmp_ranked);
    double rank_sum_a = 0, tie_term = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && r[j + 1].v == r[i].v)
            j++;
        double avg = ((double)i + (double)j) / 2.0 + 1.0;
        double t = (double)(j - i + 1);
        tie_term += t * t * t - t;
        for (size_t k = i; k <= j; k++)
            if (r[k].group == 0)
                rank_sum_a += avg;
        i = j + 1;
    }
    free(r);
    double n1 = (double)na, n2 = (double)nb, nn = (double)n;
    double u = rank_sum_a - n1 * (n1 + 1) / 2.0;
    double mu = n1 * n2 / 2.0;
    double var = n1 * n2 / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
    if (var <= 0)
        return 1.0;
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    if (z < 0)
        z = 0;
    return erfc(z / sqrt(2.0));
}

double cb_mann_whitney_u(const double *a, size_t na, const double *b, size_t nb)
{
    if (na == 0 || nb == 0)
        return NAN;
    double *sb = malloc(nb * sizeof *sb);
    if (!sb)
        return NAN;
    memcpy(sb, b, nb * sizeof *sb);
    cb_sort_doubles(sb, nb);
    /* For each a_i: how many b are below it, and how many equal, by binary
     * search in sorted b: O((na + nb) log nb) instead of all pairs. */
    double u = 0;
    for (size_t i = 0; i < na; i++) {
        size_t lo = 0, hi = nb;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sb[mid] < a[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t below = lo, eq_end = lo;
        while (eq_end < nb && sb[eq_end] == a[i])
            eq_end++;
        u += (double)below + 0.5 * (double)(eq_end - below);
    }
    free(sb);
    return u;
}

/* The continued fraction of the incomplete beta function, evaluated by the
 * modified Lentz method: converges fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= 500; m++) {
        for (int half = 0; half < 2; half++) {
            double num = half == 0 ? m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
            d = 1.0 + num * d;
            if (fabs(d) < tiny)
                d = tiny;
            c = 1.0 + num / c;
            if (fabs(c) < tiny)
                c = tiny;
            d = 1.0 / d;
            f *= c * d;
            if (half == 1 && fabs(c * d - 1.0) < 1e-15)
                return f;
        }
    }
    return f;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double inc_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(lfront) * beta_cf(a, b, x) / a;
    return 1.0 - exp(lfront) * beta_cf(b, a, 1.0 - x) / b;
}

double cb_t_cdf(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    /* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2). */
    double tail = 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

double cb_t_quantile(double p, double df)
{
    if (!(df > 0) || !(p > 0 && p < 1))
        return NAN;
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -cb_t_quantile(1.0 - p, df);
    double lo = 0, hi = 1;
    while (cb_t_cdf(hi, df) < p && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (cb_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* z with P(|Z| > z) = alpha, by bisection on erfc: monotone and exact
 * enough (1e-12) without a table or a rational approximation. */
double cb_z_two_sided(double alpha)
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
