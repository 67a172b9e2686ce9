/* merge_copy.c — copying runs between stores (see merge.h).
 *
 * The copy is table-driven: each table that hangs off a run says which rows
 * belong to a run, which column is its own id (renumbered in the
 * destination) and which columns point at other rows (rewritten through the
 * id maps of the rows copied before them).  Every other column is copied as
 * SQLite holds it, by name, so a column a later migration adds comes along
 * without a change here; a table a later migration adds with a foreign key
 * into these is refused by check_tables until it is listed. */
#include "store/merge_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables ----------------------------------------------------------- */

#define NFK 4
struct fk {
    const char *col;
    int map;
};

/* The tables that hang off a run, parents first.  rows is a condition on
 * the table (alias t) with ?1 the source run's id; order lists rows by
 * their own id, so that the copy keeps the order they were written in. */
struct table {
    const char *name;
    int own;                 /* the map of its INTEGER PRIMARY KEY id; M_NONE: none */
    const char *rows, *order;
    struct fk fk[NFK];
};

#define RESULTS_OF_RUN \
    "t.result_id IN (SELECT rr.id FROM race_results rr JOIN races ra ON ra.id = rr.race_id" \
    " WHERE ra.run_id = ?1)"
static const struct table run_tables[] = {
    {"runs", M_RUN, "t.id = ?1", "t.id",
     {{"host_id", M_HOST}, {"build_id", M_BUILD}, {"commit_id", M_COMMIT},
      {"calibration_id", M_CALIB}}},
    {"events", M_EVENT, "t.run_id = ?1", "t.id", {{"run_id", M_RUN}}},
    {"cases", M_CASE, "t.run_id = ?1", "t.id", {{"run_id", M_RUN}}},
    {"samples", M_NONE, "t.case_id IN (SELECT id FROM cases WHERE run_id = ?1)",
     "t.case_id, t.event_id, t.seq", {{"case_id", M_CASE}, {"event_id", M_EVENT}}},
    {"races", M_RACE, "t.run_id = ?1", "t.id", {{"run_id", M_RUN}}},
    {"race_results", M_RESULT, "t.race_id IN (SELECT id FROM races WHERE run_id = ?1)", "t.id",
     {{"race_id", M_RACE}}},
    {"race_entrants", M_NONE, RESULTS_OF_RUN, "t.result_id, t.variant", {{"result_id", M_RESULT}}},
    {"race_cases", M_NONE, RESULTS_OF_RUN, "t.result_id, t.case_id",
     {{"result_id", M_RESULT}, {"case_id", M_CASE}}},
    {"run_plugins", M_NONE, "t.run_id = ?1", "t.id", {{"run_id", M_RUN}}},
    {"path_results", M_NONE, "t.run_id = ?1", "t.id", {{"run_id", M_RUN}}},
};
_Static_assert(sizeof run_tables / sizeof run_tables[0] == CB_MERGE_NRUN_TABLES,
               "merge_internal.h sizes struct cb_merge by the run tables");

/* Tables merge knows not to be part of a run: acks (merged on their own),
 * the tables above, and the machine's ceilings (calib_row: many runs may
 * be judged against one calibration). */
static const char *const not_of_runs[] = {"acks", "hosts", "builds", "commits", "calibrations",
                                          "ceilings"};

/* ---- one merge ------------------------------------------------------------ */

/* The statements of run table i. */
static int prepare_table(struct cb_merge *m, size_t i)
{
    const struct table *t = &run_tables[i];
    struct cb_merge_cols *c = &m->cols[i];
    int r = cb_merge_table_cols(m, t->name, c);
    if (r < 0)
        return r;
    /* A table's own id is never copied, whether or not other rows point at
     * it: two sources' run_plugins rows both numbered 1 would clash on the
     * destination's primary key. */
    m->idcol[i] = cb_merge_col_index(c, "id");
    for (int k = 0; k < c->n; k++)
        m->colmap[i][k] = M_NONE;
    for (int f = 0; f < NFK && t->fk[f].col; f++) {
        int k = cb_merge_col_index(c, t->fk[f].col);
        if (k < 0) {
            cb_st_msg(m->err, "merging %s: table %s has no column %s", m->src_name,
                      t->name, t->fk[f].col);
            return -EINVAL;
        }
        m->colmap[i][k] = t->fk[f].map;
    }
    char list[4096], ph[1024], sql[8192];
    cb_merge_col_list(c, -1, "t.", list, sizeof list);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s t WHERE %s ORDER BY %s", list, t->name, t->rows,
             t->order);
    if (cb_db_prepare(m->src->db, sql, &m->sel[i]) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, t->name);
    cb_merge_col_list(c, m->idcol[i], "", list, sizeof list);
    cb_merge_placeholders(c->n - (m->idcol[i] >= 0), ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s)", t->name, list, ph);
    if (cb_db_prepare(m->dst->db, sql, &m->ins[i]) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, t->name);
    return 0;
}

/* Every table with a foreign key into the run tables must be one of them
 * (or known not to belong to a run): a table a later migration adds would
 * otherwise be left behind without a word. */
static int check_tables(struct cb_merge *m)
{
    struct cb_db_stmt *s;
    const char *sql = cb_db_kind(m->src->db) == CB_DB_SQLITE
        ? "SELECT DISTINCT t.name, f.\"table\" FROM sqlite_schema t,"
          " pragma_foreign_key_list(t.name) f WHERE t.type = 'table' ORDER BY t.name"
        : "SELECT DISTINCT c.conrelid::regclass::text, c.confrelid::regclass::text"
          " FROM pg_constraint c WHERE c.contype = 'f'"
          " AND c.connamespace = current_schema()::regnamespace ORDER BY 1";
    if (cb_db_prepare(m->src->db, sql, &s) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "reading the schema");
    int r = 0;
    while (r == 0 && cb_db_step(s) == CB_DB_ROW) {
        const char *name = (const char *)cb_db_column_text(s, 0);
        int known = 0;
        for (size_t i = 0; i < CB_MERGE_NRUN_TABLES; i++)
            known |= strcmp(name, run_tables[i].name) == 0;
        for (size_t i = 0; i < sizeof not_of_runs / sizeof *not_of_runs; i++)
            known |= strcmp(name, not_of_runs[i]) == 0;
        if (!known) {
            cb_st_msg(m->err, "internal error: table %s refers to %s, and merge does "
                      "not know how to copy it (src/store/merge_copy.c)", name,
                      (const char *)cb_db_column_text(s, 1));
            r = -EPROTO;
        }
    }
    cb_db_finalize(s);
    return r;
}

/* Copy run table i's rows of one source run; how many. */
static int copy_rows(struct cb_merge *m, size_t i, int64_t src_run, size_t *count)
{
    const struct table *t = &run_tables[i];
    const struct cb_merge_cols *c = &m->cols[i];
    struct cb_db_stmt *sel = m->sel[i], *ins = m->ins[i];
    cb_db_reset(sel);
    cb_db_bind_int64(sel, 1, src_run);
    int rc, r = 0;
    *count = 0;
    while (r == 0 && (rc = cb_db_step(sel)) == CB_DB_ROW) {
        cb_db_reset(ins);
        int64_t own = 0;
        for (int k = 0, p = 1; k < c->n && r == 0; k++) {
            if (k == m->idcol[i]) {
                own = cb_db_column_int64(sel, k);
                continue;
            }
            int map = m->colmap[i][k];
            if (map == M_NONE || cb_db_column_type(sel, k) == CB_DB_NULL) {
                cb_db_bind_column(ins, p++, sel, k);
                continue;
            }
            int64_t to, from = cb_db_column_int64(sel, k);
            if (map == M_HOST || map == M_BUILD || map == M_COMMIT)
                r = cb_merge_shared_row(m, map, from, &to);
            else if (map == M_CALIB)
                r = cb_merge_calib_row(m, from, &to);
            else if (cb_merge_map_get(&m->map[map], from, &to) < 0) {
                cb_st_msg(m->err, "merging %s: %s.%s = %lld points at a row not "
                          "copied", m->src_name, t->name, c->name[k], (long long)from);
                r = -EINVAL;
            }
            if (r == 0)
                cb_db_bind_int64(ins, p++, to);
        }
        if (r == 0 && cb_st_step_done(ins) != CB_DB_OK)
            r = cb_merge_sql_fail(m, m->dst->db, t->name);
        if (r == 0 && t->own != M_NONE)
            r = cb_merge_map_put(m, t->own, own, cb_db_last_insert_id(m->dst->db));
        (*count)++;
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = cb_merge_sql_fail(m, m->src->db, t->name);
    cb_db_reset(sel);
    return r;
}

static int copy_run(struct cb_merge *m, int64_t src_run, int aborted)
{
    /* Events, cases and race ids are a run's own: start each run afresh. */
    for (int k = M_RUN; k < M__N; k++)
        m->map[k].n = 0;
    size_t *count[CB_MERGE_NRUN_TABLES] = {NULL, &m->stats->events_added, &m->stats->cases_added,
                                  &m->stats->samples_added, &m->stats->races_added};
    for (size_t i = 0; i < CB_MERGE_NRUN_TABLES; i++) {
        size_t n;
        int r = copy_rows(m, i, src_run, &n);
        if (r < 0)
            return r;
        if (count[i])
            *count[i] += n;
    }
    m->stats->runs_added++;
    m->stats->aborted_added += aborted != 0;
    return 0;
}

/* Acks: the destination's reason wins where both have one for a case glob
 * and commit. */
static int merge_acks(struct cb_merge *m)
{
    struct cb_db_stmt *sel = NULL, *find = NULL, *ins = NULL;
    int r = 0;
    if (cb_db_prepare(m->src->db, "SELECT case_glob, commit_hash, why, created FROM acks"
                           " ORDER BY id", &sel) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "acks");
    if (cb_db_prepare(m->dst->db, "SELECT why FROM acks WHERE case_glob = ?1 AND"
                           " commit_hash = ?2", &find) != CB_DB_OK ||
        cb_db_prepare(m->dst->db, "INSERT INTO acks (case_glob, commit_hash, why, created)"
                           " VALUES (?1, ?2, ?3, ?4)", &ins) != CB_DB_OK) {
        r = cb_merge_sql_fail(m, m->dst->db, "acks");
        goto out;
    }
    int rc;
    while (r == 0 && (rc = cb_db_step(sel)) == CB_DB_ROW) {
        cb_db_reset(find);
        for (int k = 0; k < 2; k++)
            cb_db_bind_column(find, k + 1, sel, k);
        rc = cb_db_step(find);
        if (rc == CB_DB_ROW) {
            m->stats->acks_kept += strcmp((const char *)cb_db_column_text(find, 0),
                                          (const char *)cb_db_column_text(sel, 2)) != 0;
            continue;
        }
        if (rc != CB_DB_DONE) {
            r = cb_merge_sql_fail(m, m->dst->db, "acks");
            break;
        }
        for (int k = 0; k < 4; k++)
            cb_db_bind_column(ins, k + 1, sel, k);
        if (cb_st_step_done(ins) != CB_DB_OK)
            r = cb_merge_sql_fail(m, m->dst->db, "acks");
        else
            m->stats->acks_added++;
    }
out:
    cb_db_finalize(sel);
    cb_db_finalize(find);
    cb_db_finalize(ins);
    return r;
}

/* The destination's run with this UUID: 1 (and its id), 0 none, or an errno. */
static int dst_run_of(struct cb_merge *m, const char *uuid, int64_t *id)
{
    struct cb_db_stmt *s;
    if (cb_db_prepare(m->dst->db, "SELECT id FROM runs WHERE uuid = ?1", &s) !=
        CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, "runs");
    cb_db_bind_text(s, 1, uuid);
    int rc = cb_db_step(s), r = 0;
    if (rc == CB_DB_ROW) {
        *id = cb_db_column_int64(s, 0);
        r = 1;
    } else if (rc != CB_DB_DONE) {
        r = cb_merge_sql_fail(m, m->dst->db, "runs");
    }
    cb_db_finalize(s);
    return r;
}

/* A run recorded before 0009_uuid.sql is named when its store is migrated:
 * once for good when that store is upgraded in place, but afresh at every
 * merge of a source that is not (its snapshot is migrated, the file never
 * is).  So a run whose UUID is not in the destination is still the same run
 * as one there that began at the same moment in the same process of the
 * same boot on a host of the same name and has the same content: 1 when
 * there is one, 0 none. */
static int same_run_renamed(struct cb_merge *m, int64_t src_run, unsigned long long digest)
{
    static const char *const key = "r.started, r.status, r.pid, COALESCE(r.pid_start, -1),"
                                   " r.boot_id, h.hostname";
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT %s FROM runs r JOIN hosts h ON h.id = r.host_id"
             " WHERE r.id = ?1", key);
    struct cb_db_stmt *a = NULL, *b = NULL;
    int r = 0;
    if (cb_db_prepare(m->src->db, sql, &a) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "runs");
    if (cb_db_prepare(m->dst->db, "SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id"
                           " WHERE r.started = ?1 AND r.status = ?2 AND r.pid = ?3"
                           " AND COALESCE(r.pid_start, -1) = ?4 AND r.boot_id = ?5"
                           " AND h.hostname = ?6", &b) != CB_DB_OK) {
        r = cb_merge_sql_fail(m, m->dst->db, "runs");
        goto out;
    }
    cb_db_bind_int64(a, 1, src_run);
    if (cb_db_step(a) != CB_DB_ROW) {
        r = cb_merge_sql_fail(m, m->src->db, "runs");
        goto out;
    }
    for (int k = 0; k < 6; k++)
        cb_db_bind_column(b, k + 1, a, k);
    while (r == 0 && cb_db_step(b) == CB_DB_ROW) {
        unsigned long long d;
        if (cb_store_run_digest(m->dst, cb_db_column_int64(b, 0), &d) < 0)
            r = cb_merge_sql_fail(m, m->dst->db, "a run's digest");
        else if (d == digest)
            r = 1;
    }
out:
    cb_db_finalize(a);
    cb_db_finalize(b);
    return r;
}

/* One source run: added, already there, or a conflict. */
static int merge_run(struct cb_merge *m, int64_t src_run, const char *uuid, const char *status)
{
    int64_t have = 0;
    unsigned long long a, b;
    int r = dst_run_of(m, uuid, &have);
    if (r < 0)
        return r;
    if (cb_store_run_digest(m->src, src_run, &a) < 0)
        return cb_merge_sql_fail(m, m->src->db, "a run's digest");
    if (r == 0) {
        if ((r = same_run_renamed(m, src_run, a)) < 0)
            return r;
        if (r) {
            m->stats->runs_present++;
            m->stats->runs_renamed++;
            return 0;
        }
        return copy_run(m, src_run, strcmp(status, "aborted") == 0);
    }
    if (cb_store_run_digest(m->dst, have, &b) < 0)
        return cb_merge_sql_fail(m, m->dst->db, "a run's digest");
    if (a != b) {
        cb_st_msg(m->err, "run %s of %s (run %lld there) is already in the destination "
                  "(run %lld) with other content: its samples, cases or record differ; nothing "
                  "of %s was merged", uuid, m->src_name, (long long)src_run, (long long)have,
                  m->src_name);
        m->conflict = 1;
        return -EEXIST;
    }
    m->stats->runs_present++;
    return 0;
}

/* The whole source, inside the destination's transaction. */
static int merge_body(struct cb_merge *m)
{
    int r = check_tables(m);
    for (size_t i = 0; r == 0 && i < CB_MERGE_NRUN_TABLES; i++)
        r = prepare_table(m, i);
    if (r == 0)
        r = merge_acks(m);
    struct cb_db_stmt *s;
    if (r < 0)
        return r;
    if (cb_db_prepare(m->src->db, "SELECT id, uuid, status FROM runs ORDER BY id", &s) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "runs");
    int rc;
    while (r == 0 && (rc = cb_db_step(s)) == CB_DB_ROW) {
        int64_t id = cb_db_column_int64(s, 0);
        const char *uuid = (const char *)cb_db_column_text(s, 1);
        const char *status = (const char *)cb_db_column_text(s, 2);
        if (strcmp(status, "running") == 0) {
            m->stats->runs_running++;
            continue;
        }
        if (!uuid) {
            cb_st_msg(m->err, "merging %s: run %lld has no UUID", m->src_name,
                      (long long)id);
            r = -EINVAL;
            break;
        }
        r = merge_run(m, id, uuid, status);
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = cb_merge_sql_fail(m, m->src->db, "runs");
    cb_db_finalize(s);
    return r;
}

static void merge_reset(struct cb_merge *m)
{
    for (size_t i = 0; i < CB_MERGE_NRUN_TABLES; i++) {
        cb_db_finalize(m->sel[i]);
        cb_db_finalize(m->ins[i]);
        m->sel[i] = m->ins[i] = NULL;
    }
    for (int k = 0; k < M__N; k++)
        m->map[k].n = 0;
    memset(m->stats, 0, sizeof *m->stats);
    m->conflict = 0;
}

int cb_store_merge(struct cb_store *dst, struct cb_store *src, const char *src_name,
                   struct cb_merge_stats *stats, struct cb_sb *err)
{
    struct cb_merge m = {.dst = dst, .src = src, .src_name = src_name, .stats = stats,
                      .err = err};
    if (err)
        cb_sb_reset(err);
    int r = -EBUSY;
    /* BEGIN IMMEDIATE waits for other writers (the busy timeout); what is
     * still busy after it (a checkpoint racing the COMMIT) is tried again
     * from the start, as cb_st_in_tx does. */
    for (int attempt = 0; attempt < CB_TX_TRIES && !(attempt && cb_db_stopped()) && r == -EBUSY; attempt++) {
        if (attempt)
            cb_st_backoff(attempt);
        merge_reset(&m);
        int rc = cb_db_begin(dst->db);
        if (rc != CB_DB_OK) {
            r = cb_st_is_busy(rc) ? -EBUSY : cb_merge_sql_fail(&m, dst->db, "BEGIN");
            continue;
        }
        r = merge_body(&m);
        if (r == 0) {
            rc = cb_st_exec(dst, "COMMIT");
            if (rc != CB_DB_OK)
                r = cb_st_is_busy(rc) ? -EBUSY : cb_merge_sql_fail(&m, dst->db, "COMMIT");
        }
        if (r != 0 && cb_db_in_tx(dst->db))
            cb_db_rollback(dst->db);
    }
    if (r == -EBUSY)
        cb_st_msg(err, "merging %s: the destination stayed busy (another writer?)",
                  src_name);
    else if (r < 0 && err && !err->len)   /* every failure names its problem */
        cb_st_msg(err, "merging %s: %s", src_name, strerror(-r));
    for (size_t i = 0; i < CB_MERGE_NRUN_TABLES; i++) {
        cb_db_finalize(m.sel[i]);
        cb_db_finalize(m.ins[i]);
    }
    for (int k = 0; k < M__N; k++)
        free(m.map[k].pair);
    return r;
}
