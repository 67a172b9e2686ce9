/* main.c — cyclebudget's entry point: dispatch to a subcommand. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cmd.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget <command> [options]\n"
            "\n"
            "  run        collect measurements into the database (default ./" CB_DEFAULT_DB ")\n"
            "  report     print the report of a run (default: the latest complete one)\n"
            "  list       show probes, variants or events available on this machine\n"
            "  budget     print the per-packet cycle budget for common link rates\n"
            "  calibrate  measure counter read costs, the TSC and the core clock\n"
            "  compare    compare two runs (or commits, tags) case by case: a CI gate\n"
            "  history    each case's series over commits, with the change points\n"
            "  ack        acknowledge a known change so it stops alerting\n"
            "  bisect-check  measure HEAD against a base, for 'git bisect run'\n"
            "  ab         time two builds of a plugin interleaved in one process: a paired A/B\n"
            "  race       race the variants per size bucket and emit the winners\n"
            "  merge      copy the runs of other databases into one (many hosts)\n"
            "\n"
            "'cyclebudget <command> --help' describes each command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    opterr = 0; /* cb_option_error says it in one line */
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"run", cmd_run},         {"report", cmd_report},       {"list", cmd_list},
        {"budget", cmd_budget},   {"calibrate", cmd_calibrate}, {"compare", cmd_compare},
        {"history", cmd_history}, {"ack", cmd_ack},               {"bisect-check", cmd_bisect_check},
        {"race", cmd_race},       {"merge", cmd_merge},         {"ab", cmd_ab},
    };
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cyclebudget %s\n", PACKAGE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (strcmp(cmd, cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    const char *names[] = {"run", "report", "list", "budget", "calibrate", "compare",
                           "history", "ack", "bisect-check", "race", "merge", "ab"};
    char near[128];
    cb_suggest_nearest(cmd, names, sizeof names / sizeof names[0], near, sizeof near);
    cb_die_msg("unknown command '%s' (did you mean: %s?); see 'cyclebudget --help'", cmd, near);
    return CB_EXIT_USAGE;
}
