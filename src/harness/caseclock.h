/* caseclock.h — the core clock a case's estimated cycles are converted at.
 *
 * Without PMU cycles a case's cycles are its TSC time times an estimated
 * core clock.  A chain window timed after each sample read the clock as the
 * work just done left it: within one idle run the implied clock of csum
 * cases ranged 2.49 to 4.08 GHz, and between two identical runs a case's
 * cycles moved 40% while its time moved 0.5%.  So each case is
 * bracketed instead: before its code first runs and after its last sample,
 * a few slope estimates each (cb_chain_ratio: the fastest windows of two
 * lengths, so the TSC reads' cost cancels); their ranges and the brackets'
 * disagreement are the case clock's own noise.  The case's clock is used
 * only where it agrees with the run's within that noise, or where both
 * brackets moved alike (a change confirmed on both sides); otherwise the
 * run's clock is used and the case flagged. */
#ifndef CB_CASECLOCK_H
#define CB_CASECLOCK_H

#include "harness/backend.h"

/* Slope estimates per bracket, and the trials of each. */
#define CB_CLOCK_ESTIMATES 3
#define CB_CLOCK_TRIALS 7
/* No bracket is believed to better than this (%): on this project's VM the
 * core clock itself moves in 100 MHz steps (3.4% at 2.9 GHz) and single
 * slope estimates of one state agree to about 0.3%. */
#define CB_CLOCK_NOISE_FLOOR 0.5
/* A case's clock further than this from the run's (%) is never said to
 * agree with it, whatever its noise: a clock that moved by one 100 MHz
 * step on one side of a case reads 1.7% off, with 3.4% of noise, and is
 * not the clock of the case. */
#define CB_CLOCK_AGREE_MAX 1.0

/* An idle pause before the bracket before a case (ms): after 8 ms of csum
 * avx2 at 4 KiB the chain read one 100 MHz step low for 1-2 ms of scalar
 * work and about 0.5 ms asleep, and its own level after 5 ms either way. */
#define CB_CLOCK_SETTLE_MS 5.0

/* Two brackets that moved alike agree with each other within this (%). */
#define CB_CLOCK_CONFIRM 3.0

/* One bracket: the median of its estimates and their range. */
struct cb_clock_side {
    double ghz;                 /* 0 when no estimate worked */
    double noise_pct;           /* (max - min) / median of the estimates, % */
};

struct cb_case_clock {
    double ghz;                 /* the case's own clock: the brackets' mean; 0 none */
    double spread_pct;          /* its noise, % */
    double run_ghz;             /* the run's clock */
    double used_ghz;            /* the clock the case's cycles are converted at */
    int used_case;              /* 1: the case's own, 0: the run's */
    int flagged;                /* the case's clock disagreed with the run's */
    struct cb_clock_side before, after;
};

/* The rule, pure: agree (within the noise, and within CB_CLOCK_AGREE_MAX)
 * -> the case's clock, not flagged; both brackets beyond the noise on the
 * same side of the run's clock and within CB_CLOCK_CONFIRM of each other
 * -> the case's clock, flagged (a change confirmed on both sides);
 * otherwise the run's clock, flagged.  A case with no reading takes the
 * run's, flagged.  -EINVAL when run_ghz is not a clock. */
int cb_case_clock_choose(double run_ghz, const struct cb_clock_side *before,
                         const struct cb_clock_side *after, struct cb_case_clock *out);

/* One bracket through the backend: CB_CLOCK_ESTIMATES readings of
 * be->core_per_tick, in GHz at tsc_ghz. */
void cb_case_clock_side(const struct cb_backend *be, int imul, int side, double tsc_ghz,
                        struct cb_clock_side *out);

#endif
