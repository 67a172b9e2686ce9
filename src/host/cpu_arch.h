/* cpu_arch.h — what cpu.c asks of the one arch file built with it
 * (cpu_x86.c or cpu_arm64.c; mk/host.am picks it).  Internal to src/host. */
#ifndef CB_CPU_ARCH_H
#define CB_CPU_ARCH_H

#include "host/cpu.h"

/* The CPU's features before CB_CPU_MASK hides any. */
unsigned cb_cpu_detect(void);

/* vendor, family, model, stepping, model_name and microcode of the running
 * CPU, as the CPU itself answers (cpuid; MIDR_EL1). */
void cb_host_identity_arch(struct cb_host *h);

/* The same fields as the kernel read them (see cb_host_identity_from_kernel). */
void cb_host_identity_kernel_arch(struct cb_host *h);

/* The first /proc/cpuinfo line "key<blanks>: value": value into out ("" when
 * none). */
void cb_cpuinfo_field(const char *key, char *out, size_t len);

#endif
