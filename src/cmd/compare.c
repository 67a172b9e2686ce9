/* compare.c — `compare`: the CI gate (ack.c and bisect-check.c are its kin;
 * verdict.c what they share).
 *
 * compare's exit status is the contract: 0 no regression, 1 a regression
 * that nobody acknowledged, 2 a usage or tool error.  It fails only for the
 * right reason: a regression needs a corrected p-value below --alpha and an
 * interval wholly beyond --threshold; runs from different
 * environments are refused rather than compared; aborted and running runs
 * count only when asked.  bisect-check speaks git bisect run's language
 * instead: 0 good, 1 bad, 125 cannot tell, and 128 (abort the bisection)
 * for errors, because git would read exit 2 as "bad". */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/output.h"
#include "cli/parse.h"
#include "report/path.h"
#include "report/report.h"
#include "cli/rerun.h"
#include "cli/cmp_common.h"
#include "cli/case_versus.h"

/* What the command line asked for. */
struct compare {
    struct cmp_common c;
    const char *base, *head;     /* the two sides as typed */
    int rerun;
    double cap_s;                 /* --rerun-time */
    const char *exec[2];          /* --base-exec, --head-exec */
    const char *junit;            /* --junit FILE, or NULL */
};

static const struct cb_opt_choice formats[] = {
    {"text", CB_FMT_TEXT}, {"markdown", CB_FMT_MARKDOWN}, {"md", CB_FMT_MARKDOWN}, {"json", CB_FMT_JSON},
    {"junit", CB_FMT_JUNIT}, {NULL, 0},
};

enum { OPT_RERUN_TIME = CB_OPT_LONG_ONLY, OPT_UNSURE_EXIT };

/* --unsure-exit N: 0, or 3..125 (1 and 2 already mean regression and
 * error; above 125 the shell's own). */
static int parse_unsure_exit(const char *s, int *out, struct cb_sb *err)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || !(v == 0 || (v >= 3 && v <= 125))) {
        cb_sb_setf(err, "--unsure-exit '%s': give 0, or a status from 3 to 125 (1 and 2 "
                 "already mean a regression and an error), e.g. 3", s);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* One of compare's own options: 0 taken, 1 not one of them, or -EINVAL. */
static int compare_opt(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct compare *k = ctx;
    switch (ch) {
    case OPT_RERUN_TIME: return cb_parse_seconds(arg, "--rerun-time", &k->cap_s, err);
    case OPT_UNSURE_EXIT: return parse_unsure_exit(arg, &k->c.unsure_exit, err);
    }
    return 1;
}

/* BASE, HEAD and the options (cb_cmd's parse step). */
static int compare_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct compare *k = ctx;
    static const struct cb_option options[] = {
        CB_OPT_GROUP(cmp_common_options, struct compare, c),
        CB_OPT_FORMAT(struct compare, c.fmt, formats,
                    "text (default), markdown (for a pull request), json, or junit (JUnit XML for a "
                    "CI's test report)"),
        CB_OPT_CALL(OPT_UNSURE_EXIT, "unsure-exit", "N",
                    "exit N (3 to 125) when no regression was found but a case could not be told "
                    "(unsure), so that a CI sees it; default 0"),
        CB_OPT_STR(0, "junit", struct compare, junit, "FILE",
                   "also write the verdicts as JUnit XML there (a CI reads it; --format stays what "
                   "the job log shows)"),
        CB_OPT_BOOL(0, "rerun", struct compare, rerun,
                    "measure the undecided cases again, both sides interleaved, until decided or "
                    "--rerun-time"),
        CB_OPT_CALL(OPT_RERUN_TIME, "rerun-time", "SEC", "the time cap of --rerun (default 60)"),
        CB_OPT_STR(0, "base-exec", struct compare, exec[0], "CMD",
                   "with --rerun: record BASE's new runs by running CMD, a shell command that "
                   "records a run (e.g. 'base/cyclebudget run --reps 30'), each run a process of "
                   "its own.  Without --base-exec and --head-exec, this binary measures both "
                   "sides, for A/A checks only"),
        CB_OPT_STR(0, "head-exec", struct compare, exec[1], "CMD",
                   "the same for HEAD's runs: give both or neither"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "compare",
        .synopsis =
            "usage: cyclebudget compare BASE HEAD [options]\n"
            "  BASE, HEAD: a run id, 'latest', a tag (all its runs), a commit (hash prefix or\n"
            "  git revision: all its runs), or a comma list of those (pooled)\n"
            "  or BASE, HEAD: RUN:probe/variant/size/mode each, one case against another\n"
            "  (e.g. latest:csum/avx2/1500/cold latest:csum/adc-1chain/1500/cold)\n",
        .options = options,
        .footer = "exit status: 0 no regression, 1 an unacknowledged regression, 2 usage or tool "
                  "error, or no case could be compared (each BAD or missing case named); N of "
                  "--unsure-exit when a case is unsure and none regressed\n",
        .option = compare_opt,
    };
    memset(k, 0, sizeof *k);
    cmp_common_defaults(&k->c, argc, argv);
    k->cap_s = 60;
    int rc = cb_getopt(argc, argv, &parser, k, err);
    if (rc != 0)
        return rc;
    const char *const *exec = k->exec;
    if ((exec[0] || exec[1]) && (!exec[0] || !exec[1] || !k->rerun || !*exec[0] || !*exec[1])) {
        cb_sb_setf(err, "--base-exec and --head-exec go together, with --rerun: give both "
                 "commands (e.g. --base-exec 'base/cyclebudget run --reps 30')");
        return -EINVAL;
    }
    if (argc - optind != 2) {
        cb_sb_setf(err, "compare needs exactly two sides, BASE and HEAD (got %d); see 'cyclebudget compare --help'",
                 argc - optind);
        return -EINVAL;
    }
    k->base = argv[optind];
    k->head = argv[optind + 1];
    if (cb_output_check(k->junit, k->c.db, err) < 0)
        return -EINVAL;
    if (cb_versus_is_case(k->base) != cb_versus_is_case(k->head)) {
        cb_sb_setf(err, "give two cases (RUN:probe/variant/size/mode) or two sides, not one "
                 "of each ('%s', '%s')", k->base, k->head);
        return -EINVAL;
    }
    return 0;
}

/* An emulated run times no machine (emulation.h): whichever side holds
 * one, compare draws no verdict and does not fail the gate on it, even
 * when both sides are emulated (the emulator's costs are not the code's: a
 * translation cache change moves them).  Said in --format's form and in
 * --junit's file. */
static void no_verdict(const struct compare *k, const struct cmp_verdict *v)
{
    struct cb_sb line = CB_SB_INIT;
    cb_sb_addf(&line, "no verdict: run %lld is emulated (%s): " CB_REPORT_EMULATED_WHAT,
               (long long)v->emulated_run, v->why.buf);
    cmp_print_no_verdict(k->c.fmt, v->emulated_run, v->why.buf, line.buf, stdout);
    struct cb_output o;
    struct cb_sb err = CB_SB_INIT;
    if (k->junit && cb_output_open(&o, k->junit, k->c.db, &err) == 0) {
        cmp_print_no_verdict(CB_FMT_JUNIT, v->emulated_run, v->why.buf, line.buf, o.f);
        cb_output_close(&o, 1, &err);
    }
    cb_sb_release(&err);
    cb_sb_release(&line);
}

/* Both sides resolved to one host each and judged (analysis/verdict.h).
 * 0, or the exit status to end with. */
static int compare_sides(struct cb_store *st, struct compare *k, struct cb_side *A,
                         struct cb_side *B, struct cmp_verdict *v)
{
    struct cb_sb err = CB_SB_INIT;
    struct cmp_common *c = &k->c;
    int rc;
    if ((rc = cb_side_resolve(st, k->base, c->include_aborted, c->repo, A, &err)) < 0 ||
        (rc = cb_side_resolve(st, k->head, c->include_aborted, c->repo, B, &err)) < 0 ||
        (rc = cmp_select_host(st, A, c->host, &err)) < 0 ||
        (rc = cmp_select_host(st, B, c->host, &err)) < 0 ||
        (rc = cb_verdict_judge(st, A, B, &c->o, c->force, v, &err)) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    cb_sb_release(&err);
    if (c->o.glob && v->outcome == CB_VERDICT_NOTHING) {
        cb_error("--cases '%s' matches no case common to both sides (names look like csum/adc-1chain/1500/warm)",
                 c->o.glob);
        return CB_EXIT_USAGE;
    }
    return 0;
}

/* --rerun: the undecided cases measured again until decided.  0, or the
 * exit status to end with. */
static int compare_rerun(struct cb_store *st, const struct compare *k, struct cb_side *A,
                         struct cb_side *B, struct cmp_verdict *v)
{
    struct cb_sb err = CB_SB_INIT;
    int rc = k->exec[0] ? cmp_rerun_exec(st, A, B, &k->c, k->cap_s, k->exec, v, &err)
                        : cmp_rerun(st, A, B, &k->c, k->cap_s, k->c.cmdline.buf, v, &err);
    if (rc < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return rc == -EINTR ? 130 : CB_EXIT_USAGE;
    }
    cb_sb_release(&err);
    return 0;
}

/* The outcome as compare's exit status: 0 pass, 1 an unacknowledged
 * regression, --unsure-exit's N when a case is unsure, 2 when nothing was
 * compared. */
static int compare_exit(const struct compare *k, enum cb_verdict_outcome out)
{
    switch (out) {
    case CB_VERDICT_FAIL: return 1;
    case CB_VERDICT_UNSURE: return k->c.unsure_exit;
    case CB_VERDICT_NOTHING: return CB_EXIT_USAGE;
    default: return 0;
    }
}

static const char *compare_db(const void *ctx)
{
    return ((const struct compare *)ctx)->c.db;
}

/* --junit FILE: the same verdicts as JUnit XML, beside the printed ones,
 * so that a CI job shows one format and reads the other from one compare
 * (a second compare would not see --rerun's new runs).  0 or -1 said. */
static int compare_junit(const char *path, const char *db, const struct cmp_ctx *x,
                         const struct cmp_result *res)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_output o;
    if (cb_output_open(&o, path, db, &err) < 0) {
        cb_error("--junit: %s", err.buf);
        cb_sb_release(&err);
        return -1;
    }
    cmp_print_junit(x, res, o.f);
    if (cb_output_close(&o, 1, &err) < 0) {
        cb_error("--junit: %s", err.buf);
        cb_sb_release(&err);
        return -1;
    }
    cb_sb_release(&err);
    return 0;
}

/* No case in common: a pass on nothing measured would let a broken
 * variant through the gate, so it is an error that names every BAD and
 * missing case. */
static void nothing_compared(const struct cb_side *A, const struct cb_side *B,
                             const struct cmp_verdict *v)
{
    cb_error("no case could be compared between %s and %s: %s; fix or drop the BAD variants, or "
             "compare runs that measured the same cases", A->spec, B->spec,
             v->why.len ? v->why.buf : "neither side has a case that passed verification");
}

/* Compare the sides, rerun the undecided, print the verdicts: decided in
 * analysis/verdict.c, printed by report/verdict_text.c. */
static int compare_body(void *ctx, struct cb_store *st)
{
    struct compare *k = ctx;
    if (cb_versus_is_case(k->base))
        return cb_versus_cases(st, k->c.db, k->base, k->head, k->c.include_aborted);
    struct cb_side A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    struct cmp_verdict v;
    cb_verdict_init(&v);
    struct cb_path_delta *paths = NULL;
    int status = compare_sides(st, k, &A, &B, &v);
    if (status == 0 && v.outcome == CB_VERDICT_EMULATED) {
        no_verdict(k, &v);
        goto out;
    }
    if (status == 0 && k->rerun && v.res.count[CB_CMP_UNSURE] > 0)
        status = compare_rerun(st, k, &A, &B, &v);
    if (status == 0 && v.outcome == CB_VERDICT_NOTHING) {
        nothing_compared(&A, &B, &v);
        status = CB_EXIT_USAGE;
        goto out;
    }
    if (status == 0) {
        if (cb_path_versus(st, A.runs, A.nruns, B.runs, B.nruns, &paths, &v.x.npaths) == 0) {
            cmp_path_verdicts(&v.res, paths, v.x.npaths);
            v.x.paths = paths;
        }
        status = compare_exit(k, v.outcome);
        cmp_print_result(&v.x, &k->c.o, k->c.fmt, &v.res, status, stdout);
        if (k->junit && compare_junit(k->junit, k->c.db, &v.x, &v.res) < 0)
            status = CB_EXIT_USAGE;
    }
out:
    free(paths);
    cb_verdict_release(&v);
    cb_side_free(&A);
    cb_side_free(&B);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    static const struct cb_cmd cmd = {compare_parse, CB_EXIT_USAGE, compare_db, CB_EXIT_USAGE, compare_body};
    struct compare k = {0};
    int rc = cb_cmd_main(&cmd, argc, argv, &k);
    cmp_common_release(&k.c);
    return rc;
}
