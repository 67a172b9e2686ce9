/* kflags/csum_kflags.c — the csum kernel loops with the kernel's code generation
 * (kflags.h): on x86-64 kernel-2021 and kernel-2023, on arm64 the port of
 * arch/arm64/lib/csum.c (built with -mgeneral-regs-only, as the arm64
 * kernel is).  The same inline source as csum.c's variants. */
#include "probes/csum_kernel.h"
#include "probes/kflags/kflags.h"

#if defined(__x86_64__)

uint32_t cb_csum_kernel_2021_kflags(const void *buf, size_t len, uint32_t sum)
{
    return csum_kernel_2021(buf, len, sum);
}

uint32_t cb_csum_kernel_2023_kflags(const void *buf, size_t len, uint32_t sum)
{
    return csum_kernel_2023(buf, len, sum);
}

#elif defined(__aarch64__)

#include "probes/arm64/csum.h"

CB_A64_NO_ASAN uint32_t cb_csum_do_csum_kflags(const void *buf, size_t len, uint32_t sum)
{
    return cb_a64_csum_partial(buf, len, sum);
}

#endif
