/* test_cpu_arm.c — arm64 identity and features from register values
 * (issue 36): cb_midr_decode against MIDRs whose meaning is published
 * (Arm's TRMs give Neoverse N1 r3p1 as 0x413fd0c1; qemu-user's "max" CPU
 * answers 0x000f0510), cb_hwcap_features against Linux's HWCAP bits, and on
 * the live CPU of either arch: only that arch's bits, CB_CPU_MASK hiding. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cpu.h"
#include "tap.h"

#if defined(__aarch64__)
#include <asm/hwcap.h>
#endif

/* Linux's values (arch/arm64/include/uapi/asm/hwcap.h), written out so the
 * mapper is tested on x86 too; on arm64 they are checked against the header. */
enum {
    ASIMD = 1 << 1, PMULL = 1 << 4, CRC32 = 1 << 7, ATOMICS = 1 << 8, CPUID = 1 << 11,
    SVE = 1 << 22, SVE2_2 = 1 << 1,
};

static void midr(void)
{
    struct cb_host h;
    memset(&h, 0, sizeof h);
    cb_midr_decode(0x413fd0c1, &h);
    is_str(h.vendor, "ARM", "0x413fd0c1: implementer 0x41 is ARM");
    is_str(h.model_name, "Neoverse N1", "0x413fd0c1: part 0xd0c is Neoverse N1");
    is_int(h.family, 3, "0x413fd0c1: variant 3 (r3)");
    is_int(h.model, 0xd0c, "0x413fd0c1: part 0xd0c");
    is_int(h.stepping, 1, "0x413fd0c1: revision 1 (p1)");

    memset(&h, 0, sizeof h);
    cb_midr_decode(0x000f0510, &h);
    is_str(h.vendor, "software", "qemu 0x000f0510: implementer 0x00, software use");
    is_int(h.model, 0x051, "qemu: part 0x051");
    is_int(h.family, 0, "qemu: variant 0");
    is_int(h.stepping, 0, "qemu: revision 0");
    ok(strstr(h.model_name, "part 0x051") && strstr(h.model_name, "emulator"),
       "qemu: unknown part named by number, said to be software (%s)", h.model_name);

    memset(&h, 0, sizeof h);
    cb_midr_decode(0xc00fac30, &h); /* Ampere-1 r0p0 */
    is_str(h.vendor, "Ampere", "0xc00fac30: Ampere");
    is_str(h.model_name, "Ampere-1", "0xc00fac30: Ampere-1");
    memset(&h, 0, sizeof h);
    cb_midr_decode(0x410fd4f0, &h); /* Neoverse V2 r0p0 (Grace) */
    is_str(h.model_name, "Neoverse V2", "0x410fd4f0: Neoverse V2");
    memset(&h, 0, sizeof h);
    cb_midr_decode(0x481fd010, &h); /* Kunpeng 920 r1p0 */
    is_str(h.vendor, "HiSilicon", "0x481fd010: HiSilicon");
    is_int(h.family, 1, "0x481fd010: variant 1");
    memset(&h, 0, sizeof h);
    cb_midr_decode(0x7a0f1232, &h); /* an implementer not in the table */
    is_str(h.vendor, "arm-0x7a", "unknown implementer named by number");
    is_str(h.model_name, "implementer 0x7a part 0x123", "unknown part named by number");
    is_int(h.stepping, 2, "unknown: revision 2");
    ok(cb_arm_implementer_name(0x4e) && strcmp(cb_arm_implementer_name(0x4e), "NVIDIA") == 0,
       "0x4e is NVIDIA");
    ok(cb_arm_implementer_name(0x7a) == NULL, "0x7a unknown");
}

static void hwcap(void)
{
#if defined(__aarch64__)
    ok(HWCAP_ASIMD == ASIMD && HWCAP_PMULL == PMULL && HWCAP_CRC32 == CRC32 &&
       HWCAP_ATOMICS == ATOMICS && HWCAP_CPUID == CPUID && HWCAP_SVE == SVE && HWCAP2_SVE2 == SVE2_2,
       "the HWCAP values here are asm/hwcap.h's");
#endif
    const unsigned arm = CB_CPU_ASIMD | CB_CPU_SVE | CB_CPU_SVE2 | CB_CPU_PMULL | CB_CPU_CRC32 |
                         CB_CPU_LSE | CB_CPU_DCZVA | CB_CPU_CPUID_EL1;
    is_uint(cb_hwcap_features(0, 0, 1u << 4), 0u, "nothing: no features (dc zva prohibited)");
    is_uint(cb_hwcap_features(0, 0, 4), (unsigned)CB_CPU_DCZVA, "DCZID 4 (64 bytes, permitted): dczva");
    is_uint(cb_hwcap_features(ASIMD, 0, 0x14), (unsigned)CB_CPU_ASIMD, "asimd alone");
    is_uint(cb_hwcap_features(PMULL, 0, 0x10), (unsigned)CB_CPU_PMULL, "pmull alone");
    is_uint(cb_hwcap_features(CRC32, 0, 0x10), (unsigned)CB_CPU_CRC32, "crc32 alone");
    is_uint(cb_hwcap_features(ATOMICS, 0, 0x10), (unsigned)CB_CPU_LSE, "atomics is lse");
    is_uint(cb_hwcap_features(CPUID, 0, 0x10), (unsigned)CB_CPU_CPUID_EL1, "cpuid alone");
    is_uint(cb_hwcap_features(SVE, SVE2_2, 0x10), (unsigned)(CB_CPU_SVE | CB_CPU_SVE2), "sve and sve2");
    is_uint(cb_hwcap_features(0, SVE2_2, 0x10), 0u, "sve2 without sve: neither");
    /* qemu-user's figures (brief, 05:20): every one of ours present. */
    is_uint(cb_hwcap_features(0xecfffffbul, 0xffffffff, 0x7), arm, "qemu's HWCAPs: all arm64 bits");
    is_uint(cb_hwcap_features(~0ul, ~0ul, 0) & ~arm, 0u, "never an x86 bit");
}

static void live(void)
{
    const unsigned x86 = CB_CPU_SSE2 | CB_CPU_AVX | CB_CPU_AVX2 | CB_CPU_AVX512F | CB_CPU_RDTSCP |
                         CB_CPU_ERMS | CB_CPU_INVTSC | CB_CPU_HYPERVISOR;
    unsigned f = cb_cpu_features();
    char buf[256];
#if defined(__aarch64__)
    ok((f & CB_CPU_ASIMD) && !(f & x86), "arm64: asimd, no x86 bit (%s)",
       cb_cpu_feature_names(f, buf, sizeof buf));
    setenv("CB_CPU_MASK", "asimd,dczva", 1);
    is_uint(cb_cpu_features(), f & ~(unsigned)(CB_CPU_ASIMD | CB_CPU_DCZVA), "CB_CPU_MASK hides asimd, dczva");
    unsetenv("CB_CPU_MASK");
    size_t z = cb_cpu_dczva_bytes();
    ok((f & CB_CPU_DCZVA) ? z >= 4 && (z & (z - 1)) == 0 : z == 0, "dc zva block %zu bytes", z);
    struct cb_host h;
    cb_host_probe(&h);
    ok(h.vendor[0] && strcmp(h.vendor, "GenuineIntel") && strcmp(h.vendor, "AuthenticAMD"),
       "arm64 vendor '%s' is never an x86 host's (qemu-user's /proc/cpuinfo)", h.vendor);
    ok(h.model_name[0] && !strstr(h.model_name, "Intel") && !strstr(h.model_name, "AMD"),
       "arm64 model name '%s'", h.model_name);
    is_str(h.microcode, "", "no microcode on arm64");
#else
    ok((f & CB_CPU_SSE2) && !(f & ~(x86 | 0xfffffu)), "x86-64: sse2, no arm64 bit (%s)",
       cb_cpu_feature_names(f, buf, sizeof buf));
    setenv("CB_CPU_MASK", "sse2", 1);
    is_uint(cb_cpu_features(), f & ~(unsigned)CB_CPU_SSE2, "CB_CPU_MASK hides sse2");
    unsetenv("CB_CPU_MASK");
    is_uint((unsigned)cb_cpu_dczva_bytes(), 0u, "no dc zva on x86");
#endif
}

int main(void)
{
    midr();
    hwcap();
    live();
    return tap_done();
}
