/* sim.h — `run --sim`: the same run, started again under valgrind's
 * callgrind with the host's cache model, so that its figures are exact
 * simulated counts (harness/simclock.h counts them in the child). */
#ifndef CB_SIM_H
#define CB_SIM_H

#include "util/strbuf.h"

#include <stddef.h>

#include "host/caches.h"

/* Can --sim run here: this build has valgrind's client requests, and a
 * valgrind is found ($CB_SIM_VALGRIND, else valgrind on PATH).  0, or a
 * negative errno with err saying what to install. */
int cb_sim_check(struct cb_sb *err);

/* The cache model --sim will simulate: this CPU's (cpuid, else sysfs), with
 * the caches spec names replacing its own (--sim-caches; NULL: none).
 * 0; 1 when neither the CPU nor spec gives a model (valgrind's default is
 * then used); -EINVAL with err when spec is wrong. */
int cb_sim_model(const char *spec, struct cb_cache_model *m, struct cb_sb *err);

/* Start "cyclebudget ARGV..." (argv[0] the subcommand) under callgrind with
 * the cache model spec gives (cb_sim_model), wait for it, and tidy its dump
 * files.  A cold case's working set is twice the simulated last level, so
 * that its buffers miss there whatever the real cold default would be.
 * The child's exit status (128 + N when signal N ended it); SIGINT and
 * SIGTERM are the child's to handle, so that it marks its run aborted. */
int cb_sim_exec(int argc, char **argv, int quiet, const char *spec);

#endif
