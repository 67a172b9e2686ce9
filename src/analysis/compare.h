/* compare.h — is HEAD slower than BASE?  The statistics of one verdict.
 *
 * A verdict needs two kinds of evidence, because either alone misleads: a
 * rank test (Mann-Whitney U) says whether the two sample sets differ at all,
 * and a bootstrap confidence interval of the relative change of the medians
 * says by how much.  With many cases compared at once, p-values are corrected
 * (Holm, or Benjamini-Hochberg) so that a suite of 144 cases does not raise
 * an alarm on noise alone (REFERENCE.md: none of the usual trackers does).
 *
 * Everything here is deterministic: the bootstrap uses a seeded PRNG, so the
 * same samples always give the same interval and the same verdict. */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** seeded through splitmix64: small, fast, well tested, and
 * ours, so a libc change never moves a stored verdict. */
struct cb_rng {
    uint64_t s[4];
};
void cb_rng_seed(struct cb_rng *r, uint64_t seed);
uint64_t cb_rng_next(struct cb_rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t cb_rng_below(struct cb_rng *r, uint64_t n);

/* Median (type 7: the mean of the two middle values when n is even) of v,
 * reordering v.  NAN for n == 0. */
double cb_median_inplace(double *v, size_t n);

#define CB_BOOT_RESAMPLES 2000
#define CB_BOOT_SEED 0x6379636c65627564ull   /* "cyclebud" */

/* Relative change of the medians, median(b)/median(a) - 1, and its
 * percentile-bootstrap interval at the given level (0.95): both sides are
 * resampled with replacement, resamples times.  Returns 0, -EINVAL when a
 * side is empty or a median is not positive, -ENOMEM. */
int cb_boot_rel_change(const double *a, size_t na, const double *b, size_t nb, int resamples,
                       uint64_t seed, double level, double *est, double *lo, double *hi);

/* Adjusted p-values for m tests (NAN entries are skipped and stay NAN; m
 * counts only the others).  Holm's step-down adjustment controls the chance
 * of any false alarm; Benjamini-Hochberg's step-up controls the expected
 * share of false alarms among the alarms.  adj may alias p.  0 or -ENOMEM. */
int cb_p_adjust_holm(const double *p, size_t m, double *adj);
int cb_p_adjust_bh(const double *p, size_t m, double *adj);

enum cb_cmp_verdict {
    CB_CMP_UNCHANGED,   /* the whole interval lies within +-threshold */
    CB_CMP_IMPROVED,    /* significant, and the whole interval below -threshold */
    CB_CMP_REGRESSED,   /* significant, and the whole interval above +threshold */
    CB_CMP_UNSURE,      /* anything else: the data cannot tell */
};
const char *cb_cmp_verdict_name(enum cb_cmp_verdict v);

/* The verdict from a corrected p-value and an interval of the relative
 * change (fractions: 0.02 is 2%).  Higher is worse (cycles per op). */
enum cb_cmp_verdict cb_cmp_decide(double p_adj, double lo, double hi, double alpha,
                                  double threshold);

/* The default threshold for exact (simulated) counts, for compare and
 * history: 0.1%.  They repeat to the last instruction, so a change far
 * smaller than timings can show is still real; 0.1% leaves room for a few
 * instructions of set-up moved by a compiler's layout change. */
#define CB_CMP_EXACT_THRESHOLD 0.001

/* One case's verdict as bisect-check weighs it. */
struct cb_bisect_row {
    enum cb_cmp_verdict v;
    int acked;            /* an acknowledged regression */
    int shared;           /* every sample of a side was taken on a shared core */
};
/* bisect-check's exit status over its cases: 1 (bad) for an unacknowledged
 * regression measured on a quiet core; else 125 (cannot tell) when a case is
 * unsure or regressed only on a shared core, whose sibling's load can double
 * a run's cycles (docs/regressions.md, "Bisecting"), or when no case was
 * compared (nothing measured is no pass); else 0 (good). */
int cb_bisect_exit(const struct cb_bisect_row *rows, size_t n);

/* One case compared: medians, change with interval, raw p-value.  The
 * verdict needs the corrected p-value, so it is set by the caller. */
struct cb_cmp_stats {
    size_t na, nb;
    double med_a, med_b;
    double change, lo, hi;        /* relative change and its 95% interval; NAN when unknown */
    double p;                     /* two-sided p; NAN when unknown */
    size_t runs_a, runs_b;        /* runs behind each side; the unit of the test when both >= 2 */
};
int cb_cmp_stats(const double *a, size_t na, const double *b, size_t nb, struct cb_cmp_stats *s);

/* Yuen's test: Welch's two-sample t-test on 20%-trimmed means (trim is the
 * fraction cut from each end; 0 gives Welch's own test).  est is
 * tm(y) - tm(x), [lo, hi] its interval at `level`, p two-sided, df
 * Welch-Satterthwaite's.  Trimming makes it robust to a few wild values on
 * either side, where a plain t-test's variance would explode, and unlike a
 * rank test its p-value has no floor, so it survives a correction for
 * hundreds of cases.  tm_x, tm_y: the trimmed means.  0, -EINVAL when a
 * side keeps fewer than 2 values, -ENOMEM. */
struct cb_yuen {
    double tm_x, tm_y, est, lo, hi, t, df, p;
};
int cb_yuen(const double *x, size_t nx, const double *y, size_t ny, double trim, double level,
            struct cb_yuen *out);

/* compare's default trim: none (Welch).  A 20% trim hid per-process
 * bimodal cases (two layout states, 550 or 800 cycles) behind two tight
 * groups and raised 2 false alarms in 100 A/A splits of the default suite;
 * wild runs from a busy host are left to the SMT meter instead. */
#define CB_RUNS_TRIM 0.0
#define CB_RUN_QUANTILE_DEFAULT 0.1

/* The same with runs as the unit, for sides of two or more runs each:
 * a_end[r] is where run r's samples end in a (cumulative).  Samples within
 * one run are far closer to each other than runs are to one another (the
 * core clock and the machine's load move between runs), so each run gives
 * one value, its q-quantile (type 7), and Yuen's test with the given trim
 * (0: Welch's) compares the logs of those: the change is the ratio of the
 * sides' trimmed geometric means (med_a and med_b), its interval and
 * p-value Yuen's.
 *
 * Why not pool the samples: that takes a run-to-run shift for a change
 * (with one run per side, A/A compares on this project's VM alarmed one
 * time in five).  Why trim, when asked: one run in five on a side may be a
 * wild one (seen here: a run 8% slow, or 2.4x slow while the host was busy).
 * Why a low quantile (0.1 by default) rather than the median: on a shared
 * host the interference is bimodal.  In one series an add chain ran at 0.598
 * TSC ticks per add most of the time and 0.676 (+13%) in the rest, and
 * which mode held the median flipped between runs, so run medians of the
 * same code moved by 5%; their 10th percentiles moved by 0.3%.  Interference
 * only ever adds time to CPU-bound code, so the low quantile is the code's
 * own cost.  0.5 gives the median. */
int cb_cmp_stats_runs(const double *a, const size_t *a_end, size_t a_runs, const double *b,
                      const size_t *b_end, size_t b_runs, double q, double trim,
                      struct cb_cmp_stats *s);

/* The quiet samples of each run: those whose SMT meter reading (smt[i],
 * beside value v[i]; tsc.h) is at most CB_METER_SHIFT.  A run with
 * min_quiet or more quiet samples keeps just those, and so does a run
 * whose every sample is quiet (a short one: --reps 3); a run with no reading
 * at all (recorded before the meter existed) keeps every sample; any other
 * run was measured on a shared core and is left out.  The kept values go to
 * out_v and the kept runs' cumulative ends to out_end; the count of kept
 * runs is returned, and *dropped gets the samples left out of kept runs.
 * Why: the host's load on the SMT sibling comes and goes within
 * milliseconds (over 100 ms windows, 0..100% of readings were contended,
 * typically 20..60%), and in it the same code took up to 3x the cycles, so
 * the samples taken alone on the core are the code's own cost.  smt NULL:
 * every run is kept whole. */
#define CB_QUIET_MIN 5
size_t cb_runs_quiet(const double *v, const double *smt, const size_t *end, size_t runs,
                     size_t min_quiet, double *out_v, size_t *out_end, size_t *dropped);

/* One figure per run, as compare counts it: out[r] is the log of the
 * q-quantile of run r's quiet samples when it has CB_QUIET_MIN of them (or
 * was never metered; quiet[r] = 1), else of all its samples (quiet[r] = 0:
 * a caller leaves such runs out when enough others remain).  -EINVAL for a
 * non-positive run figure. */
int cb_run_log_values(const double *v, const double *smt, const size_t *end, size_t runs,
                      double q, double *out, int *quiet);

#endif
