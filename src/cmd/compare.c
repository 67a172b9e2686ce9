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

#include "output.h"
#include "parse.h"
#include "path.h"
#include "report.h"
#include "rerun.h"
#include "verdict.h"
#include "case_versus.h"

/* compare_sides: a side holds an emulated run; no verdict, said, exit 0. */
#define CMP_NO_VERDICT (-1)

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
    {"text", FMT_TEXT}, {"markdown", FMT_MARKDOWN}, {"md", FMT_MARKDOWN}, {"json", FMT_JSON},
    {"junit", FMT_JUNIT}, {NULL, 0},
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

/* "no verdict" as the format asks: a JUnit suite of one skipped test, so
 * that a CI's report shows it rather than a green tick. */
static void no_verdict_print(enum fmt fmt, int64_t run, const char *why, const char *line, FILE *f)
{
    if (fmt == FMT_JSON) {
        fprintf(f, "{\"verdict\":null,\"emulated_run\":%lld,\"emulated\":", (long long)run);
        cb_json_str(f, why);
        fputs(",\"no_verdict\":", f);
        cb_json_str(f, line);
        fputs("}\n", f);
    } else if (fmt == FMT_JUNIT) {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cyclebudget compare\" "
              "tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n  <testsuite name=\""
              "cyclebudget compare\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" "
              "time=\"0\">\n    <testcase classname=\"cyclebudget\" name=\"emulated\" time=\"0\">"
              "\n      <skipped message=\"", f);
        cb_html_esc(f, line);
        fputs("\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n", f);
    } else {
        char clean[768];
        cb_text_clean(clean, sizeof clean, line);
        fprintf(f, "%s\n", clean);
    }
}

/* A run on an emulated CPU times no machine (emulation.h): whichever side
 * holds one, compare draws no verdict and does not fail the gate on it,
 * even when both sides are emulated (the emulator's costs are not the
 * code's: a translation cache change moves them).  1 when said (also in
 * --junit's file), 0 when every run was native. */
static int no_verdict(struct cb_store *st, const struct compare *k, const struct cb_side *A,
                      const struct cb_side *B)
{
    struct cb_sb why = CB_SB_INIT, line = CB_SB_INIT;
    int64_t run = 0;
    /* --metric instructions counts, it does not time: an emulator that
     * executes each instruction as the architecture says (qemu's PMU
     * under -icount) counts them as a core would */
    if (k->c.o.want)
        return 0;
    if (cb_store_runs_emulated(st, A->runs, A->nruns, &run, &why) != 1 &&
        cb_store_runs_emulated(st, B->runs, B->nruns, &run, &why) != 1) {
        cb_sb_release(&why);
        return 0;
    }
    cb_sb_addf(&line, "no verdict: run %lld is emulated (%s): " CB_REPORT_EMULATED_WHAT,
               (long long)run, why.buf);
    no_verdict_print(k->c.fmt, run, why.buf, line.buf, stdout);
    struct cb_output o;
    struct cb_sb err = CB_SB_INIT;
    if (k->junit && cb_output_open(&o, k->junit, k->c.db, &err) == 0) {
        no_verdict_print(FMT_JUNIT, run, why.buf, line.buf, o.f);
        cb_output_close(&o, 1, &err);
    }
    cb_sb_release(&err);
    cb_sb_release(&why);
    cb_sb_release(&line);
    return 1;
}

/* No case in common: a pass on nothing measured would let a broken
 * variant through the gate, so it is an error that names every BAD and
 * missing case.  CB_EXIT_USAGE. */
static int nothing_compared(struct cb_store *st, const struct cb_side *A, const struct cb_side *B)
{
    struct cb_sb why = CB_SB_INIT;
    cmp_nothing_compared(st, A, B, &why);
    cb_error("no case could be compared between %s and %s: %s; fix or drop the BAD variants, or "
             "compare runs that measured the same cases", A->spec, B->spec,
             why.len ? why.buf : "neither side has a case that passed verification");
    cb_sb_release(&why);
    return CB_EXIT_USAGE;
}

/* Both sides resolved, their environments checked, their samples loaded
 * and compared case by case.  0, CMP_NO_VERDICT, or the exit status to end
 * with. */
static int compare_sides(struct cb_store *st, struct compare *k, const char *base, const char *head,
                         struct cb_side *A, struct cb_side *B, struct cmp_ctx *x,
                         struct cb_sb *crosses, struct cmp_result *res)
{
    struct cb_sb err = CB_SB_INIT;
    const struct cmp_common *c = &k->c;
    int rc;
    if ((rc = cb_side_resolve(st, base, c->include_aborted, c->repo, A, &err)) < 0 ||
        (rc = cb_side_resolve(st, head, c->include_aborted, c->repo, B, &err)) < 0 ||
        (rc = cmp_select_host(st, A, c->host, &err)) < 0 ||
        (rc = cmp_select_host(st, B, c->host, &err)) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if (no_verdict(st, k, A, B)) {
        cb_sb_release(&err);
        return CMP_NO_VERDICT;
    }
    if ((rc = cmp_check_env(st, A, B, c->force, crosses, &err)) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    x->crosses = crosses->len ? crosses->buf : NULL;
    cmp_cpu_note(st, A, B, x->cpu_buf, sizeof x->cpu_buf);
    x->cpu_note = x->cpu_buf[0] ? x->cpu_buf : NULL;
    if (cmp_pick_metric(st, A, B, &k->c.o, &x->metric, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if ((rc = cb_side_load(st, A, x->metric)) < 0 || (rc = cb_side_load(st, B, x->metric)) < 0 ||
        (rc = cmp_evaluate(st, A, B, &c->o, res)) < 0) {
        cb_error("cannot read the samples from %s: %s", c->db, strerror(-rc));
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if (c->o.glob && res->n == 0) {
        cb_error("--cases '%s' matches no case common to both sides (names look like csum/adc-1chain/1500/warm)",
                   c->o.glob);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if (res->n == 0) {
        cb_sb_release(&err);
        return nothing_compared(st, A, B);
    }
    cb_sb_release(&err);
    return 0;
}

/* --rerun: the undecided cases measured again until decided.  0, or the
 * exit status to end with. */
static int compare_rerun(struct cb_store *st, const struct compare *k, struct cb_side *A,
                         struct cb_side *B, struct cmp_ctx *x, struct cb_sb *crosses,
                         struct cmp_result *res)
{
    struct cb_sb err = CB_SB_INIT;
    int rc = k->exec[0] ? cmp_rerun_exec(st, A, B, x->metric, &k->c, k->cap_s, k->exec, res, crosses, &err)
                        : cmp_rerun(st, A, B, x->metric, &k->c, k->cap_s, k->c.cmdline.buf, res, &err);
    if (rc < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return rc == -EINTR ? 130 : CB_EXIT_USAGE;
    }
    x->crosses = crosses->len ? crosses->buf : NULL;
    cb_sb_release(&err);
    return 0;
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

/* Compare the sides, rerun the undecided, print the verdicts. */
static int compare_body(void *ctx, struct cb_store *st)
{
    struct compare *k = ctx;
    if (cb_versus_is_case(k->base))
        return cb_versus_cases(st, k->c.db, k->base, k->head, k->c.include_aborted);
    struct cb_side A, B;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    struct cmp_result res = {0};
    struct cmp_ctx x = {0};
    struct cb_path_delta *paths = NULL;
    struct cb_sb crosses = CB_SB_INIT;
    int status = compare_sides(st, k, k->base, k->head, &A, &B, &x, &crosses, &res);
    if (status == CMP_NO_VERDICT) {
        status = 0;
        goto out;
    }
    if (status == 0 && k->rerun && res.count[CB_CMP_UNSURE] > 0)
        status = compare_rerun(st, k, &A, &B, &x, &crosses, &res);
    if (status == 0) {
        cmp_describe_side(st, &A, x.base_desc, sizeof x.base_desc);
        cmp_describe_side(st, &B, x.head_desc, sizeof x.head_desc);
        cmp_record_hint(st, &A, &res, x.record, sizeof x.record);
        if (cb_path_versus(st, A.runs, A.nruns, B.runs, B.nruns, &paths, &x.npaths) == 0) {
            cmp_path_verdicts(&res, paths, x.npaths);
            x.paths = paths;
        }
        status = cmp_exit_of(&res, k->c.unsure_exit);
        cmp_print_result(&x, &k->c, &res, status, stdout);
        if (k->junit && compare_junit(k->junit, k->c.db, &x, &res) < 0)
            status = CB_EXIT_USAGE;
    }
out:
    free(paths);
    free(res.rows);
    cb_side_free(&A);
    cb_side_free(&B);
    cb_sb_release(&crosses);
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
