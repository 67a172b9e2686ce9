/* cmd.h — the subcommands, one file each (git's builtin/ split).
 *
 * Each returns the process exit status: 0 success, 1 failure of the work,
 * 2 usage error (bad option or value: nothing was written). */
#ifndef CB_CMD_H
#define CB_CMD_H

#include <stddef.h>
#include <stdio.h>
#include <signal.h>

#include "cli/options.h"
#include "util/strbuf.h"

struct cb_probe;

struct option;
struct cb_store;

#define CB_DEFAULT_DB "cyclebudget.db"
#define CB_EXIT_USAGE 2

/* The database a command uses without --db: $CB_DB when set (a file or a
 * postgresql:// URL, e.g. a lab's shared store), else CB_DEFAULT_DB. */
const char *cb_default_db(void);

struct cb_sb;
/* The store of the paired protocols (ab, bisect-check --against-plugin)
 * without --db: $CB_DB when set, else $XDG_DATA_HOME/cyclebudget/
 * cyclebudget.db (~/.local/share/cyclebudget/ without XDG_DATA_HOME), its
 * folder made, in sb.  They run inside the user's source tree, often under
 * git bisect: a ./cyclebudget.db there is an untracked file in the measured
 * tree.  ./cyclebudget.db only when there is no home to put it in. */
const char *cb_paired_db(struct cb_sb *sb);

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_budget(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_ack(int argc, char **argv);
int cmd_bisect_check(int argc, char **argv);
int cmd_race(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_bpf(int argc, char **argv);

/* One line to stderr: "cyclebudget: <what>", for usage and runtime errors.
 * It returns (as git's error(), not die()): the caller chooses the exit
 * status, and a command still cleans up after saying what went wrong. */
void cb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* getopt found an unknown option or one missing its value: one line naming
 * it and where to look, exit status 2 (usage).  main() turns getopt's own
 * message off, so this is the only line. */
int cb_option_error(const char *cmd, char **argv);

/* The names nearest to a bad one (by edit distance), added to out as
 * "a, b, c" (all of them: none is cut off); and those among the probes,
 * or the variants (of one probe, or all: NULL). */
void cb_suggest_nearest(const char *bad, const char *const *names, size_t n, struct cb_sb *out);
void cb_suggest_probes(const char *bad, struct cb_sb *out);
void cb_suggest_variants(const struct cb_probe *only, const char *bad, struct cb_sb *out);

/* A command's parse result as its exit status: CB_GO_ON for 0, 0 after
 * --help (1), usage_status otherwise, saying err for -EINVAL; err is released. */
#define CB_GO_ON (-1)
int cb_parsed(int rc, struct cb_sb *err, int usage_status);

/* "cyclebudget CMD ARG...", as typed, for the run's record and reruns. */
void cb_quote_cmdline(int argc, char **argv, struct cb_sb *out);

/* Open the store to read, or say why not: 0, usage (2) when the path is
 * wrong (missing, not a cyclebudget store, a directory), else fail_status
 * (compare passes 2: its 1 means "regressed"). */
int cb_open_store_read(const char *db, struct cb_store **st, int fail_status);

/* A command as parse, then (for those that read the store) open it, then
 * its body: the order every command keeps, written once, as git's
 * run_builtin() does its setup. */
struct cb_cmd {
    /* cb_getopt's codes: 0, 1 (--help printed), -EINVAL with err set, or
     * another negative errno already said. */
    int (*parse)(int argc, char **argv, void *ctx, struct cb_sb *err);
    int usage_status;          /* the exit status of a usage error */
    /* The store parse chose, opened to read for the body; NULL when the
     * body opens what it needs itself. */
    const char *(*db)(const void *ctx);
    int open_fail_status;      /* when it cannot be opened for another reason */
    int (*body)(void *ctx, struct cb_store *st);   /* the exit status */
};

int cb_cmd_main(const struct cb_cmd *c, int argc, char **argv, void *ctx);

/* SIGINT/SIGTERM raise the stop flag, which measuring loops check between
 * samples, so that a run or rerun ends cleanly and is marked as such.  With
 * second_kills, a second signal kills at once (SA_RESETHAND: a run the user
 * wants gone is reaped as aborted by the next open); without, every signal
 * only raises the flag (a rerun finishes its measurement, then stops). */
void cb_catch_stop_signals(int second_kills);
/* The flag: 0, or the last stop signal caught. */
volatile sig_atomic_t *cb_stop_flag(void);

#endif
