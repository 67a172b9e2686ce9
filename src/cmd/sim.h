/* sim.h — `run --sim`: the same run, started again under valgrind's
 * callgrind with the host's cache model, so that its figures are exact
 * simulated counts (harness/simclock.h counts them in the child). */
#ifndef CB_SIM_H
#define CB_SIM_H

#include <stddef.h>

/* Can --sim run here: this build has valgrind's client requests, and a
 * valgrind is found ($CB_SIM_VALGRIND, else valgrind on PATH).  0, or a
 * negative errno with err saying what to install. */
int cb_sim_check(char *err, size_t errlen);

/* Start "cyclebudget ARGV..." (argv[0] the subcommand) under callgrind with
 * the model of this CPU's caches, wait for it, and tidy its dump files.
 * The child's exit status (128 + N when signal N ended it); SIGINT and
 * SIGTERM are the child's to handle, so that it marks its run aborted. */
int cb_sim_exec(int argc, char **argv, int quiet);

#endif
