/* tsc.h — the time-stamp counter, and what it can tell about core cycles.
 *
 * On a machine without a usable PMU (VMs, clouds, CI) the TSC is the only
 * cycle-like clock left.  It ticks at a fixed reference rate, not the core
 * clock, so its figures are labelled "TSC reference cycles".  The core clock
 * is estimated separately by timing a chain of dependent adds (one add per
 * core cycle on every x86 since the P6) against the TSC; figures converted
 * with it are labelled "estimated".  On arm64 the generic timer's
 * CNTVCT_EL0 plays the TSC's part (below); "tsc" in names means it there. */
#ifndef CB_TSC_H
#define CB_TSC_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
/* What the fixed-rate counter is called where a user reads it: its name,
 * and the instruction that reads it. */
#define CB_TSC_NAME "TSC"
#define CB_TSC_READ "rdtsc"
/* The SMT meter's loop control (cb_smt_contention), as messages name it. */
#define CB_LOOP_DEC_BRANCH "dec/jnz"

/* Read the TSC at the start of a timed region: nothing before it may still
 * be in flight, nothing after it may start early (lfence; rdtsc; lfence). */
static inline uint64_t cb_tsc_begin(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* Read the TSC at the end of a timed region: rdtscp waits for everything
 * before it to finish; the lfence keeps later work out. */
static inline uint64_t cb_tsc_end(void)
{
    uint32_t lo, hi;
#ifdef CB_TSC_NO_RDTSCP
    /* valgrind does not decode rdtscp: `make check-valgrind` builds with
     * this, and lfence before rdtsc gives the same ordering. */
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) :: "memory");
#else
    uint32_t aux;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
#endif
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
/* On arm64 the role of the TSC is played by the generic timer's virtual
 * count, CNTVCT_EL0: fixed rate (CNTFRQ_EL0, commonly 25-100 MHz; 1 GHz
 * from Armv8.6), the same on every core, readable from EL0 on Linux.  The
 * code keeps calling it "tsc" inside; what a user reads says CNTVCT. */
#define CB_TSC_NAME "CNTVCT"
#define CB_TSC_READ "cntvct"
#define CB_LOOP_DEC_BRANCH "subs/b.ne"

/* A read of CNTVCT_EL0 is not ordered against the instructions around it:
 * the architecture lets it be executed early (speculatively) or late like
 * any other mrs.  The isb before it waits for every earlier instruction to
 * complete (nothing timed is still in flight, like lfence before rdtsc);
 * the isb after it keeps later instructions from starting before the read
 * (like the lfence after).  Linux's own __arch_counter_get_cntvct() uses
 * the isb before; the one after is what a timed region's start needs.
 * Both ends use the same pair, so their cost cancels in the empty batch. */
static inline uint64_t cb_tsc_begin(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) :: "memory");
    return v;
}

static inline uint64_t cb_tsc_end(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) :: "memory");
    return v;
}
#else
#error "cyclebudget needs a fixed-rate cycle counter: x86-64 (TSC) or aarch64 (CNTVCT_EL0)"
#endif

/* A sample's tick count is the difference of two truncated reads, so it is
 * off by up to one tick: quantisation.  A sample must span at least
 * CB_TSC_QUANT_TICKS ticks for that to stay under CB_TSC_QUANT_BOUND
 * (0.1%).  At a TSC's GHz this is under a microsecond and never the limit;
 * at CNTFRQ's 62.5 MHz (16 ns a tick) it is 16 us. */
#define CB_TSC_QUANT_BOUND 0.001
#define CB_TSC_QUANT_TICKS 1000.0

/* The shortest a sample (batch) may be, in ticks, pure: the largest of
 * 100 x read_ticks (the reads cost under 1% of it), min_batch_us at
 * tsc_ghz (<= 0: taken as 1 GHz), and CB_TSC_QUANT_TICKS.  On x86 the
 * last never wins (20 us at any TSC rate over 50 MHz is more), so x86
 * batches are what they always were. */
double cb_min_batch_ticks(double tsc_ghz, double min_batch_us, double read_ticks);

/* How many times longer than on x86 the core-clock estimate's windows
 * must be (pure): the slope is taken between windows 40,000 adds apart, at
 * most 5 GHz, and that difference must span CB_TSC_QUANT_TICKS.  1 at any
 * TSC rate (x86 unchanged) or when the rate is unknown; 2 at 62.5 MHz, 5 at
 * 25 MHz. */
uint64_t cb_chain_scale(double tsc_ghz);

/* One tick of the fixed-rate counter in ns (1 / GHz), 0 when unknown. */
double cb_tsc_tick_ns(double tsc_ghz);

/* TSC frequency in GHz: from the kernel (sysfs tsc_freq_khz) or cpuid leaf
 * 0x15 / the hypervisor leaf 0x40000010 when they give one, else calibrated
 * against CLOCK_MONOTONIC_RAW over about 100 ms.  *how (may be NULL) gets
 * "sysfs", "cpuid", "hypervisor" or "calibrated".  On arm64: CNTFRQ_EL0
 * (firmware sets it; the architecture defines no other source), *how
 * "cntfrq", else calibrated.  Cached after the first
 * call.  Returns <= 0 only when nothing worked. */
double cb_tsc_ghz(const char **how);

/* What the kernel or the CPU says, without calibrating (0 and "none" when
 * nobody says). */
double cb_tsc_ghz_reported(const char **how);

/* Take ghz, calibrated earlier in this boot (the store keeps it), as this
 * process's rate instead of calibrating again: the rate is fixed from boot,
 * and each calibration spends 100 ms, most of a short run's CPU time.
 * -EINVAL when ghz is not a rate or a rate is already in use. */
int cb_tsc_ghz_adopt(double ghz);

/* The core clock, estimated two independent ways against the TSC: a chain
 * of dependent adds (latency 1) and one of dependent imuls (latency 3; on
 * arm64 `add x, x, x` and `mul x, x, x`, taken as 2 cycles).
 * Each is timed in windows of two lengths; the fastest window of each
 * length is kept (interference only ever adds time) and the rate is the
 * slope between them, so the fixed cost of the TSC reads cancels.  The
 * chosen figure is the one that is physically consistent (cb_core_choose);
 * both are kept so that a report can show the cross-check. */
struct cb_core_est {
    double ghz;           /* chosen; 0 when neither worked */
    const char *method;   /* "add-chain", "imul-chain" ("mul-chain" on arm64) or "none" */
    double spread_pct;    /* middle half of the chosen chain's long windows, % of the fastest */
    double add_ghz;       /* the add chain's figure, 0 when it failed */
    double imul_ghz;      /* the imul (arm64: mul) chain's, 0 when it failed */
    double offset_ticks;  /* fixed cost of a TSC begin/end pair around the chosen chain */
    int imul;             /* 1 when the chosen chain is the (i)mul one (cb_core_per_tick's) */
};
int cb_core_estimate(double tsc_ghz, int trials, struct cb_core_est *e);

/* Two estimates agree when within this share of each other. */
#define CB_CORE_AGREE 0.03

/* The rule cb_core_estimate applies, pure so that it can be tested: agree
 * -> the add chain; else the higher one (a latency-bound chain can only be
 * slowed), except an add chain above one add a cycle, which means the
 * renamer folded the adds, and the 4/3 signature of a 4-cycle imul.
 * Returns the method and sets *ghz.  That is x86's rule; arm64's (arm64
 * non-zero) takes the mul chain at 2 cycles a mul, the least of any core,
 * as a lower bound: the add chain when it is between 1 and 5/2 of it (a
 * mul of 2 to 5 cycles), else the mul chain ("mul-chain").  Either way
 * "none" (*ghz 0) when neither figure is there. */
const char *cb_core_choose_arch(int arm64, double add_ghz, double mul_ghz, double *ghz);
/* This build's rule. */
const char *cb_core_choose(double add_ghz, double imul_ghz, double *ghz);
#if defined(__aarch64__)
#define CB_CHAIN_ARM64 1
#else
#define CB_CHAIN_ARM64 0
#endif

/* The slope rule, pure: fastest short and long windows (ticks; entries <= 0
 * ignored) of chains of ops_short and ops_long operations ->
 * operations per tick, the fixed offset of a window (ticks), and the middle
 * half of the long windows as % of the fastest.  -EINVAL bad arguments,
 * -ERANGE when the long windows were not slower than the short ones. */
int cb_chain_slope(const double *t_short, const double *t_long, size_t n, double ops_short,
                   double ops_long, double *ops_per_tick, double *offset_ticks, double *spread_pct);

/* cb_core_estimate's chosen figure alone (0 when none); *spread_pct may be
 * NULL. */
double cb_core_ghz_estimate(double tsc_ghz, int rounds, double *spread_pct);

/* Core cycles per TSC tick right now: one timed window of iters
 * iterations of the chosen chain (imul = cb_core_est.imul: 200 dependent
 * imuls an iteration, else 1000 dependent adds), less offset_ticks
 * (cb_core_est.offset_ticks: without it a 10k-add window reads 0.7% slow).
 * 0 when the chain came out wrong.  The harness takes one after every
 * sample, so that estimated cycles follow the core clock case by case
 * instead of trusting one estimate made at the start of a run; it must time
 * the chain cb_core_estimate chose, since a CPU that folds add-immediate
 * chains at rename runs the add window several times too fast. */
double cb_core_per_tick(int imul, uint64_t iters, double offset_ticks);
/* The window cb_core_per_tick needs for about 10,000 core cycles. */
uint64_t cb_core_window_iters(int imul);

/* Core cycles per TSC tick now by cb_core_estimate's slope rule over
 * trials windows of each length of one chain (imul: the imul chain):
 * about 80,000 core cycles a trial.  0 when the chain came out wrong.  The
 * harness brackets each case with a few of these (caseclock.h): one window
 * less a fixed offset read the clock 3-6% high whenever a window's reads
 * happened to be cheap. */
double cb_chain_ratio(int imul, int trials);

/* Is another hardware thread using this core?  The raw reading: the ratio
 * of the time per add of a tight add/dec/jnz loop (two uops an add) to that
 * of the unrolled chain (one uop an add), each about 5,000 adds timed back
 * to back.  A busy SMT sibling competes for issue slots and branch units,
 * which the loop needs and the chain barely does: on this project's VM the
 * ratio went from its idle value to 1.45..3 while the loop's own time
 * tripled.  The idle value is not 1.0 everywhere (a VM's core can be shared
 * with another guest for hours), so the reading means something only
 * against a baseline taken on the same CPU (meter.h).  0 when the timing
 * failed. */
double cb_smt_contention(void);

/* Both clocks, measured once per session: the TSC rate and where it came
 * from, and the estimated core clock with its spread (%): the median of
 * CB_CLOCKS_ESTIMATES estimates, since one estimate on this project's VM
 * read 3-7% high about one time in five, and the run's clock converts
 * every case whose own clock does not hold up (caseclock.h). */
#define CB_CLOCKS_ESTIMATES 5
struct cb_clocks {
    double tsc_ghz;
    const char *tsc_source;
    double core_ghz;
    double core_spread;
    struct cb_core_est est;
};
void cb_clocks_measure(struct cb_clocks *k);

#endif
