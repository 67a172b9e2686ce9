/* kflags/calls_kflags.c — the calls family's loops with the kernel's code
 * generation (kflags.h): every return through the return thunk, every
 * indirect call through a retpoline, as a kernel built with
 * CONFIG_MITIGATION_RETPOLINE and CONFIG_MITIGATION_RETHUNK makes them (the
 * kernel's thunks are extern and patched at boot; GCC's user-space ones are
 * inline copies of the same sequence). */
#include "probes/kflags/kflags.h"

/* arm64 has neither retpolines nor return thunks (its kernel handles
 * Spectre v2 in firmware and on context switch).  What its kernel does put
 * on every call and return is -mbranch-protection=pac-ret+leaf+bti
 * (arch/arm64/Makefile with PTR_AUTH_KERNEL and BTI_KERNEL): each function,
 * leaf or not, signs its return address with paciasp (also a BTI landing
 * pad for the indirect call) and checks it with autiasp before ret.  Given
 * here per function, as configure's KERNEL_CFLAGS has only
 * -mgeneral-regs-only on arm64.  Both are hint-space instructions: a CPU
 * without pointer authentication runs them as nops. */
#if defined(__aarch64__)
#define KF_CALLS __attribute__((target("branch-protection=pac-ret+leaf+bti")))
#else
#define KF_CALLS
#endif

static KF_CALLS __attribute__((noinline)) uint64_t kf_inc(uint64_t x)
{
    __asm__("" : "+r"(x));
    return x + 1;
}

KF_CALLS uint64_t cb_calls_direct_kflags(uint64_t n, uint64_t x)
{
    for (uint64_t i = 0; i < n; i++)
        x = kf_inc(x);
    return x;
}

KF_CALLS uint64_t cb_calls_indirect_kflags(uint64_t n, uint64_t x)
{
    uint64_t (*f)(uint64_t) = kf_inc;
    for (uint64_t i = 0; i < n; i++) {
        /* The target is unknown to the compiler: a real indirect call. */
        __asm__("" : "+r"(f));
        x = f(x);
    }
    return x;
}
