/* kflags/csum.c — csum kernel-2021 and kernel-2023 with the kernel's code
 * generation (kflags.h).  The same inline source as csum.c's variants. */
#include "csum_kernel.h"
#include "kflags.h"

uint32_t cb_csum_kernel_2021_kflags(const void *buf, size_t len, uint32_t sum)
{
    return csum_kernel_2021(buf, len, sum);
}

uint32_t cb_csum_kernel_2023_kflags(const void *buf, size_t len, uint32_t sum)
{
    return csum_kernel_2023(buf, len, sum);
}
