/* cpu.c — feature detection and host identity: what every arch shares (the
 * feature names, CB_CPU_MASK, the kernel's and sysfs's facts).  What only
 * cpuid (cpu_x86.c) or the arm64 registers and HWCAPs (cpu_arm64.c) know is
 * asked through cpu_arch.h. */
#define _GNU_SOURCE
#include "host/cpu.h"

#include "host/caches.h"
#include "host/cpu_arch.h"

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

unsigned cb_cpu_features(void)
{
    unsigned f = cb_cpu_detect();
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

void cb_host_identity_from_kernel(struct cb_host *h)
{
    cb_host_identity_kernel_arch(h);
}

void cb_host_probe(struct cb_host *h)
{
    memset(h, 0, sizeof *h);
    cb_host_identity_arch(h);
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
