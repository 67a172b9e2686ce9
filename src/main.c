/* main.c — cyclebudget's entry point: dispatch to a subcommand.
 *
 * One table names every command (git.c's commands[]): dispatch, the usage
 * list and the "did you mean" suggestions are all read from it, so a new
 * command is one line here. */
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli/cmd.h"
#include "store/secret.h"
#include "cli/output.h"
#include "cli/termout.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;        /* its line in 'cyclebudget --help' */
} commands[] = {
    {"run", cmd_run, "collect measurements into the database (default ./" CB_DEFAULT_DB ")"},
    {"report", cmd_report, "print the report of a run (default: the latest complete one)"},
    {"list", cmd_list, "show probes, variants or events available on this machine"},
    {"budget", cmd_budget, "print the per-packet cycle budget for common link rates"},
    {"calibrate", cmd_calibrate, "measure counter read costs, the TSC and the core clock"},
    {"compare", cmd_compare, "compare two runs (or commits, tags) case by case: a CI gate"},
    {"history", cmd_history, "each case's series over commits, with the change points"},
    {"ack", cmd_ack, "acknowledge a known change so it stops alerting"},
    {"bisect-check", cmd_bisect_check, "measure HEAD against a base, for 'git bisect run'"},
    {"race", cmd_race, "race the variants per size bucket and emit the winners"},
    {"merge", cmd_merge, "copy the runs of other databases into one (many hosts)"},
    {"check", cmd_check, "read every page of the database for damage"},
    {"ab", cmd_ab, "time two builds of a plugin in one process, paired round by round"},
    {"kernel", cmd_kernel, "kernel run: time the kernel's own functions inside it (a module)"},
    {"bpf", cmd_bpf, "bpf run: time inside the running kernel through BPF (no module)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: cyclebudget <command> [options]\n\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s%s%s\n", commands[i].name, strlen(commands[i].name) < 10 ? " " : "  ",
                commands[i].summary);
    fprintf(out, "\n'cyclebudget <command> --help' describes each command's options.\n");
}

/* Not a command: the nearest names, exit 2. */
static int unknown_command(const char *cmd)
{
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    struct cb_sb near = CB_SB_INIT;
    cb_suggest_nearest(cmd, names, NCOMMANDS, &near);
    cb_error("unknown command '%s' (did you mean: %s?); see 'cyclebudget --help'", cmd, near.buf);
    cb_sb_release(&near);
    return CB_EXIT_USAGE;
}

/* 'cyclebudget help CMD': CMD's --help, as git's; an unknown CMD is a usage
 * error with the nearest names (it printed the general usage, exit 0). */
static int help_topic(const char *cmd)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            char name[64], help[] = "--help";
            snprintf(name, sizeof name, "%s", cmd);
            char *args[] = {name, help, NULL};
            optind = 0;
            return commands[i].fn(2, args);
        }
    return unknown_command(cmd);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    opterr = 0; /* cb_option_error says it in one line */
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2)
            return help_topic(argv[2]);
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("cyclebudget %s\n", PACKAGE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    return unknown_command(cmd);
}

int main(int argc, char **argv)
{
    /* Numbers are written in the C locale whatever the environment or a
     * loaded plugin's setlocale() says: "alpha":0,01 is not JSON.  A
     * thread's own locale outranks the global one setlocale() changes. */
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (c)
        uselocale(c);
    cb_term_init();
    cb_catch_quit_signals();
    /* Passwords out of the --db URLs before anything reads them (secret.h). */
    cb_secret_args(argc, argv);
    cb_secret_env("CB_DB");
    int status = dispatch(argc, argv);
    /* A command that failed because a stop signal cut a wait short was
     * interrupted: 130, whatever error the cut wait became. */
    if (status != 0 && *cb_stop_flag())
        status = 130;
    return cb_term_finish(status);
}
