/* caches.c — this CPU's caches as a valgrind cache model (see caches.h). */
#define _GNU_SOURCE
#include "host/caches.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#define CB_CACHES_CPUID 1
#else
#define CB_CACHES_CPUID 0
#endif

#if defined(__x86_64__)
/* The deterministic cache parameters leaf: Intel's 4 and AMD's 0x8000001d
 * share its layout (type and level in EAX, line, partitions and ways in
 * EBX, sets - 1 in ECX). */
static unsigned cache_leaf(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    int amd = b == 0x68747541; /* "Auth"enticAMD */
    int hygon = b == 0x6f677948; /* "Hygo"nGenuine */
    if (!amd && !hygon)
        return a >= 4 ? 4 : 0;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x8000001d)
        return 0;
    __get_cpuid(0x80000001, &a, &b, &c, &d);
    return c & (1u << 22) ? 0x8000001d : 0; /* TOPOEXT */
}

#endif

/* Level 1 data and instruction, and the last level, into m; then the
 * simulated copies fitted to valgrind's rule. */
static void note_cache(struct cb_cache_model *m, unsigned type, unsigned level, struct cb_cache k)
{
    if (level == 1 && type == 1)
        m->d1 = k;
    else if (level == 1 && type == 2)
        m->i1 = k;
    else if (level >= 2 && type == 3 && (int)level >= m->ll_level) {
        m->ll = k;
        m->ll_level = (int)level;
    }
}

static int finish(struct cb_cache_model *m)
{
    if (!m->d1.size || !m->i1.size || !m->ll.size)
        return -ENOENT;
    if (cb_cache_fit(&m->i1, &m->si1) < 0 || cb_cache_fit(&m->d1, &m->sd1) < 0 ||
        cb_cache_fit(&m->ll, &m->sll) < 0)
        return -ENOENT;
    m->adjusted = memcmp(&m->i1, &m->si1, sizeof m->i1) || memcmp(&m->d1, &m->sd1, sizeof m->d1) ||
                  memcmp(&m->ll, &m->sll, sizeof m->ll);
    return 0;
}

#if defined(__x86_64__)
static int read_cpuid(struct cb_cache_model *m)
{
    memset(m, 0, sizeof *m);
    m->from = "cpuid";
    unsigned leaf = cache_leaf();
    if (!leaf)
        return -ENOENT;
    for (unsigned sub = 0; sub < 16; sub++) {
        unsigned a, b, c, d;
        __cpuid_count(leaf, sub, a, b, c, d);
        unsigned type = a & 0x1f, level = (a >> 5) & 7;
        if (type == 0)
            break;
        struct cb_cache k = {
            .line = (long)(b & 0xfff) + 1,
            .ways = (long)((b >> 22) & 0x3ff) + 1,
        };
        long parts = (long)((b >> 12) & 0x3ff) + 1;
        k.size = k.ways * parts * k.line * ((long)c + 1);
        note_cache(m, type, level, k);
    }
    return finish(m);
}
#else
/* arm64 has no cpuid for caches: CLIDR_EL1 and CCSIDR_EL1 are EL1's, so
 * the geometry is sysfs's alone. */
static int read_cpuid(struct cb_cache_model *m)
{
    (void)m;
    return -ENOENT;
}
#endif

/* The line size of the live CPU's caches of type t (1 data or unified
 * level, 2 instruction) where sysfs omits coherency_line_size (some ACPI
 * arm64 servers): CTR_EL0's DminLine / IminLine (log2 of words), readable
 * at EL0.  0 off arm64. */
static long arch_line(unsigned t)
{
#if defined(__aarch64__)
    uint64_t ctr;
    __asm__ __volatile__("mrs %0, ctr_el0" : "=r"(ctr));
    unsigned lg = t == 2 ? (unsigned)(ctr & 0xf) : (unsigned)((ctr >> 16) & 0xf);
    return 4l << lg;
#else
    (void)t;
    return 0;
#endif
}

/* One attribute file of a sysfs cache index: its first line. */
static int read_attr(const char *dir, const char *name, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -ENOENT;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -EIO;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

/* "48K", "1024K", "32M", or plain bytes. */
static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0)
        return 0;
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1024 * 1024;
    else if (*end != 0)
        return 0;
    return v;
}

int cb_caches_read_sysfs(struct cb_cache_model *m, const char *sysroot, int cpu)
{
    memset(m, 0, sizeof *m);
    m->from = "sysfs";
    for (int i = 0; i < 16; i++) {
        char dir[384], level[32], type[32], size[32], ways[32], line[32];
        snprintf(dir, sizeof dir, "%s/sys/devices/system/cpu/cpu%d/cache/index%d", sysroot, cpu, i);
        if (read_attr(dir, "level", level, sizeof level) < 0)
            break;
        if (read_attr(dir, "type", type, sizeof type) < 0 || read_attr(dir, "size", size, sizeof size) < 0 ||
            read_attr(dir, "ways_of_associativity", ways, sizeof ways) < 0)
            continue;
        unsigned t = strcmp(type, "Data") == 0 ? 1 : strcmp(type, "Instruction") == 0 ? 2
                     : strcmp(type, "Unified") == 0 ? 3 : 0;
        long ln = 0;
        if (read_attr(dir, "coherency_line_size", line, sizeof line) == 0)
            ln = atol(line);
        else if (!*sysroot)
            ln = arch_line(t);
        struct cb_cache k = {.size = parse_size(size), .ways = atol(ways), .line = ln};
        if (t && k.size > 0 && k.ways > 0 && k.line > 0)
            note_cache(m, t, (unsigned)atoi(level), k);
    }
    return finish(m);
}

int cb_caches_sizes(const char *sysroot, int cpu, uint64_t size[3])
{
    memset(size, 0, 3 * sizeof *size);
    if (!sysroot)
        sysroot = "";
    if (cpu < 0)
        cpu = 0;
    for (int i = 0; i < 16; i++) {
        char dir[384], level[16], type[32], sz[32];
        snprintf(dir, sizeof dir, "%s/sys/devices/system/cpu/cpu%d/cache/index%d", sysroot, cpu, i);
        if (read_attr(dir, "level", level, sizeof level) < 0 ||
            read_attr(dir, "type", type, sizeof type) < 0 || strcmp(type, "Instruction") == 0 ||
            read_attr(dir, "size", sz, sizeof sz) < 0)
            continue;
        int lv = atoi(level);
        if (lv >= 1 && lv <= 3)
            size[lv - 1] = (uint64_t)parse_size(sz);
    }
    /* Only the live system has a cpuid to ask (x86: arm64's caches are
     * sysfs's alone, read above). */
    if (CB_CACHES_CPUID && !*sysroot && (!size[0] || (!size[1] && !size[2]))) {
        struct cb_cache_model m;
        if (cb_caches_read(&m) == 0) {
            if (!size[0] && m.d1.size > 0)
                size[0] = (uint64_t)m.d1.size;
            if (m.ll.size > 0 && (m.ll_level == 2 || m.ll_level == 3) && !size[m.ll_level - 1])
                size[m.ll_level - 1] = (uint64_t)m.ll.size;
        }
    }
    return size[0] || size[1] || size[2] ? 0 : -ENOENT;
}

int cb_caches_read(struct cb_cache_model *m)
{
    if (read_cpuid(m) == 0)
        return 0;
    int cpu = sched_getcpu();
    return cb_caches_read_sysfs(m, "", cpu < 0 ? 0 : cpu);
}

static int override_one(struct cb_cache_model *m, const char *tok, struct cb_sb *err)
{
    static const char *const names[3] = {"I1", "D1", "LL"};
    struct cb_cache *dst[3] = {&m->i1, &m->d1, &m->ll};
    char sz[32];
    long ways, line;
    int used = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(tok, names[i], n) || tok[n] != '=')
            continue;
        if (sscanf(tok + n + 1, "%31[0-9KM],%ld,%ld%n", sz, &ways, &line, &used) != 3 ||
            tok[n + 1 + used] != 0) {
            cb_sb_setf(err, "--sim-caches: '%s' is not %s=SIZE,WAYS,LINE (e.g. %s=32K,8,64)",
                     tok, names[i], names[i]);
            return -EINVAL;
        }
        struct cb_cache k = {.size = parse_size(sz), .ways = ways, .line = line}, fit;
        if (k.size <= 0 || ways <= 0 || cb_cache_fit(&k, &fit) < 0) {
            cb_sb_setf(err, "--sim-caches: %s: no cache of %s bytes, %ld ways and %ld-byte lines "
                     "(the line must be a power of two dividing the size)", tok, sz, ways, line);
            return -EINVAL;
        }
        if (strstr(m->given, names[i])) {
            cb_sb_setf(err, "--sim-caches: %s is given twice", names[i]);
            return -EINVAL;
        }
        *dst[i] = k;
        if (i == 2 && !m->ll_level)
            m->ll_level = 3;
        size_t g = strlen(m->given);
        snprintf(m->given + g, sizeof m->given - g, "%s%s", g ? " " : "", names[i]);
        return 0;
    }
    cb_sb_setf(err, "--sim-caches: '%s' names no cache: give I1=, D1= or LL=SIZE,WAYS,LINE", tok);
    return -EINVAL;
}

int cb_caches_override(struct cb_cache_model *m, const char *spec, struct cb_sb *err)
{
    char buf[256];
    if (!spec || strlen(spec) >= sizeof buf) {
        cb_sb_setf(err, "--sim-caches: give one to three NAME=SIZE,WAYS,LINE, e.g. 'D1=32K,8,64 LL=8M,16,64'");
        return -EINVAL;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    m->given[0] = 0;
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ;", &save); t; t = strtok_r(NULL, " ;", &save), n++) {
        int rc = override_one(m, t, err);
        if (rc < 0)
            return rc;
    }
    if (!n) {
        cb_sb_setf(err, "--sim-caches: empty: give one to three NAME=SIZE,WAYS,LINE, e.g. 'LL=8M,16,64'");
        return -EINVAL;
    }
    if (strlen(m->given) == strlen("I1 D1 LL"))
        m->from = "option";
    if (finish(m) < 0) {
        cb_sb_setf(err, "--sim-caches: this CPU's caches are unknown (cpuid and sysfs say "
                 "nothing), so all of I1=, D1= and LL= must be given");
        return -EINVAL;
    }
    return 0;
}

static int pow2(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

int cb_cache_fit(const struct cb_cache *c, struct cb_cache *out)
{
    if (!pow2(c->line) || c->ways <= 0 || c->size <= 0 || c->size % c->line)
        return -EINVAL;
    long lines = c->size / c->line;
    long sets = lines / c->ways;
    if (lines % c->ways == 0 && pow2(sets)) {
        *out = *c;
        return 0;
    }
    long p = 1;
    while (p * 2 <= sets && lines % (p * 2) == 0)
        p *= 2;
    *out = (struct cb_cache){.size = c->size, .line = c->line, .ways = lines / p};
    return 0;
}

void cb_caches_args(const struct cb_cache_model *m, char args[3][64])
{
    const struct cb_cache *k[3] = {&m->si1, &m->sd1, &m->sll};
    static const char *const opt[3] = {"--I1", "--D1", "--LL"};
    for (int i = 0; i < 3; i++)
        snprintf(args[i], 64, "%s=%ld,%ld,%ld", opt[i], k[i]->size, k[i]->ways, k[i]->line);
}

void cb_caches_describe(const struct cb_cache_model *m, char *buf, size_t len)
{
    int n = snprintf(buf, len, "I1=%ld,%ld,%ld D1=%ld,%ld,%ld LL=%ld,%ld,%ld (L%d) from=%s",
                     m->si1.size, m->si1.ways, m->si1.line, m->sd1.size, m->sd1.ways, m->sd1.line,
                     m->sll.size, m->sll.ways, m->sll.line, m->ll_level, m->from);
    if (m->given[0] && n > 0 && (size_t)n < len && strcmp(m->from, "option"))
        n += snprintf(buf + n, len - (size_t)n, " given: %s", m->given);
    if (m->adjusted && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " adjusted-from: I1=%ld,%ld D1=%ld,%ld LL=%ld,%ld",
                 m->i1.size, m->i1.ways, m->d1.size, m->d1.ways, m->ll.size, m->ll.ways);
}
