/* ceilings.c — the machine's ceilings in bytes per cycle (see ceilings.h). */
#define _GNU_SOURCE
#include "ceilings.h"

#include <errno.h>
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "caches.h"
#include "cpu.h"
#include "tsc.h"

static const char *const level_names[CB_NLEVELS] = {"L1", "L2", "L3", "DRAM"};

const char *cb_ceil_level_name(int level)
{
    return level >= 0 && level < CB_NLEVELS ? level_names[level] : "?";
}

int cb_ceil_level_by_name(const char *name)
{
    for (int i = 0; i < CB_NLEVELS; i++)
        if (name && strcmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

/* ---- cache sizes and working sets --------------------------------------- */

static uint64_t round_down(uint64_t v, uint64_t to)
{
    return v / to * to;
}

void cb_ceil_sets(const uint64_t cache[3], uint64_t set[CB_NLEVELS], char *note, size_t len)
{
    if (len)
        note[0] = 0;
    /* Multiples of 4 KiB: every loop moves 512 bytes a step, and page-sized
     * sets keep DRAM's figure free of a partial page. */
    set[CB_L1] = cache[0] >= 8192 ? round_down(cache[0] / 2, 4096) : 0;
    set[CB_L2] = cache[1] > 2 * cache[0] && cache[0] ? round_down(cache[1] / 2, 4096) : 0;
    set[CB_L3] = 0;
    if (cache[2] && cache[1] && cache[2] > 2 * cache[1]) {
        uint64_t s = 4 * cache[1];
        if (s > cache[2] / 2)
            s = cache[2] / 2;
        set[CB_L3] = round_down(s, 4096);
    }
    uint64_t llc = cache[2] ? cache[2] : cache[1] ? cache[1] : cache[0];
    uint64_t d = 4 * llc;
    if (d < CB_CEIL_DRAM_MIN)
        d = CB_CEIL_DRAM_MIN;
    if (d > CB_CEIL_DRAM_CAP) {
        d = CB_CEIL_DRAM_CAP;
        if (len)
            snprintf(note, len,
                     "DRAM set capped at %llu MiB, below 4x the reported last-level cache (%llu "
                     "MiB): the DRAM figures may include hits in that cache",
                     (unsigned long long)(d >> 20), (unsigned long long)(llc >> 20));
    }
    set[CB_DRAM] = d;
}

int cb_ceil_level_for(const uint64_t cache[3], uint64_t ws, int cold)
{
    if (cold)
        return CB_DRAM;
    for (int i = 0; i < 3; i++)
        if (cache[i] && ws <= cache[i])
            return i;
    return CB_DRAM;
}

const struct cb_ceiling *cb_ceil_best(const struct cb_ceilings *cs, const char *kind, int level)
{
    const struct cb_ceiling *best = NULL;
    for (size_t i = 0; i < cs->n; i++) {
        const struct cb_ceiling *c = &cs->c[i];
        if (c->level == level && strcmp(c->kind, kind) == 0 && c->bpt > 0 &&
            (!best || c->bpt > best->bpt))
            best = c;
    }
    return best;
}

double cb_ceil_share(double figure, double ceiling)
{
    if (!(figure > 0) || !(ceiling > 0) || !isfinite(figure) || !isfinite(ceiling))
        return NAN;
    return figure / ceiling;
}

/* ---- the loops ----------------------------------------------------------- */

/* Each loop moves n bytes (a multiple of 512) from or to p and returns
 * something that depends on every load, so nothing can be left out.  The
 * vector loops keep eight accumulators, so that the adds never wait on
 * each other and the loads are the limit. */
typedef uint64_t (*loop_fn)(void *p, size_t n);

/* Loads into registers and nothing else, in asm: the load ports are the
 * ceiling, so no add may share their cycles (a loop that summed what it
 * loaded reached only 70% of likwid-bench's load_avx512 on this project's
 * VM, limited by the adds), and the compiler may neither drop nor merge
 * loads whose values are unused.  Eight per step, 512 bytes for AVX-512. */
#define LOAD8(INSN, W, R)                                                     \
    INSN " 0*" #W "(%[p]), %%" R "0\n\t" INSN " 1*" #W "(%[p]), %%" R "1\n\t" \
    INSN " 2*" #W "(%[p]), %%" R "2\n\t" INSN " 3*" #W "(%[p]), %%" R "3\n\t" \
    INSN " 4*" #W "(%[p]), %%" R "4\n\t" INSN " 5*" #W "(%[p]), %%" R "5\n\t" \
    INSN " 6*" #W "(%[p]), %%" R "6\n\t" INSN " 7*" #W "(%[p]), %%" R "7\n\t"
#define LOAD_ASM(INSN, W, R)                                                  \
    const char *p = buf, *end = p + n;                                        \
    __asm__ volatile("1:\n\t" LOAD8(INSN, W, R)                              \
                     "addq $8*" #W ", %[p]\n\t"                              \
                     "cmpq %[e], %[p]\n\t"                                   \
                     "jne 1b"                                                 \
                     : [p] "+r"(p)                                            \
                     : [e] "r"(end)                                           \
                     : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", \
                       "xmm5", "xmm6", "xmm7");                               \
    return 0

__attribute__((target("avx512f"))) static uint64_t load_avx512(void *buf, size_t n)
{
    LOAD_ASM("vmovdqa64", 64, "zmm");
}

/* 256 and 128 bytes a step: every set is a multiple of 4 KiB. */
__attribute__((target("avx2"))) static uint64_t load_avx2(void *buf, size_t n)
{
    LOAD_ASM("vmovdqa", 32, "ymm");
}

static uint64_t load_sse2(void *buf, size_t n)
{
    LOAD_ASM("movdqa", 16, "xmm");
}

/* Scalar 64-bit loads into four registers, as the vector loops do. */
static uint64_t load_scalar(void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    uint64_t a, b, c, d;
    __asm__ volatile("1:\n\t"
                     "movq 0(%[p]), %[a]\n\t"
                     "movq 8(%[p]), %[b]\n\t"
                     "movq 16(%[p]), %[c]\n\t"
                     "movq 24(%[p]), %[d]\n\t"
                     "movq 32(%[p]), %[a]\n\t"
                     "movq 40(%[p]), %[b]\n\t"
                     "movq 48(%[p]), %[c]\n\t"
                     "movq 56(%[p]), %[d]\n\t"
                     "addq $64, %[p]\n\t"
                     "cmpq %[e], %[p]\n\t"
                     "jne 1b"
                     : [p] "+r"(p), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d)
                     : [e] "r"(end)
                     : "cc", "memory");
    return a ^ b ^ c ^ d;
}

#define STORE8(STORE, W)                                                      \
    STORE((void *)(p + i + 0 * (W)), v); STORE((void *)(p + i + 1 * (W)), v);  \
    STORE((void *)(p + i + 2 * (W)), v); STORE((void *)(p + i + 3 * (W)), v);  \
    STORE((void *)(p + i + 4 * (W)), v); STORE((void *)(p + i + 5 * (W)), v);  \
    STORE((void *)(p + i + 6 * (W)), v); STORE((void *)(p + i + 7 * (W)), v)

__attribute__((target("avx512f"))) static uint64_t store_avx512(void *buf, size_t n)
{
    char *p = buf;
    __m512i v = _mm512_set1_epi64((long long)n);
    /* Opaque, so that the loop cannot be turned into a call of memset. */
    __asm__("" : "+v"(v));
    for (size_t i = 0; i < n; i += 512) {
        STORE8(_mm512_store_si512, 64);
    }
    return 0;
}

__attribute__((target("avx2"))) static uint64_t store_avx2(void *buf, size_t n)
{
    char *p = buf;
    __m256i v = _mm256_set1_epi64x((long long)n);
    __asm__("" : "+x"(v));
    for (size_t i = 0; i < n; i += 256) {
        STORE8(_mm256_store_si256, 32);
    }
    return 0;
}

static uint64_t store_sse2(void *buf, size_t n)
{
    char *p = buf;
    __m128i v = _mm_set1_epi64x((long long)n);
    __asm__("" : "+x"(v));
    for (size_t i = 0; i < n; i += 128) {
        STORE8(_mm_store_si128, 16);
    }
    return 0;
}

static uint64_t store_scalar(void *buf, size_t n)
{
    char *p = buf, *end = p + n;
    uint64_t v = n;
    __asm__ volatile("1:\n\t"
                     "movq %[v], 0(%[p])\n\t"
                     "movq %[v], 8(%[p])\n\t"
                     "movq %[v], 16(%[p])\n\t"
                     "movq %[v], 24(%[p])\n\t"
                     "movq %[v], 32(%[p])\n\t"
                     "movq %[v], 40(%[p])\n\t"
                     "movq %[v], 48(%[p])\n\t"
                     "movq %[v], 56(%[p])\n\t"
                     "addq $64, %[p]\n\t"
                     "cmpq %[e], %[p]\n\t"
                     "jne 1b"
                     : [p] "+r"(p)
                     : [e] "r"(end), [v] "r"(v)
                     : "cc", "memory");
    return 0;
}

/* One add-with-carry chain: every adcq waits for the previous one's carry.
 * decq leaves CF alone, so the chain runs on across steps. */
static uint64_t adc_1chain(void *buf, size_t n)
{
    const char *p = buf;
    uint64_t a = 0;
    size_t k = n / 64;
    __asm__("clc\n\t"
            "1:\n\t"
            "adcq 0(%[p]), %[a]\n\t"
            "adcq 8(%[p]), %[a]\n\t"
            "adcq 16(%[p]), %[a]\n\t"
            "adcq 24(%[p]), %[a]\n\t"
            "adcq 32(%[p]), %[a]\n\t"
            "adcq 40(%[p]), %[a]\n\t"
            "adcq 48(%[p]), %[a]\n\t"
            "adcq 56(%[p]), %[a]\n\t"
            "leaq 64(%[p]), %[p]\n\t"
            "decq %[k]\n\t"
            "jnz 1b\n\t"
            "adcq $0, %[a]"
            : [a] "+r"(a), [p] "+r"(p), [k] "+r"(k)
            :
            : "cc", "memory");
    return a;
}

#define ADX8(off)                                                             \
    "adcxq " #off "+0(%[p]), %[a]\n\t"                                       \
    "adoxq " #off "+8(%[p]), %[b]\n\t"                                       \
    "adcxq " #off "+16(%[p]), %[a]\n\t"                                      \
    "adoxq " #off "+24(%[p]), %[b]\n\t"                                      \
    "adcxq " #off "+32(%[p]), %[a]\n\t"                                      \
    "adoxq " #off "+40(%[p]), %[b]\n\t"                                      \
    "adcxq " #off "+48(%[p]), %[a]\n\t"                                      \
    "adoxq " #off "+56(%[p]), %[b]\n\t"

/* Two independent carry chains: adcx carries through CF only and adox
 * through OF only.  decq would clobber OF, so each 256-byte step starts by
 * clearing both flags and ends by adding them back in. */
__attribute__((target("adx"))) static uint64_t adc_2chain(void *buf, size_t n)
{
    const char *p = buf;
    uint64_t a = 0, b = 0, z = 0;
    size_t k = n / 256;
    __asm__("1:\n\t"
            "xorl %k[z], %k[z]\n\t"
            ADX8(0) ADX8(64) ADX8(128) ADX8(192)
            "adcxq %[z], %[a]\n\t"
            "adoxq %[z], %[b]\n\t"
            "leaq 256(%[p]), %[p]\n\t"
            "decq %[k]\n\t"
            "jnz 1b"
            : [a] "+r"(a), [b] "+r"(b), [p] "+r"(p), [k] "+r"(k), [z] "+r"(z)
            :
            : "cc", "memory");
    return a + b;
}

/* rep movsb of the first half of the set into the second. */
static uint64_t rep_movsb(void *buf, size_t n)
{
    void *d = (char *)buf + n / 2;
    const void *s = buf;
    size_t c = n / 2;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
    return 0;
}

static uint64_t rep_stosb(void *buf, size_t n)
{
    void *d = buf;
    size_t c = n;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0x5a) : "memory");
    return 0;
}

/* ---- timing --------------------------------------------------------------- */

const char *cb_ceil_widest_isa(void)
{
    unsigned f = cb_cpu_features();
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && (f & CB_CPU_AVX512F))
        return "avx512";
    if (__builtin_cpu_supports("avx2") && (f & CB_CPU_AVX2))
        return "avx2";
    return "sse2";
}

static loop_fn load_loop(const char *isa)
{
    return strcmp(isa, "avx512") == 0 ? load_avx512
           : strcmp(isa, "avx2") == 0 ? load_avx2
           : strcmp(isa, "sse2") == 0 ? load_sse2
                                      : load_scalar;
}

static loop_fn store_loop(const char *isa)
{
    return strcmp(isa, "avx512") == 0 ? store_avx512
           : strcmp(isa, "avx2") == 0 ? store_avx2
           : strcmp(isa, "sse2") == 0 ? store_sse2
                                      : store_scalar;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Keeps the loops' results alive without a global a test could see. */
static void sink(uint64_t v)
{
    __asm__ volatile("" : : "r"(v));
}

/* The best rate of trials timed windows, each of reps passes of fn over n
 * bytes that move moved bytes; spread = middle half of the rates, % of the
 * best.  One untimed pass first brings the set where the level keeps it. */
static double time_loop(loop_fn fn, void *buf, size_t n, uint64_t moved, int trials,
                        double tsc_ghz, int dram, double *spread)
{
    double r[32];
    if (trials > 32)
        trials = 32;
    sink(fn(buf, n));
    /* Windows of about 0.5 ms: long against the TSC reads, short against
     * a time slice. */
    uint64_t t0 = cb_tsc_begin();
    sink(fn(buf, n));
    uint64_t one = cb_tsc_end() - t0;
    double target = 0.5e6 * (tsc_ghz > 0 ? tsc_ghz : 2.0);
    uint64_t reps = dram || one == 0 ? 1 : (uint64_t)(target / (double)one) + 1;
    int k = 0;
    for (int t = 0; t < trials; t++) {
        t0 = cb_tsc_begin();
        for (uint64_t i = 0; i < reps; i++)
            sink(fn(buf, n));
        uint64_t dt = cb_tsc_end() - t0;
        if (dt > 0)
            r[k++] = (double)(moved * reps) / (double)dt;
    }
    if (!k) {
        *spread = NAN;
        return NAN;
    }
    qsort(r, (size_t)k, sizeof r[0], cmp_double);
    double best = r[k - 1];
    double q1 = r[k / 4], q3 = r[(3 * k) / 4 < k ? (3 * k) / 4 : k - 1];
    *spread = best > 0 ? 100 * (q3 - q1) / best : NAN;
    return best;
}

static void add(struct cb_ceilings *cs, const char *kind, const char *isa, int level,
                uint64_t set, double bpt, double spread, int trials)
{
    if (cs->n >= CB_CEIL_MAX || !(bpt > 0))
        return;
    struct cb_ceiling *c = &cs->c[cs->n++];
    memset(c, 0, sizeof *c);
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    snprintf(c->isa, sizeof c->isa, "%s", isa);
    c->level = level;
    c->set_bytes = set;
    c->bpt = bpt;
    c->bpc = cs->core_ghz > 0 && cs->tsc_ghz > 0 ? bpt * cs->tsc_ghz / cs->core_ghz : NAN;
    c->spread_pct = spread;
    c->trials = trials;
}

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 1, n);   /* faulted in before any timing */
    return p;
}

static void header(struct cb_ceilings *cs, double tsc_ghz, double core_ghz, const char *method)
{
    memset(cs, 0, sizeof *cs);
    cs->tsc_ghz = tsc_ghz;
    cs->core_ghz = core_ghz > 0 ? core_ghz : 0;
    snprintf(cs->core_method, sizeof cs->core_method, "%s", method && core_ghz > 0 ? method : "");
}

int cb_ceilings_measure(struct cb_ceilings *cs, double tsc_ghz, double core_ghz,
                        const char *core_method, int trials)
{
    header(cs, tsc_ghz, core_ghz, core_method);
    snprintf(cs->source, sizeof cs->source, "measured");
    /* No XSAVE (-ENOTSUP) leaves fpu.supported 0: reports say so. */
    (void)cb_fpu_measure(&cs->fpu);
    if (trials < 1)
        trials = 1;
    if (cb_caches_sizes("", -1, cs->cache) < 0) {
        /* Nothing known: an L1 of 32 KiB is a safe guess for the loops,
         * and said. */
        cs->cache[0] = 32768;
    }
    cb_ceil_sets(cs->cache, cs->set, cs->note, sizeof cs->note);
    size_t biggest = 0;
    for (int l = 0; l < CB_NLEVELS; l++)
        if (cs->set[l] > biggest)
            biggest = cs->set[l];
    void *buf = map(biggest);
    if (!buf)
        return -ENOMEM;
    const char *vec = cb_ceil_widest_isa();
    const char *isas[2] = {vec, "scalar"};
    unsigned f = cb_cpu_features();
    for (int l = 0; l < CB_NLEVELS; l++) {
        size_t n = cs->set[l];
        if (!n)
            continue;
        int dram = l == CB_DRAM, tr = dram && trials > 3 ? 3 : trials;
        double sp, b;
        for (int i = 0; i < 2; i++) {
            b = time_loop(load_loop(isas[i]), buf, n, n, tr, tsc_ghz, dram, &sp);
            add(cs, "load", isas[i], l, n, b, sp, tr);
        }
        for (int i = 0; i < 2; i++) {
            b = time_loop(store_loop(isas[i]), buf, n, n, tr, tsc_ghz, dram, &sp);
            add(cs, "store", isas[i], l, n, b, sp, tr);
        }
        if (l == CB_L1) {
            b = time_loop(adc_1chain, buf, n, n, tr, tsc_ghz, 0, &sp);
            add(cs, "adc", "scalar", l, n, b, sp, tr);
            if (f & CB_CPU_ADX) {
                b = time_loop(adc_2chain, buf, n, n, tr, tsc_ghz, 0, &sp);
                add(cs, "adcx2", "scalar", l, n, b, sp, tr);
            }
        }
        if (!dram) {
            b = time_loop(rep_movsb, buf, n, n / 2, tr, tsc_ghz, 0, &sp);
            add(cs, "movsb", "scalar", l, n, b, sp, tr);
            b = time_loop(rep_stosb, buf, n, n, tr, tsc_ghz, 0, &sp);
            add(cs, "stosb", "scalar", l, n, b, sp, tr);
        }
    }
    munmap(buf, biggest);
    return 0;
}

double cb_ceil_load_once(uint64_t bytes, int trials)
{
    bytes = bytes < 4096 ? 4096 : round_down(bytes, 4096);
    void *buf = map(bytes);
    if (!buf)
        return NAN;
    double sp;
    double b = time_loop(load_loop(cb_ceil_widest_isa()), buf, bytes, bytes, trials,
                         cb_tsc_ghz(NULL), 0, &sp);
    munmap(buf, bytes);
    return b;
}

void cb_ceilings_model(struct cb_ceilings *cs, double tsc_ghz, double core_per_tick)
{
    header(cs, tsc_ghz, tsc_ghz * core_per_tick, "model");
    snprintf(cs->source, sizeof cs->source, "model");
    cb_fpu_model(&cs->fpu);
    cs->cache[0] = 32 << 10;
    cs->cache[1] = 1 << 20;
    cs->cache[2] = 32 << 20;
    cb_ceil_sets(cs->cache, cs->set, cs->note, sizeof cs->note);
    static const double load[CB_NLEVELS] = {64, 32, 16, 8}, store[CB_NLEVELS] = {32, 16, 8, 4};
    for (int l = 0; l < CB_NLEVELS; l++) {
        add(cs, "load", "avx512", l, cs->set[l], load[l], 1, 7);
        add(cs, "load", "scalar", l, cs->set[l], load[l] / 4, 1, 7);
        add(cs, "store", "avx512", l, cs->set[l], store[l], 1, 7);
        add(cs, "store", "scalar", l, cs->set[l], store[l] / 4, 1, 7);
    }
    add(cs, "adc", "scalar", CB_L1, cs->set[CB_L1], 8, 1, 7);
    add(cs, "adcx2", "scalar", CB_L1, cs->set[CB_L1], 16, 1, 7);
    add(cs, "movsb", "scalar", CB_L1, cs->set[CB_L1], 32, 1, 7);
    add(cs, "stosb", "scalar", CB_L1, cs->set[CB_L1], 48, 1, 7);
}
