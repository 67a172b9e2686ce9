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

/* Estimate the core clock (GHz) by timing dependent add chains against the
 * TSC: rounds repetitions, median taken.  *spread_pct (may be NULL) gets
 * (max-min)/median of the middle half, in percent.  tsc_ghz as from
 * cb_tsc_ghz(). */
double cb_core_ghz_estimate(double tsc_ghz, int rounds, double *spread_pct);

/* Core cycles per TSC tick right now: one timed chain of iters * 1000
 * dependent adds.  0 when the chain came out wrong.  The harness takes one
 * after every sample, so that estimated cycles follow the core clock case
 * by case instead of trusting one estimate made at the start of a run. */
double cb_core_per_tick(uint64_t iters);

/* Is another hardware thread using this core?  The ratio of the time per
 * add of a tight add/dec/jnz loop (two uops an add) to that of the
 * unrolled chain (one uop an add), each about 5,000 adds timed back to
 * back.  Alone on a core both run one add a cycle: about 1.0.  When the
 * host runs something on the SMT sibling of this vCPU's core, the loop
 * competes for issue slots and branch units and the unrolled chain barely
 * does: on this project's VM the ratio went from 1.0 to 1.45..3 while the
 * loop's own time tripled, for minutes at a time, on one vCPU and not the
 * other.  Such a phase adds cycles to real code too (they are real core
 * cycles: a PMU would count them), so samples taken in it do not measure
 * the code alone.  0 when the timing failed. */
double cb_smt_contention(void);
#define CB_CONTENDED_RATIO 1.15

/* Both clocks, measured once per session: the TSC rate and where it came
 * from, and the estimated core clock with its spread (%). */
struct cb_clocks {
    double tsc_ghz;
    const char *tsc_source;
    double core_ghz;
    double core_spread;
};
void cb_clocks_measure(struct cb_clocks *k);

#endif
