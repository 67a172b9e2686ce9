/* synthetic.c — the dependent add chain with a planted slowdown.
 *
 * The loop is asm so that no compiler can fold n adds of 1 into one add of
 * n: the chain's length, and so its cost, must be exactly what we asked. */
#include "probes/synthetic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t chain_asm(uint64_t x, uint64_t n)
{
    if (n == 0)
        return x;
    /* add depends on the previous add: one per cycle, whatever the width
     * of the core.  dec/jnz runs beside it on another port.  Aligned to a
     * cache line so that no build's layout makes the loop straddle two.
     * The 1 is in a register: some cores fold add-immediate chains at
     * rename (a Xeon guest ran "add $1" at six a cycle), none a register's. */
    uint64_t one = 1;
#if defined(__x86_64__)
    __asm__ volatile(".p2align 6\n"
                     "1:\n\t"
                     "add %2, %0\n\t"
                     "dec %1\n\t"
                     "jnz 1b"
                     : "+r"(x), "+r"(n)
                     : "r"(one)
                     : "cc");
#elif defined(__aarch64__)
    /* The same loop: add depends on the last add, subs/b.ne count beside it. */
    __asm__ volatile(".p2align 6\n"
                     "1:\n\t"
                     "add %0, %0, %2\n\t"
                     "subs %1, %1, #1\n\t"
                     "b.ne 1b"
                     : "+r"(x), "+r"(n)
                     : "r"(one)
                     : "cc");
#else
#error "synthetic.c: the add chain needs an asm loop for this architecture"
#endif
    return x;
}

#if defined(__x86_64__)
#define CHAIN_ASM "x86 asm"
#else
#define CHAIN_ASM "arm64 asm"
#endif

static const struct cb_variant synth_variants[] = {
    {"chain", "n dependent adds of 1 (" CHAIN_ASM "), n = size x (1 + $" CB_SYNTH_ENV ")", 0,
     (const void *)chain_asm, CB_VARIANT_REFERENCE, 0},
};

static const size_t synth_sizes[] = {250, 1000, 4000, 0};

int cb_synth_parse_delta(const char *s, double *delta)
{
    *delta = 0;
    if (!s || !*s)
        return 0;
    /* Digits and at most one point only: strtod alone would take "1e3",
     * "inf", " 0.1" and hex floats. */
    size_t dots = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '.')
            dots++;
        else if (*p < '0' || *p > '9')
            return -EINVAL;
    }
    if (dots > 1 || strcmp(s, ".") == 0)
        return -EINVAL;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v) || v < 0 || v > CB_SYNTH_MAX_DELTA)
        return -EINVAL;
    *delta = v;
    return 0;
}

uint64_t cb_synth_work(uint64_t n, double delta)
{
    return (uint64_t)llround((double)n * (1.0 + delta));
}

struct synth_state {
    uint64_t work;
};

static int synth_setup(struct cb_case *c)
{
    double delta;
    const char *env = getenv(CB_SYNTH_ENV);
    if (cb_synth_parse_delta(env, &delta) < 0) {
        /* The harness only sees -EINVAL; say here what was wrong, once. */
        fprintf(stderr,
                "cyclebudget: %s='%s' is not a slowdown: give a decimal fraction in [0, %g], "
                "e.g. 0.05 for 5%%\n",
                CB_SYNTH_ENV, env, CB_SYNTH_MAX_DELTA);
        return -EINVAL;
    }
    if (c->size == 0 || c->size > (1u << 30))
        return -EINVAL;
    struct synth_state *st = malloc(sizeof *st);
    if (!st)
        return -ENOMEM;
    st->work = cb_synth_work(c->size, delta);
    c->priv = st;
    c->bytes_per_op = 0;
    return 0;
}

static void synth_run(struct cb_case *c, uint64_t iters)
{
    const struct synth_state *st = c->priv;
    cb_synth_fn fn = (cb_synth_fn)c->variant->fn;
    uint64_t x = 0;
    for (uint64_t i = 0; i < iters; i++)
        x = fn(x, st->work);
    c->sink += x;
}

static int synth_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    cb_synth_fn fn = (cb_synth_fn)v->fn;
    memset(out, 0, sizeof *out);
    out->ok = 1;
    static const uint64_t starts[] = {0, 1, 0xffffffffull, UINT64_MAX - 5000};
    for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++)
        for (uint64_t n = 0; n <= 2048; n++) {
            out->checked++;
            uint64_t got = fn(starts[s], n), want = starts[s] + n;
            if (got != want) {
                out->ok = 0;
                snprintf(out->detail, sizeof out->detail,
                         "x=%llu n=%llu: got %llu, want %llu", (unsigned long long)starts[s],
                         (unsigned long long)n, (unsigned long long)got,
                         (unsigned long long)want);
                return 0;
            }
        }
    return 0;
}

/* One add a cycle: the chain's length is its cost. */
static double synth_nominal(const struct cb_case *c)
{
    const struct synth_state *st = c->priv;
    return st ? (double)st->work : (double)c->size;
}

static void synth_teardown(struct cb_case *c)
{
    free(c->priv);
    c->priv = NULL;
}

const struct cb_probe cb_probe_synthetic = {
    .name = "synthetic",
    .desc = "a dependent add chain with a planted slowdown ($" CB_SYNTH_ENV "), for testing compare",
    .unit = "add",
    .op = "call",
    .variants = synth_variants,
    .nvariants = sizeof synth_variants / sizeof synth_variants[0],
    .sizes = synth_sizes,
    .setup = synth_setup,
    .run = synth_run,
    .verify = synth_verify,
    .teardown = synth_teardown,
    .nominal = synth_nominal,
};
