/* floor.h — the between-run noise floor: how far one case's figure moves
 * from one run to the next when nothing changed.
 *
 * Samples inside one run are not independent of the run: the core clock,
 * the cold set's page placement and the host's load shift whole runs.  On
 * this project's 2-vCPU VM two runs of the same build moved cold cases by up
 * to 7% while each run's own interval was 0.5% wide, so a test on the
 * samples of one run a side called 5 of 6 A/A pairs regressed.
 * With 3+ runs a side compare tests on runs; with fewer, this floor stands
 * in for the spread a side cannot show by itself (Kalibera and Jones,
 * "Rigorous benchmarking in reasonable time": the run is the unit).
 *
 * The floor is learned from the store, by query, at compare time: every
 * complete run of the same host and environment (fingerprint, pinned CPU
 * class) is grouped by the bytes it measured (runs.code_id, codeid.h: the
 * measuring binary's build-id, LD_PRELOAD, the CB_* variables that change
 * the code; the plugins' hashes; the clock backend).  Runs recorded before
 * the code identity existed are left out: a build row and a commit do not
 * say which bytes ran (a dirty tree, an LD_PRELOAD'd wrapper, a planted
 * slowdown all shared one, and a regression taught its own floor), and
 * so are runs a slowed host measured and, case by case, a case run in a
 * host state (floor.c).  Within each group of 2+ runs, each run's figure
 * (the log of its q-quantile, cb_run_log_values) deviates from its group's
 * median; the spread of those deviations is estimated robustly per case (a
 * deviation beyond CB_FLOOR_REJECT times their MAD is a wild run, left out,
 * so one wild run moves it little), with sum(runs - 1) degrees of freedom, less
 * one for each run left out.  No table holds it, because it depends
 * on what compare chooses (metric, quantile, contended runs) and because
 * every new run of the same bytes must count without a writer knowing.
 * The runs being compared are never grouped with others: each side's own
 * runs are a group of their own (judge.c), so the floor never contains the
 * change it judges, and a side's runs count toward the spread it is judged
 * by. */
#ifndef CB_FLOOR_H
#define CB_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/compare.h"
#include "analysis/sides.h"
#include "store/store.h"

/* At most this many of the host's newest runs are read to learn a floor. */
#define CB_FLOOR_MAX_RUNS 256
/* A floor needs one degree of freedom: two runs of one build.  With one,
 * the 95% t-quantile is 12.7 and Holm's bound far more, so such a floor
 * decides only gross changes (a planted 4x slowdown against two base runs),
 * and the within-run test must agree; the t distribution is what accounts
 * for a spread estimated from so few runs. */
#define CB_FLOOR_MIN_DF 1

struct cb_floor_case {
    char key[CB_CASE_KEY_MAX];
    double *res;        /* each run's deviation from its group's median, scaled (cb_floor_add) */
    size_t nres, cap;
    size_t df;          /* sum over groups of (runs - 1), less the wild runs left out */
    size_t rejected;    /* wild runs left out (cb_floor_finish) */
    double sd;          /* the robust spread (cb_floor_finish); NAN below CB_FLOOR_MIN_DF */
};

struct cb_floor {
    struct cb_floor_case *c;
    size_t n, cap;
    size_t runs, groups;      /* runs in groups of 2+, and those groups */
    size_t unkeyed;           /* runs of the host with no code identity (older): left out */
    size_t own;               /* case runs of the compared sides, each side a group of its own */
    double s0;                /* the host's typical spread: the median of the cases' (NAN none) */
};

/* A deviation beyond this many robust standard deviations (1.4826 times
 * the median absolute deviation) is a wild run, not the spread: one run
 * 2.4x slow (a busy host) in a group of 8 of 3% otherwise raised the floor
 * of every case to 31% for every compare after it, and winsorizing it at
 * 2.5 still left 4.2%.  At 4, a group of 8 normal runs loses a run to it
 * about 1 time in 11, and the estimate averages 2.5% below the pooled
 * standard deviation's (simulated: 0.934 against 0.958). */
#define CB_FLOOR_REJECT 4.0

/* Each case's spread is moderated toward the host's typical one, as
 * limma's moderated t does (Smyth 2004): s^2 = (df s_case^2 + d0 s0^2) /
 * (df + d0), with df + d0 degrees of freedom.  A case whose few floor runs
 * happened to agree otherwise gets a floor too thin for the next run's
 * shift: in the first A/A pairs of the csum suite on this project's VM, four
 * 64-byte warm cases moved by 3-4% together in one pair against per-case
 * floors of 0.3% (8 runs), and were called improved.  And no case is taken
 * to be quieter than the host's typical case: s is at least s0, since a
 * shift of the whole run (the core-clock estimate, the host's load) moves
 * the steadiest case too. */
#define CB_FLOOR_PRIOR_DF 4.0
/* The moderated spread and degrees of freedom of c (own groups added) in
 * f's host; c's own when f has no s0. */
void cb_floor_moderate(const struct cb_floor *f, const struct cb_floor_case *c, double *sd,
                       double *df);

/* Learn the floor of ref_run's host and environment in metric, each run
 * counted by its q-quantile (its quiet samples unless keep_contended),
 * leaving out the runs in skip[nskip].  0, or a negative errno. */
int cb_floor_learn(struct cb_store *st, int64_t ref_run, const char *metric, double q,
                   int keep_contended, const int64_t *skip, size_t nskip, struct cb_floor *f);
/* The same without cb_floor_finish: more groups may be added first (the
 * compared sides' own runs, judge.c), then cb_floor_finish once. */
int cb_floor_learn_groups(struct cb_store *st, int64_t ref_run, const char *metric, double q,
                          int keep_contended, const int64_t *skip, size_t nskip,
                          struct cb_floor *f);
/* Add one group's log run figures x[n] to case key's floor (n < 2: none):
 * each one's deviation from the group's median, times sqrt(n / (n - 1)) so
 * that its square estimates the variance whatever the group's size. */
int cb_floor_add(struct cb_floor *f, const char *key, const double *x, size_t n);
/* Each case's robust spread (cb_floor_robust_sd) and the host's s0, once
 * every group is added (cb_floor_learn calls it). */
void cb_floor_finish(struct cb_floor *f);
/* The spread of deviations res[n]: the root mean square of those not
 * slower than CB_FLOOR_REJECT times their robust spread 1.4826 median|res|;
 * the others counted in *rejected.  NAN when none is left.  Only a slow run
 * is wild: interference only ever adds time (compare.h), so a run far
 * faster than its group is the case's own spread (a 4 MiB buffer that fit
 * the L2 in one run), not the host's.  Rejected both ways, a group of 3
 * whose fast run sat 6 times farther out than the other lost it about one
 * time in ten: a case that moved 12% in 3 runs got the host's 0.8% floor,
 * and the next run's shift of the same code read as a regression. */
double cb_floor_robust_sd(const double *res, size_t n, size_t *rejected);
const struct cb_floor_case *cb_floor_find(const struct cb_floor *f, const char *key);
/* The floor's standard deviation of one run's log figure; NAN below
 * CB_FLOOR_MIN_DF. */
double cb_floor_sd(const struct cb_floor_case *c);
void cb_floor_free(struct cb_floor *f);

/* The change of b's runs over a's (log figures la[na], lb[nb], 1 or 2 a
 * side) against a floor of standard deviation sd with df degrees of
 * freedom: the ratio of the geometric means, its 95% t interval with
 * se = sd * sqrt(1/na + 1/nb), and the two-sided p.  -EINVAL when a side is
 * empty or sd is not a number. */
int cb_floor_stats(const double *la, size_t na, const double *lb, size_t nb, double sd, double df,
                   struct cb_cmp_stats *s);

/* The tails of one run against another are heavier than a normal floor's:
 * in A/A pairs of the csum suite on this project's loaded VM (9 sessions on
 * 2 vCPUs), cold cases moved by -36% and +65% against floors of 4-6%
 * learned from 10 runs, and a warm case doubled (+106%) against a floor of
 * 3.7% learned from 16: 14 standard errors.  So the interval and p of
 * cb_floor_stats are Student's t with at most 5 degrees of freedom,
 * whatever the floor's own.  It was 3 while the floor pooled squares (wild
 * runs in it) and the compared sides' own runs; with the robust floor of
 * the same bytes, 3 left a +89% memcpy slowdown unsure one run a side (p
 * (adj) 0.019 over 20 cases), 5 finds it (0.0009), and six A/A pairs of
 * the same 20 cases on the loaded VM all exited 0. */
#define CB_FLOOR_TAIL_DF 5.0

/* Runs a side that would decide a case whose change holds at `change`
 * when the sides are tested on their runs (compare's test from
 * CMP_RUNS_MIN runs a side: Welch's t, with 2n - 2 degrees of freedom for n
 * runs a side of spread sd), with 80% power: the n at which a change
 * clears the threshold band (p below alpha at Holm's first step for m
 * cases, and the 95% interval beyond the threshold), or an unchanged case's
 * interval lies within it, 4 times in 5.  At least 3; CB_FLOOR_RUNS_CAP
 * when it would take more (a change at the threshold itself is never
 * decided). */
#define CB_FLOOR_RUNS_CAP 50
#define CB_FLOOR_POWER 0.8
size_t cb_floor_runs_needed(double change, double sd, double alpha, size_t m, double threshold);

#endif
