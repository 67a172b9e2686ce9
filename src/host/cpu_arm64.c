/* cpu_arm64.c — arm64 features from the HWCAPs and identity from MIDR_EL1
 * (built on arm64 only: mk/host.am).  The decoding is cpu_armid.c's.
 *
 * /proc/cpuinfo is taken only for its arm64 fields ("CPU implementer", ...):
 * under qemu-user it is the x86 host's text, whose vendor_id and model name
 * would describe a machine the code is not running on. */
#define _GNU_SOURCE
#include "host/cpu_arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1ul << 11)
#endif

/* DCZID_EL0 is readable at EL0 on every ARMv8-A core (no trap, no HWCAP). */
static uint64_t dczid(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, dczid_el0" : "=r"(v));
    return v;
}

unsigned cb_cpu_detect(void)
{
    return cb_hwcap_features(getauxval(AT_HWCAP), getauxval(AT_HWCAP2), dczid());
}

size_t cb_cpu_dczva_bytes(void)
{
    uint64_t d = dczid();
    return d & (1u << 4) ? 0 : (size_t)4 << (d & 15);
}

/* MIDR_EL1 as the kernel exposes it: sysfs, else /proc/cpuinfo's fields.
 * 0 when neither has it (qemu-user: the host's x86 files). */
static uint32_t midr_from_kernel(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
    if (f) {
        unsigned long long v = 0;
        int ok = fscanf(f, "%llx", &v) == 1;
        fclose(f);
        if (ok && v)
            return (uint32_t)v;
    }
    char impl[32], var[32], part[32], rev[32];
    cb_cpuinfo_field("CPU implementer", impl, sizeof impl);
    cb_cpuinfo_field("CPU part", part, sizeof part);
    if (!impl[0] || !part[0])
        return 0;
    cb_cpuinfo_field("CPU variant", var, sizeof var);
    cb_cpuinfo_field("CPU revision", rev, sizeof rev);
    /* Architecture 0xf: "defined by the ID registers", as every ARMv8 core. */
    return (uint32_t)((strtoul(impl, NULL, 0) & 0xff) << 24 | (strtoul(var, NULL, 0) & 0xf) << 20 |
                      0xfu << 16 | (strtoul(part, NULL, 0) & 0xfff) << 4 | (strtoul(rev, NULL, 0) & 0xf));
}

void cb_host_identity_arch(struct cb_host *h)
{
    uint32_t midr = midr_from_kernel();
    /* With HWCAP_CPUID the kernel emulates the EL1 ID registers for EL0:
     * the one source left under qemu-user, where it answers for its own
     * model (0x000f0510, implementer 0x00). */
    if (!midr && (getauxval(AT_HWCAP) & HWCAP_CPUID)) {
        uint64_t v;
        __asm__ __volatile__("mrs %0, midr_el1" : "=r"(v));
        midr = (uint32_t)v;
    }
    if (midr)
        cb_midr_decode(midr, h);
    /* No microcode revision on arm64 (REVIDR is an implementer's own). */
}

void cb_host_identity_kernel_arch(struct cb_host *h)
{
    uint32_t midr = midr_from_kernel();
    if (midr)
        cb_midr_decode(midr, h);
}
