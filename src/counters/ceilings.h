/* ceilings.h — the machine's ceilings: how many bytes a core can move per cycle.
 *
 * A cycle count alone does not say whether a variant is good: "63 cycles for
 * 1500 bytes" means something only beside "this core loads 64 bytes per
 * cycle from L1".  The ceilings are measured here the way the core clock is
 * estimated (tsc.h): simple loops timed against the TSC, each the best of
 * several trials (interference only ever slows a loop), with the middle half
 * of the trials kept as the spread.  Measured: loads and stores from working
 * sets sized to sit in L1, L2, L3 and DRAM, with the widest vector ISA this
 * CPU runs (chosen at run time, never -march=native) and with scalar 64-bit
 * moves; one add-with-carry chain.  On x86-64 also two independent carry
 * chains (adcx/adox: the carry and overflow flags are the only two carries
 * x86 has), rep movsb and rep stosb; on arm64 the four-register ld1/st1
 * beside ldp/stp q, `dc zva` zeroing (where EL1 permits it), and glibc's
 * memcpy and memset in the place of rep movsb/stosb.
 *
 * Figures are bytes per TSC tick (a fixed reference clock, labelled so; on
 * arm64 the generic timer's CNTVCT_EL0 tick, in the TSC's role) and
 * bytes per estimated core cycle (the tick figure times tsc_ghz / core_ghz,
 * with the core-clock estimator's chosen figure; NAN when there is none).
 * Reports judge a case against the tick figure, since its own cycles are
 * TSC ticks too: the share then depends on no estimate. */
#ifndef CB_CEILINGS_H
#define CB_CEILINGS_H

#include <stddef.h>
#include <stdint.h>

#include "counters/fpu.h"

enum cb_ceil_level { CB_L1, CB_L2, CB_L3, CB_DRAM, CB_NLEVELS };

#define CB_CEIL_MAX 40
#define CB_CEIL_TRIALS 7     /* trials per ceiling by default */
/* The DRAM set is 4x the last-level cache, within these bounds: a guest
 * can report a host's whole L3 (480 MiB here), and streaming 2 GiB per
 * trial would make calibrate slow and hungry for little gain.  When the cap
 * binds the note says so: the DRAM figure may then include LLC hits. */
#define CB_CEIL_DRAM_MIN (64ull << 20)
#define CB_CEIL_DRAM_CAP (256ull << 20)

struct cb_ceiling {
    char kind[8];          /* "load", "store", "adc", "adcx2", "movsb", "stosb"; arm64:
                              "load", "store", "adc", "zva", "memcpy", "memset" */
    char isa[8];           /* "avx512", "avx2", "sse2", "scalar" (adc*, movsb, stosb: "scalar");
                              arm64: "neon" (ldp/stp q), "neon-x4" (ld1/st1 of 4 registers),
                              "scalar" (ldp/stp x), "dczva", "glibc" */
    int level;             /* enum cb_ceil_level of the working set */
    uint64_t set_bytes;    /* working set (movsb, memcpy: source and destination together) */
    double bpt;            /* best bytes per TSC tick */
    double bpc;            /* bytes per estimated core cycle; NAN: no core estimate */
    double spread_pct;     /* middle half of the trials' rates, % of the best */
    int trials;
};

struct cb_ceilings {
    size_t n;
    struct cb_ceiling c[CB_CEIL_MAX];
    uint64_t cache[3];     /* L1d, L2, L3 sizes in bytes the sets were chosen from; 0 unknown */
    uint64_t set[CB_NLEVELS];  /* the working set of each level; 0: level not measured */
    double tsc_ghz, core_ghz;  /* core_ghz 0: no estimate (bpc NAN) */
    char core_method[16];  /* the estimator's chosen method, "" none */
    char source[12];       /* "measured", or "model" (fixed figures for tests) */
    char note[256];        /* what to know about the sets (the DRAM cap), "" none */
    struct cb_fpu_cost fpu;    /* kernel_fpu_begin/end on this CPU (fpu.h); supported 0:
                                  not measured */
};

const char *cb_ceil_level_name(int level);      /* "L1".."DRAM", "?" */
int cb_ceil_level_by_name(const char *name);    /* -1 unknown */


/* The working set of each level from the cache sizes, pure: L1 half the
 * L1d, L2 half the L2, L3 4x the L2 but at most half the L3, DRAM 4x the
 * last level within [CB_CEIL_DRAM_MIN, CB_CEIL_DRAM_CAP]; a level whose
 * cache is unknown gets 0 (not measured).  note gets what to know. */
void cb_ceil_sets(const uint64_t cache[3], uint64_t set[CB_NLEVELS], char *note, size_t len);

/* The level a working set of ws bytes fits in, pure: the smallest known
 * cache that holds it, DRAM when none does or when cold. */
int cb_ceil_level_for(const uint64_t cache[3], uint64_t ws, int cold);

/* The highest ceiling of kind at level over every ISA measured; NULL when
 * none was. */
const struct cb_ceiling *cb_ceil_best(const struct cb_ceilings *cs, const char *kind, int level);

/* Share of a ceiling reached by a figure in the same unit: NAN when either
 * is not a positive number (never 0: unknown is not slow). */
double cb_ceil_share(double figure, double ceiling);

/* Measure every ceiling on the calling thread's CPU (pin it first).
 * trials per ceiling (DRAM: at most 3).  core_ghz 0: no estimate.
 * 0, or -ENOMEM. */
int cb_ceilings_measure(struct cb_ceilings *cs, double tsc_ghz, double core_ghz,
                        const char *core_method, int trials);

/* Fixed figures of a made-up machine (source "model"), for the fake clock
 * and tests, so that nothing in make check depends on this machine's
 * speed: L1d 32 KiB, L2 1 MiB, L3 32 MiB; loads 64/32/16/8 B/tick. */
void cb_ceilings_model(struct cb_ceilings *cs, double tsc_ghz, double core_per_tick);

/* One measured loop, for the sanity test and bench: the best B/tick of
 * trials passes of the widest load loop over a set of bytes.  NAN on
 * failure. */
double cb_ceil_load_once(uint64_t bytes, int trials);

/* The widest vector ISA this CPU runs: "avx512", "avx2" or "sse2" on
 * x86-64, "neon" on arm64. */
const char *cb_ceil_widest_isa(void);

/* ---- the loops, one file per architecture --------------------------------
 * ceilings_x86.c and ceilings_arm64.c each give the loops their CPU runs;
 * this file times them, so the timing and the sets are the same code on
 * both.  Exposed for the tests, which check what each loop touches. */

/* One loop over n bytes at p (n a multiple of 4096, p page-aligned). */
typedef uint64_t (*cb_ceil_fn)(void *p, size_t n);

struct cb_ceil_loop {
    const char *kind;      /* struct cb_ceiling's kind */
    const char *isa;       /* and isa */
    cb_ceil_fn fn;
    unsigned levels;       /* bit (1u << level) for each level it is measured at */
    int half;              /* 1: moves n/2 bytes (copies one half of the set into the other) */
};
#define CB_CEIL_LEVELS_ALL ((1u << CB_NLEVELS) - 1)
#define CB_CEIL_LEVELS_CACHED (CB_CEIL_LEVELS_ALL & ~(1u << CB_DRAM))

/* The loops this CPU runs, in the order they are measured at each level;
 * at most max written, the count returned. */
size_t cb_ceil_loops(struct cb_ceil_loop *out, size_t max);

/* The load loop of an ISA cb_ceil_loops names (the scalar one for any
 * other name). */
cb_ceil_fn cb_ceil_load_fn(const char *isa);

#if defined(__aarch64__)
/* The dc zva block in bytes, from DCZID_EL0; 0 when dc zva is prohibited
 * (then no "zva" loop is measured). */
unsigned cb_ceil_zva_block(void);
#endif

#endif
