/* arrays.h — the memory chores that the harness and the analysis both do:
 * arrays that grow by doubling (alone, or several side by side that share
 * one capacity), and scratch blocks that are allocated all or none. */
#ifndef CB_ARRAYS_H
#define CB_ARRAYS_H

#include <stddef.h>

/* Make *p (elements of elem bytes, *cap of them) hold at least need: the
 * capacity starts at first (> 0) and doubles.  0, or -ENOMEM with *p and *cap as
 * they were. */
int cb_grow(void **p, size_t *cap, size_t need, size_t first, size_t elem);

/* One of several arrays indexed alike, so sharing one capacity. */
struct cb_column {
    void **p;
    size_t elem;
};
/* The column of the array pointer lvalue a. */
#define CB_COLUMN(a) {(void **)&(a), sizeof *(a)}

/* cb_grow over every column, with one capacity.  On -ENOMEM *cap is left as
 * it was, and so every column still holds at least that many. */
int cb_grow_columns(const struct cb_column *cols, size_t ncols, size_t *cap, size_t need,
                    size_t first);

/* block[i] = malloc(bytes[i]) for every i, or none: -ENOMEM with every
 * block[i] NULL. */
int cb_alloc_all(void **block, const size_t *bytes, size_t n);

/* free() each of n pointers. */
void cb_free_all(void *const *block, size_t n);

#endif
