/* rerun.h — compare --rerun: measure the undecided cases again, into new
 * stored runs, with this binary or with the user's own two (--base-exec,
 * --head-exec); and what bisect-check shares with it (measuring a side's
 * cases, stopping on a signal between measurements). */
#ifndef CB_CMD_RERUN_H
#define CB_CMD_RERUN_H

#include "util/strbuf.h"

#include "harness/collect.h"
#include "cli/cmp_common.h"

/* Measure one case of a side's key in col; its per-op metric values are
 * appended to side.  Returns 0, 1 when the case cannot be measured here, or
 * a negative errno (-EINTR on a signal). */
int cmp_measure_into(struct cb_collector *col, const struct cb_side_case *k, const char *metric,
                     struct cb_side *side);
/* --rerun with this binary; v is judged anew after each round. */
int cmp_rerun(struct cb_store *st, struct cb_side *A, struct cb_side *B, const struct cmp_common *c,
              double cap_s, const char *cmdline, struct cmp_verdict *v, struct cb_sb *err);
/* Which sides a rerun measures with this binary (mask: 1 base, 2 head),
 * the tags of their new runs, and how.  bisect-check measures its tree
 * (head) only: the base is the past. */
struct cmp_rerun_plan {
    const char *tags[2];
    int mask;
    const char *cmdline;
    const struct cb_harness_opts *h;
};
int cmp_rerun_sides(struct cb_store *st, struct cb_side *A, struct cb_side *B,
                    const struct cmp_common *c, double cap_s, const struct cmp_rerun_plan *plan,
                    struct cmp_verdict *v, struct cb_sb *err);
/* --rerun --base-exec/--head-exec: each new run a process of the user's. */
int cmp_rerun_exec(struct cb_store *st, struct cb_side *A, struct cb_side *B,
                   const struct cmp_common *c, double cap_s, const char *const exec[2],
                   struct cmp_verdict *v, struct cb_sb *err);

#endif
