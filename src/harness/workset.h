/* workset.h — buffers for warm and cold mode, shared by every family.
 *
 * "Could you try again with data out of cache?" (Dumazet, 2013).  In cold
 * mode a case walks a set of buffers whose total exceeds the last-level
 * cache.  The walk visits the buffers in a pseudo-random order (a full-period
 * linear congruential sequence over a power-of-two count), so neither the
 * streaming prefetchers (which follow a page) nor the stride prefetchers
 * (which learn a constant distance, even across pages) can hide the misses.
 * A first version walked with a constant page-plus-a-line stride, and AMD's
 * stride prefetcher turned "cold" 20-byte checksums into L2 hits.  In warm
 * mode there is one buffer, reused. */
#ifndef CB_WORKSET_H
#define CB_WORKSET_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"

struct cb_workset {
    unsigned char *mem;   /* the first slot: the mapping's start, or pages into it */
    unsigned char *map;   /* the mapping */
    size_t map_len;
    size_t len;           /* usable bytes per buffer */
    size_t offset;        /* byte offset of each buffer from its 64-byte-aligned slot */
    size_t stride;        /* distance between slots */
    size_t count;         /* number of buffers: 1 in warm mode, else a power of two */
    size_t cur;
    unsigned settled;     /* cb_workset_settle's reads end here, so they are made */
};

/* Default cold working set: 4x the LLC, at least 64 MiB. */
size_t cb_workset_cold_bytes(void);

/* Set up buffers of len bytes, each starting offset bytes past a 64-byte
 * boundary.  mode WARM: one buffer, pages 4 KiB pages into its mapping
 * (ab varies it by round: the buffer's L2 sets and physical pages move,
 * its place within a page, which the case names, does not).  mode COLD:
 * enough buffers to cover cold_bytes (a power of two, at least 2), visited
 * in pseudo-random order; pages does not apply (the walk covers them all).
 * The memory is touched (faulted in) and zero-filled.  0 or -ENOMEM. */
int cb_workset_init(struct cb_workset *w, size_t len, size_t offset,
                    enum cb_mode mode, size_t cold_bytes, unsigned pages);

/* The next buffer to use; in warm mode always the same one.  The sequence
 * x -> (a*x + c) mod 2^k with a = 1 (mod 4) and c odd visits every slot once
 * per period (Hull-Dobell); count - 1 is the mask (0 in warm mode). */
static inline unsigned char *cb_workset_next(struct cb_workset *w)
{
    unsigned char *p = w->mem + w->cur * w->stride + w->offset;
    w->cur = (w->cur * 0x5851f42d4c957f2dull + 0x14057b7ef767814full) & (w->count - 1);
    return p;
}

/* Read every line of every buffer once, in the order cb_workset_next will
 * visit them from now (w->cur is left as it is), so that each buffer's
 * last touch before the walk is as long ago as the set allows: an LRU cache
 * smaller than the set then holds none of the buffers the walk comes to.
 * For cold mode, after the buffers are filled.  Filling them in index order
 * left the last-filled part of the set in the last-level cache, where the
 * walk found it: under callgrind, a cold 64 KiB checksum hit the simulated
 * LL on 320 of its 1024 lines.  Warm mode: nothing to do. */
void cb_workset_settle(struct cb_workset *w);
/* n bytes of xorshift64 noise from *seed (advanced): data no variant can
 * take a shortcut on, the same for a given seed on every run. */
void cb_fill_random(unsigned char *p, size_t n, uint64_t *seed);
/* Every buffer of w filled with cb_fill_random from seed, then settled:
 * what a family whose operation reads its buffer does after init. */
void cb_workset_fill_random(struct cb_workset *w, uint64_t seed);
/* Buffer i (0 <= i < count), for filling. */
static inline unsigned char *cb_workset_at(const struct cb_workset *w, size_t i)
{
    return w->mem + i * w->stride + w->offset;
}

void cb_workset_free(struct cb_workset *w);

#endif
