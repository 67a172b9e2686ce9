/* arrays.c — growing arrays, blocks all or none (see arrays.h). */
#include "harness/arrays.h"

#include <errno.h>
#include <stdlib.h>

static size_t grown(size_t cap, size_t need, size_t first)
{
    size_t c = cap ? cap : first;
    while (c < need)
        c *= 2;
    return c;
}

int cb_grow(void **p, size_t *cap, size_t need, size_t first, size_t elem)
{
    struct cb_column col = {p, elem};
    return cb_grow_columns(&col, 1, cap, need, first);
}

int cb_grow_columns(const struct cb_column *cols, size_t ncols, size_t *cap, size_t need,
                    size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = grown(*cap, need, first);
    for (size_t i = 0; i < ncols; i++) {
        void *np = realloc(*cols[i].p, c * cols[i].elem);
        if (!np)
            return -ENOMEM;
        *cols[i].p = np;
    }
    *cap = c;
    return 0;
}

int cb_alloc_all(void **block, const size_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        block[i] = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(block[i] = malloc(bytes[i]))) {
            cb_free_all(block, i);
            for (size_t j = 0; j < i; j++)
                block[j] = NULL;
            return -ENOMEM;
        }
    }
    return 0;
}

void cb_free_all(void *const *block, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(block[i]);
}
