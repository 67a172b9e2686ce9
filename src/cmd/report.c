/* cmd_report.c — `cyclebudget report`: read runs back and print or export them.
 *
 * Reports only read the store, so any past run can be reported from a copied
 * database.  Every argument is checked and every run loaded before the output
 * file is created; a file is written beside its final name and renamed into
 * place, so a failure never leaves half a report (output.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/crossover.h"
#include "report/format.h"
#include "analysis/budget.h"
#include "cli/budget_opts.h"
#include "cli/cmd.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "analysis/race.h"
#include "report/race_report.h"
#include "report/report.h"
#include "analysis/sides.h"
#include "store/store.h"
#include "util/strbuf.h"
#include "report/text_toc.h"
#include "report/versus_text.h"

#define VS_NAME_MAX 64 /* as a stored case's variant name */

static const struct cb_opt_choice formats[] = {
    {"text", CB_FMT_TEXT}, {"html", CB_FMT_HTML}, {"csv", CB_FMT_CSV},
    {"json", CB_FMT_JSON}, {"gbench", CB_FMT_GBENCH}, {NULL, 0},
};

/* What report was asked for. */
struct report_args {
    const char *db, *budget_arg, *outpath;
    struct cb_budget_opts bo;  /* --link, --frame, --context, --fpu-batch */
    const char *section;       /* --section NAME: that part of the text report only */
    double ghz;                /* --ghz, 0 when not given */
    enum cb_format fmt;
    int samples, include_aborted;
    char **specs;              /* RUN|latest|TAG ..., or "latest" */
    size_t nspec;
    char versus[2][VS_NAME_MAX]; /* --versus A,B; "" none */
};

/* The text report of the runs, whole (cb_text_toc then adds its contents). */
static int emit_text(struct cb_store *st, const struct report_args *a, const struct cb_report *runs,
                     size_t n, int color, FILE *out)
{
    const struct cb_budget *b = &a->bo.budget;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct cb_text_opts to = {.budget = b, .color = color};
        if (i)
            fputs("\n\n", out);
        rc = cb_report_text(&runs[i], &to, out);
        if (rc == 0)
            rc = cb_report_crossover_text(&runs[i], out);
        if (rc == 0)
            rc = cb_report_fusion_text(&runs[i], out);
        if (rc == 0)
            rc = cb_report_packet_text(&runs[i], b, out);
        if (rc == 0 && a->versus[0][0])
            cb_report_versus_text(&runs[i], a->versus[0], a->versus[1], out);
    }
    /* The latest race per host: the decisions this machine's runs led to. */
    if (rc == 0 && cb_race_report_text(st, out) < 0)
        rc = -EIO;
    return rc;
}

/* The text report with its contents, or the one --section: rendered in
 * memory first, so that the contents can give line numbers.  -ENOENT (said)
 * for a section the report has not. */
static int emit_toc(struct cb_store *st, const struct report_args *a, const struct cb_report *runs,
                    size_t n, int color, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -ENOMEM;
    int rc = emit_text(st, a, runs, n, color, m);
    if (fclose(m) != 0 && rc == 0)
        rc = -ENOMEM;
    if (rc == 0) {
        struct cb_sb why = CB_SB_INIT;
        rc = cb_text_toc(buf, len, a->section, out, &why);
        if (rc == -ENOENT)
            cb_error("--section: %s", why.buf);
        cb_sb_release(&why);
    }
    free(buf);
    return rc;
}

static int emit(struct cb_store *st, const struct report_args *a, const struct cb_report *runs,
                size_t n, int color, FILE *out)
{
    const struct cb_budget *b = &a->bo.budget;
    int samples = a->samples;
    switch (a->fmt) {
    case CB_FMT_TEXT: return emit_toc(st, a, runs, n, color, out);
    case CB_FMT_HTML: return cb_report_html(runs, n, b, out);
    case CB_FMT_CSV: return cb_report_csv(runs, n, samples, out);
    case CB_FMT_JSON: return cb_report_json(runs, n, out);
    case CB_FMT_GBENCH: return cb_report_gbench(runs, n, out);
    default: return -EINVAL;   /* compare's formats: --format's table offers none */
    }
}

/* --versus A,B: two variant names, different. */
static int parse_versus(const char *arg, char (*v)[VS_NAME_MAX], struct cb_sb *err)
{
    const char *comma = strchr(arg, ',');
    size_t la = comma ? (size_t)(comma - arg) : 0;
    if (!comma || !la || !comma[1] || strchr(comma + 1, ',') || la >= VS_NAME_MAX ||
        strlen(comma + 1) >= VS_NAME_MAX || (strlen(comma + 1) == la &&
        !strncmp(arg, comma + 1, la))) {
        cb_sb_setf(err, "--versus '%s': give two different variant names, A,B (e.g. "
                 "--versus avx2,adc-1chain)", arg);
        return -EINVAL;
    }
    snprintf(v[0], VS_NAME_MAX, "%.*s", (int)la, arg);
    snprintf(v[1], VS_NAME_MAX, "%s", comma + 1);
    return 0;
}

enum { OPT_VERSUS = CB_OPT_LONG_ONLY, OPT_GHZ };

static int report_opt(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct report_args *a = ctx;
    switch (ch) {
    case OPT_VERSUS: return parse_versus(arg, a->versus, err);
    case OPT_GHZ:
        if (cb_parse_seconds(arg, "--ghz", &a->ghz, err) < 0 || a->ghz > 100) {
            cb_sb_setf(err, "--ghz '%s': give the core clock in GHz, e.g. 3.5", arg);
            return -EINVAL;
        }
        return 0;
    case 'o':
        if (!*arg) {
            cb_sb_setf(err, "-o needs a file name (or - for standard output)");
            return -EINVAL;
        }
        a->outpath = arg;
        return 0;
    }
    return 1;
}

/* The options, the runs named, and the budget: cb_getopt's 0, 1, -EINVAL
 * (err set) or -ENOENT. */
static int report_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct report_args *a = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR(0, "db", struct report_args, db, "PATH", "database (default: ./" CB_DEFAULT_DB ")"),
        CB_OPT_FORMAT(struct report_args, fmt, formats,
                      "text (default), html, csv, json, or gbench (Google Benchmark JSON)"),
        CB_OPT_CALL('o', "output", "FILE", "write there instead of standard output"),
        CB_OPT_STR(0, "section", struct report_args, section, "NAME",
                   "text: only this section, as the contents at the top of the text report name "
                   "it (run N, a family such as csum, kernel, crossover, throughput, ...)"),
        CB_OPT_BOOL(0, "samples", struct report_args, samples,
                    "csv: one row per sample instead of one per case"),
        CB_OPT_BOOL(0, "include-aborted", struct report_args, include_aborted,
                    "latest and tags may name an aborted run (interrupted or killed)"),
        CB_OPT_STR(0, "budget", struct report_args, budget_arg, "B",
                   "the same as --link (kept for scripts)"),
        CB_OPT_GROUP(cb_budget_options, struct report_args, bo),
        CB_OPT_CALL(OPT_VERSUS, "versus", "A,B",
                    "text: variant A against B at each probe, size and mode that has both, with "
                    "the interval of their ratio"),
        CB_OPT_CALL(OPT_GHZ, "ghz", "G",
                    "the core clock a budget in cycles is converted at (default: the run's; --sim "
                    "runs have none: without --ghz, no budget share)"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "report",
        .synopsis = "usage: cyclebudget report [RUN|latest|TAG ...] [options]\n",
        .options = options,
        .option = report_opt,
    };
    static char *latest[] = {"latest"};
    *a = (struct report_args){.db = cb_default_db(), .budget_arg = "10G"};
    cb_budget_opts_init(&a->bo);
    int rc = cb_getopt(argc, argv, &parser, a, err);
    if (rc != 0)
        return rc;
    if (a->versus[0][0] && a->fmt != CB_FMT_TEXT) {
        cb_sb_setf(err, "--versus goes with the text report (leave out --format)");
        return -EINVAL;
    }
    if (a->section && a->fmt != CB_FMT_TEXT) {
        cb_sb_setf(err, "--section picks a part of the text report (leave out --format)");
        return -EINVAL;
    }
    if (a->samples && a->fmt != CB_FMT_CSV) {
        cb_sb_setf(err, "--samples goes with --format csv (json always has the samples)");
        return -EINVAL;
    }
    a->specs = optind < argc ? argv + optind : latest;
    a->nspec = optind < argc ? (size_t)(argc - optind) : 1;
    if (a->fmt == CB_FMT_GBENCH && a->nspec > 1) {
        cb_sb_setf(err, "--format gbench takes one run, tag or commit (a tag's or commit's runs "
                 "are exported together, each a repetition)");
        return -EINVAL;
    }
    if (cb_output_check(a->outpath, a->db, err) < 0)
        return -EINVAL;
    return cb_budget_opts_finish(&a->bo, a->budget_arg, err);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The runs named, as ids: one per RUN|latest|TAG (the newest of a tag); for
 * gbench, every run of its one tag or commit, oldest first, each to be a
 * repetition (a tag of 8 runs once exported its newest alone, silently).
 * 0, or the exit status with the message said. */
static int report_resolve(struct cb_store *st, const struct report_args *a, int64_t **ids, size_t *n)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_side side = {0};
    *n = 0;
    if (a->fmt == CB_FMT_GBENCH && cb_side_resolve(st, a->specs[0], a->include_aborted, NULL, &side, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    size_t want = a->fmt == CB_FMT_GBENCH ? side.nruns : a->nspec;
    if (!(*ids = calloc(want + 1, sizeof **ids))) {
        cb_side_free(&side);
        cb_error("out of memory");
        cb_sb_release(&err);
        return 1;
    }
    for (size_t i = 0; i < want; i++) {
        if (a->fmt == CB_FMT_GBENCH)
            (*ids)[i] = side.runs[i];
        else if (cb_store_run_resolve_status(st, a->specs[i], a->include_aborted, &(*ids)[i], &err) < 0) {
            cb_error("%s", err.buf);
            cb_sb_release(&err);
            return CB_EXIT_USAGE;
        }
    }
    if (a->fmt == CB_FMT_GBENCH)
        qsort(*ids, want, sizeof **ids, cmp_id);
    cb_side_free(&side);
    *n = want;
    cb_sb_release(&err);
    return 0;
}

/* Every run, loaded before any output is made.  0, or the exit status
 * with the message said; *nloaded runs are then to be freed. */
static int report_load_runs(struct cb_store *st, const struct report_args *a, const int64_t *ids,
                            size_t n, struct cb_report *runs, size_t *nloaded)
{
    struct cb_sb err = CB_SB_INIT;
    for (size_t i = 0; i < n; i++) {
        int rc = cb_report_load(st, ids[i], &runs[i]);
        *nloaded = i + 1;
        if (rc == 0)
            cb_budget_opts_apply(&a->bo, &runs[i]);
        if (rc == 0 && a->ghz > 0)
            cb_report_set_clock(&runs[i], a->ghz);
        if (rc == -EBADMSG) {
            cb_error("cannot read run %lld from %s: the store is damaged (a sample of a case or "
                     "event the run has not, or a value that is not a number); 'cyclebudget check "
                     "--db %s' says where", (long long)ids[i], a->db, a->db);
            return 1;
        }
        if (rc < 0) {
            cb_error("cannot read run %lld from %s: %s", (long long)ids[i], a->db, strerror(-rc));
            return 1;
        }
        if (a->fmt == CB_FMT_GBENCH && cb_report_gbench_ok(&runs[i], &err) < 0) {
            cb_error("%s", err.buf);
            cb_sb_release(&err);
            return CB_EXIT_USAGE;
        }
    }
    cb_sb_release(&err);
    return 0;
}

/* To -o (cb_output: a regular file is replaced in one piece when whole; a
 * device, FIFO or socket written straight to) or stdout. */
static int report_write(struct cb_store *st, const struct report_args *a, const struct cb_report *runs,
                        size_t n)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_output o;
    int to_file = a->outpath && strcmp(a->outpath, "-") != 0;
    if (cb_output_open(&o, a->outpath, a->db, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return 1;
    }
    int color = to_file ? 0 : cb_report_want_color(1);
    int rc = emit(st, a, runs, n, color, o.f);
    if (rc == -ENOENT) {            /* --section names none: said, nothing written */
        cb_output_close(&o, 0, &err);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    int crc = cb_output_close(&o, rc >= 0, &err);
    if (err.buf[0])     /* a write that failed, with its cause */
        cb_error("%s", err.buf);
    else if (rc < 0)
        cb_error("cannot write %s: %s", to_file ? a->outpath : "the report", strerror(-rc));
    cb_sb_release(&err);
    return rc < 0 || crc < 0 ? 1 : 0;
}

static const char *report_db(const void *ctx)
{
    return ((const struct report_args *)ctx)->db;
}

/* --versus A,B: each a variant some case of every run has, or the name
 * that is not, with the run's variants ("nosuch,ref" said the
 * run "measured no probe, size and mode with both" and exited 0).  0, or 2. */
static int versus_known(const struct report_args *a, const struct cb_report *runs, size_t n)
{
    for (size_t i = 0; i < n && a->versus[0][0]; i++)
        for (int k = 0; k < 2; k++) {
            size_t j = 0;
            while (j < runs[i].ncases && strcmp(runs[i].cases[j].info.variant, a->versus[k]) != 0)
                j++;
            if (j < runs[i].ncases)
                continue;
            struct cb_sb have = CB_SB_INIT;
            for (j = 0; j < runs[i].ncases; j++)
                if (!strstr(have.buf, runs[i].cases[j].info.variant))
                    cb_sb_addf(&have, "%s%s", have.len ? ", " : "", runs[i].cases[j].info.variant);
            cb_error("--versus: run %lld has no variant '%s' (its variants: %s)",
                     (long long)runs[i].run.id, a->versus[k], have.len ? have.buf : "none");
            cb_sb_release(&have);
            return CB_EXIT_USAGE;
        }
    return 0;
}

static int report_body(void *ctx, struct cb_store *st)
{
    const struct report_args *a = ctx;
    int64_t *ids = NULL;
    size_t n = 0, nloaded = 0;
    struct cb_report *runs = NULL;
    int rc = report_resolve(st, a, &ids, &n);
    if (rc == 0 && !(runs = calloc(n + 1, sizeof *runs))) {
        cb_error("out of memory");
        rc = 1;
    }
    if (rc == 0 && (rc = report_load_runs(st, a, ids, n, runs, &nloaded)) == 0 &&
        (rc = versus_known(a, runs, n)) == 0)
        rc = report_write(st, a, runs, n);
    for (size_t i = 0; i < nloaded; i++)
        cb_report_free(&runs[i]);
    free(runs);
    free(ids);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    static const struct cb_cmd cmd = {report_parse, CB_EXIT_USAGE, report_db, 1, report_body};
    struct report_args a;
    return cb_cmd_main(&cmd, argc, argv, &a);
}
