/* calls.c — a call and a return, direct or indirect, with and without
 * thunks (calls.h). */
#include "probes/calls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "probes/kflags/kflags.h"

static __attribute__((noinline)) uint64_t inc(uint64_t x)
{
    __asm__("" : "+r"(x));
    return x + 1;
}

static uint64_t calls_direct(uint64_t n, uint64_t x)
{
    for (uint64_t i = 0; i < n; i++)
        x = inc(x);
    return x;
}

static uint64_t calls_indirect(uint64_t n, uint64_t x)
{
    uint64_t (*f)(uint64_t) = inc;
    for (uint64_t i = 0; i < n; i++) {
        __asm__("" : "+r"(f));
        x = f(x);
    }
    return x;
}

/* The +kflags twins: x86's thunks; arm64's pointer authentication of every
 * return (kflags/calls.c says why that and not thunks). */
#if defined(__aarch64__)
#define KF_DIRECT "direct call to a callee that signs (paciasp) and checks (autiasp) its " \
                  "return address: pac-ret+leaf+bti (arm64 kernel flags)"
#define KF_INDIRECT "call through a pointer to a paciasp landing pad, pac-ret+leaf+bti " \
                    "(arm64 kernel flags)"
#else
#define KF_DIRECT "direct call, ret through the return thunk (kernel flags)"
#define KF_INDIRECT "call through a retpoline, ret through the return thunk (kernel flags)"
#endif

static const struct cb_variant calls_variants[] = {
    {.name = "direct", .desc = "direct call and plain ret (the tool's flags)",
     .fn = (const void *)calls_direct, .flags = CB_VARIANT_REFERENCE},
    {.name = "indirect", .desc = "call through a pointer, plain ret (the tool's flags)",
     .fn = (const void *)calls_indirect},
    {.name = "direct+kflags", .desc = KF_DIRECT, .fn = (const void *)cb_calls_direct_kflags},
    {.name = "indirect+kflags", .desc = KF_INDIRECT, .fn = (const void *)cb_calls_indirect_kflags},
};

struct calls_state {
    cb_calls_fn fn;
};

static int calls_setup(struct cb_case *c)
{
    if (c->size == 0)
        return -EINVAL;
    struct calls_state *s = malloc(sizeof *s);
    if (!s)
        return -ENOMEM;
    s->fn = (cb_calls_fn)c->variant->fn;
    c->bytes_per_op = 0;
    c->priv = s;
    return 0;
}

static void calls_run(struct cb_case *c, uint64_t iters)
{
    struct calls_state *s = c->priv;
    uint64_t x = c->sink;
    for (uint64_t i = 0; i < iters; i++)
        x = s->fn(c->size, x);
    c->sink = x;
}

static void calls_teardown(struct cb_case *c)
{
    free(c->priv);
    c->priv = NULL;
}

/* Every chain length 0..300 and a long one, from several starting values:
 * the result must be x + n exactly. */
static int calls_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    cb_calls_fn fn = (cb_calls_fn)v->fn;
    static const uint64_t xs[] = {0, 1, 0x7fffffffffffffffull, 0xfffffffffffffff0ull};
    out->ok = 1;
    out->checked = 0;
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++)
        for (uint64_t n = 0; n <= 301; n++) {
            uint64_t len = n == 301 ? 100000 : n, got = fn(len, xs[k]);
            out->checked++;
            if (got != xs[k] + len) {
                out->ok = 0;
                snprintf(out->detail, sizeof out->detail, "n=%llu x=%llu: got %llu, want %llu",
                         (unsigned long long)len, (unsigned long long)xs[k],
                         (unsigned long long)got, (unsigned long long)(xs[k] + len));
                return 0;
            }
        }
    return 0;
}

/* One call, a handful (a protocol handler's chain), and many.  The size is
 * the chain's length: one operation of size 8 is 8 calls (the store's
 * operations are calls, packets, objects or bytes). */
static const size_t calls_sizes[] = {1, 8, 64, 0};

const struct cb_probe cb_probe_calls = {
    .name = "calls",
#if defined(__aarch64__)
    .desc = "a call and a return, direct or indirect, with and without pointer authentication",
#else
    .desc = "a call and a return, direct or indirect, with and without retpoline/return thunks",
#endif
    .unit = "call",
    .op = "call",
    .variants = calls_variants,
    .nvariants = sizeof calls_variants / sizeof calls_variants[0],
    .sizes = calls_sizes,
    .setup = calls_setup,
    .run = calls_run,
    .verify = calls_verify,
    .teardown = calls_teardown,
};
