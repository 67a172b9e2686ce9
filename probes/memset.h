/* memset.h — the memory-fill family: clearing buffers and skb heads.
 *
 * The 2016 TXDP thread (seeds/2016-*) found clearing an skb's three or four
 * cache lines a visible share of the per-packet budget, and gcc's inline
 * rep stos losing to plain movq stores below about 512 bytes.  Besides the
 * general variants, "struct192/200/256" time exactly what the compiler emits
 * for zeroing a struct of that size; they are valid only at that size
 * (struct cb_variant.only_size). */
#ifndef CB_PROBES_MEMSET_H
#define CB_PROBES_MEMSET_H

#include <stddef.h>

#include "harness/probe.h"
#include "harness/workset.h"

/* Set len bytes at dst to (unsigned char)c.  A variant with only_size set
 * ignores c and len: it zeroes only_size bytes. */
typedef void (*cb_memset_fn)(void *dst, int c, size_t len);

/* run() zeroes, the case the kernel cares about (and the only fill the
 * fixed-size variants know).  setup fills every slot with
 * CB_MEMSET_SETUP_FILL first, so the effect of run() can be seen. */
#define CB_MEMSET_RUN_FILL 0
#define CB_MEMSET_SETUP_FILL 0xff

/* A case's buffers; exposed so tests can look at what run() did. */
struct cb_memset_state {
    struct cb_workset dst;
};

/* Guard bytes checked on each side, and the longest length verified. */
#define CB_MEMSET_GUARD 64
#define CB_MEMSET_VERIFY_MAX 2048

extern const struct cb_probe cb_probe_memset;

#endif
