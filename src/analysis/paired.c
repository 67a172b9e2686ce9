/* paired.c — ab's paired statistics (paired.h). */
#include "paired.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

/* Sums within this relative distance of the observed one count as equal:
 * the same patterns summed in another order may differ in the last bits. */
#define TIE_TOL 1e-12

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Every pattern, walked in Gray-code order so that each step flips one
 * sign: 2^n steps of O(1). */
static double exact_p(const double *d, size_t n, double obs, double tol)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += d[i];
    uint64_t total = 1ull << n, hits = 0;
    unsigned char *neg = calloc(n, 1);
    if (!neg)
        return NAN;
    for (uint64_t k = 0; k < total; k++) {
        if (k) {
            size_t bit = (size_t)__builtin_ctzll(k);
            s += neg[bit] ? 2 * d[bit] : -2 * d[bit];
            neg[bit] ^= 1;
        }
        hits += fabs(s) >= obs - tol;
    }
    free(neg);
    return (double)hits / (double)total;
}

static double drawn_p(const double *d, size_t n, double obs, double tol)
{
    uint64_t seed = 0x7061697265640a31ull, hits = 1;   /* the observed pattern counts */
    for (uint32_t k = 0; k < CB_PAIRED_DRAWS; k++) {
        double s = 0;
        uint64_t bits = 0;
        for (size_t i = 0; i < n; i++) {
            if (i % 64 == 0)
                bits = splitmix(&seed);
            s += (bits >> (i % 64)) & 1 ? -d[i] : d[i];
        }
        hits += fabs(s) >= obs - tol;
    }
    return (double)hits / (double)(CB_PAIRED_DRAWS + 1u);
}

double cb_sign_flip_p(const double *d, size_t n)
{
    if (n == 0)
        return NAN;
    double obs = 0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        obs += d[i];
        mag += fabs(d[i]);
    }
    obs = fabs(obs);
    double tol = TIE_TOL * (mag > 0 ? mag : 1);
    return n <= CB_PAIRED_EXACT_MAX ? exact_p(d, n, obs, tol) : drawn_p(d, n, obs, tol);
}

int cb_paired_ratio(const double *base, const double *head, size_t n, double level,
                    struct cb_paired *out)
{
    *out = (struct cb_paired){.ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN};
    if (n == 0 || !(level > 0 && level < 1))
        return -EINVAL;
    double *d = malloc(n * sizeof *d);
    if (!d)
        return -ENOMEM;
    size_t k = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (base[i] > 0 && head[i] > 0 && isfinite(base[i]) && isfinite(head[i])) {
            d[k] = log(head[i] / base[i]);
            sum += d[k++];
        }
    out->n = k;
    if (k == 0) {
        free(d);
        return 0;
    }
    double mean = sum / (double)k;
    out->ratio = exp(mean);
    if (k >= 2) {
        double ss = 0;
        for (size_t i = 0; i < k; i++)
            ss += (d[i] - mean) * (d[i] - mean);
        double se = sqrt(ss / (double)(k - 1) / (double)k);
        double t = cb_t_quantile(0.5 + level / 2, (double)(k - 1));
        out->lo = exp(mean - t * se);
        out->hi = exp(mean + t * se);
        out->p = cb_sign_flip_p(d, k);
    }
    free(d);
    return 0;
}

int cb_paired_min_rounds(size_t m, double alpha)
{
    int n = 2;
    while (n < 64 && 2.0 / ldexp(1.0, n) >= alpha / (double)(m ? m : 1))
        n++;
    return n;
}
