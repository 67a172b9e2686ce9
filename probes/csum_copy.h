/* csum_copy.h — copy and Internet checksum in one call (csum_partial_copy).
 *
 * The kernel checksums received data while copying it to user space, so the
 * copy and the sum share one pass over the bytes.  This family asks what
 * that fusion buys over a copy followed by a checksum; the report shows each
 * variant against copy and csum alone at the same size. */
#ifndef CB_PROBES_CSUM_COPY_H
#define CB_PROBES_CSUM_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"

/* Copy len bytes src -> dst (no overlap) and return the 32-bit partial
 * checksum of them plus sum, with csum_partial's meaning (csum.h: equal
 * when folded to 16 bits). */
typedef uint32_t (*cb_csum_copy_fn)(const void *src, void *dst, size_t len, uint32_t sum);

/* run() seeds every call with this, as the kernel does (so 0 can signal a
 * fault), and adds the results into c->sink. */
#define CB_CSUM_COPY_SEED 0xffffffffu

extern const struct cb_probe cb_probe_csum_copy;

#endif
