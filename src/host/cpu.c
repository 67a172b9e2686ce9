/* cpu.c — feature detection and host identity, from cpuid and the kernel. */
#define _GNU_SOURCE
#include "cpu.h"

#include "caches.h"

#include <cpuid.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static const struct {
    const char *name;
    unsigned bit;
} feature_names[] = {
    {"sse2", CB_CPU_SSE2},         {"sse4.1", CB_CPU_SSE41},
    {"avx", CB_CPU_AVX},           {"avx2", CB_CPU_AVX2},
    {"avx512f", CB_CPU_AVX512F},   {"avx512bw", CB_CPU_AVX512BW},
    {"avx512vl", CB_CPU_AVX512VL}, {"adx", CB_CPU_ADX},
    {"bmi2", CB_CPU_BMI2},         {"erms", CB_CPU_ERMS},
    {"fsrm", CB_CPU_FSRM},         {"clflushopt", CB_CPU_CLFLUSHOPT},
    {"rdtscp", CB_CPU_RDTSCP},     {"invtsc", CB_CPU_INVTSC},
    {"prefetchw", CB_CPU_PREFETCHW}, {"hypervisor", CB_CPU_HYPERVISOR},
    {"avx512vnni", CB_CPU_AVX512VNNI},
    {"asimd", CB_CPU_ASIMD}, {"sve", CB_CPU_SVE}, {"sve2", CB_CPU_SVE2},
    {"pmull", CB_CPU_PMULL}, {"crc32", CB_CPU_CRC32}, {"lse", CB_CPU_LSE},
    {"dczva", CB_CPU_DCZVA}, {"cpuid", CB_CPU_CPUID_EL1},
};

unsigned cb_cpu_feature_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++)
        if (strcasecmp(name, feature_names[i].name) == 0)
            return feature_names[i].bit;
    return 0;
}

const char *cb_cpu_feature_names(unsigned mask, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (!(mask & feature_names[i].bit))
            continue;
        int w = snprintf(buf + off, len > off ? len - off : 0, "%s%s", off ? "+" : "",
                         feature_names[i].name);
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
    return buf;
}

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

static unsigned detect(void)
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

unsigned cb_cpu_features(void)
{
    unsigned f = detect();
    const char *mask = getenv("CB_CPU_MASK");
    if (mask && *mask) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", mask);
        for (char *save = NULL, *t = strtok_r(buf, ",+ ", &save); t;
             t = strtok_r(NULL, ",+ ", &save))
            f &= ~cb_cpu_feature_by_name(t);
    }
    return f;
}

size_t cb_llc_bytes(void)
{
    uint64_t sz[3];
    size_t best = 0;
    if (cb_caches_sizes("", 0, sz) == 0)
        for (int i = 0; i < 3; i++)
            if (sz[i] > best)
                best = (size_t)sz[i];
    if (!best) {
        long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (v <= 0)
            v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (v > 0)
            best = (size_t)v;
    }
    return best;
}

static void cpuinfo_field(const char *key, char *out, size_t len)
{
    FILE *fp = fopen("/proc/cpuinfo", "r");
    char line[1024];
    size_t klen = strlen(key);
    out[0] = '\0';
    if (!fp)
        return;
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, key, klen) != 0)
            continue;
        char *p = line + klen;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ')
            p++;
        p[strcspn(p, "\n")] = '\0';
        snprintf(out, len, "%s", p);
        break;
    }
    fclose(fp);
}

void cb_host_identity_from_kernel(struct cb_host *h)
{
    char v[64];
    cpuinfo_field("vendor_id", h->vendor, sizeof h->vendor);
    cpuinfo_field("model name", h->model_name, sizeof h->model_name);
    cpuinfo_field("cpu family", v, sizeof v);
    h->family = atoi(v);
    cpuinfo_field("model", v, sizeof v);
    h->model = atoi(v);
    cpuinfo_field("stepping", v, sizeof v);
    h->stepping = atoi(v);
}

void cb_host_probe(struct cb_host *h)
{
    unsigned a, b, c, d;
    memset(h, 0, sizeof *h);
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
    unsigned emax;
    __cpuid(0x80000000, emax, b, c, d);
    if (emax >= 0x80000004) {
        unsigned regs[12];
        for (unsigned i = 0; i < 3; i++)
            __cpuid(0x80000002 + i, regs[i * 4], regs[i * 4 + 1], regs[i * 4 + 2],
                    regs[i * 4 + 3]);
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
    cpuinfo_field("microcode", h->microcode, sizeof h->microcode);
    h->features = cb_cpu_features();
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->ncpus = n > 0 ? (int)n : 1;
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(h->kernel, sizeof h->kernel, "%.20s %.100s", u.sysname, u.release);
        snprintf(h->hostname, sizeof h->hostname, "%.100s", u.nodename);
    }
    h->llc_bytes = cb_llc_bytes();
}
