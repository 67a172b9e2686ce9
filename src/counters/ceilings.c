/* ceilings.c — the machine's ceilings in bytes per cycle (see ceilings.h). */
#define _GNU_SOURCE
#include "counters/ceilings.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "host/caches.h"
#include "counters/tsc.h"
#include "util/sort.h"

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

/* Keeps the loops' results alive without a global a test could see. */
static void sink(uint64_t v)
{
    __asm__ volatile("" : : "r"(v));
}

/* The best rate of trials timed windows, each of reps passes of fn over n
 * bytes that move moved bytes; spread = middle half of the rates, % of the
 * best.  One untimed pass first brings the set where the level keeps it. */
static double time_loop(cb_ceil_fn fn, void *buf, size_t n, uint64_t moved, int trials,
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
    cb_sort_doubles(r, (size_t)k);
    double best = r[k - 1];
    double q1 = r[k / 4], q3 = r[(3 * k) / 4 < k ? (3 * k) / 4 : k - 1];
    *spread = best > 0 ? 100 * (q3 - q1) / best : NAN;
    return best;
}

/* DRAM, the way a cold case reads it.  A cold case walks
 * buffers of its size scattered over a cold set in huge pages, in a
 * pseudo-random order (workset.h: the same LCG), each read start to end
 * with the prefetchers' help, and is timed in short batches.  The DRAM
 * ceiling was one pass over 256 MiB of 4 KiB pages timed as one window of
 * tens of ms: a window long enough to take a time slice's preemption on a
 * shared machine, so that its best of 3 read 1.9-2.3 B/tick on the
 * project's Xeon VM while csum 64 KiB cold read 4.5 (114-134% on an EPYC,
 * 213-309% here).  Here: CB_CEIL_DRAM_CHUNK-byte chunks of the set in the
 * walk's order, windows of about 0.2 ms that continue the walk (no chunk
 * read twice in a calibration unless the set is exhausted), best window. */
#define CB_CEIL_DRAM_CHUNK (64u << 10)
static double time_walk(cb_ceil_fn fn, unsigned char *buf, size_t n, int trials, double tsc_ghz,
                        double *spread)
{
    size_t count = 1, cur = 0;
    double r[32];
    while (count * 2 <= n / CB_CEIL_DRAM_CHUNK)
        count *= 2; /* the LCG's period is a power of two */
    if (trials > 32)
        trials = 32;
    if (count < 2 || trials < 1) {
        *spread = NAN;
        return NAN;
    }
    /* Settle: read the set once in the walk's order, as workset.c does, so
     * an LRU cache smaller than it holds none of the chunks the walk meets. */
    for (size_t i = 0, c = 0; i < count; i++, c = (c * 0x5851f42d4c957f2dull + 0x14057b7ef767814full) & (count - 1))
        sink(fn(buf + c * CB_CEIL_DRAM_CHUNK, CB_CEIL_DRAM_CHUNK));
    uint64_t t0 = cb_tsc_begin();
    sink(fn(buf + cur * CB_CEIL_DRAM_CHUNK, CB_CEIL_DRAM_CHUNK));
    uint64_t one = cb_tsc_end() - t0;
    double target = 0.2e6 * (tsc_ghz > 0 ? tsc_ghz : 2.0);
    size_t per = one ? (size_t)(target / (double)one) + 1 : 1, cap = count / (size_t)trials;
    if (per > cap)
        per = cap ? cap : 1;
    int k = 0;
    for (int t = 0; t < trials; t++) {
        t0 = cb_tsc_begin();
        for (size_t i = 0; i < per; i++) {
            cur = (cur * 0x5851f42d4c957f2dull + 0x14057b7ef767814full) & (count - 1);
            sink(fn(buf + cur * CB_CEIL_DRAM_CHUNK, CB_CEIL_DRAM_CHUNK));
        }
        uint64_t dt = cb_tsc_end() - t0;
        if (dt > 0)
            r[k++] = (double)(per * CB_CEIL_DRAM_CHUNK) / (double)dt;
    }
    if (!k) {
        *spread = NAN;
        return NAN;
    }
    cb_sort_doubles(r, (size_t)k);
    double best = r[k - 1];
    *spread = best > 0 ? 100 * (r[(3 * k) / 4 < k ? (3 * k) / 4 : k - 1] - r[k / 4]) / best : NAN;
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
#ifdef MADV_HUGEPAGE
    /* As the cold cases' sets (workset.c): DRAM is read through huge pages. */
    (void)madvise(p, n, MADV_HUGEPAGE);
#endif
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
    struct cb_ceil_loop loops[CB_CEIL_MAX];
    size_t nloops = cb_ceil_loops(loops, CB_CEIL_MAX);
    for (int l = 0; l < CB_NLEVELS; l++) {
        size_t n = cs->set[l];
        if (!n)
            continue;
        /* DRAM: short windows now (time_walk), so more of them. */
        int dram = l == CB_DRAM, tr = dram ? (2 * trials > 32 ? 32 : 2 * trials) : trials;
        for (size_t i = 0; i < nloops; i++) {
            const struct cb_ceil_loop *lp = &loops[i];
            if (!(lp->levels & (1u << l)))
                continue;
            double sp, b = dram && !lp->half ? time_walk(lp->fn, buf, n, tr, tsc_ghz, &sp)
                                             : time_loop(lp->fn, buf, n, lp->half ? n / 2 : n, tr,
                                                         tsc_ghz, dram, &sp);
            add(cs, lp->kind, lp->isa, l, n, b, sp, tr);
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
    double b = time_loop(cb_ceil_load_fn(cb_ceil_widest_isa()), buf, bytes, bytes, trials,
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
