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
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "rerun.h"
#include "verdict.h"

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget compare BASE HEAD [options]\n"
            "  BASE, HEAD: a run id, 'latest', a tag (all its runs), a commit (hash prefix or\n"
            "  git revision: all its runs), or a comma list of those (pooled)\n"
            CMP_COMMON_HELP
            "      --format F         text (default), markdown (for a pull request) or json\n"
            "      --rerun            measure the undecided cases again, both sides\n"
            "                         interleaved, until decided or --rerun-time\n"
            "      --rerun-time SEC   the time cap of --rerun (default 60)\n"
            "      --base-exec CMD    with --rerun: record BASE's new runs by running CMD (a\n"
            "      --head-exec CMD    shell command that records a run, e.g. 'base/cyclebudget\n"
            "                         run --reps 30'), each run a process of its own; both\n"
            "                         or neither.  Without them, this binary measures both\n"
            "                         sides, for A/A checks only\n"
            "exit status: 0 no regression, 1 an unacknowledged regression, 2 usage or tool error\n");
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        CMP_COMMON_LONGOPTS,
        {"format", required_argument, 0, 'f'}, {"rerun", no_argument, 0, 'r'},
        {"rerun-time", required_argument, 0, 'X'}, {"base-exec", required_argument, 0, 'B'},
        {"head-exec", required_argument, 0, 'H'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct cmp_common c;
    cmp_common_defaults(&c);
    int do_rerun = 0;
    double cap_s = 60;
    const char *exec[2] = {NULL, NULL};
    char err[1536];
    char cmdline[2048];
    cmp_cmdline("compare", argc, argv, cmdline, sizeof cmdline);
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int r = cmp_common_opt(ch, &c, err, sizeof err);
        if (r < 0)
            goto usage_err;
        if (r == 0)
            continue;
        switch (ch) {
        case 'f':
            if (strcmp(optarg, "text") == 0)
                c.o.fmt = FMT_TEXT;
            else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
                c.o.fmt = FMT_MARKDOWN;
            else if (strcmp(optarg, "json") == 0)
                c.o.fmt = FMT_JSON;
            else {
                snprintf(err, sizeof err, "--format '%s': give text, markdown or json", optarg);
                goto usage_err;
            }
            break;
        case 'r': do_rerun = 1; break;
        case 'X':
            if (cb_parse_seconds(optarg, "--rerun-time", &cap_s, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'B': exec[0] = optarg; break;
        case 'H': exec[1] = optarg; break;
        case 'h': compare_usage(stdout); return 0;
        default: return cb_option_error("compare", argv);
        }
    }
    if ((exec[0] || exec[1]) && (!exec[0] || !exec[1] || !do_rerun || !*exec[0] || !*exec[1])) {
        snprintf(err, sizeof err, "--base-exec and --head-exec go together, with --rerun: give both "
                 "commands (e.g. --base-exec 'base/cyclebudget run --reps 30')");
        goto usage_err;
    }
    if (argc - optind != 2) {
        snprintf(err, sizeof err, "compare needs exactly two sides, BASE and HEAD (got %d); see 'cyclebudget compare --help'",
                 argc - optind);
        goto usage_err;
    }
    struct cb_store *st;
    int rc = cb_store_open(c.db, CB_STORE_READ, 0, &st, err, sizeof err);
    if (rc < 0)
        goto usage_err;
    struct cb_side A, B;
    memset(&B, 0, sizeof B);
    struct cmp_result res = {0};
    struct cmp_ctx x = {0};
    char crosses[1024];
    int status = CB_EXIT_USAGE;
    if ((rc = cb_side_resolve(st, argv[optind], c.include_aborted, c.repo, &A, err, sizeof err)) < 0 ||
        (rc = cb_side_resolve(st, argv[optind + 1], c.include_aborted, c.repo, &B, err, sizeof err)) < 0 ||
        (rc = cmp_check_env(st, &A, &B, c.force, crosses, sizeof crosses, err, sizeof err)) < 0) {
        cb_die_msg("%s", err);
        goto out;
    }
    x.crosses = crosses[0] ? crosses : NULL;
    x.metric = cb_sides_metric(st, &A, &B);
    if ((rc = cb_side_load(st, &A, x.metric)) < 0 || (rc = cb_side_load(st, &B, x.metric)) < 0 ||
        (rc = cmp_evaluate(st, &A, &B, &c.o, &res)) < 0) {
        cb_die_msg("cannot read the samples from %s: %s", c.db, strerror(-rc));
        goto out;
    }
    if (c.o.glob && res.n == 0) {
        cb_die_msg("--cases '%s' matches no case common to both sides (names look like csum/adc-1chain/1500/warm)",
                   c.o.glob);
        goto out;
    }
    if (do_rerun && res.count[CB_CMP_UNSURE] > 0) {
        rc = exec[0] ? cmp_rerun_exec(st, &A, &B, x.metric, &c, cap_s, exec, &res, crosses, sizeof crosses,
                                  err, sizeof err)
                     : cmp_rerun(st, &A, &B, x.metric, &c, cap_s, cmdline, &res, err, sizeof err);
        if (rc < 0) {
            cb_die_msg("%s", err);
            status = rc == -EINTR ? 130 : CB_EXIT_USAGE;
            goto out;
        }
        x.crosses = crosses[0] ? crosses : NULL;
    }
    cmp_describe_side(st, &A, x.base_desc, sizeof x.base_desc);
    cmp_describe_side(st, &B, x.head_desc, sizeof x.head_desc);
    status = cmp_exit_of(&res);
    cmp_print_result(&x, &c.o, &res, status, stdout);
out:
    free(res.rows);
    cb_side_free(&A);
    cb_side_free(&B);
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
