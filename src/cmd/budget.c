/* cmd_budget.c — `cyclebudget budget`: the per-packet budget at each link
 * rate; with --path, one packet's path composed from a run's cases against
 * it (path.h, issue 41). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "budget_opts.h"
#include "cmd.h"
#include "parse.h"
#include "path.h"
#include "report.h"
#include "store.h"
#include "tsc.h"

struct budget_args {
    const char *db, *path, *size_arg, *run;
    int history;
    struct cb_budget_opts bo;
    double ghz;
    uint64_t size;
    struct cb_path p;
};

enum { OPT_GHZ = CB_OPT_LONG_ONLY };

static int budget_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct budget_args *a = ctx;
    if (id != OPT_GHZ)
        return 1;
    if (cb_parse_seconds(arg, "--ghz", &a->ghz, err) < 0 || a->ghz > 20) {
        cb_sb_setf(err, "--ghz '%s': give the core clock in GHz, e.g. 3.0", arg);
        return -EINVAL;
    }
    return 0;
}

/* The budget at each link rate (or the one given), at this machine's clock
 * or --ghz. */
static int link_table(const struct budget_args *a, const char *one)
{
    struct cb_sb err = CB_SB_INIT;
    long frame = a->bo.frame;
    double ghz = a->ghz, links[6] = {1, 10, 25, 40, 100, 400};
    int nlinks = 6;
    if (one) {
        struct cb_budget b;
        if (cb_budget_parse(one, (unsigned)frame, &b, &err) < 0 || b.gbps <= 0) {
            if (b.gbps <= 0 && !err.buf[0])
                cb_sb_setf(&err, "budget LINK '%s' must be a link rate such as 10G", one);
            cb_error("%s", err.buf[0] ? err.buf : "a link rate such as 10G");
            cb_sb_release(&err);
            return CB_EXIT_USAGE;
        }
        links[0] = b.gbps;
        nlinks = 1;
    }
    const char *src = "given";
    if (ghz == 0) {
        struct cb_clocks k;
        cb_clocks_measure(&k);
        ghz = k.core_ghz > 0 ? k.core_ghz : k.tsc_ghz;
        src = k.core_ghz > 0 ? "estimated" : "TSC";
    }
    printf("per-packet budget, %ld-byte frames (+%d bytes preamble and gap), core clock %.2f GHz (%s)\n",
           frame, CB_WIRE_OVERHEAD, ghz, src);
    printf("%8s %14s %12s %12s\n", "link", "packets/s", "ns/packet", "cycles");
    for (int i = 0; i < nlinks; i++) {
        struct cb_budget b = {.gbps = links[i], .frame = (unsigned)frame};
        printf("%6gG %14.0f %12.2f %12.1f\n", links[i], cb_budget_pps(links[i], (unsigned)frame),
               cb_budget_ns(links[i], (unsigned)frame), cb_budget_cycles(&b, ghz));
    }
    cb_sb_release(&err);
    return 0;
}

/* --path: compose against the run, print, keep the result with the run.
 * 0; 1 when a step was not measured or the store failed. */
static int path_mode(struct budget_args *a)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    if (cb_store_open(a->db, a->history ? CB_STORE_READ : CB_STORE_WRITE, 0, &st, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    int rc = 0;
    if (a->history) {
        rc = cb_path_history(st, a->p.name, a->size, a->bo.context, stdout) < 0;
        cb_store_close(st);
        cb_sb_release(&err);
        return rc;
    }
    int64_t id;
    struct cb_report r;
    if (cb_store_run_resolve_status(st, a->run ? a->run : "latest", 0, &id, &err) < 0) {
        cb_error("%s", err.buf);
        cb_store_close(st);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if ((rc = cb_report_load(st, id, &r)) < 0) {
        cb_error("cannot read run %lld from %s: %s", (long long)id, a->db, strerror(-rc));
        cb_store_close(st);
        cb_sb_release(&err);
        return 1;
    }
    cb_budget_opts_apply(&a->bo, &r);
    if (a->ghz > 0)
        cb_report_set_clock(&r, a->ghz);
    struct cb_path_result res;
    cb_path_compose(&r, &a->p, a->size, &res);
    cb_path_text(&r, &a->p, &res, &a->bo.budget, stdout);
    rc = res.missing ? 1 : 0;
    if (res.missing < res.nparts && cb_path_store(st, &r, &a->p, &res) < 0) {
        cb_error("could not keep the path's result with run %lld in %s", (long long)id, a->db);
        rc = 1;
    }
    cb_report_free(&r);
    cb_store_close(st);
    cb_sb_release(&err);
    return rc;
}

/* What --path needs, checked before anything is opened. */
static int path_check(struct budget_args *a, struct cb_sb *err)
{
    if (!a->path) {
        if (a->size_arg || a->run || a->history) {
            cb_sb_setf(err, "--size, --run and --history go with --path NAME|FILE");
            return -EINVAL;
        }
        return 0;
    }
    a->size = CB_MTU;
    if (a->size_arg && (cb_parse_size(a->size_arg, &a->size, err) < 0 || a->size == 0)) {
        cb_sb_setf(err, "--size '%s': give the packet's bytes, e.g. 64, 1500 or 64K", a->size_arg);
        return -EINVAL;
    }
    struct cb_sb e = CB_SB_INIT;
    int rc = cb_path_load(a->path, &a->p, &e);
    if (rc < 0)
        cb_sb_setf(err, "%s", e.buf);
    cb_sb_release(&e);
    return rc < 0 ? -EINVAL : 0;
}

int cmd_budget(int argc, char **argv)
{
    static const struct cb_option options[] = {
        CB_OPT_STR(0, "path", struct budget_args, path, "NAME|FILE",
                   "compose one packet's path from the measured cases of a run: rx (RX to a "
                   "socket), fwd (forwarding without a copy), or a path file (docs/budget.md)"),
        CB_OPT_STR(0, "size", struct budget_args, size_arg, "S",
                   "with --path: the packet's bytes (default: 1500)"),
        CB_OPT_STR(0, "run", struct budget_args, run, "RUN",
                   "with --path: the run whose cases it is composed of (default: latest)"),
        CB_OPT_BOOL(0, "history", struct budget_args, history,
                    "with --path: the path's stored result in each run, oldest first"),
        CB_OPT_STR(0, "db", struct budget_args, db, "PATH",
                   "with --path: the database (default: ./" CB_DEFAULT_DB ")"),
        CB_OPT_GROUP(cb_budget_options, struct budget_args, bo),
        CB_OPT_CALL(OPT_GHZ, "ghz", "F", "core clock (default: this machine's, estimated; with "
                    "--path: the run's)"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "budget",
        .synopsis = "usage: cyclebudget budget [LINK] [--frame BYTES] [--ghz F]\n"
                    "       cyclebudget budget --path NAME|FILE [--size S] [--link L] [--context C]\n"
                    "  LINK     one link rate such as 10G (default: 1, 10, 25, 40, 100 and 400G)\n",
        .options = options,
        .option = budget_option,
    };
    struct budget_args a = {.db = cb_default_db()};
    cb_budget_opts_init(&a.bo);
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_parsed(cb_getopt(argc, argv, &parser, &a, &err), &err, CB_EXIT_USAGE);
    if (rc != CB_GO_ON)
        return rc;
    const char *one = optind < argc ? argv[optind] : a.bo.link;
    if (optind + 1 < argc || (optind < argc && (a.bo.link || a.path))) {
        cb_error("unexpected argument '%s'", argv[argc - 1]);
        return CB_EXIT_USAGE;
    }
    if (cb_budget_opts_finish(&a.bo, NULL, &err) < 0 || path_check(&a, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    return a.path ? path_mode(&a) : link_table(&a, one);
}
