/* paths.h — a composed packet path's result kept with its run
 * (db/0022_paths.sql, path_results) and read back: over runs for history,
 * and a side's totals for compare (report/path.h composes them). */
#ifndef CB_STORE_PATHS_H
#define CB_STORE_PATHS_H

#include <stdint.h>

struct cb_store;

/* One row of path_results; the figures are NAN where NULL (a path with a
 * step missing has no total). */
struct cb_store_path_row {
    int64_t run_id;
    const char *path, *context;
    int64_t size, frame, charged_frame, charged_frames;
    double cycles, cycles_lo, cycles_hi, ns;
    int64_t steps, missing;
    const char *detail;         /* "label=variant:cycles;..." */
    /* Read back for history only: the run's start, its commit ("" none)
     * and whether that tree was dirty (1), clean (0) or unknown (-1). */
    const char *started, *commit;
    int dirty;
};

/* Store row (its run, path, size and context replace what was there), in a
 * transaction of its own: 0, -EBUSY (another writer) or -EIO. */
int cb_store_path_put(struct cb_store *st, const struct cb_store_path_row *row);

/* The rows of path at size in context, of complete runs, oldest run first.
 * 0, the callback's stop value, or -EIO. */
int cb_store_each_path_run(struct cb_store *st, const char *path, uint64_t size,
                           const char *context,
                           int (*fn)(const struct cb_store_path_row *row, void *ctx), void *ctx);

/* run's rows that have a total (every step measured).  0, the callback's
 * stop value, or -EIO. */
int cb_store_each_path_total(struct cb_store *st, int64_t run,
                             int (*fn)(const struct cb_store_path_row *row, void *ctx), void *ctx);

#endif
