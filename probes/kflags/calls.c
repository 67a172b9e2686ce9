/* kflags/calls.c — the calls family's loops with the kernel's code
 * generation (kflags.h): every return through the return thunk, every
 * indirect call through a retpoline, as a kernel built with
 * CONFIG_MITIGATION_RETPOLINE and CONFIG_MITIGATION_RETHUNK makes them (the
 * kernel's thunks are extern and patched at boot; GCC's user-space ones are
 * inline copies of the same sequence). */
#include "kflags.h"

static __attribute__((noinline)) uint64_t kf_inc(uint64_t x)
{
    __asm__("" : "+r"(x));
    return x + 1;
}

uint64_t cb_calls_direct_kflags(uint64_t n, uint64_t x)
{
    for (uint64_t i = 0; i < n; i++)
        x = kf_inc(x);
    return x;
}

uint64_t cb_calls_indirect_kflags(uint64_t n, uint64_t x)
{
    uint64_t (*f)(uint64_t) = kf_inc;
    for (uint64_t i = 0; i < n; i++) {
        /* The target is unknown to the compiler: a real indirect call. */
        __asm__("" : "+r"(f));
        x = f(x);
    }
    return x;
}
