/* bpfmeasure.c — verify and time BPF programs through BPF_PROG_TEST_RUN (bpfmeasure.h). */
#define _GNU_SOURCE
#include "harness/bpfmeasure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "probes/csum.h"
#include "harness/pktframe.h"
#include "harness/stats.h"
#include "counters/tsc.h"

#define EMPTY_CALLS 31
#define YIELD_TRIES 8   /* pairs taken again, at most, per sample kept */
#define MAX_REPEAT 100000000u

const char *cb_xdp_action_name(uint32_t act)
{
    static const char *const names[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
                                        "XDP_REDIRECT"};
    return act < sizeof names / sizeof names[0] ? names[act] : NULL;
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}

/* The csum program over len bytes of a pattern seeded by seed: its result
 * into *sum.  0 or -errno. */
static int csum_once(const struct cb_bpf_case *c, uint32_t len, uint64_t seed, int64_t *sum,
                     struct cb_bpf_csum_bss *b, struct cb_sb *why)
{
    memset(b, 0, sizeof *b);
    fill(b->buf, len, seed);
    b->len = len;
    b->result = 0x5a5a5a5a;
    int rc = cb_bpf_bss_write(c->obj, b, sizeof *b);
    struct cb_bpf_call call = {.data = c->frame, .size = c->frame_len, .repeat = 1};
    if (rc == 0)
        rc = cb_bpf_test_run(c->prog_fd, &call, why);
    unsigned char bytes[CB_BPF_CSUM_MAX];
    memcpy(bytes, b->buf, len);
    if (rc == 0)
        rc = cb_bpf_bss_read(c->obj, b, sizeof *b);
    *sum = b->result;
    /* The bytes summed are the ones written: the program must not touch them. */
    if (rc == 0 && memcmp(bytes, b->buf, len) != 0)
        rc = -EIO;
    return rc;
}

/* Every length bpf_csum_diff takes (multiples of 4 up to 512), then the
 * case's own with the bytes it is timed on. */
static int verify_csum(const struct cb_bpf_case *c, char *detail, size_t dlen, struct cb_sb *why)
{
    struct cb_bpf_csum_bss b;
    int64_t got = 0;
    for (uint32_t len = 4; len <= CB_BPF_CSUM_MAX + 4; len += 4) {
        uint32_t l = len > CB_BPF_CSUM_MAX ? c->size : len;
        int rc = csum_once(c, l, l > CB_BPF_CSUM_MAX ? 1 : l, &got, &b, why);
        if (rc < 0)
            return rc;
        uint32_t want = cb_csum_ref(b.buf, l, 0);
        if (got < 0 || cb_csum_fold((uint32_t)got) % 0xffff != cb_csum_fold(want) % 0xffff) {
            snprintf(detail, dlen, "len=%u: bpf_csum_diff returned %lld (folds to 0x%04x), the "
                     "reference (RFC 1071 byte pairs) folds to 0x%04x", l, (long long)got,
                     got < 0 ? 0 : cb_csum_fold((uint32_t)got), cb_csum_fold(want));
            return 0;
        }
    }
    return 1;
}

static int verify_xdp(const struct cb_bpf_case *c, uint32_t *retval, char *detail, size_t dlen,
                      struct cb_sb *why)
{
    unsigned char out[CB_FRAME_MAX + 256];
    struct cb_bpf_call call = {.data = c->frame, .size = c->frame_len, .repeat = 1, .out = out,
                               .out_size = sizeof out};
    int rc = cb_bpf_test_run(c->prog_fd, &call, why);
    if (rc < 0)
        return rc;
    *retval = call.retval;
    const char *act = cb_xdp_action_name(call.retval);
    if (!act || call.retval == 0 || (c->expect >= 0 && call.retval != (uint32_t)c->expect)) {
        snprintf(detail, dlen, "%s returned %s (%u) on a %u B frame%s", c->variant,
                 act ? act : "a value that is no XDP action", call.retval, c->size,
                 c->expect >= 0 && act && call.retval ? ", not --expect's action" : "");
        return 0;
    }
    if (call.out_size && cb_frame_ipv4_check(out, call.out_size) == 0) {
        snprintf(detail, dlen, "%s returned %s with an IPv4 header whose checksum is wrong",
                 c->variant, act);
        return 0;
    }
    if (c->live) {
        struct cb_bpf_call live = {.data = c->frame, .size = c->frame_len, .repeat = 1, .live = 1};
        if ((rc = cb_bpf_test_run(c->prog_fd, &live, why)) < 0)
            return rc;
    }
    return 1;
}

int cb_bpf_verify(const struct cb_bpf_case *c, uint32_t *retval, char *detail, size_t len,
                  struct cb_sb *why)
{
    *retval = 0;
    if (!c->xdp) {
        int v = verify_csum(c, detail, len, why);
        *retval = 2;
        return v;
    }
    return verify_xdp(c, retval, detail, len, why);
}

static int call(int fd, const struct cb_bpf_case *c, uint32_t repeat, struct cb_bpf_sample *s,
                struct cb_sb *why)
{
    struct cb_bpf_call k = {.data = c->frame, .size = c->frame_len, .repeat = repeat,
                            .live = c->live};
    int rc = cb_bpf_test_run(fd, &k, why);
    if (rc < 0)
        return rc;
    s->iters = repeat;
    s->ticks = (double)k.ticks;
    s->kns = (double)k.duration_ns * repeat;
    s->switches = k.switches;
    return 0;
}

static double median_of(double *v, size_t n)
{
    cb_sort_doubles(v, n);
    return n ? cb_quantile_sorted(v, n, 0.5) : NAN;
}

/* The call's own cost, then repeat grown until a batch lasts the minimum. */
static int size_batch(const struct cb_bpf_case *c, const struct cb_harness_opts *o,
                      double tsc_ghz, struct cb_bpf_measurement *m, uint32_t *repeat,
                      struct cb_sb *why)
{
    double t[EMPTY_CALLS];
    struct cb_bpf_sample s;
    for (int k = 0; k < EMPTY_CALLS; k++) {
        int rc = call(c->empty_fd, c, 1, &s, why);
        if (rc < 0)
            return rc;
        t[k] = s.ticks;
    }
    m->fixed_ticks = median_of(t, EMPTY_CALLS);
    double target = cb_min_batch_ticks(tsc_ghz, o->min_batch_us, m->fixed_ticks);
    *repeat = 64;
    for (int guard = 0; guard < 32; guard++) {
        int rc = call(c->prog_fd, c, *repeat, &s, why);
        if (rc < 0)
            return rc;
        if (s.ticks >= target || *repeat >= MAX_REPEAT)
            break;
        double grow = s.ticks > 0 ? target / s.ticks * 1.2 : 16.0;
        grow = grow > 16.0 ? 16.0 : grow < 2.0 ? 2.0 : grow;
        double next = *repeat * grow;
        *repeat = next > MAX_REPEAT ? MAX_REPEAT : (uint32_t)next;
    }
    return 0;
}

/* The empty batches' medians, and the median's 95% CI half-width (% of
 * the median) of (program - the empty batch beside it) per run. */
static double net_ci_pct(struct cb_bpf_measurement *m, double *scratch)
{
    for (size_t k = 0; k < m->n; k++)
        scratch[k] = m->empty[k].ticks;
    m->empty_ticks = median_of(scratch, m->n);
    for (size_t k = 0; k < m->n; k++)
        scratch[k] = m->empty[k].kns;
    m->empty_kns = median_of(scratch, m->n);
    for (size_t k = 0; k < m->n; k++)
        scratch[k] = (m->prog[k].ticks - m->empty[k].ticks) / (double)m->prog[k].iters;
    double lo, hi, med = median_of(scratch, m->n);
    cb_median_ci(scratch, m->n, &lo, &hi);
    return med > 0 ? (hi - lo) / 2.0 / med * 100.0 : INFINITY;
}

/* net_ci_pct for cb_stop_after. */
struct net_ci {
    struct cb_bpf_measurement *m;
    double *scratch;
};

static double net_ci_of(void *ctx)
{
    struct net_ci *c = ctx;
    return net_ci_pct(c->m, c->scratch);
}

static int grow_pair(struct cb_bpf_measurement *m)
{
    size_t cap = m->cap;
    int rc = cb_grow((void **)&m->prog, &cap, m->n + 1, 64, sizeof *m->prog);
    if (rc == 0)
        rc = cb_grow((void **)&m->empty, &m->cap, m->n + 1, 64, sizeof *m->empty);
    return rc;
}

int cb_bpf_measure(const struct cb_bpf_case *c, const struct cb_harness_opts *o, double tsc_ghz,
                   volatile sig_atomic_t *stop, struct cb_bpf_measurement *m, struct cb_sb *why)
{
    memset(m, 0, sizeof *m);
    uint32_t repeat;
    int rc = size_batch(c, o, tsc_ghz, m, &repeat, why);
    if (rc < 0)
        return rc;
    int want = o->reps > 0 ? o->reps : o->max_samples;
    double cap = o->case_seconds * (tsc_ghz > 0 ? tsc_ghz : 1.0) * 1e9, elapsed = 0;
    double *scratch = malloc(sizeof *scratch * (size_t)want);
    if (!scratch)
        return -ENOMEM;
    m->why = o->reps > 0 ? CB_STOP_REPS : CB_STOP_MAX;
    for (int k = 0, tries = 0; k < want; k++) {
        if (stop && *stop) {
            rc = -EINTR;
            break;
        }
        if ((rc = grow_pair(m)) < 0 || (rc = call(c->prog_fd, c, repeat, &m->prog[m->n], why)) < 0 ||
            (rc = call(c->empty_fd, c, repeat, &m->empty[m->n], why)) < 0)
            break;
        elapsed += m->prog[m->n].ticks + m->empty[m->n].ticks;
        if ((m->prog[m->n].switches || m->empty[m->n].switches) && tries++ < YIELD_TRIES * want &&
            elapsed <= cap) {
            m->yielded++;
            k--;
            continue;
        }
        struct net_ci at = {m, scratch};
        int why = cb_stop_after(o, (int)++m->n, elapsed, cap, net_ci_of, &at);
        if (why) {
            m->why = why;
            break;
        }
    }
    if (m->n)
        net_ci_pct(m, scratch);
    free(scratch);
    return rc;
}

void cb_bpf_measurement_free(struct cb_bpf_measurement *m)
{
    free(m->prog);
    free(m->empty);
    memset(m, 0, sizeof *m);
}
