/* acks.c — which acknowledgements cover a change (see acks.h). */
#define _GNU_SOURCE
#include "analysis/acks.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/lookup.h"

/* newest's walk: the position so far, and the best match. */
struct order {
    const char (*c)[64];
    size_t n;
    long k, best;
};

static int at_commit(const char *hash, const char *subject, void *ctx)
{
    struct order *o = ctx;
    (void)subject;
    o->k++;
    for (size_t i = 0; hash && i < o->n; i++)
        if (strcmp(hash, o->c[i]) == 0)
            o->best = o->k;
    return 0;
}

/* The newest (highest) position in commit order of any of c[n]: 1-based,
 * 0 when none is in it. */
static long newest(struct cb_store *st, const char (*c)[64], size_t n)
{
    struct order o = {c, n, 0, 0};
    if (!n || cb_store_each_commit(st, at_commit, &o) < 0)
        return 0;
    return o.best;
}

/* The position of one commit in commit order, 0 when not in it. */
static long position(struct cb_store *st, const char *hash)
{
    char one[1][64];
    snprintf(one[0], sizeof one[0], "%s", hash);
    return newest(st, (const char(*)[64])one, 1);
}

static int in_list(const char *h, const char (*c)[64], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(h, c[i]) == 0)
            return 1;
    return 0;
}

/* cb_ack_covers' walk over the acknowledgements, newest first. */
struct cover {
    struct cb_store *st;
    const char *key;
    const char (*b)[64];
    size_t nb;
    long lo, hi;
    struct cb_sb *why;
};

static int covers(const struct cb_store_ack *a, void *ctx)
{
    struct cover *c = ctx;
    if (!a->glob || !a->commit || fnmatch(a->glob, c->key, 0) != 0)
        return 0;
    long at = c->lo && c->hi ? position(c->st, a->commit) : 0;
    if (c->lo && c->hi ? at > c->lo && at <= c->hi : in_list(a->commit, c->b, c->nb)) {
        cb_sb_setf(c->why, "%s", a->why ? a->why : "");
        return 1;
    }
    return 0;
}

int cb_ack_covers(struct cb_store *st, const char *key, const char (*a)[64], size_t na,
                  const char (*b)[64], size_t nb, struct cb_sb *why)
{
    struct cover c = {st, key, b, nb, newest(st, a, na), newest(st, b, nb), why};
    return cb_store_each_ack(st, 1, covers, &c) == 1;
}

int cb_ack_between(struct cb_store *st, const char *key, const struct cb_side *A,
                   const struct cb_side *B, struct cb_sb *why)
{
    return cb_ack_covers(st, key, (const char(*)[64])A->commits, A->ncommits,
                         (const char(*)[64])B->commits, B->ncommits, why);
}
