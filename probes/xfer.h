/* xfer.h — what moving data between two CPUs costs: the cost a
 * per-packet budget is most often lost to once RX and the consumer of the
 * packet run on different cores.
 *
 *   pingpong  size bytes (whole lines) written on CPU A, read on CPU B,
 *             and B's acknowledgement read back on A: one round trip per
 *             operation; per line it is the transfer cost of a dirty line
 *             (HITM) both ways.
 *   ring      a single-producer/single-consumer descriptor ring of
 *             size / 16 descriptors of 16 bytes (a NIC's legacy descriptor),
 *             A producing, B consuming: the consumer waits on each
 *             descriptor's sequence number (the NIC's "descriptor done"
 *             bit) and publishes its tail, which the producer reads only
 *             when the ring looks full.  One operation is one packet.
 *
 * The timed side is A, the harness's own pinned thread, with the TSC and
 * counters as for every family; B is a second thread pinned to the case's
 * peer CPU (cpupair.h), spinning between batches.  The pair is stored with
 * each case.  With no second CPU (a 1-CPU host, or an affinity mask of one
 * CPU) setup returns -ENODEV and the case is skipped with that reason.
 *
 * Verification runs the same protocol functions for many operations with
 * the two threads wherever the scheduler puts them (spins yield, so one CPU
 * is enough): every descriptor must arrive once, in order, with its own
 * contents, and every line of a ping must carry the ping's number. */
#ifndef CB_PROBES_XFER_H
#define CB_PROBES_XFER_H

#include "harness/probe.h"

#define CB_XFER_DESC_BYTES 16

extern const struct cb_probe cb_probe_xfer;

#endif
