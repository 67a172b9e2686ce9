/* cmd_report.c — `cyclebudget report`: read runs back and print or export them.
 *
 * Reports only read the store, so any past run can be reported from a copied
 * database.  Every argument is checked and every run loaded before the output
 * file is created; the file is written beside its final name and renamed into
 * place, so a failure never leaves half a report. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "budget.h"
#include "cmd.h"
#include "parse.h"
#include "race.h"
#include "race_report.h"
#include "report.h"
#include "store.h"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget report [RUN|latest|TAG ...] [options]\n"
            "  --db PATH          database (default: ./" CB_DEFAULT_DB ")\n"
            "  --format F         text (default), html, csv, json, or gbench (Google Benchmark JSON)\n"
            "  -o, --output FILE  write there instead of standard output\n"
            "  --samples          csv: one row per sample instead of one per case\n"
            "  --include-aborted  latest and tags may name an aborted run (interrupted or killed)\n"
            "  --budget B         10G, 25G, 40G, 100G, 400G, or a cycle count (default: 10G)\n"
            "  --frame BYTES      frame size for a link budget (default: 64)\n");
}

enum fmt { F_TEXT, F_HTML, F_CSV, F_JSON, F_GBENCH };

static int parse_format(const char *s, enum fmt *f, char *err, size_t len)
{
    static const char *const names[] = {"text", "html", "csv", "json", "gbench"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0) {
            *f = (enum fmt)i;
            return 0;
        }
    snprintf(err, len, "unknown --format '%s': use text, html, csv, json or gbench", s);
    return -EINVAL;
}

static int emit(struct cb_store *st, enum fmt f, const struct cb_report *runs, size_t n,
                const struct cb_budget *b, int samples, int color, FILE *out)
{
    int rc = 0;
    switch (f) {
    case F_TEXT:
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
        }
        /* The latest race per host: the decisions this machine's runs led to. */
        if (rc == 0 && cb_race_report_text(st, out) < 0)
            rc = -EIO;
        return rc;
    case F_HTML: return cb_report_html(runs, n, b, out);
    case F_CSV: return cb_report_csv(runs, n, samples, out);
    case F_JSON: return cb_report_json(runs, n, out);
    case F_GBENCH: return cb_report_gbench(&runs[0], out);
    }
    return -EINVAL;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, 0, 1},
        {"budget", required_argument, 0, 2},
        {"frame", required_argument, 0, 3},
        {"format", required_argument, 0, 4},
        {"output", required_argument, 0, 'o'},
        {"samples", no_argument, 0, 5},
        {"include-aborted", no_argument, 0, 6},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *db = CB_DEFAULT_DB, *budget_arg = "10G", *outpath = NULL;
    long frame = CB_MIN_FRAME;
    enum fmt fmt = F_TEXT;
    int samples = 0, include_aborted = 0;
    char err[512];
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (ch) {
        case 1: db = optarg; break;
        case 2: budget_arg = optarg; break;
        case 3:
            if (cb_parse_long(optarg, CB_MIN_FRAME, 16384, "--frame", &frame, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 4:
            if (parse_format(optarg, &fmt, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'o':
            if (!*optarg) {
                snprintf(err, sizeof err, "-o needs a file name (or - for standard output)");
                goto usage_err;
            }
            outpath = optarg;
            break;
        case 5: samples = 1; break;
        case 6: include_aborted = 1; break;
        case 'h': report_usage(stdout); return 0;
        default: return cb_option_error("report", argv);
        }
    }
    if (samples && fmt != F_CSV) {
        snprintf(err, sizeof err, "--samples goes with --format csv (json always has the samples)");
        goto usage_err;
    }
    size_t nspec = optind < argc ? (size_t)(argc - optind) : 1;
    if (fmt == F_GBENCH && nspec > 1) {
        snprintf(err, sizeof err,
                 "--format gbench takes one run (Google Benchmark files hold one run each)");
        goto usage_err;
    }
    struct cb_budget budget;
    if (cb_budget_parse(budget_arg, (unsigned)frame, &budget, err, sizeof err) < 0)
        goto usage_err;

    struct cb_store *st;
    int rc = cb_store_open(db, CB_STORE_READ, 0, &st, err, sizeof err);
    if (rc < 0) {
        cb_die_msg("%s", err);
        return rc == -ENOENT || rc == -EPROTO || rc == -EINVAL || rc == -EISDIR ? CB_EXIT_USAGE : 1;
    }
    struct cb_report *runs = calloc(nspec, sizeof *runs);
    if (!runs) {
        cb_store_close(st);
        cb_die_msg("out of memory");
        return 1;
    }
    size_t nloaded = 0;
    int status = 0;
    for (size_t i = 0; i < nspec; i++) {
        const char *spec = optind < argc ? argv[optind + (int)i] : "latest";
        int64_t run_id;
        if (cb_store_run_resolve_status(st, spec, include_aborted, &run_id, err, sizeof err) < 0) {
            cb_die_msg("%s", err);
            status = CB_EXIT_USAGE;
            goto out;
        }
        rc = cb_report_load(st, run_id, &runs[i]);
        nloaded = i + 1;
        if (rc < 0) {
            cb_die_msg("cannot read run %lld from %s: %s", (long long)run_id, db, strerror(-rc));
            status = 1;
            goto out;
        }
    }

    if (!outpath || strcmp(outpath, "-") == 0) {
        rc = emit(st, fmt, runs, nspec, &budget, samples, cb_report_want_color(1), stdout);
        if (rc < 0 || fflush(stdout) != 0) {
            cb_die_msg("cannot write the report: %s", strerror(rc < 0 ? -rc : errno));
            status = 1;
        }
        goto out;
    }
    size_t tl = strlen(outpath) + 32;
    char *tmp = malloc(tl);
    if (!tmp) {
        status = 1;
        goto out;
    }
    snprintf(tmp, tl, "%s.tmp.%ld", outpath, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cb_die_msg("cannot create %s: %s; check the directory exists and is writable", outpath,
                   strerror(errno));
        free(tmp);
        status = 1;
        goto out;
    }
    rc = emit(st, fmt, runs, nspec, &budget, samples, 0, f);
    int werr = ferror(f);
    if (fclose(f) != 0)
        werr = 1;
    if (rc < 0 || werr || rename(tmp, outpath) != 0) {
        cb_die_msg("cannot write %s: %s", outpath, rc < 0 ? strerror(-rc) : strerror(errno));
        unlink(tmp);
        status = 1;
    }
    free(tmp);

out:
    for (size_t i = 0; i < nloaded; i++)
        cb_report_free(&runs[i]);
    free(runs);
    cb_store_close(st);
    return status;

usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
