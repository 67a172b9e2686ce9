/* codeid.h — what code a run measured, as bytes: the identity that tells
 * two runs of the same bytes from two runs of different ones.
 *
 * compare's between-run noise floor (analysis/floor.h) is learned from runs
 * of the same bytes, and version + compiler + flags + commit is not that:
 * a dirty tree, a build outside git, an LD_PRELOAD'd wrapper or a CB_*
 * variable that slows the measured code all left those equal while the
 * code changed, so a planted +79% memcpy slowdown was pooled into its own
 * floor.  A run records instead: the build-id (or, without one,
 * the sha256) of the object that holds the measuring code (the cyclebudget
 * binary, or libcyclebudget.so when a program links it), the path and
 * sha256 of every LD_PRELOAD'd object, and the values of the environment
 * variables that change what is measured.  Plugins are identified apart
 * (run_plugins.sha256). */
#ifndef CB_CODEID_H
#define CB_CODEID_H

#include <stddef.h>

struct cb_codeid {
    char id[65];          /* sha256 (hex) of `what` */
    char what[1024];      /* "exe build-id 5f3a...; LD_PRELOAD /tmp/slow.so 9c1e...; CB_SYNTH_SLOWDOWN=1" */
};

/* The identity of the code this process measures, with the values of the
 * environment variables named in envs[nenv] (unset ones left out; a
 * "seed=N" item of a comma list is dropped, as a seed draws the fake
 * clock's run-to-run noise, which is what a floor is there to learn, and
 * so are "host=X" and "hostfor=N", the host's state it imposes).
 * Always fills c; an object that cannot be read is named "unreadable" and
 * still counts.  0, or a negative errno when the measuring object was not
 * found (then what says so). */
int cb_codeid_read(struct cb_codeid *c, const char *const *envs, size_t nenv);

#endif
