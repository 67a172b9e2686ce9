/* sort.h — one sort of doubles for every layer.
 *
 * Medians and quantiles are taken in every layer (the counters' read
 * costs, the ceilings' best windows, the harness's batches, the store's
 * in-kernel figures, the race, the floor, the reports); each layer had
 * grown its own comparator for them, twelve copies of one line.  NaNs
 * compare equal to everything here, so callers drop them first. */
#ifndef CB_SORT_H
#define CB_SORT_H

#include <stddef.h>

/* Sort v[0..n) ascending. */
void cb_sort_doubles(double *v, size_t n);

#endif
