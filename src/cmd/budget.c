/* cmd_budget.c — `cyclebudget budget`: the per-packet budget at each link rate. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>

#include "budget.h"
#include "cmd.h"
#include "parse.h"
#include "tsc.h"

int cmd_budget(int argc, char **argv)
{
    static const struct option opts[] = {
        {"frame", required_argument, 0, 1},
        {"ghz", required_argument, 0, 2},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    long frame = CB_MIN_FRAME;
    double ghz = 0;
    char err[256];
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 1:
            if (cb_parse_long(optarg, CB_MIN_FRAME, 16384, "--frame", &frame, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 2:
            if (cb_parse_seconds(optarg, "--ghz", &ghz, err, sizeof err) < 0 || ghz > 20) {
                snprintf(err, sizeof err, "--ghz '%s': give the core clock in GHz, e.g. 3.0", optarg);
                goto usage_err;
            }
            break;
        case 'h':
            printf("usage: cyclebudget budget [LINK] [--frame BYTES] [--ghz F]\n"
                   "  LINK     one link rate such as 10G (default: 1, 10, 25, 40, 100 and 400G)\n"
                   "  --frame  frame size in bytes incl. FCS (default 64; +20 bytes on the wire)\n"
                   "  --ghz    core clock (default: this machine's, estimated)\n");
            return 0;
        default: return cb_option_error("budget", argv);
        }
    }
    double links[6] = {1, 10, 25, 40, 100, 400};
    int nlinks = 6;
    if (optind < argc) {
        struct cb_budget b;
        if (cb_budget_parse(argv[optind], (unsigned)frame, &b, err, sizeof err) < 0)
            goto usage_err;
        if (b.gbps <= 0) {
            snprintf(err, sizeof err, "budget LINK '%s' must be a link rate such as 10G", argv[optind]);
            goto usage_err;
        }
        links[0] = b.gbps;
        nlinks = 1;
        if (optind + 1 < argc) {
            snprintf(err, sizeof err, "unexpected argument '%s'", argv[optind + 1]);
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
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
