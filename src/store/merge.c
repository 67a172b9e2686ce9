/* merge.c — copying runs between stores (see merge.h).
 *
 * The copy is table-driven: each table that hangs off a run says which rows
 * belong to a run, which column is its own id (renumbered in the
 * destination) and which columns point at other rows (rewritten through the
 * id maps of the rows copied before them).  Every other column is copied as
 * SQLite holds it, by name, so a column a later migration adds comes along
 * without a change here; a table a later migration adds with a foreign key
 * into these is refused by check_tables until it is listed. */
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* ---- id maps -------------------------------------------------------------- */

/* Which ids a column holds: the id maps of one source. */
enum { M_NONE, M_HOST, M_BUILD, M_COMMIT, M_CALIB, M_RUN, M_EVENT, M_CASE, M_RACE, M_RESULT, M__N };

/* Source id -> destination id.  Rows are copied in ascending source id, so
 * appending keeps it sorted and a lookup is a binary search. */
struct idmap {
    int64_t (*pair)[2];
    size_t n, cap;
};

static int map_put(struct idmap *m, int64_t from, int64_t to)
{
    if (m->n && m->pair[m->n - 1][0] >= from)
        return -EINVAL;   /* not ascending: a table's ORDER BY is wrong */
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        int64_t(*p)[2] = realloc(m->pair, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        m->pair = p;
        m->cap = cap;
    }
    m->pair[m->n][0] = from;
    m->pair[m->n][1] = to;
    m->n++;
    return 0;
}

static int map_get(const struct idmap *m, int64_t from, int64_t *to)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->pair[mid][0] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->n && m->pair[lo][0] == from) {
        *to = m->pair[lo][1];
        return 0;
    }
    return -ENOENT;
}

/* ---- the tables ----------------------------------------------------------- */

#define NFK 4
struct fk {
    const char *col;
    int map;
};

/* The tables that hang off a run, parents first.  rows is a condition on
 * the table (alias t) with ?1 the source run's id; order lists rows by
 * their own id, so the maps stay sorted and the copy keeps the order they
 * were written in. */
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
};
#define NRUN_TABLES (sizeof run_tables / sizeof run_tables[0])

/* Rows that many runs share, matched in the destination by the columns of
 * their UNIQUE key (a host that differs only in feature_mask, which its key
 * leaves out, is the destination's host). */
struct shared {
    const char *name;
    int map;
    const char *key[16];
};
static const struct shared shared_tables[] = {
    {"hosts", M_HOST, {"hostname", "vendor", "family", "model", "stepping", "model_name",
                       "microcode", "features", "ncpus", "llc_bytes", "kernel", "tsc_ghz",
                       "tsc_source", "pmu"}},
    {"builds", M_BUILD, {"version", "compiler", "cflags"}},
    {"commits", M_COMMIT, {"hash", "dirty"}},
};

/* Tables merge knows not to be part of a run: acks (merged on their own),
 * the tables above, and the machine's ceilings (calib_row: many runs may
 * be judged against one calibration). */
static const char *const not_of_runs[] = {"acks", "hosts", "builds", "commits", "calibrations",
                                          "ceilings"};

/* ---- a run's digest -------------------------------------------------------- */

/* FNV-1a, 64 bits: it tells a changed copy from the same one, which is all
 * merge asks of it (it is no defence against a forger). */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static void fnv(unsigned long long *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * FNV_PRIME;
}

/* Which columns of s to leave out: bit i set for column i named in skip. */
static uint64_t skip_mask(struct cb_db_stmt *s, const char *const *skip)
{
    uint64_t mask = 0;
    for (int i = 0; i < cb_db_column_count(s) && i < 64; i++)
        for (const char *const *k = skip; *k; k++)
            if (strcmp(cb_db_column_name(s, i), *k) == 0)
                mask |= (uint64_t)1 << i;
    return mask;
}

/* A row's columns but the skipped ones (the ids of this store), each with
 * its type, so that NULL, 0, 0.0 and '' all differ. */
static void hash_row(unsigned long long *h, struct cb_db_stmt *s, uint64_t skip)
{
    for (int i = 0; i < cb_db_column_count(s); i++) {
        if (i < 64 && (skip >> i & 1))
            continue;
        unsigned char type = (unsigned char)cb_db_column_type(s, i);
        fnv(h, &type, 1);
        if (type == CB_DB_INTEGER) {
            int64_t v = cb_db_column_int64(s, i);
            fnv(h, &v, sizeof v);
        } else if (type == CB_DB_FLOAT) {
            double v = cb_db_column_double(s, i);
            fnv(h, &v, sizeof v);
        } else if (type != CB_DB_NULL) {
            const char *p = cb_db_column_text(s, i);
            int64_t n = (int64_t)strlen(p ? p : "");
            fnv(h, &n, sizeof n);
            fnv(h, p, (size_t)n);
        }
    }
    fnv(h, "\n", 1);
}

/* Every row of s (reset, ?1 = id) into h; each row's first column into
 * ids when given. */
static int hash_stmt(struct cb_db_stmt *s, int64_t id, const char *const *skip, unsigned long long *h,
                     int64_t **ids, size_t *nids)
{
    cb_db_reset(s);
    cb_db_bind_int64(s, 1, id);
    uint64_t mask = 0;
    int rc, r = 0, first = 1;
    size_t cap = 0;
    while (r == 0 && (rc = cb_db_step(s)) == CB_DB_ROW) {
        /* After the first step: PostgreSQL names the columns only then. */
        if (first)
            mask = skip_mask(s, skip);
        first = 0;
        hash_row(h, s, mask);
        if (!ids)
            continue;
        if (*nids == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *n = realloc(*ids, cap * sizeof *n);
            if (!n) {
                r = -ENOMEM;
                break;
            }
            *ids = n;
        }
        (*ids)[(*nids)++] = cb_db_column_int64(s, 0);
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = -EIO;
    cb_db_reset(s);
    return r;
}

static int hash_rows(struct cb_db *db, const char *sql, int64_t id, const char *const *skip,
                     unsigned long long *h, int64_t **ids, size_t *nids)
{
    struct cb_db_stmt *s;
    if (cb_db_prepare(db, sql, &s) != CB_DB_OK)
        return -EIO;
    int r = hash_stmt(s, id, skip, h, ids, nids);
    cb_db_finalize(s);
    return r;
}

int cb_store_run_digest(struct cb_store *st, long long run_id, unsigned long long *digest)
{
    /* The UUID is the run's name, not its content: a store older than
     * 0009_uuid.sql names its runs when it is migrated (merge.h). */
    static const char *const run_skip[] = {"id", "uuid", "host_id", "build_id", "commit_id",
                                           "calibration_id", NULL};
    static const char *const own_skip[] = {"id", "run_id", NULL};
    static const char *const sample_skip[] = {"case_id", "event_id", NULL};
    unsigned long long h = FNV_OFFSET;
    int64_t *cases = NULL;
    size_t ncases = 0;
    static const char *const none[] = {NULL};
    int r = hash_rows(st->db, "SELECT * FROM runs WHERE id = ?1", run_id, run_skip, &h, NULL, NULL);
    /* Where it ran, what measured, what was measured: by content, as
     * merge matches those rows. */
    if (r == 0)
        r = hash_rows(st->db, "SELECT h.hostname, h.vendor, h.family, h.model, h.stepping,"
                      " h.model_name, h.microcode, h.kernel, h.pmu, b.version, b.compiler, b.cflags,"
                      " cm.hash, cm.dirty, ca.taken, ca.fingerprint, ca.source"
                      " FROM runs r JOIN hosts h ON h.id = r.host_id"
                      " JOIN builds b ON b.id = r.build_id LEFT JOIN commits cm ON cm.id = r.commit_id"
                      " LEFT JOIN calibrations ca ON ca.id = r.calibration_id"
                      " WHERE r.id = ?1", run_id, none, &h, NULL, NULL);
    if (r == 0)
        r = hash_rows(st->db, "SELECT * FROM events WHERE run_id = ?1 ORDER BY id", run_id,
                      own_skip, &h, NULL, NULL);
    /* Which build of which plugin measured its own variants. */
    if (r == 0)
        r = hash_rows(st->db, "SELECT * FROM run_plugins WHERE run_id = ?1 ORDER BY id", run_id,
                      own_skip, &h, NULL, NULL);
    if (r == 0)
        r = hash_rows(st->db, "SELECT * FROM cases WHERE run_id = ?1 ORDER BY id", run_id,
                      own_skip, &h, &cases, &ncases);
    /* Each case's samples after it, their event named rather than numbered. */
    struct cb_db_stmt *q = NULL;
    if (r == 0 && cb_db_prepare(st->db, "SELECT e.name AS event_name, e.part AS event_part,"
                                     " s.* FROM samples s JOIN events e ON e.id = s.event_id"
                                     " WHERE s.case_id = ?1 ORDER BY e.id, s.seq", &q) != CB_DB_OK)
        r = -EIO;
    for (size_t i = 0; r == 0 && i < ncases; i++) {
        fnv(&h, "case", 4);
        r = hash_stmt(q, cases[i], sample_skip, &h, NULL, NULL);
    }
    cb_db_finalize(q);
    free(cases);
    *digest = h;
    return r;
}

/* ---- one merge ------------------------------------------------------------ */

#define MAXCOLS 64

struct cols {
    char name[MAXCOLS][40];
    int n;
};

struct merge {
    struct cb_store *dst, *src;
    const char *src_name;
    struct cb_merge_stats *stats;
    struct idmap map[M__N];
    /* Per run table: the source's SELECT, the destination's INSERT, and
     * which column is what. */
    struct cb_db_stmt *sel[NRUN_TABLES], *ins[NRUN_TABLES];
    struct cols cols[NRUN_TABLES];
    int colmap[NRUN_TABLES][MAXCOLS];   /* M_NONE, or the map a column goes through */
    int idcol[NRUN_TABLES];             /* the own id's column, or -1 */
    char *err;
    size_t errlen;
    int conflict;
};

static int sql_fail(struct merge *m, struct cb_db *db, const char *what)
{
    cb_st_msg(m->err, m->errlen, "merging %s: %s: %s", m->src_name, what, cb_db_errmsg(db));
    return -EIO;
}

/* The columns of a table in the source, in their order. */
static int table_cols(struct merge *m, const char *table, struct cols *c)
{
    struct cb_db_stmt *s;
    c->n = 0;
    /* The source's own schema: an SQLite file's, or a PostgreSQL database's. */
    const char *sql = cb_db_kind(m->src->db) == CB_DB_SQLITE
        ? "SELECT name FROM pragma_table_info(?1) ORDER BY cid"
        : "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
          " AND table_name = ?1 ORDER BY ordinal_position";
    if (cb_db_prepare(m->src->db, sql, &s) != CB_DB_OK)
        return sql_fail(m, m->src->db, "reading the schema");
    cb_db_bind_text(s, 1, table);
    while (cb_db_step(s) == CB_DB_ROW && c->n < MAXCOLS)
        cb_st_col_str(s, 0, c->name[c->n++], sizeof c->name[0]);
    cb_db_finalize(s);
    if (c->n == 0 || c->n == MAXCOLS) {
        cb_st_msg(m->err, m->errlen, "merging %s: table %s has %s columns", m->src_name, table,
                  c->n ? "too many" : "no");
        return -EINVAL;
    }
    return 0;
}

static int col_index(const struct cols *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0)
            return i;
    return -1;
}

/* "c1, c2, ..." of every column, or every column but skip, into buf. */
static void col_list(const struct cols *c, int skip, const char *prefix, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n && o < len; i++)
        if (i != skip)
            o += (size_t)snprintf(buf + o, len - o, "%s%s%s", o ? ", " : "", prefix, c->name[i]);
}

static void placeholders(int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 1; i <= n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s?%d", i > 1 ? ", " : "", i);
}

/* The statements of run table i. */
static int prepare_table(struct merge *m, size_t i)
{
    const struct table *t = &run_tables[i];
    struct cols *c = &m->cols[i];
    int r = table_cols(m, t->name, c);
    if (r < 0)
        return r;
    m->idcol[i] = t->own != M_NONE ? col_index(c, "id") : -1;
    for (int k = 0; k < c->n; k++)
        m->colmap[i][k] = M_NONE;
    for (int f = 0; f < NFK && t->fk[f].col; f++) {
        int k = col_index(c, t->fk[f].col);
        if (k < 0) {
            cb_st_msg(m->err, m->errlen, "merging %s: table %s has no column %s", m->src_name,
                      t->name, t->fk[f].col);
            return -EINVAL;
        }
        m->colmap[i][k] = t->fk[f].map;
    }
    char list[4096], ph[1024], sql[8192];
    col_list(c, -1, "t.", list, sizeof list);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s t WHERE %s ORDER BY %s", list, t->name, t->rows,
             t->order);
    if (cb_db_prepare(m->src->db, sql, &m->sel[i]) != CB_DB_OK)
        return sql_fail(m, m->src->db, t->name);
    col_list(c, m->idcol[i], "", list, sizeof list);
    placeholders(c->n - (m->idcol[i] >= 0), ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s)", t->name, list, ph);
    if (cb_db_prepare(m->dst->db, sql, &m->ins[i]) != CB_DB_OK)
        return sql_fail(m, m->dst->db, t->name);
    return 0;
}

/* Every table with a foreign key into the run tables must be one of them
 * (or known not to belong to a run): a table a later migration adds would
 * otherwise be left behind without a word. */
static int check_tables(struct merge *m)
{
    struct cb_db_stmt *s;
    const char *sql = cb_db_kind(m->src->db) == CB_DB_SQLITE
        ? "SELECT DISTINCT t.name, f.\"table\" FROM sqlite_schema t,"
          " pragma_foreign_key_list(t.name) f WHERE t.type = 'table' ORDER BY t.name"
        : "SELECT DISTINCT c.conrelid::regclass::text, c.confrelid::regclass::text"
          " FROM pg_constraint c WHERE c.contype = 'f'"
          " AND c.connamespace = current_schema()::regnamespace ORDER BY 1";
    if (cb_db_prepare(m->src->db, sql, &s) != CB_DB_OK)
        return sql_fail(m, m->src->db, "reading the schema");
    int r = 0;
    while (r == 0 && cb_db_step(s) == CB_DB_ROW) {
        const char *name = (const char *)cb_db_column_text(s, 0);
        int known = 0;
        for (size_t i = 0; i < NRUN_TABLES; i++)
            known |= strcmp(name, run_tables[i].name) == 0;
        for (size_t i = 0; i < sizeof not_of_runs / sizeof *not_of_runs; i++)
            known |= strcmp(name, not_of_runs[i]) == 0;
        if (!known) {
            cb_st_msg(m->err, m->errlen, "internal error: table %s refers to %s, and merge does "
                      "not know how to copy it (src/store/merge.c)", name,
                      (const char *)cb_db_column_text(s, 1));
            r = -EPROTO;
        }
    }
    cb_db_finalize(s);
    return r;
}

/* The destination's id of a host, build or commit of the source: matched by
 * its key, added when missing. */
static int shared_row(struct merge *m, int map, int64_t src_id, int64_t *dst_id)
{
    if (map_get(&m->map[map], src_id, dst_id) == 0)
        return 0;
    const struct shared *t = NULL;
    for (size_t i = 0; i < sizeof shared_tables / sizeof *shared_tables; i++)
        if (shared_tables[i].map == map)
            t = &shared_tables[i];
    struct cols c;
    int r = table_cols(m, t->name, &c);
    if (r < 0)
        return r;
    char list[4096], ph[1024], sql[8192];
    col_list(&c, -1, "", list, sizeof list);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE id = ?1", list, t->name);
    struct cb_db_stmt *row = NULL, *find = NULL, *ins = NULL;
    if (cb_db_prepare(m->src->db, sql, &row) != CB_DB_OK)
        return sql_fail(m, m->src->db, t->name);
    cb_db_bind_int64(row, 1, src_id);
    if (cb_db_step(row) != CB_DB_ROW) {
        cb_db_finalize(row);
        cb_st_msg(m->err, m->errlen, "merging %s: %s row %lld is missing", m->src_name, t->name,
                  (long long)src_id);
        return -EINVAL;
    }
    /* SELECT id FROM t WHERE k1 = ?1 AND k2 = ?2 ... */
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE ", t->name);
    int nkey = 0;
    for (; nkey < 16 && t->key[nkey]; nkey++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s%s = ?%d", nkey ? " AND " : "",
                              t->key[nkey], nkey + 1);
    r = 0;
    if (cb_db_prepare(m->dst->db, sql, &find) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, t->name);
        goto out;
    }
    for (int k = 0; k < nkey; k++)
        cb_db_bind_column(find, k + 1, row, col_index(&c, t->key[k]));
    int rc = cb_db_step(find);
    if (rc == CB_DB_ROW) {
        *dst_id = cb_db_column_int64(find, 0);
    } else if (rc == CB_DB_DONE) {
        int id = col_index(&c, "id");
        col_list(&c, id, "", list, sizeof list);
        placeholders(c.n - 1, ph, sizeof ph);
        snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s)", t->name, list, ph);
        if (cb_db_prepare(m->dst->db, sql, &ins) != CB_DB_OK) {
            r = sql_fail(m, m->dst->db, t->name);
            goto out;
        }
        for (int k = 0, p = 1; k < c.n; k++)
            if (k != id)
                cb_db_bind_column(ins, p++, row, k);
        if (cb_st_step_done(ins) != CB_DB_OK) {
            r = sql_fail(m, m->dst->db, t->name);
            goto out;
        }
        *dst_id = cb_db_last_insert_id(m->dst->db);
        size_t *added = map == M_HOST ? &m->stats->hosts_added
                      : map == M_BUILD ? &m->stats->builds_added : &m->stats->commits_added;
        (*added)++;
    } else {
        r = sql_fail(m, m->dst->db, t->name);
        goto out;
    }
    r = map_put(&m->map[map], src_id, *dst_id);
out:
    cb_db_finalize(row);
    cb_db_finalize(find);
    cb_db_finalize(ins);
    return r;
}

/* Every column of table but id, as "a, b, c", with its count and the index
 * in the row of column want (-1 when missing). */
static int calib_cols(struct merge *m, const char *table, const char *want, struct cols *c,
                      char *list, size_t len, int *at)
{
    int r = table_cols(m, table, c);
    if (r < 0)
        return r;
    int id = col_index(c, "id");
    col_list(c, id, "", list, len);
    *at = -1;
    for (int k = 0, p = 0; k < c->n; k++) {
        if (k == id)
            continue;
        if (strcmp(c->name[k], want) == 0)
            *at = p;
        p++;
    }
    return *at < 0 ? -EPROTO : 0;
}

/* The destination's id of a calibration of the source (the ceilings a run
 * is judged against): the same one when DST holds it (its host, its
 * fingerprint and the instant it was taken), else copied with its
 * ceilings.  Many runs share one, so it is matched, never copied twice. */
static int calib_row(struct merge *m, int64_t src_id, int64_t *dst_id)
{
    if (map_get(&m->map[M_CALIB], src_id, dst_id) == 0)
        return 0;
    struct cols c, k;
    char list[2048], klist[2048], ph[512], sql[6144];
    int host_at, cal_at;
    int r = calib_cols(m, "calibrations", "host_id", &c, list, sizeof list, &host_at);
    if (r == 0)
        r = calib_cols(m, "ceilings", "calibration_id", &k, klist, sizeof klist, &cal_at);
    if (r < 0) {
        cb_st_msg(m->err, m->errlen, "merging %s: cannot read the calibrations' columns", m->src_name);
        return r;
    }
    struct cb_db_stmt *row = NULL, *find = NULL, *ins = NULL, *ksel = NULL, *kins = NULL;
    snprintf(sql, sizeof sql, "SELECT %s FROM calibrations WHERE id = ?1", list);
    if (cb_db_prepare(m->src->db, sql, &row) != CB_DB_OK) {
        r = sql_fail(m, m->src->db, "calibrations");
        goto out;
    }
    cb_db_bind_int64(row, 1, src_id);
    if (cb_db_step(row) != CB_DB_ROW) {
        cb_st_msg(m->err, m->errlen, "merging %s: calibration %lld is missing", m->src_name,
                  (long long)src_id);
        r = -EINVAL;
        goto out;
    }
    int64_t host;
    if ((r = shared_row(m, M_HOST, cb_db_column_int64(row, host_at), &host)) < 0)
        goto out;
    if (cb_db_prepare(m->dst->db, "SELECT id FROM calibrations WHERE host_id = ?1 AND"
                           " fingerprint = ?2 AND taken = ?3 AND source = ?4", &find) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, "calibrations");
        goto out;
    }
    int nc = cb_db_column_count(row);
    cb_db_bind_int64(find, 1, host);
    static const char *const key[] = {"fingerprint", "taken", "source"};
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < 3; j++)
            if (strcmp(cb_db_column_name(row, i), key[j]) == 0)
                cb_db_bind_column(find, j + 2, row, i);
    int rc = cb_db_step(find);
    if (rc == CB_DB_ROW) {
        *dst_id = cb_db_column_int64(find, 0);
        r = map_put(&m->map[M_CALIB], src_id, *dst_id);
        goto out;
    }
    if (rc != CB_DB_DONE) {
        r = sql_fail(m, m->dst->db, "calibrations");
        goto out;
    }
    placeholders(nc, ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO calibrations (%s) VALUES (%s)", list, ph);
    if (cb_db_prepare(m->dst->db, sql, &ins) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, "calibrations");
        goto out;
    }
    for (int i = 0; i < nc; i++) {
        if (i == host_at)
            cb_db_bind_int64(ins, i + 1, host);
        else
            cb_db_bind_column(ins, i + 1, row, i);
    }
    if (cb_st_step_done(ins) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, "calibrations");
        goto out;
    }
    *dst_id = cb_db_last_insert_id(m->dst->db);
    if ((r = map_put(&m->map[M_CALIB], src_id, *dst_id)) < 0)
        goto out;
    /* Its ceilings, with the new calibration's id. */
    snprintf(sql, sizeof sql, "SELECT %s FROM ceilings WHERE calibration_id = ?1 ORDER BY id", klist);
    if (cb_db_prepare(m->src->db, sql, &ksel) != CB_DB_OK) {
        r = sql_fail(m, m->src->db, "ceilings");
        goto out;
    }
    /* klist's columns: counted from the schema, as PostgreSQL tells a
     * statement's columns only after its first step. */
    int kn = k.n - (col_index(&k, "id") >= 0);
    placeholders(kn, ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO ceilings (%s) VALUES (%s)", klist, ph);
    if (cb_db_prepare(m->dst->db, sql, &kins) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, "ceilings");
        goto out;
    }
    cb_db_bind_int64(ksel, 1, src_id);
    while (r == 0 && (rc = cb_db_step(ksel)) == CB_DB_ROW) {
        cb_db_reset(kins);
        for (int i = 0; i < kn; i++) {
            if (i == cal_at)
                cb_db_bind_int64(kins, i + 1, *dst_id);
            else
                cb_db_bind_column(kins, i + 1, ksel, i);
        }
        if (cb_st_step_done(kins) != CB_DB_OK)
            r = sql_fail(m, m->dst->db, "ceilings");
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = sql_fail(m, m->src->db, "ceilings");
out:
    cb_db_finalize(row);
    cb_db_finalize(find);
    cb_db_finalize(ins);
    cb_db_finalize(ksel);
    cb_db_finalize(kins);
    return r;
}

/* Copy run table i's rows of one source run; how many. */
static int copy_rows(struct merge *m, size_t i, int64_t src_run, size_t *count)
{
    const struct table *t = &run_tables[i];
    const struct cols *c = &m->cols[i];
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
                r = shared_row(m, map, from, &to);
            else if (map == M_CALIB)
                r = calib_row(m, from, &to);
            else if (map_get(&m->map[map], from, &to) < 0) {
                cb_st_msg(m->err, m->errlen, "merging %s: %s.%s = %lld points at a row not "
                          "copied", m->src_name, t->name, c->name[k], (long long)from);
                r = -EINVAL;
            }
            if (r == 0)
                cb_db_bind_int64(ins, p++, to);
        }
        if (r == 0 && cb_st_step_done(ins) != CB_DB_OK)
            r = sql_fail(m, m->dst->db, t->name);
        if (r == 0 && t->own != M_NONE)
            r = map_put(&m->map[t->own], own, cb_db_last_insert_id(m->dst->db));
        (*count)++;
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = sql_fail(m, m->src->db, t->name);
    cb_db_reset(sel);
    return r;
}

static int copy_run(struct merge *m, int64_t src_run, int aborted)
{
    /* Events, cases and race ids are a run's own: start each run afresh. */
    for (int k = M_RUN; k < M__N; k++)
        m->map[k].n = 0;
    size_t *count[NRUN_TABLES] = {NULL, &m->stats->events_added, &m->stats->cases_added,
                                  &m->stats->samples_added, &m->stats->races_added};
    for (size_t i = 0; i < NRUN_TABLES; i++) {
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
static int merge_acks(struct merge *m)
{
    struct cb_db_stmt *sel = NULL, *find = NULL, *ins = NULL;
    int r = 0;
    if (cb_db_prepare(m->src->db, "SELECT case_glob, commit_hash, why, created FROM acks"
                           " ORDER BY id", &sel) != CB_DB_OK)
        return sql_fail(m, m->src->db, "acks");
    if (cb_db_prepare(m->dst->db, "SELECT why FROM acks WHERE case_glob = ?1 AND"
                           " commit_hash = ?2", &find) != CB_DB_OK ||
        cb_db_prepare(m->dst->db, "INSERT INTO acks (case_glob, commit_hash, why, created)"
                           " VALUES (?1, ?2, ?3, ?4)", &ins) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, "acks");
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
            r = sql_fail(m, m->dst->db, "acks");
            break;
        }
        for (int k = 0; k < 4; k++)
            cb_db_bind_column(ins, k + 1, sel, k);
        if (cb_st_step_done(ins) != CB_DB_OK)
            r = sql_fail(m, m->dst->db, "acks");
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
static int dst_run_of(struct merge *m, const char *uuid, int64_t *id)
{
    struct cb_db_stmt *s;
    if (cb_db_prepare(m->dst->db, "SELECT id FROM runs WHERE uuid = ?1", &s) !=
        CB_DB_OK)
        return sql_fail(m, m->dst->db, "runs");
    cb_db_bind_text(s, 1, uuid);
    int rc = cb_db_step(s), r = 0;
    if (rc == CB_DB_ROW) {
        *id = cb_db_column_int64(s, 0);
        r = 1;
    } else if (rc != CB_DB_DONE) {
        r = sql_fail(m, m->dst->db, "runs");
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
static int same_run_renamed(struct merge *m, int64_t src_run, unsigned long long digest)
{
    static const char *const key = "r.started, r.status, r.pid, COALESCE(r.pid_start, -1),"
                                   " r.boot_id, h.hostname";
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT %s FROM runs r JOIN hosts h ON h.id = r.host_id"
             " WHERE r.id = ?1", key);
    struct cb_db_stmt *a = NULL, *b = NULL;
    int r = 0;
    if (cb_db_prepare(m->src->db, sql, &a) != CB_DB_OK)
        return sql_fail(m, m->src->db, "runs");
    if (cb_db_prepare(m->dst->db, "SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id"
                           " WHERE r.started = ?1 AND r.status = ?2 AND r.pid = ?3"
                           " AND COALESCE(r.pid_start, -1) = ?4 AND r.boot_id = ?5"
                           " AND h.hostname = ?6", &b) != CB_DB_OK) {
        r = sql_fail(m, m->dst->db, "runs");
        goto out;
    }
    cb_db_bind_int64(a, 1, src_run);
    if (cb_db_step(a) != CB_DB_ROW) {
        r = sql_fail(m, m->src->db, "runs");
        goto out;
    }
    for (int k = 0; k < 6; k++)
        cb_db_bind_column(b, k + 1, a, k);
    while (r == 0 && cb_db_step(b) == CB_DB_ROW) {
        unsigned long long d;
        if (cb_store_run_digest(m->dst, cb_db_column_int64(b, 0), &d) < 0)
            r = sql_fail(m, m->dst->db, "a run's digest");
        else if (d == digest)
            r = 1;
    }
out:
    cb_db_finalize(a);
    cb_db_finalize(b);
    return r;
}

/* One source run: added, already there, or a conflict. */
static int merge_run(struct merge *m, int64_t src_run, const char *uuid, const char *status)
{
    int64_t have;
    unsigned long long a, b;
    int r = dst_run_of(m, uuid, &have);
    if (r < 0)
        return r;
    if (cb_store_run_digest(m->src, src_run, &a) < 0)
        return sql_fail(m, m->src->db, "a run's digest");
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
        return sql_fail(m, m->dst->db, "a run's digest");
    if (a != b) {
        cb_st_msg(m->err, m->errlen, "run %s of %s (run %lld there) is already in the destination "
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
static int merge_body(struct merge *m)
{
    int r = check_tables(m);
    for (size_t i = 0; r == 0 && i < NRUN_TABLES; i++)
        r = prepare_table(m, i);
    if (r == 0)
        r = merge_acks(m);
    struct cb_db_stmt *s;
    if (r < 0)
        return r;
    if (cb_db_prepare(m->src->db, "SELECT id, uuid, status FROM runs ORDER BY id", &s) != CB_DB_OK)
        return sql_fail(m, m->src->db, "runs");
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
            cb_st_msg(m->err, m->errlen, "merging %s: run %lld has no UUID", m->src_name,
                      (long long)id);
            r = -EINVAL;
            break;
        }
        r = merge_run(m, id, uuid, status);
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = sql_fail(m, m->src->db, "runs");
    cb_db_finalize(s);
    return r;
}

static void merge_reset(struct merge *m)
{
    for (size_t i = 0; i < NRUN_TABLES; i++) {
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
                   struct cb_merge_stats *stats, char *err, size_t errlen)
{
    struct merge m = {.dst = dst, .src = src, .src_name = src_name, .stats = stats,
                      .err = err, .errlen = errlen};
    if (err && errlen)
        err[0] = '\0';
    int r = -EBUSY;
    /* BEGIN IMMEDIATE waits for other writers (the busy timeout); what is
     * still busy after it (a checkpoint racing the COMMIT) is tried again
     * from the start, as cb_st_in_tx does. */
    for (int attempt = 0; attempt < CB_TX_TRIES && r == -EBUSY; attempt++) {
        if (attempt)
            cb_st_backoff(attempt);
        merge_reset(&m);
        int rc = cb_db_begin(dst->db);
        if (rc != CB_DB_OK) {
            r = cb_st_is_busy(rc) ? -EBUSY : sql_fail(&m, dst->db, "BEGIN");
            continue;
        }
        r = merge_body(&m);
        if (r == 0) {
            rc = cb_st_exec(dst, "COMMIT");
            if (rc != CB_DB_OK)
                r = cb_st_is_busy(rc) ? -EBUSY : sql_fail(&m, dst->db, "COMMIT");
        }
        if (r != 0 && cb_db_in_tx(dst->db))
            cb_db_rollback(dst->db);
    }
    if (r == -EBUSY)
        cb_st_msg(err, errlen, "merging %s: the destination stayed busy (another writer?)",
                  src_name);
    for (size_t i = 0; i < NRUN_TABLES; i++) {
        cb_db_finalize(m.sel[i]);
        cb_db_finalize(m.ins[i]);
    }
    for (int k = 0; k < M__N; k++)
        free(m.map[k].pair);
    return r;
}
