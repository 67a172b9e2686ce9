/* cpu.h — what this CPU can run, and who it is.
 *
 * Variants are chosen at run time, never at build time: the binary must run
 * on any x86-64 (or arm64), so each variant declares the features it needs and the
 * registry checks them against cb_cpu_features(). */
#ifndef CB_CPU_H
#define CB_CPU_H

#include <stddef.h>
#include <stdint.h>

enum cb_cpu_feature {
    CB_CPU_SSE2       = 1u << 0,
    CB_CPU_SSE41      = 1u << 1,
    CB_CPU_AVX        = 1u << 2,
    CB_CPU_AVX2       = 1u << 3,
    CB_CPU_AVX512F    = 1u << 4,
    CB_CPU_AVX512BW   = 1u << 5,
    CB_CPU_AVX512VL   = 1u << 6,
    CB_CPU_ADX        = 1u << 7,
    CB_CPU_BMI2       = 1u << 8,
    CB_CPU_ERMS       = 1u << 9,  /* enhanced rep movsb/stosb */
    CB_CPU_FSRM       = 1u << 10, /* fast short rep mov */
    CB_CPU_CLFLUSHOPT = 1u << 11,
    CB_CPU_RDTSCP     = 1u << 12,
    CB_CPU_INVTSC     = 1u << 13, /* invariant TSC: constant rate, runs in C-states */
    CB_CPU_PREFETCHW  = 1u << 14,
    CB_CPU_HYPERVISOR = 1u << 15,
    CB_CPU_AVX512VNNI = 1u << 16, /* vpdpbusd/vpdpwssd on zmm */
    /* arm64 (getauxval AT_HWCAP/AT_HWCAP2; the x86 bits above are never set
     * there, nor these on x86). */
    CB_CPU_ASIMD      = 1u << 20, /* Advanced SIMD (NEON): every ARMv8-A server core */
    CB_CPU_SVE        = 1u << 21,
    CB_CPU_SVE2       = 1u << 22,
    CB_CPU_PMULL      = 1u << 23, /* 64x64 polynomial multiply */
    CB_CPU_CRC32      = 1u << 24,
    CB_CPU_LSE        = 1u << 25, /* large-system extension atomics */
    CB_CPU_DCZVA      = 1u << 26, /* dc zva permitted (DCZID_EL0.DZP clear) */
    CB_CPU_CPUID_EL1  = 1u << 27, /* MIDR_EL1 readable from EL0 (HWCAP_CPUID) */
};

/* Features of the running CPU.  The environment variable CB_CPU_MASK (a list
 * of feature names, e.g. "avx2,avx512f") hides features, so tests and users
 * can exercise the fallback paths of a big machine. */
unsigned cb_cpu_features(void);

/* "avx2+adx" style list of the bits in mask; "" for none.  Returns buf. */
const char *cb_cpu_feature_names(unsigned mask, char *buf, size_t len);

/* Parse one feature name ("avx2"); 0 when unknown. */
unsigned cb_cpu_feature_by_name(const char *name);

struct cb_host {
    char vendor[16];          /* "GenuineIntel", "AuthenticAMD"; arm64: the MIDR implementer, "ARM" */
    int family, model, stepping; /* arm64: MIDR variant, part number, revision (r<family>p<stepping>) */
    char model_name[128];
    char microcode[32];       /* "" when unreadable */
    unsigned features;
    int ncpus;                /* online */
    char kernel[128];         /* uname -r and -v, shortened */
    char hostname[128];
    size_t llc_bytes;         /* last-level cache size; 0 unknown */
};

/* Fill *h from cpuid, /proc/cpuinfo, uname and sysfs.  Never fails: unknown
 * fields are left empty or 0. */
void cb_host_probe(struct cb_host *h);

/* Vendor, family, model, stepping and model name as the kernel read them at
 * boot (/proc/cpuinfo).  Under valgrind, cpuid answers for valgrind's
 * virtual CPU (an Intel i7-4910MQ on a Zen host), so a run --sim child takes
 * the real CPU's identity from here; its features stay cpuid's, since they
 * are what the simulated code could use. */
void cb_host_identity_from_kernel(struct cb_host *h);

/* Size of the last-level cache in bytes, 0 when unknown. */
size_t cb_llc_bytes(void);

/* Bytes one `dc zva` zeroes (4 << DCZID_EL0.BS), 0 where it is prohibited
 * (DCZID_EL0.DZP) or off arm64.  Read at run time: 64 on most cores, but
 * the instruction's block is the CPU's choice, not the architecture's. */
size_t cb_cpu_dczva_bytes(void);

/* arm64 identity and features as pure functions of the register values, so
 * that they are tested on every host against known MIDRs and HWCAPs. */

/* MIDR_EL1 into vendor (the implementer's name: "ARM", "Ampere", "software"
 * for 0x00, the emulators' and models' code), family = variant, model = part
 * number, stepping = revision, and model_name from a table of known parts
 * ("Neoverse N1"), else "implementer 0x41 part 0xd0c".  Leaves h's other
 * fields alone. */
void cb_midr_decode(uint32_t midr, struct cb_host *h);

/* The implementer's name, NULL when not in the table. */
const char *cb_arm_implementer_name(unsigned implementer);

/* AT_HWCAP, AT_HWCAP2 (Linux's asm/hwcap.h bits) and DCZID_EL0 into
 * CB_CPU_ASIMD, ..., CB_CPU_DCZVA. */
unsigned cb_hwcap_features(unsigned long hwcap, unsigned long hwcap2, uint64_t dczid);

#endif
