/* cpu_x86.c — x86-64 features and identity from cpuid (built on x86-64 only:
 * mk/host.am). */
#define _GNU_SOURCE
#include "host/cpu_arch.h"

#include <cpuid.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AVX state must also be enabled by the OS (XCR0), or the instructions fault
 * even though cpuid lists them. */
static unsigned long long xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

/* What a feature needs besides its cpuid bit: the OS saving the YMM state,
 * or the YMM and ZMM state (XCR0). */
enum { OS_ANY, OS_YMM, OS_ZMM };
enum { EAX, EBX, ECX, EDX };

/* One feature bit: cpuid leaf (subleaf 0), register and bit. */
static const struct cpuid_bit {
    unsigned leaf;
    unsigned char reg, bit, os;
    unsigned flag;
} cpuid_bits[] = {
    {1, EDX, 26, OS_ANY, CB_CPU_SSE2},          {1, ECX, 19, OS_ANY, CB_CPU_SSE41},
    {1, ECX, 31, OS_ANY, CB_CPU_HYPERVISOR},    {1, ECX, 28, OS_YMM, CB_CPU_AVX},
    {7, EBX, 5, OS_YMM, CB_CPU_AVX2},           {7, EBX, 16, OS_ZMM, CB_CPU_AVX512F},
    {7, EBX, 30, OS_ZMM, CB_CPU_AVX512BW},      {7, EBX, 31, OS_ZMM, CB_CPU_AVX512VL},
    {7, EBX, 19, OS_ANY, CB_CPU_ADX},           {7, EBX, 8, OS_ANY, CB_CPU_BMI2},
    {7, EBX, 9, OS_ANY, CB_CPU_ERMS},           {7, EBX, 23, OS_ANY, CB_CPU_CLFLUSHOPT},
    {7, EDX, 4, OS_ANY, CB_CPU_FSRM},           {0x80000001, EDX, 27, OS_ANY, CB_CPU_RDTSCP},
    {0x80000001, ECX, 8, OS_ANY, CB_CPU_PREFETCHW}, {0x80000007, EDX, 8, OS_ANY, CB_CPU_INVTSC},
    {7, ECX, 11, OS_ZMM, CB_CPU_AVX512VNNI},
};

unsigned cb_cpu_detect(void)
{
    unsigned r[4], max, emax;
    if (!__get_cpuid(0, &max, &r[EBX], &r[ECX], &r[EDX]))
        return 0;
    __cpuid(0x80000000, emax, r[EBX], r[ECX], r[EDX]);
    __cpuid(1, r[EAX], r[EBX], r[ECX], r[EDX]);
    int osxsave = (r[ECX] >> 27) & 1;
    unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
    int ymm_ok = (xcr0 & 0x6) == 0x6;
    int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;
    const int os_ok[] = {[OS_ANY] = 1, [OS_YMM] = ymm_ok, [OS_ZMM] = zmm_ok};
    unsigned f = 0;
    for (size_t i = 0; i < sizeof cpuid_bits / sizeof cpuid_bits[0]; i++) {
        const struct cpuid_bit *cb = &cpuid_bits[i];
        /* Leaf 1 is there whenever cpuid is; the others only up to the
         * highest leaf of their range. */
        if (cb->leaf >= 0x80000000 ? cb->leaf > emax : cb->leaf > 1 && cb->leaf > max)
            continue;
        __cpuid_count(cb->leaf, 0, r[EAX], r[EBX], r[ECX], r[EDX]);
        if ((r[cb->reg] & (1u << cb->bit)) && os_ok[cb->os])
            f |= cb->flag;
    }
    return f;
}

/* The processor brand string (leaves 0x80000002-4), without its padding. */
static void brand_string(struct cb_host *h)
{
    unsigned emax, b, c, d;
    __cpuid(0x80000000, emax, b, c, d);
    if (emax < 0x80000004)
        return;
    unsigned regs[12];
    for (unsigned i = 0; i < 3; i++)
        __cpuid(0x80000002 + i, regs[i * 4], regs[i * 4 + 1], regs[i * 4 + 2], regs[i * 4 + 3]);
    char name[49];
    memcpy(name, regs, 48);
    name[48] = '\0';
    char *p = name;
    while (*p == ' ')
        p++;
    snprintf(h->model_name, sizeof h->model_name, "%s", p);
    for (size_t n = strlen(h->model_name); n && isspace((unsigned char)h->model_name[n - 1]); n--)
        h->model_name[n - 1] = '\0';
}

void cb_host_identity_arch(struct cb_host *h)
{
    unsigned a, b, c, d;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(h->vendor, &b, 4);
        memcpy(h->vendor + 4, &d, 4);
        memcpy(h->vendor + 8, &c, 4);
        h->vendor[12] = '\0';
        __cpuid(1, a, b, c, d);
        unsigned fam = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
        if (fam == 0xf)
            fam += (a >> 20) & 0xff;
        if (fam == 0x6 || fam >= 0xf)
            mod |= ((a >> 16) & 0xf) << 4;
        h->family = (int)fam;
        h->model = (int)mod;
        h->stepping = (int)(a & 0xf);
    }
    brand_string(h);
    cb_cpuinfo_field("microcode", h->microcode, sizeof h->microcode);
}

void cb_host_identity_kernel_arch(struct cb_host *h)
{
    char v[64];
    cb_cpuinfo_field("vendor_id", h->vendor, sizeof h->vendor);
    cb_cpuinfo_field("model name", h->model_name, sizeof h->model_name);
    cb_cpuinfo_field("cpu family", v, sizeof v);
    h->family = atoi(v);
    cb_cpuinfo_field("model", v, sizeof v);
    h->model = atoi(v);
    cb_cpuinfo_field("stepping", v, sizeof v);
    h->stepping = atoi(v);
}

/* No dc zva off arm64. */
size_t cb_cpu_dczva_bytes(void)
{
    return 0;
}
