/* tsc.h — the time-stamp counter, and what it can tell about core cycles.
 *
 * On a machine without a usable PMU (VMs, clouds, CI) the TSC is the only
 * cycle-like clock left.  It ticks at a fixed reference rate, not the core
 * clock, so its figures are labelled "TSC reference cycles".  The core clock
 * is estimated separately by timing a chain of dependent adds (one add per
 * core cycle on every x86 since the P6) against the TSC; figures converted
 * with it are labelled "estimated". */
#ifndef CB_TSC_H
#define CB_TSC_H

#include <stddef.h>
#include <stdint.h>

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

/* TSC frequency in GHz: from the kernel (sysfs tsc_freq_khz) or cpuid leaf
 * 0x15 / the hypervisor leaf 0x40000010 when they give one, else calibrated
 * against CLOCK_MONOTONIC_RAW over about 100 ms.  *how (may be NULL) gets
 * "sysfs", "cpuid", "hypervisor" or "calibrated".  Cached after the first
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
 * of dependent adds (latency 1) and one of dependent imuls (latency 3).
 * Each is timed in windows of two lengths; the fastest window of each
 * length is kept (interference only ever adds time) and the rate is the
 * slope between them, so the fixed cost of the TSC reads cancels.  The
 * chosen figure is the one that is physically consistent (cb_core_choose);
 * both are kept so that a report can show the cross-check. */
struct cb_core_est {
    double ghz;           /* chosen; 0 when neither worked */
    const char *method;   /* "add-chain", "imul-chain" or "none" */
    double spread_pct;    /* middle half of the chosen chain's long windows, % of the fastest */
    double add_ghz;       /* the add chain's figure, 0 when it failed */
    double imul_ghz;      /* the imul chain's, 0 when it failed */
    double offset_ticks;  /* fixed cost of a TSC begin/end pair around the chosen chain */
    int imul;             /* 1 when the chosen chain is the imul one (cb_core_per_tick's) */
};
int cb_core_estimate(double tsc_ghz, int trials, struct cb_core_est *e);

/* Two estimates agree when within this share of each other. */
#define CB_CORE_AGREE 0.03

/* The rule cb_core_estimate applies, pure so that it can be tested: agree
 * -> the add chain; else the higher one (a latency-bound chain can only be
 * slowed), except an add chain above one add a cycle, which means the
 * renamer folded the adds, and the 4/3 signature of a 4-cycle imul.
 * Returns the method and sets *ghz. */
const char *cb_core_choose(double add_ghz, double imul_ghz, double *ghz);

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
