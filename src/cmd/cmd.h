/* cmd.h — the subcommands, one file each (git's builtin/ split).
 *
 * Each returns the process exit status: 0 success, 1 failure of the work,
 * 2 usage error (bad option or value: nothing was written). */
#ifndef CB_CMD_H
#define CB_CMD_H

#include <stddef.h>

#define CB_DEFAULT_DB "cyclebudget.db"
#define CB_EXIT_USAGE 2

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

/* One line to stderr: "cyclebudget: <what>", for usage and runtime errors. */
void cb_die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* getopt found an unknown option or one missing its value: one line naming
 * it and where to look, exit status 2 (usage).  main() turns getopt's own
 * message off, so this is the only line. */
int cb_option_error(const char *cmd, char **argv);

/* The names nearest to a bad one (by edit distance), as "a, b, c"; and
 * those among the probes or variants. */
void cb_suggest_nearest(const char *bad, const char *const *names, size_t n, char *buf, size_t len);
void cb_suggest_probes(const char *bad, char *buf, size_t len);
void cb_suggest_variants(const char *bad, char *buf, size_t len);


#endif
