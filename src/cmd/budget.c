/* cmd_budget.c — `cyclebudget budget`: the per-packet budget at each link rate. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>

#include "budget.h"
#include "budget_opts.h"
#include "cmd.h"
#include "parse.h"
#include "tsc.h"

struct budget_args {
    struct cb_budget_opts bo;
    double ghz;
};

enum { OPT_GHZ = CB_OPT_LONG_ONLY };

static int budget_option(int id, const char *arg, void *ctx, char *err, size_t errlen)
{
    struct budget_args *a = ctx;
    if (id != OPT_GHZ)
        return 1;
    if (cb_parse_seconds(arg, "--ghz", &a->ghz, err, errlen) < 0 || a->ghz > 20) {
        snprintf(err, errlen, "--ghz '%s': give the core clock in GHz, e.g. 3.0", arg);
        return -EINVAL;
    }
    return 0;
}

int cmd_budget(int argc, char **argv)
{
    static const struct cb_option options[] = {
        CB_OPT_GROUP(cb_budget_options, struct budget_args, bo),
        CB_OPT_CALL(OPT_GHZ, "ghz", "F", "core clock (default: this machine's, estimated)"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "budget",
        .synopsis = "usage: cyclebudget budget [LINK] [--frame BYTES] [--ghz F]\n"
                    "  LINK     one link rate such as 10G (default: 1, 10, 25, 40, 100 and 400G)\n",
        .options = options,
        .option = budget_option,
    };
    struct budget_args a = {0};
    cb_budget_opts_init(&a.bo);
    char err[256];
    int rc = cb_parsed(cb_getopt(argc, argv, &parser, &a, err, sizeof err), err, CB_EXIT_USAGE);
    if (rc != CB_GO_ON)
        return rc;
    if (cb_budget_opts_finish(&a.bo, NULL, err, sizeof err) < 0)
        goto usage_err;
    long frame = a.bo.frame;
    double ghz = a.ghz;
    double links[6] = {1, 10, 25, 40, 100, 400};
    int nlinks = 6;
    const char *one = optind < argc ? argv[optind] : a.bo.link;
    if (one) {
        struct cb_budget b;
        if (cb_budget_parse(one, (unsigned)frame, &b, err, sizeof err) < 0)
            goto usage_err;
        if (b.gbps <= 0) {
            snprintf(err, sizeof err, "budget LINK '%s' must be a link rate such as 10G", one);
            goto usage_err;
        }
        links[0] = b.gbps;
        nlinks = 1;
        if (optind + 1 < argc || (optind < argc && a.bo.link)) {
            snprintf(err, sizeof err, "unexpected argument '%s'", argv[argc - 1]);
            goto usage_err;
        }
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
    return 0;
usage_err:
    cb_error("%s", err);
    return CB_EXIT_USAGE;
}
