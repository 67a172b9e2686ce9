/* acks.c — which acknowledgements cover a change (see acks.h). */
#define _GNU_SOURCE
#include "acks.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

/* The newest (highest) position in commit order of any of c[n]: 1-based,
 * 0 when none is in it. */
static long newest(struct cb_store *st, const char (*c)[64], size_t n)
{
    struct cb_db_stmt *q;
    if (!n || cb_db_prepare(cb_store_db(st), "SELECT hash FROM commit_order", &q) != CB_DB_OK)
        return 0;
    long k = 0, best = 0;
    while (cb_db_step(q) == CB_DB_ROW) {
        const char *h = (const char *)cb_db_column_text(q, 0);
        k++;
        for (size_t i = 0; h && i < n; i++)
            if (strcmp(h, c[i]) == 0)
                best = k;
    }
    cb_db_finalize(q);
    return best;
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

int cb_ack_covers(struct cb_store *st, const char *key, const char (*a)[64], size_t na,
                  const char (*b)[64], size_t nb, char *why, size_t whylen)
{
    long lo = newest(st, a, na), hi = newest(st, b, nb);
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st), "SELECT case_glob, why, commit_hash FROM acks ORDER BY id DESC",
                      &q) != CB_DB_OK)
        return 0;
    int found = 0;
    while (!found && cb_db_step(q) == CB_DB_ROW) {
        const char *glob = (const char *)cb_db_column_text(q, 0);
        const char *h = (const char *)cb_db_column_text(q, 2);
        if (!glob || !h || fnmatch(glob, key, 0) != 0)
            continue;
        long at = lo && hi ? position(st, h) : 0;
        if (lo && hi ? at > lo && at <= hi : in_list(h, b, nb)) {
            snprintf(why, whylen, "%s", (const char *)cb_db_column_text(q, 1));
            found = 1;
        }
    }
    cb_db_finalize(q);
    return found;
}

int cb_ack_between(struct cb_store *st, const char *key, const struct cb_side *A,
                   const struct cb_side *B, char *why, size_t whylen)
{
    return cb_ack_covers(st, key, (const char(*)[64])A->commits, A->ncommits,
                         (const char(*)[64])B->commits, B->ncommits, why, whylen);
}
