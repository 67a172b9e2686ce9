/* slab.h — the "slab" probe family: SLUB-shaped alloc/free, single and bulk.
 *
 * One operation is one object allocated and freed (bulk-16 does iters/16
 * bulk calls of 16, plus one short call for the remainder), so every row is
 * cycles per object, comparable with the 2016 TXDP figures (53 fast path,
 * ~100 slow path, ~30 bulk) and slab_bulk_test01's 47 / 49..17..37.
 *
 * Warm mode: objects are allocated and freed back to back, so the same few
 * objects are reused (the fast path the kernel benchmarks measure).
 * Cold mode: a window of live objects whose slabs cover c->cold_bytes (more
 * than the LLC) is built at setup, in shuffled order; each operation frees
 * the oldest object of the window and allocates a new one into its place.
 * That is the RX/TX pattern the thread worries about ("the free-side is very
 * likely to hit a slow path"): objects freed long after their allocation,
 * to slabs that are no longer the cpu slab, with their lines out of cache. */
#ifndef CB_PROBES_SLAB_H
#define CB_PROBES_SLAB_H

#include <stddef.h>

#include "harness/probe.h"
#include "probes/slub.h"

extern const struct cb_probe cb_probe_slab;

/* The cache a set-up case allocates from; NULL for the malloc variant. */
struct cb_slub_cache *cb_slab_cache(struct cb_case *c);

/* Cold mode: the live window (*n objects); NULL in warm mode. */
void **cb_slab_window(struct cb_case *c, size_t *n);

/* Bytes an alloc-clear variant zeroes for objects of size bytes (192 or 256,
 * clamped to size); 0 for other variants. */
size_t cb_slab_clear_bytes(const struct cb_variant *v, size_t size);

#endif
