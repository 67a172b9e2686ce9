/* kmeasure.c — verify and time kernel functions through the module (kmeasure.h). */
#define _GNU_SOURCE
#include "harness/kmeasure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "harness/arrays.h"
#include "probes/csum.h"
#include "harness/stats.h"
#include "counters/tsc.h"
#include "kmod/cb_kmod_uapi.h"

/* The lengths every byte-handling function is checked at, besides the
 * case's own size: all of 0..130 (every tail and the 40-byte special case
 * of the 2023 csum), at start alignments 0..7. */
#define SHORT_MAX 130
#define ALIGNS 8

/* Folded sums that agree as ones'-complement numbers: 0 and 0xffff are
 * both zero (csum_partial_copy seeds with ~0, so it never folds to 0). */
static int same_csum(uint32_t a, uint32_t b)
{
    return cb_csum_fold(a) % 0xffff == cb_csum_fold(b) % 0xffff;
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}

/* The destination the module sent back: 64 guard bytes, the result, 64
 * guard bytes.  0 right, else the first wrong offset + 1 (negative in the
 * guards). */
static long check_dst(const unsigned char *out, const unsigned char *want, int setc, size_t len)
{
    for (size_t i = 0; i < 64; i++)
        if (out[i] != 0xa5 || out[64 + len + i] != 0xa5)
            return -1;
    for (size_t i = 0; i < len; i++)
        if (out[64 + i] != (setc >= 0 ? (unsigned char)setc : want[i]))
            return (long)i + 1;
    return 0;
}

static int verify_bytes_at(int fd, const struct cb_kcase *c, size_t len, unsigned align,
                           unsigned char *in, unsigned char *out, char *detail, size_t dlen)
{
    fill(in, len, len * 64 + align);
    struct cb_kmod_verify v = {.func = c->func, .size = (uint32_t)len, .align = align,
                               .in = (uintptr_t)in, .out = (uintptr_t)out};
    if (ioctl(fd, CB_KMOD_IOC_VERIFY, &v) < 0)
        return -errno;
    if (c->func == CB_KF_CSUM || c->func == CB_KF_CSUM_COPY) {
        uint32_t want = cb_csum_ref(in, len, 0);
        if (!same_csum(v.sum, want)) {
            snprintf(detail, dlen, "len=%zu align=%u: %s folds to 0x%04x, the reference (RFC 1071 "
                     "byte pairs) to 0x%04x", len, align, c->variant, cb_csum_fold(v.sum),
                     cb_csum_fold(want));
            return 0;
        }
        if (c->func == CB_KF_CSUM)
            return 1;
    }
    long bad = check_dst(out, in, c->func == CB_KF_MEMSET ? 0x5a : -1, len);
    if (bad) {
        snprintf(detail, dlen, bad < 0 ? "len=%zu align=%u: %s wrote outside the destination"
                                       : "len=%zu align=%u: %s left byte %ld wrong", len, align,
                 c->variant, bad - 1);
        return 0;
    }
    return 1;
}

static int verify_bytes(int fd, const struct cb_kcase *c, char *detail, size_t dlen)
{
    size_t big = c->size > SHORT_MAX ? c->size : SHORT_MAX;
    unsigned char *in = malloc(big), *out = malloc(big + 128);
    int rc = in && out ? 1 : -ENOMEM;
    for (size_t len = 0; rc == 1 && len <= SHORT_MAX; len++)
        for (unsigned a = 0; rc == 1 && a < ALIGNS; a++)
            rc = verify_bytes_at(fd, c, len, a, in, out, detail, dlen);
    /* The case's own size: every alignment up to 4 KiB, two beyond (a
     * 16 MiB copy checked eight times would cost seconds under TCG). */
    unsigned aligns = c->size > 4096 ? 2 : ALIGNS;
    for (unsigned a = 0; rc == 1 && c->size > SHORT_MAX && a < aligns; a++)
        rc = verify_bytes_at(fd, c, c->size, a, in, out, detail, dlen);
    free(in);
    free(out);
    return rc;
}

void cb_kdirty_vectors(void)
{
    static unsigned char buf[4096];
    /* glibc's memset is its vector code (SSE2 at least, AVX2/AVX-512 where
     * the CPU has them): it leaves those registers modified. */
    void *(*volatile set)(void *, int, size_t) = memset;
    set(buf, (int)(buf[7] + 1), sizeof buf);
}

int cb_kverify(int fd, const struct cb_kcase *c, char *detail, size_t len)
{
    struct cb_kmod_verify v = {.func = c->func, .nobj = c->nobj};
    switch (c->func) {
    case CB_KF_CSUM:
    case CB_KF_CSUM_COPY:
    case CB_KF_MEMCPY:
    case CB_KF_MEMSET:
        return verify_bytes(fd, c, detail, len);
    case CB_KF_SLAB:
    case CB_KF_SLAB_BULK: {
        uint32_t n = c->func == CB_KF_SLAB ? 1 : c->nobj;
        if (ioctl(fd, CB_KMOD_IOC_VERIFY, &v) < 0)
            return -errno;
        if (v.got == n && v.distinct == n && v.intact == n)
            return 1;
        snprintf(detail, len, "%s of %u objects: %u handed out, %u distinct and aligned, %u kept "
                 "what was written", c->variant, n, v.got, v.distinct, v.intact);
        return 0;
    }
    case CB_KF_PAGE_POOL:
        if (ioctl(fd, CB_KMOD_IOC_VERIFY, &v) < 0)
            return -errno;
        if (v.got == 1 && v.distinct == 1)
            return 1;
        snprintf(detail, len, v.got ? "a page put back into the pool did not come out again in "
                                      "128 allocations: not recycled"
                                    : "page_pool_alloc_pages handed out no page");
        return 0;
    case CB_KF_FPU_FIRST:
    case CB_KF_FPU_BATCH:
        cb_kdirty_vectors();
        if (ioctl(fd, CB_KMOD_IOC_VERIFY, &v) < 0)
            return -errno;
        if (v.fpu_before == 0 && v.fpu_after == 1)
            return 1;
        snprintf(detail, len, "kernel_fpu_begin did not save the user's registers (the saved "
                 "flag read %u before and %u after it): not a first use", v.fpu_before,
                 v.fpu_after);
        return 0;
    }
    snprintf(detail, len, "function %u is not one the module knows", c->func);
    return 0;
}

/* One batch of iters calls: its raw ticks and cycles into s. */
static int kbatch(int fd, const struct cb_kcase *c, uint64_t iters, struct cb_ksample *s,
                  struct cb_kmeasurement *m)
{
    if (c->func == CB_KF_FPU_FIRST || c->func == CB_KF_FPU_BATCH)
        cb_kdirty_vectors();
    struct cb_kmod_batch b = {.func = iters ? c->func : CB_KF_NOOP, .size = c->size,
                              .mode = (uint32_t)c->mode, .nobj = c->nobj, .iters = iters};
    uint64_t t0 = c->user_timed ? cb_tsc_begin() : 0;
    if (ioctl(fd, CB_KMOD_IOC_BATCH, &b) < 0)
        return -errno;
    uint64_t t1 = c->user_timed ? cb_tsc_end() : 0;
    s->iters = iters * (c->func == CB_KF_SLAB_BULK ? c->nobj : 1);
    s->ticks = c->user_timed ? (double)(t1 - t0) : (double)b.ticks;
    /* The kernel's counter covers its own window only. */
    s->cycles = b.cycles_err || c->user_timed ? NAN : (double)b.cycles;
    m->cycles_err = b.cycles_err;
    m->cpu = (int)b.cpu;
    return 0;
}

/* The empty batch, 31 times: the medians of its ticks and cycles. */
static int koverhead(int fd, const struct cb_kcase *c, struct cb_kmeasurement *m)
{
    enum { EMPTY = 31 };
    double t[EMPTY], y[EMPTY];
    struct cb_ksample s;
    for (int k = 0; k < EMPTY; k++) {
        int rc = kbatch(fd, c, 0, &s, m);
        if (rc < 0)
            return rc;
        t[k] = s.ticks;
        y[k] = s.cycles;
    }
    cb_sort_doubles(t, EMPTY);
    m->overhead_ticks = t[EMPTY / 2];
    if (isnan(y[0])) {
        m->overhead_cycles = NAN;
        return 0;
    }
    cb_sort_doubles(y, EMPTY);
    m->overhead_cycles = y[EMPTY / 2];
    return 0;
}

/* The harness's sizing: grow until a batch lasts the minimum; the first
 * use of the FPU is one call per entry by definition. */
static int ksize(int fd, const struct cb_kcase *c, const struct cb_harness_opts *o, double tsc_ghz,
                 struct cb_kmeasurement *m, uint64_t *iters)
{
    struct cb_ksample s;
    double target = cb_min_batch_ticks(tsc_ghz, o->min_batch_us, m->overhead_ticks);
    *iters = 1;
    int rc = kbatch(fd, c, 1, &s, m);
    if (rc < 0 || c->func == CB_KF_FPU_FIRST)
        return rc;
    for (int guard = 0; guard < 64; guard++) {
        if ((rc = kbatch(fd, c, *iters, &s, m)) < 0)
            return rc;
        double ticks = s.ticks - m->overhead_ticks;
        if (ticks >= target || *iters >= ((uint64_t)1 << 32))
            break;
        double grow = ticks > 0 ? target / ticks * 1.2 : 16.0;
        grow = grow > 16.0 ? 16.0 : grow < 2.0 ? 2.0 : grow;
        *iters = (uint64_t)((double)*iters * grow);
    }
    return 0;
}

static double per_op(const struct cb_kmeasurement *m, size_t k)
{
    return (m->s[k].ticks - m->overhead_ticks) / (double)m->s[k].iters;
}

/* The median's 95% CI half-width, % of the median, over the samples. */
static double kci_pct(const struct cb_kmeasurement *m, double *scratch)
{
    for (size_t k = 0; k < m->n; k++)
        scratch[k] = per_op(m, k);
    cb_sort_doubles(scratch, m->n);
    double lo, hi, med = cb_quantile_sorted(scratch, m->n, 0.5);
    cb_median_ci(scratch, m->n, &lo, &hi);
    return med > 0 ? (hi - lo) / 2.0 / med * 100.0 : INFINITY;
}

/* kci_pct for cb_stop_after. */
struct kci {
    const struct cb_kmeasurement *m;
    double *scratch;
};

static double kci_of(void *ctx)
{
    struct kci *k = ctx;
    return kci_pct(k->m, k->scratch);
}

int cb_kmeasure(int fd, const struct cb_kcase *c, const struct cb_harness_opts *o, double tsc_ghz,
                volatile sig_atomic_t *stop, struct cb_kmeasurement *m)
{
    memset(m, 0, sizeof *m);
    uint64_t iters = 1;
    int rc = koverhead(fd, c, m);
    if (rc == 0)
        rc = ksize(fd, c, o, tsc_ghz, m, &iters);
    if (rc < 0)
        return rc;
    int want = o->reps > 0 ? o->reps : o->max_samples;
    double cap = o->case_seconds * (tsc_ghz > 0 ? tsc_ghz : 1.0) * 1e9, elapsed = 0;
    double *scratch = malloc(sizeof *scratch * (size_t)want);
    if (!scratch)
        return -ENOMEM;
    m->why = o->reps > 0 ? CB_STOP_REPS : CB_STOP_MAX;
    for (int k = 0; k < want; k++) {
        if (stop && *stop) {
            rc = -EINTR;
            break;
        }
        if ((rc = cb_grow((void **)&m->s, &m->cap, m->n + 1, 64, sizeof *m->s)) < 0)
            break;
        if ((rc = kbatch(fd, c, iters, &m->s[m->n], m)) < 0)
            break;
        elapsed += m->s[m->n++].ticks;
        struct kci at = {m, scratch};
        int why = cb_stop_after(o, (int)m->n, elapsed, cap, kci_of, &at);
        if (why) {
            m->why = why;
            break;
        }
    }
    free(scratch);
    return rc;
}

void cb_kmeasurement_free(struct cb_kmeasurement *m)
{
    free(m->s);
    memset(m, 0, sizeof *m);
}
