/* workset.h — buffers for warm and cold mode, shared by every family.
 *
 * "Could you try again with data out of cache?" (Dumazet, 2013).  In cold
 * mode a case walks a set of buffers whose total exceeds the last-level
 * cache.  The walk jumps by more than a page between consecutive buffers, so
 * the hardware's streaming prefetchers (which work within a 4 KiB page)
 * cannot hide the misses.  In warm mode there is one buffer, reused. */
#ifndef CB_WORKSET_H
#define CB_WORKSET_H

#include <stddef.h>
#include <stdint.h>

#include "probe.h"

struct cb_workset {
    unsigned char *mem;   /* the mapping */
    size_t map_len;
    size_t len;           /* usable bytes per buffer */
    size_t offset;        /* byte offset of each buffer from its 64-byte-aligned slot */
    size_t stride;        /* distance between slots */
    size_t count;         /* number of buffers: 1 in warm mode */
    size_t step;          /* slots advanced per next(); coprime with count */
    size_t cur;
};

/* Default cold working set: 4x the LLC, at least 64 MiB. */
size_t cb_workset_cold_bytes(void);

/* Set up buffers of len bytes, each starting offset bytes past a 64-byte
 * boundary.  mode WARM: one buffer.  mode COLD: enough buffers to cover
 * cold_bytes (at least 2), visited in a page-jumping order.  The memory is
 * touched (faulted in) and zero-filled.  Returns 0 or -ENOMEM. */
int cb_workset_init(struct cb_workset *w, size_t len, size_t offset,
                    enum cb_mode mode, size_t cold_bytes);

/* The next buffer to use; in warm mode always the same one. */
static inline unsigned char *cb_workset_next(struct cb_workset *w)
{
    unsigned char *p = w->mem + w->cur * w->stride + w->offset;
    w->cur += w->step;
    if (w->cur >= w->count)
        w->cur -= w->count;
    return p;
}

/* Buffer i (0 <= i < count), for filling. */
static inline unsigned char *cb_workset_at(const struct cb_workset *w, size_t i)
{
    return w->mem + i * w->stride + w->offset;
}

void cb_workset_free(struct cb_workset *w);

#endif
