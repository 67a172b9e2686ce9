/* callgrind.h — read callgrind's dump files: simulated counts, not timings.
 *
 * On hosts without a PMU, wall-clock figures move by a few percent between
 * identical runs; callgrind's instruction and simulated cache counts repeat
 * exactly, as SQLite's developers and iai-callgrind rely on.
 * This module only reads what callgrind wrote: one dump per file (one
 * CALLGRIND_DUMP_STATS_AT per case), with its trigger, its cache model and
 * the part's summary costs.  Running the collector under valgrind is the
 * job of the layers above. */
#ifndef CB_CALLGRIND_H
#define CB_CALLGRIND_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The events callgrind writes with --cache-sim=yes and --branch-sim=yes. */
enum cb_cg_event {
    CB_CG_IR, CB_CG_DR, CB_CG_DW,            /* instructions, data reads, data writes */
    CB_CG_I1MR, CB_CG_D1MR, CB_CG_D1MW,      /* first-level misses */
    CB_CG_ILMR, CB_CG_DLMR, CB_CG_DLMW,      /* last-level misses */
    CB_CG_BC, CB_CG_BCM, CB_CG_BI, CB_CG_BIM, /* branches and their mispredictions */
    CB_CG_NEVENTS
};

/* One cache of the simulated model: size, line and ways (0 ways: direct-mapped;
 * -1: fully associative); size 0 when the dump did not say. */
struct cb_cg_cache {
    long size, line, ways;
};

struct cb_cg_dump {
    int part;                           /* the dump's sequence number, 0 if unsaid */
    char trigger[256];                  /* "Client Request: <name>", "Program termination" */
    struct cb_cg_cache i1, d1, ll;
    uint64_t ev[CB_CG_NEVENTS];
    unsigned have;                      /* bit e set: event e was in the "events:" line */
};

/* The name callgrind gives event e ("Ir", "D1mr", ...). */
const char *cb_cg_event_name(enum cb_cg_event e);

/* Read one dump.  Costs not written after the last nonzero one are 0, as
 * callgrind leaves them out; an event callgrind names that is not in the
 * table above is skipped.  0, or -EINVAL with err saying which line is
 * wrong (not callgrind's format, no "events:", a bad or extra number). */
int cb_cg_parse(FILE *in, struct cb_cg_dump *d, struct cb_sb *err);
int cb_cg_parse_file(const char *path, struct cb_cg_dump *d, struct cb_sb *err);

/* The name after "Client Request: ", or NULL when the dump was not made by
 * a client request (the end-of-program dump, for one). */
const char *cb_cg_request(const struct cb_cg_dump *d);

/* Estimated cycles, from Itamar Turner-Trauring's model as iai-callgrind
 * computes it: L1 hits + 5 x LL hits + 35 x RAM hits, where RAM hits are
 * the last-level misses, LL hits the first-level misses that hit the last
 * level, and L1 hits every other access (instructions, reads, writes).
 * Chosen so that figures can be set beside iai-callgrind's; it is a model of
 * a machine, never a measurement.  NAN without the cache events. */
double cb_cg_estimated_cycles(const struct cb_cg_dump *d);

#endif
