/* slub_layout.h — where a slab's objects and free pointers are, for
 * slub.c (the allocator) and slub_check.c (its invariants). */
#ifndef CB_PROBES_SLUB_LAYOUT_H
#define CB_PROBES_SLUB_LAYOUT_H

#include "probes/slub.h"

/* A free object's first word links it to the next one (SLUB's fp). */
static inline void *get_fp(const void *obj)
{
    return *(void *const *)obj;
}

/* Object i's slot: its red zone (when debugging), then the object. */
static inline unsigned char *slot_of(const struct cb_slub_cache *c, const struct cb_slub_slab *s,
                                     unsigned i)
{
    return (unsigned char *)s + c->first + (size_t)i * c->stride;
}

#endif
