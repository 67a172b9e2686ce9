/* verdict.h — what compare and bisect-check share: the statistical options,
 * evaluating BASE against HEAD case by case, the environment check, and the
 * printed verdict.
 *
 * bisect-check is compare with git bisect run's exit codes: it must reach
 * the same verdict as 'compare BASE RUN' would on the same rows, so both go
 * through these functions and nothing else. */
#ifndef CB_CMD_VERDICT_H
#define CB_CMD_VERDICT_H

#include <stdio.h>

#include "cmd.h"
#include "compare.h"
#include "acks.h"
#include "floor.h"
#include "sides.h"
#include "store.h"

enum fmt { FMT_TEXT, FMT_MARKDOWN, FMT_JSON, FMT_JUNIT };
enum corr { CORR_HOLM, CORR_BH };

struct cmp_opts {
    double alpha, threshold;      /* threshold as a fraction */
    double run_q;                 /* each run's figure when runs are the unit */
    double trim;                  /* Yuen's trimming fraction (0: Welch) */
    int keep_contended;           /* 1: do not leave out runs measured on a shared core */
    enum corr corr;
    enum fmt fmt;
    const char *glob;             /* restrict to cases matching; NULL all */
    int exact;                    /* simulated counts: no test, the threshold alone decides */
    int threshold_set;            /* --threshold was given */
    const char *metric;           /* set by cmp_pick_metric: the floor is learned in it */
    const char *want;             /* --metric: the count asked for ("instructions"), or NULL */
};

/* From this many runs a side, a case is tested on its runs; below, against
 * the between-run noise floor (floor.h). */
#define CMP_RUNS_MIN 3
#define CMP_NO_INTERVAL "too few runs for an interval"



/* How a row was judged: with 3+ runs a side on its runs; with fewer,
 * against the between-run noise floor (floor.h) and the within-run test
 * both; with no floor yet, by the within-run test alone, which can only
 * call it unchanged (a change it sees may be drift: unsure). */
enum cmp_test { CMP_TEST_RUNS, CMP_TEST_FLOOR, CMP_TEST_NOFLOOR };

struct cmp_row {
    const struct cb_side_case *a, *b;
    struct cb_cmp_stats s;        /* what the verdict rests on, as printed */
    struct cb_cmp_stats sw;       /* the within-run test on the samples (fewer than 3 runs a side) */
    double p_adj, pw_adj;         /* corrected p of s and of sw */
    enum cmp_test test;
    double floor_sd, floor_df;    /* the floor this case was judged against (CMP_TEST_FLOOR) */
    size_t more_runs;             /* unsure: runs a side still needed (CB_FLOOR_RUNS_CAP: many) */
    enum cb_cmp_verdict v;
    size_t left_out;              /* runs left out: too few samples on a quiet core */
    size_t samples_left_out;      /* samples of kept runs taken on a shared core */
    int all_contended;            /* too few quiet runs on a side: every run was used */
    int acked;
    char why[256];
};

struct cmp_result {
    struct cmp_row *rows;
    size_t n;
    int count[4];                 /* per verdict */
    int acked;                    /* regressions acknowledged */
    int exact;                    /* the rows are exact counts (cmp_opts.exact) */
    size_t floor_runs, floor_groups;  /* the learned floor: runs of identical builds, groups */
    size_t by_test[3];            /* rows per enum cmp_test */
};


struct cmp_ctx {
    const char *metric;
    const char *crosses;          /* NULL: same environment; else the difference */
    const char *cpu_note;         /* NULL, or that the sides pinned different CPUs of one class */
    char base_desc[512], head_desc[512];
    char cpu_buf[320];
};

struct cmp_common {
    const char *db, *repo;
    const char *host;            /* --host: a machine id prefix or hostname glob; NULL none */
    int force, include_aborted;
    struct cmp_opts o;
    struct cb_sb cmdline;        /* as typed: for the runs a rerun records; cmp_common_release */
};

/* The options compare and bisect-check share, relative to struct
 * cmp_common (cmd/options.h's groups): their ids are from
 * CMP_OPT_FIRST, below which each command numbers its own. */
#define CMP_OPT_FIRST (CB_OPT_LONG_ONLY + 100)
extern const struct cb_opt_group cmp_common_options;

/* "2", "2%", "0.5%": a percentage in [0, 100], as a fraction; what names
 * the option in the message. */
int cmp_parse_pct(const char *s, const char *what, double *out, char *err, size_t errlen);
void cmp_common_defaults(struct cmp_common *c, int argc, char **argv);
void cmp_common_release(struct cmp_common *c);
/* A side's runs must come from one machine: with --host (host non-NULL),
 * keep those of the machines it names (-ENOENT when none is left); without,
 * -EXDEV when they come from several.  The message in err. */
int cmp_select_host(struct cb_store *st, struct cb_side *s, const char *host, char *err,
                    size_t errlen);
/* The metric A and B are compared in (cb_sides_metric), with o fitted to
 * it: exact for simulated counts, with CB_CMP_EXACT_THRESHOLD unless
 * --threshold was given.  0, or -EXDEV with err set when one side's runs
 * were counted under callgrind and the other's timed: a count and a time
 * are not the same figure. */
int cmp_pick_metric(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                    struct cmp_opts *o, const char **metric, char *err, size_t errlen);
/* Every case common to A and B, with its statistics and verdict, the
 * acknowledgements applied.  0 or a negative errno. */
int cmp_evaluate(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                 const struct cmp_opts *o, struct cmp_result *res);
/* One line naming a side's runs and commits, for the header. */
void cmp_describe_side(struct cb_store *st, const struct cb_side *s, char *buf, size_t len);
void cmp_print_result(const struct cmp_ctx *x, const struct cmp_opts *o,
                      const struct cmp_result *res, int exit_status, FILE *f);
/* compare's exit status: 1 when a regression is not acknowledged, else 0. */
/* JUnit XML (verdict_junit.c): one testcase per case, a failure for each
 * unacknowledged regression. */
void cmp_print_junit(const struct cmp_ctx *x, const struct cmp_result *res, FILE *f);
int cmp_exit_of(const struct cmp_result *res);
/* Check the fingerprints: within each side and across.  Returns 0, or
 * -EXDEV with the message in err when refused. */
int cmp_check_env(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, int force,
                  char *crosses, size_t clen, char *err, size_t errlen);

/* When the sides' runs were pinned to different CPUs (of one class, or
 * cmp_check_env would have refused): a note saying so; else "". */
void cmp_cpu_note(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, char *buf,
                  size_t len);

#endif
