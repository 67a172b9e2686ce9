/* cmd_budget.c — `cyclebudget budget`: the per-packet budget at each link
 * rate; with --path, one packet's path composed from a run's cases against
 * it (path.h).  It only reads the store. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/budget.h"
#include "cli/budget_opts.h"
#include "cli/cmd.h"
#include "cli/parse.h"
#include "store/lookup.h"
#include "report/path.h"
#include "harness/probe.h"
#include "report/report.h"
#include "store/store.h"
#include "counters/tsc.h"

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

/* Run id's report, charged as the options say, and p composed from it.
 * 0, or 1 with the error said. */
static int compose_run(struct budget_args *a, struct cb_store *st, int64_t id, struct cb_report *r,
                       struct cb_path_result *res)
{
    int rc = cb_report_load(st, id, r);
    if (rc < 0) {
        cb_error("cannot read run %lld from %s: %s", (long long)id, a->db, strerror(-rc));
        return 1;
    }
    cb_budget_opts_apply(&a->bo, r);
    if (a->ghz > 0)
        cb_report_set_clock(r, a->ghz);
    cb_path_compose(r, &a->p, a->size, res);
    return 0;
}

/* Without --run: the newest complete run that measured every step (a
 * race or a one-family run after a full one has the latest id, not the
 * path's cases), said when it is not the latest; the latest when none of
 * the newest PATH_RUNS_WALKED did.  0, or 1 with the error said. */
#define PATH_RUNS_WALKED 64
static int newest_whole(struct budget_args *a, struct cb_store *st, struct cb_report *r,
                        struct cb_path_result *res)
{
    int64_t ids[PATH_RUNS_WALKED];
    size_t n = 0;
    if (cb_store_newest_complete(st, ids, PATH_RUNS_WALKED, &n) < 0) {
        cb_error("cannot read the runs of %s", a->db);
        return 1;
    }
    size_t latest_missing = 0;
    for (size_t i = 0; i < n; i++) {
        if (compose_run(a, st, ids[i], r, res))
            return 1;
        if (res->missing == 0) {
            if (i > 0)
                printf("run %lld: the newest run that measured every step of %s (the latest, run "
                       "%lld, measured %zu of its %zu steps)\n\n", (long long)ids[i], a->p.name,
                       (long long)ids[0], res->nparts - latest_missing, res->nparts);
            return 0;
        }
        if (i == 0)
            latest_missing = res->missing;
        cb_report_free(r);
    }
    if (n == 0) {
        cb_error("no complete run in %s: 'cyclebudget run' measures one", a->db);
        return 1;
    }
    printf("no run of the newest %zu measured every step of %s: run %lld, the latest, measured %zu of "
           "%zu\n\n", n, a->p.name, (long long)ids[0], a->p.nsteps - latest_missing, a->p.nsteps);
    return compose_run(a, st, ids[0], r, res);
}

/* --path: compose against a run and print; nothing is written (run keeps
 * the shipped paths with each run).  0; 1 when a step was not measured or
 * the store failed. */
static int path_mode(struct budget_args *a)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    if (cb_store_open(a->db, CB_STORE_READ, 0, &st, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    int rc = 0;
    if (a->history) {
        rc = cb_path_history(st, a->p.name, a->size, a->bo.context, stdout) < 0;
        cb_store_close(st);
        return rc;
    }
    int64_t id;
    struct cb_report r;
    struct cb_path_result res;
    if (a->run) {
        if (cb_store_run_resolve_status(st, a->run, 0, &id, &err) < 0) {
            cb_error("%s", err.buf);
            cb_store_close(st);
            cb_sb_release(&err);
            return CB_EXIT_USAGE;
        }
        rc = compose_run(a, st, id, &r, &res);
    } else {
        rc = newest_whole(a, st, &r, &res);
    }
    if (rc == 0) {
        cb_path_text(&r, &a->p, &res, &a->bo.budget, stdout);
        rc = res.missing ? 1 : 0;
        cb_report_free(&r);
    }
    cb_store_close(st);
    cb_sb_release(&err);
    return rc;
}

/* Every step's family is one this build measures: a step of another
 * could never be measured, and the command that would measure it exits 2. */
static int families_known(const struct cb_path *p, struct cb_sb *err)
{
    for (size_t k = 0; k < p->nsteps; k++) {
        if (cb_probe_find(p->steps[k].family))
            continue;
        cb_sb_setf(err, "path %s, step %s: '%s' is not a family of this build (", p->name,
                   p->steps[k].label, p->steps[k].family);
        for (size_t i = 0; i < cb_nprobes; i++)
            cb_sb_addf(err, "%s%s", i ? ", " : "", cb_probes[i]->name);
        cb_sb_adds(err, ": 'cyclebudget list probes')");
        return -EINVAL;
    }
    return 0;
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
    return rc < 0 ? -EINVAL : families_known(&a->p, err);
}

int cmd_budget(int argc, char **argv)
{
    static const struct cb_option options[] = {
        CB_OPT_STR(0, "path", struct budget_args, path, "NAME|FILE",
                   "compose one packet's path from the measured cases of a run: a shipped path "
                   "(reports/paths/: rx, RX to a socket; fwd, forwarding without a copy; ...) "
                   "or a path file (docs/budget.md; a file named as a shipped path is read as "
                   "./NAME)"),
        CB_OPT_STR(0, "size", struct budget_args, size_arg, "S",
                   "with --path: the packet's bytes (default: 1500)"),
        CB_OPT_STR(0, "run", struct budget_args, run, "RUN",
                   "with --path: the run whose cases it is composed of (default: the newest "
                   "complete run that measured every step)"),
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
