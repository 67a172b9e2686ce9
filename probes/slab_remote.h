/* slab_remote.h — the slab family's remote frees: objects
 * allocated on one CPU and freed on another, as an skb is allocated on the
 * RX CPU and freed after a TX completion or by the application's CPU.
 *
 * The second thread (peer.h), pinned to the case's peer CPU, stands for the
 * RX CPU: it owns a SLUB-shaped cache (slub.h, single-threaded as a
 * kmem_cache_cpu is), allocates objects, writes their header (a sequence
 * number, as building an skb writes its head) and hands them over a ring
 * of 256 pointers.  The timed thread, on the run's own CPU, takes each
 * object, reads its header, and frees it remotely: it pushes the object
 * onto the allocating CPU's defer list with one locked cmpxchg (bulk: a
 * chain of n objects with one), as skb_attempt_defer_free() (Linux 5.17)
 * does; the owner takes the whole list with one xchg and frees the objects
 * into its cache.  So one timed operation is: the object's pointer and
 * header lines coming from the other CPU, and the defer list's line going
 * back to it.  The local free beside it is the family's "single" row. */
#ifndef CB_PROBES_SLAB_REMOTE_H
#define CB_PROBES_SLAB_REMOTE_H

#include <stdint.h>

#include "harness/probe.h"

/* A case of batch objects per free (1: single).  -ENODEV without a peer
 * CPU, -EINVAL for objects under 16 bytes. */
int cb_slab_remote_setup(struct cb_case *c, unsigned batch);
void cb_slab_remote_run(struct cb_case *c, uint64_t iters);
void cb_slab_remote_teardown(struct cb_case *c);
/* Many objects through the protocol, both threads wherever the scheduler
 * puts them; then every object must have arrived once and in order with
 * its own header, and the cache must hold no live object and pass
 * cb_slub_check (debug mode: red zones and poison).  0 with *out, or a
 * negative errno. */
int cb_slab_remote_verify(unsigned batch, size_t size, struct cb_verdict *out);

#endif
