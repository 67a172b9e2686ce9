/* acks.h — which acknowledgements (cyclebudget ack) cover a change.
 *
 * An ack names the commit that made a change on purpose.  compare, history
 * and bisect-check apply it by one rule: it covers a change from BASE to
 * HEAD when its commit lies after BASE and at or before HEAD, in the
 * store's commit order (the commit_order view: author date, then first
 * run).  Before this rule compare looked only at HEAD's own commits, so a
 * compare across the acknowledged commit, to a later one, still failed
 * while history, whose steps start at the commit, said
 * acknowledged. */
#ifndef CB_ACKS_H
#define CB_ACKS_H

#include <stddef.h>

#include "analysis/sides.h"
#include "store/store.h"

/* 1 when an ack of a glob matching case key covers the change from the
 * commits a[na] to the commits b[nb]: its commit after the newest of a and
 * at or before the newest of b; its reason in why.  When a has no commit in
 * commit order (a dirty tree, or none), only the acks at b's commits count. */
int cb_ack_covers(struct cb_store *st, const char *key, const char (*a)[64], size_t na,
                  const char (*b)[64], size_t nb, struct cb_sb *why);

/* The same for two sides' commits. */
int cb_ack_between(struct cb_store *st, const char *key, const struct cb_side *A,
                   const struct cb_side *B, struct cb_sb *why);

#endif
