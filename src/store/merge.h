/* merge.h — copying runs from one store into another (`cyclebudget merge`).
 *
 * A team measures on many machines, each with its own store; merging brings
 * their runs into one, so that history and compare see every host.  A run is
 * the same run in both stores when its UUID (uuid.h) is: merging twice adds
 * nothing, and a run whose UUID is already there with other content is an
 * error, not a second copy.  Everything that hangs off a run comes with it
 * (events, cases, samples, races and their results, entrants and cases);
 * its host, build and commit rows are matched by content in the destination
 * and added when missing; integer ids are renumbered.  Acknowledgements
 * (acks) are not tied to runs: each source's are added where the destination
 * has none for the same case glob and commit.
 *
 * A run recorded before runs had UUIDs gets one when its store is migrated,
 * and a source is migrated in a copy at every merge: such a run is also
 * known by when and by which process it began, with the same content.
 *
 * Which runs: complete and aborted ones (an aborted run stays aborted, and
 * reports skip it unless asked); a run still 'running' in the source is left
 * out with a count, as its collector may still be adding to it.
 *
 * The source is read from a CB_STORE_SNAPSHOT store (store.h): an SQLite
 * file is opened read-only, copied and migrated to this binary's schema, so
 * the file itself is never written; a PostgreSQL database is read in one
 * read-only REPEATABLE READ transaction and must already be at this
 * binary's schema.  The source's schema is read from its catalog
 * (pragma_table_info on SQLite, information_schema and pg_constraint on
 * PostgreSQL).  Rows are read and written one by one through prepared
 * statements, never by ATTACH, so that the destination's side of the copy
 * is plain INSERTs and SELECTs another backend can run. */
#ifndef CB_MERGE_H
#define CB_MERGE_H

#include "util/strbuf.h"

#include <stddef.h>

#include "store/store.h"

struct cb_merge_stats {
    size_t runs_added, runs_present, runs_running;  /* running: left out */
    size_t runs_renamed;      /* of runs_present: found by start and content, not by UUID
                                 (a source older than 0009_uuid.sql; see merge.c) */
    size_t aborted_added;                           /* of runs_added */
    size_t hosts_added, builds_added, commits_added;
    size_t events_added, cases_added, samples_added, races_added;
    size_t acks_added, acks_kept;                   /* kept: the destination's reason won */
};

/* Copy every run of src that dst lacks, in one transaction on dst: either
 * all of them are added or nothing is.  src_name names the source in
 * messages.  0; -EEXIST when a run of src is in dst with other content
 * (err names its UUID and the source; nothing of src was written); other
 * negative errnos with err set. */
int cb_store_merge(struct cb_store *dst, struct cb_store *src, const char *src_name,
                   struct cb_merge_stats *stats, struct cb_sb *err);

/* A digest of a run's content, the same in every store that holds it: the
 * run's own columns, its events, its cases and their samples, with the
 * store's integer ids left out (they differ between stores) and rows in the
 * order they were written.  What merge compares; 0 or a negative errno. */
int cb_store_run_digest(struct cb_store *st, long long run_id, unsigned long long *digest);

#endif
