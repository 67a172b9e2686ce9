/* caches.c — this CPU's caches as a valgrind cache model (see caches.h). */
#include "caches.h"

#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

int cb_caches_read(struct cb_cache_model *m)
{
    memset(m, 0, sizeof *m);
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
        if (level == 1 && type == 1)
            m->d1 = k;
        else if (level == 1 && type == 2)
            m->i1 = k;
        else if (level >= 2 && type == 3 && (int)level >= m->ll_level) {
            m->ll = k;
            m->ll_level = (int)level;
        }
    }
    if (!m->d1.size || !m->i1.size || !m->ll.size)
        return -ENOENT;
    if (cb_cache_fit(&m->i1, &m->si1) < 0 || cb_cache_fit(&m->d1, &m->sd1) < 0 ||
        cb_cache_fit(&m->ll, &m->sll) < 0)
        return -ENOENT;
    m->adjusted = memcmp(&m->i1, &m->si1, sizeof m->i1) || memcmp(&m->d1, &m->sd1, sizeof m->d1) ||
                  memcmp(&m->ll, &m->sll, sizeof m->ll);
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
    int n = snprintf(buf, len, "I1=%ld,%ld,%ld D1=%ld,%ld,%ld LL=%ld,%ld,%ld (L%d) from=cpuid",
                     m->si1.size, m->si1.ways, m->si1.line, m->sd1.size, m->sd1.ways, m->sd1.line,
                     m->sll.size, m->sll.ways, m->sll.line, m->ll_level);
    if (m->adjusted && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " adjusted-from: I1=%ld,%ld D1=%ld,%ld LL=%ld,%ld",
                 m->i1.size, m->i1.ways, m->d1.size, m->d1.ways, m->ll.size, m->ll.ways);
}
