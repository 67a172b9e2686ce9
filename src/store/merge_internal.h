/* merge_internal.h — what merge.c and merge_rows.c share: the id maps of
 * one source, the columns of a table, and one merge's state.  Merge is cut
 * by concept: merge.c copies a run's own rows (the run tables) and decides
 * per run, merge_rows.c matches or adds the rows many runs share (hosts,
 * builds, commits, calibrations), merge_digest.c says whether two runs are
 * the same. */
#ifndef CB_MERGE_INTERNAL_H
#define CB_MERGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "store/merge.h"
#include "store/store_internal.h"

/* Which ids a column holds: the id maps of one source. */
enum { M_NONE, M_HOST, M_BUILD, M_COMMIT, M_CALIB, M_RUN, M_EVENT, M_CASE, M_RACE, M_RESULT, M__N };

/* Source id -> destination id, sorted by source id (a lookup is a binary
 * search).  Rows arrive in any order: two collectors starting at once can
 * leave run 1 with calibration 2 and run 2 with calibration 1, so an id that is not the largest so far is inserted in its place. */
struct cb_idmap {
    int64_t (*pair)[2];
    size_t n, cap;
};

#define CB_MERGE_MAXCOLS 64
#define CB_MERGE_NRUN_TABLES 10  /* merge.c's run_tables[] */

struct cb_merge_cols {
    char name[CB_MERGE_MAXCOLS][40];
    int n;
};

struct cb_merge {
    struct cb_store *dst, *src;
    const char *src_name;
    struct cb_merge_stats *stats;
    struct cb_idmap map[M__N];
    /* Per run table: the source's SELECT, the destination's INSERT, and
     * which column is what. */
    struct cb_db_stmt *sel[CB_MERGE_NRUN_TABLES], *ins[CB_MERGE_NRUN_TABLES];
    struct cb_merge_cols cols[CB_MERGE_NRUN_TABLES];
    int colmap[CB_MERGE_NRUN_TABLES][CB_MERGE_MAXCOLS]; /* M_NONE, or a column's map */
    int idcol[CB_MERGE_NRUN_TABLES];                    /* the id column, or -1 */
    struct cb_sb *err;
    int conflict;
};

/* Source id from of map `map` is destination id to: 0, or a negative errno
 * with m->err saying what went wrong. */
int cb_merge_map_put(struct cb_merge *m, int map, int64_t from, int64_t to);
/* 0 and *to, or -ENOENT when from is not in the map. */
int cb_merge_map_get(const struct cb_idmap *map, int64_t from, int64_t *to);

/* "merging SRC: WHAT: the database's message" into m->err; -EIO. */
int cb_merge_sql_fail(struct cb_merge *m, struct cb_db *db, const char *what);
/* The columns of a table in the source, in their order. */
int cb_merge_table_cols(struct cb_merge *m, const char *table, struct cb_merge_cols *c);
int cb_merge_col_index(const struct cb_merge_cols *c, const char *name);
/* "p.c1, p.c2, ..." of every column but skip (-1: none), into buf. */
void cb_merge_col_list(const struct cb_merge_cols *c, int skip, const char *prefix, char *buf,
                       size_t len);
/* "?1, ?2, ... ?n" into buf. */
void cb_merge_placeholders(int n, char *buf, size_t len);

/* The destination's id of a host, build or commit (map M_HOST, M_BUILD,
 * M_COMMIT) of the source: matched by its key, added when missing. */
int cb_merge_shared_row(struct cb_merge *m, int map, int64_t src_id, int64_t *dst_id);
/* The destination's id of a calibration of the source, with its ceilings. */
int cb_merge_calib_row(struct cb_merge *m, int64_t src_id, int64_t *dst_id);

#endif
