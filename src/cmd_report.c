/* cmd_report.c — `cyclebudget report`: read a run back and print it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "cmd.h"
#include "parse.h"
#include "report.h"
#include "store.h"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget report [RUN|latest|TAG] [options]\n"
            "  --db PATH          database (default: ./" CB_DEFAULT_DB ")\n"
            "  --budget B         10G, 25G, 40G, 100G, 400G, or a cycle count (default: 10G)\n"
            "  --frame BYTES      frame size for a link budget (default: 64)\n");
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, 0, 1},
        {"budget", required_argument, 0, 2},
        {"frame", required_argument, 0, 3},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *db = CB_DEFAULT_DB, *budget_arg = "10G", *spec = "latest";
    long frame = CB_MIN_FRAME;
    char err[512];
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 1: db = optarg; break;
        case 2: budget_arg = optarg; break;
        case 3:
            if (cb_parse_long(optarg, CB_MIN_FRAME, 16384, "--frame", &frame, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'h': report_usage(stdout); return 0;
        default: report_usage(stderr); return CB_EXIT_USAGE;
        }
    }
    if (optind < argc)
        spec = argv[optind++];
    if (optind < argc) {
        snprintf(err, sizeof err, "report takes one run at a time; unexpected '%s'", argv[optind]);
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
    int64_t run_id;
    if ((rc = cb_store_run_resolve(st, spec, &run_id, err, sizeof err)) < 0) {
        cb_die_msg("%s", err);
        cb_store_close(st);
        return CB_EXIT_USAGE;
    }
    struct cb_report r;
    if ((rc = cb_report_load(st, run_id, &r)) < 0) {
        cb_die_msg("cannot read run %lld from %s: %s", (long long)run_id, db, strerror(-rc));
        cb_store_close(st);
        return 1;
    }
    struct cb_text_opts to = {.budget = &budget, .color = isatty(1) && !getenv("NO_COLOR")};
    cb_report_text(&r, &to, stdout);
    cb_report_free(&r);
    cb_store_close(st);
    return 0;

usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
