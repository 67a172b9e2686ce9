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

enum fmt { FMT_TEXT, FMT_MARKDOWN, FMT_JSON };
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
    char cmdline[2048];          /* as typed: for the runs a rerun records */
};

#define CMP_OPT_HOST 0x100   /* --host has no short form */
#define CMP_COMMON_LONGOPTS                                                                  \
    {"db", required_argument, 0, 'D'}, {"repo", required_argument, 0, 'R'},              \
    {"force", no_argument, 0, 'F'}, {"include-aborted", no_argument, 0, 'I'},            \
    {"alpha", required_argument, 0, 'a'}, {"threshold", required_argument, 0, 't'},      \
    {"correction", required_argument, 0, 'c'}, {"cases", required_argument, 0, 'G'},     \
    {"run-quantile", required_argument, 0, 'Q'}, {"keep-contended", no_argument, 0, 'K'},   \
    {"trim", required_argument, 0, 'T'}, {"help", no_argument, 0, 'h'},                 \
    {"host", required_argument, 0, CMP_OPT_HOST}

#define CMP_COMMON_HELP                                                                                   \
    "      --db PATH          database (default ./" CB_DEFAULT_DB ")\n"                               \
    "      --alpha P          significance after correction (default 0.01)\n"                         \
    "      --threshold PCT    a change must exceed this over the whole 95%% CI (default 2%%)\n"       \
    "      --correction C     holm (default: no false alarm in the family) or bh (false\n"            \
    "                         discovery rate)\n"                                                      \
    "      --cases GLOB       only cases whose name probe/variant/size/mode matches\n"                \
    "      --run-quantile Q   with 2+ runs a side, each run counts as its Q-quantile sample\n"       \
    "                         (default 0.1: robust to a shared host; 0.5 is the median)\n"          \
    "      --trim T           with 2+ runs a side, trim this share of runs from each end\n"       \
    "                         (Yuen's test; default 0: Welch's)\n"                               \
    "      --keep-contended   keep samples taken on a shared core (by default left out\n"          \
    "                         while 2+ runs a side keep 5+ quiet samples)\n"                      \
    "      --host H           only runs of the machine H: its id (as report shows it) or a\n"      \
    "                         hostname glob; needed when a side's runs come from several\n"       \
    "                         hosts (a merged store)\n"                                           \
    "      --force            compare runs from different environments (the output says so)\n"      \
    "      --include-aborted  let aborted and running runs count\n"                                   \
    "      --repo DIR         git tree for resolving revisions such as HEAD~1 (default .)\n"

/* "2", "2%", "0.5%": a percentage in [0, 100], as a fraction; what names
 * the option in the message. */
int cmp_parse_pct(const char *s, const char *what, double *out, char *err, size_t errlen);
/* Parse one of the shared options (ch as getopt_long returned it): 0 taken,
 * 1 not a shared option, or a negative errno with the message in err. */
int cmp_common_opt(int ch, struct cmp_common *c, char *err, size_t errlen);
void cmp_common_defaults(struct cmp_common *c, int argc, char **argv);
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
