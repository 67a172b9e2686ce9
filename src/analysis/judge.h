/* judge.h — compare's decision: every case common to BASE and HEAD, its
 * statistics and its verdict, with the acknowledgements applied.
 *
 * compare and bisect-check (src/cmd/verdict.h) print and turn into exit
 * codes what this decides; it reads the store only through sides.h, floor.h
 * and acks.h, so a verdict is cmd -> analysis -> store.  bisect-check must
 * reach the same verdict as 'compare BASE RUN' would on the same rows, so
 * both go through cmp_evaluate() and nothing else. */
#ifndef CB_JUDGE_H
#define CB_JUDGE_H

#include <stddef.h>

#include "analysis/acks.h"
#include "analysis/compare.h"
#include "analysis/floor.h"
#include "analysis/sides.h"
#include "store/store.h"
#include "util/strbuf.h"

enum corr { CORR_HOLM, CORR_BH };

struct cmp_opts {
    double alpha, threshold;      /* threshold as a fraction */
    double run_q;                 /* each run's figure when runs are the unit */
    double trim;                  /* Yuen's trimming fraction (0: Welch) */
    int keep_contended;           /* 1: do not leave out runs measured on a shared core */
    enum corr corr;
    const char *glob;             /* restrict to cases matching; NULL all */
    int exact;                    /* simulated counts: no test, the threshold alone decides */
    int threshold_set;            /* --threshold was given */
    const char *metric;           /* set by cmp_pick_metric: the floor is learned in it */
    const char *want;             /* --metric: the count asked for ("instructions"), or NULL */
    int placement_fails;          /* --placement-fails: a placement change fails the gate too */
    int nofloor_within;           /* no floor: let the within-run test call a case unchanged
                                     (bisect-check, one run a commit); compare never does */
    int paired;                   /* each side's runs are rounds, round r of A timed beside
                                     round r of B (ab): tested on the rounds' paired ratios */
    double level;                 /* paired: the interval's level (0: 0.95) */
};

/* From this many runs a side, a case is tested on its runs; below, against
 * the between-run noise floor (floor.h). */
#define CMP_RUNS_MIN 3
#define CMP_NO_INTERVAL "too few runs for an interval"

/* How a row was judged: paired rounds (ab) on the rounds' ratios
 * (paired.h); with 3+ runs a side on its runs; with fewer,
 * against the between-run noise floor (floor.h) and the within-run test
 * both; with no floor yet, not at all: unsure, whatever the samples say (a
 * change between two runs may be drift, and "unchanged" needs an
 * interval). */
enum cmp_test { CMP_TEST_RUNS, CMP_TEST_FLOOR, CMP_TEST_NOFLOOR, CMP_TEST_PAIRED };
/* Paired rounds (cmp_opts.paired) an unsure row would need, at most. */
#define CMP_ROUNDS_CAP 1000

/* What a row's verdict rests on, apart from the verdict (cmp_row's fields
 * of the same names). */
struct cmp_figs {
    struct cb_cmp_stats s, sw;
    enum cmp_test test;
    double floor_sd, floor_df;
    size_t left_out, samples_left_out;
};

struct cmp_row {
    const struct cb_side_case *a, *b;
    struct cb_cmp_stats s;        /* what the verdict rests on, as printed */
    struct cb_cmp_stats sw;       /* the within-run test on the samples (fewer than 3 runs a side) */
    double p_adj, pw_adj;         /* corrected p of s and of sw */
    enum cmp_test test;
    double floor_sd, floor_df;    /* the floor this case was judged against (CMP_TEST_FLOOR) */
    size_t more_runs;             /* unsure: runs a side still needed (CB_FLOOR_RUNS_CAP: many);
                                     paired, rounds (CMP_ROUNDS_CAP: many) */
    enum cb_cmp_verdict v;
    size_t left_out;              /* case runs left out: in a host state (cmp_state_meter) */
    size_t samples_left_out;      /* samples of kept runs taken on a shared core */
    /* A side kept too few quiet runs (2 with runs as the unit, else 1): the
     * row shows every sample's figures but is never a change, "unsure (host
     * state)" until both sides have quiet runs. */
    int host_state;
    int acked;
    /* A change (regressed or improved) whose code hash is the same on both
     * sides (sides.h, codehash.h) and whose placement differs (address mod
     * 4096): the code did not change, its placement did.  excused: a
     * placement regression the gate lets pass (no --placement-fails).  A
     * change with the same code at the same place is not excused: the row
     * says it is not explained by either. */
    int placement, excused;
    /* Not a change, and the same known code at the same place on both
     * sides: "unchanged (same code)", decided without more timing. */
    int same_code;
    double seen;                  /* unchanged: the largest change its interval allows */
    /* A host state with a known bound (the store's flagged runs: slowed by
     * a ratio, or converted at a clock off by a known amount): the most it
     * can have moved a figure (0.05: 5%), NAN none; the row is judged on
     * its figures with the flagged runs in.  beyond: its change lies
     * wholly past that bound and the threshold, so it is called a change. */
    double state_bound;
    int beyond;
    /* The row's figures without the flagged runs, put back when its change
     * is not beyond the state: the row then shows what it showed before. */
    struct cmp_figs held;
    char why[384];
};

struct cmp_result {
    struct cmp_row *rows;
    size_t n;
    int count[4];                 /* per verdict */
    int acked;                    /* regressions acknowledged */
    int placement;                /* changes labelled placement (cmp_row.placement) */
    int same_code;                /* rows unchanged by their code identity (cmp_row.same_code) */
    int host_state;               /* rows with a side in a host state, no change called */
    int beyond;                   /* rows in a host state whose change lies beyond it */
    size_t floor_own;             /* case runs of the compared sides in the floor, as their own groups */
    int exact;                    /* the rows are exact counts (cmp_opts.exact) */
    size_t floor_runs, floor_groups;  /* the learned floor: runs of the same bytes, groups */
    size_t floor_unkeyed;         /* runs of the host left out of it: no code identity (older) */
    size_t by_test[4];            /* rows per enum cmp_test, those in a host state apart */
};

/* The metric A and B are compared in (cb_sides_metric), with o fitted to
 * it: exact for simulated counts, with CB_CMP_EXACT_THRESHOLD unless
 * --threshold was given.  0, or -EXDEV with err set when one side's runs
 * were counted under callgrind and the other's timed: a count and a time
 * are not the same figure.  With o->want (--metric instructions): the
 * PMU's instruction counts, exact; -EINVAL for another name, -EXDEV when a
 * run did not count them. */
int cmp_pick_metric(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                    struct cmp_opts *o, const char **metric, struct cb_sb *err);
/* Every case common to A and B, with its statistics and verdict, the
 * acknowledgements applied.  0 or a negative errno. */
int cmp_evaluate(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                 const struct cmp_opts *o, struct cmp_result *res);
/* When no case could be compared (cmp_evaluate found none in common): why,
 * case by case, into out: the cases BAD (failed verification) or skipped
 * on a side, and those measured on one side only.  A gate that passes on
 * nothing measured is no gate. */
void cmp_nothing_compared(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                          struct cb_sb *out);

/* The one check of a run's state: a copy of c's per-sample meter where
 * every sample of a run the store flags (cb_side_case.flagged: the case's
 * clock disagreed with the run's, a host state) reads as contended, so
 * that cb_runs_quiet and cb_run_log_values leave that run out with the
 * samples the meter marks.  NULL when o->keep_contended (every sample
 * counts) or out of memory; the caller frees it. */
double *cmp_state_meter(const struct cb_side_case *c, const struct cmp_opts *o);

/* 1 when r fails the gate: regressed, neither acknowledged nor excused as
 * placement. */
int cmp_row_fails(const struct cmp_row *r);

#endif
