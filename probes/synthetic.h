/* synthetic.h — a workload whose cost we set: for proving compare works.
 *
 * One operation is a chain of dependent adds, one core cycle each, so its
 * cost is proportional to the chain's length.  The length is the case's size
 * times (1 + delta), with delta read from the environment variable
 * CB_SYNTH_SLOWDOWN (default 0; "0.05" makes every operation 5% longer).
 * That is the calibrated, adjustable slowdown the detection-power benchmark
 * and the regression tests plant between a base and a head run. */
#ifndef CB_PROBES_SYNTHETIC_H
#define CB_PROBES_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"

#define CB_SYNTH_ENV "CB_SYNTH_SLOWDOWN"
#define CB_SYNTH_MAX_DELTA 10.0

/* x + n, computed as n dependent adds of 1. */
typedef uint64_t (*cb_synth_fn)(uint64_t x, uint64_t n);

/* Parse a slowdown: a plain decimal in [0, CB_SYNTH_MAX_DELTA] with nothing
 * after it (NULL or "" mean 0).  0 or -EINVAL. */
int cb_synth_parse_delta(const char *s, double *delta);
/* Adds per operation for a case of size n and slowdown delta. */
uint64_t cb_synth_work(uint64_t n, double delta);

extern const struct cb_probe cb_probe_synthetic;

#endif
