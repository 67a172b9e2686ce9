/* calls.h — the cost of a call and a return, with and without the kernel's
 * Spectre mitigations.  A per-packet path makes several indirect
 * calls (the protocol handlers, dev->netdev_ops, the qdisc) and many
 * returns; a kernel with retpolines sends each indirect call through a
 * retpoline and, with return thunks, each return through one.  One
 * operation is a chain of size calls of a one-add function, each waiting
 * for the last: cycles per operation / size is the cost of one call and
 * return.  The "+kflags" variants are built with the kernel's flags
 * (kflags.h); the difference to their plain twins is the thunks' cost. */
#ifndef CB_PROBES_CALLS_H
#define CB_PROBES_CALLS_H

#include <stdint.h>

#include "harness/probe.h"

/* x + n, as n calls that each add 1. */
typedef uint64_t (*cb_calls_fn)(uint64_t n, uint64_t x);

extern const struct cb_probe cb_probe_calls;

#endif
