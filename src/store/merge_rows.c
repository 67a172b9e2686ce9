/* merge_rows.c — the rows many runs share, matched in the destination or
 * added to it once (merge.h): hosts, builds and commits by the columns of
 * their UNIQUE key, calibrations by host, fingerprint and instant, with
 * their ceilings.  And the helpers merge.c builds its statements with. */
#include "store/merge_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- id maps -------------------------------------------------------------- */

/* Where from goes in the sorted map: the first pair not below it. */
static size_t map_at(const struct cb_idmap *m, int64_t from)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->pair[mid][0] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int cb_merge_map_get(const struct cb_idmap *m, int64_t from, int64_t *to)
{
    size_t at = map_at(m, from);
    if (at < m->n && m->pair[at][0] == from) {
        *to = m->pair[at][1];
        return 0;
    }
    return -ENOENT;
}

static const char *const map_names[M__N] = {"", "host", "build", "commit", "calibration", "run",
                                            "event", "case", "race", "race result"};

int cb_merge_map_put(struct cb_merge *m, int map, int64_t from, int64_t to)
{
    struct cb_idmap *im = &m->map[map];
    /* Most tables come in ascending id: appending is the common case. */
    size_t at = im->n && im->pair[im->n - 1][0] >= from ? map_at(im, from) : im->n;
    if (at < im->n && im->pair[at][0] == from) {
        cb_st_msg(m->err, "merging %s: %s %lld of the source was copied twice "
                  "(internal error in src/store/merge_copy.c)", m->src_name, map_names[map],
                  (long long)from);
        return -EEXIST;
    }
    if (im->n == im->cap) {
        size_t cap = im->cap ? 2 * im->cap : 64;
        int64_t(*p)[2] = realloc(im->pair, cap * sizeof *p);
        if (!p) {
            cb_st_msg(m->err, "merging %s: out of memory", m->src_name);
            return -ENOMEM;
        }
        im->pair = p;
        im->cap = cap;
    }
    memmove(im->pair + at + 1, im->pair + at, (im->n - at) * sizeof *im->pair);
    im->pair[at][0] = from;
    im->pair[at][1] = to;
    im->n++;
    return 0;
}

/* ---- building statements -------------------------------------------------- */

int cb_merge_sql_fail(struct cb_merge *m, struct cb_db *db, const char *what)
{
    cb_st_msg(m->err, "merging %s: %s: %s", m->src_name, what, cb_db_errmsg(db));
    return -EIO;
}

int cb_merge_table_cols(struct cb_merge *m, const char *table, struct cb_merge_cols *c)
{
    struct cb_db_stmt *s;
    c->n = 0;
    /* The source's own schema: an SQLite file's, or a PostgreSQL database's. */
    const char *sql = cb_db_kind(m->src->db) == CB_DB_SQLITE
        ? "SELECT name FROM pragma_table_info(?1) ORDER BY cid"
        : "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
          " AND table_name = ?1 ORDER BY ordinal_position";
    if (cb_db_prepare(m->src->db, sql, &s) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "reading the schema");
    cb_db_bind_text(s, 1, table);
    while (cb_db_step(s) == CB_DB_ROW && c->n < CB_MERGE_MAXCOLS)
        cb_st_col_str(s, 0, c->name[c->n++], sizeof c->name[0]);
    cb_db_finalize(s);
    if (c->n == 0 || c->n == CB_MERGE_MAXCOLS) {
        cb_st_msg(m->err, "merging %s: table %s has %s columns", m->src_name, table,
                  c->n ? "too many" : "no");
        return -EINVAL;
    }
    return 0;
}

int cb_merge_col_index(const struct cb_merge_cols *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0)
            return i;
    return -1;
}

void cb_merge_col_list(const struct cb_merge_cols *c, int skip, const char *prefix, char *buf,
                       size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n && o < len; i++)
        if (i != skip)
            o += (size_t)snprintf(buf + o, len - o, "%s%s%s", o ? ", " : "", prefix, c->name[i]);
}

void cb_merge_placeholders(int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 1; i <= n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s?%d", i > 1 ? ", " : "", i);
}

/* ---- hosts, builds, commits ----------------------------------------------- */

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

/* The destination's copy of the source's row: found by key (CB_DB_ROW), or
 * inserted (CB_DB_DONE), *dst_id set either way; or a negative errno. */
static int shared_find_or_add(struct cb_merge *m, const struct shared *t,
                              const struct cb_merge_cols *c, struct cb_db_stmt *row,
                              int64_t *dst_id)
{
    char list[4096], ph[1024], sql[8192];
    struct cb_db_stmt *find = NULL, *ins = NULL;
    /* SELECT id FROM t WHERE k1 = ?1 AND k2 = ?2 ... */
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE ", t->name);
    int nkey = 0;
    for (; nkey < 16 && t->key[nkey]; nkey++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s%s = ?%d", nkey ? " AND " : "",
                              t->key[nkey], nkey + 1);
    if (cb_db_prepare(m->dst->db, sql, &find) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, t->name);
    for (int k = 0; k < nkey; k++)
        cb_db_bind_column(find, k + 1, row, cb_merge_col_index(c, t->key[k]));
    int rc = cb_db_step(find);
    if (rc == CB_DB_ROW)
        *dst_id = cb_db_column_int64(find, 0);
    cb_db_finalize(find);
    if (rc != CB_DB_DONE)
        return rc == CB_DB_ROW ? rc : cb_merge_sql_fail(m, m->dst->db, t->name);
    int id = cb_merge_col_index(c, "id");
    cb_merge_col_list(c, id, "", list, sizeof list);
    cb_merge_placeholders(c->n - 1, ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO %s (%s) VALUES (%s)", t->name, list, ph);
    if (cb_db_prepare(m->dst->db, sql, &ins) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, t->name);
    for (int k = 0, p = 1; k < c->n; k++)
        if (k != id)
            cb_db_bind_column(ins, p++, row, k);
    rc = cb_st_step_done(ins);
    cb_db_finalize(ins);
    if (rc != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, t->name);
    *dst_id = cb_db_last_insert_id(m->dst->db);
    return CB_DB_DONE;
}

int cb_merge_shared_row(struct cb_merge *m, int map, int64_t src_id, int64_t *dst_id)
{
    if (cb_merge_map_get(&m->map[map], src_id, dst_id) == 0)
        return 0;
    const struct shared *t = NULL;
    for (size_t i = 0; i < sizeof shared_tables / sizeof *shared_tables; i++)
        if (shared_tables[i].map == map)
            t = &shared_tables[i];
    struct cb_merge_cols c;
    int r = cb_merge_table_cols(m, t->name, &c);
    if (r < 0)
        return r;
    char list[4096], sql[8192];
    cb_merge_col_list(&c, -1, "", list, sizeof list);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE id = ?1", list, t->name);
    struct cb_db_stmt *row = NULL;
    if (cb_db_prepare(m->src->db, sql, &row) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, t->name);
    cb_db_bind_int64(row, 1, src_id);
    if (cb_db_step(row) != CB_DB_ROW) {
        cb_db_finalize(row);
        cb_st_msg(m->err, "merging %s: %s row %lld is missing", m->src_name, t->name,
                  (long long)src_id);
        return -EINVAL;
    }
    r = shared_find_or_add(m, t, &c, row, dst_id);
    cb_db_finalize(row);
    if (r == CB_DB_DONE) {
        size_t *added = map == M_HOST ? &m->stats->hosts_added
                      : map == M_BUILD ? &m->stats->builds_added : &m->stats->commits_added;
        (*added)++;
    }
    return r < 0 ? r : cb_merge_map_put(m, map, src_id, *dst_id);
}

/* ---- calibrations and their ceilings -------------------------------------- */

/* Every column of table but id, as "a, b, c", with its count and the index
 * in the row of column want (-1 when missing). */
static int calib_cols(struct cb_merge *m, const char *table, const char *want,
                      struct cb_merge_cols *c, char *list, size_t len, int *at)
{
    int r = cb_merge_table_cols(m, table, c);
    if (r < 0)
        return r;
    int id = cb_merge_col_index(c, "id");
    cb_merge_col_list(c, id, "", list, len);
    *at = -1;
    for (int k = 0, p = 0; k < c->n; k++) {
        if (k == id)
            continue;
        if (strcmp(c->name[k], want) == 0)
            *at = p;
        p++;
    }
    if (*at < 0)
        cb_st_msg(m->err, "merging %s: table %s has no column %s", m->src_name, table,
                  want);
    return *at < 0 ? -EPROTO : 0;
}

/* The destination's calibration of this host taken at the same instant in
 * the same environment: CB_DB_ROW and *dst_id, CB_DB_DONE none, or an errno. */
static int calib_find(struct cb_merge *m, struct cb_db_stmt *row, int64_t host, int64_t *dst_id)
{
    struct cb_db_stmt *find;
    if (cb_db_prepare(m->dst->db, "SELECT id FROM calibrations WHERE host_id = ?1 AND"
                      " fingerprint = ?2 AND taken = ?3 AND source = ?4", &find) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, "calibrations");
    cb_db_bind_int64(find, 1, host);
    static const char *const key[] = {"fingerprint", "taken", "source"};
    for (int i = 0; i < cb_db_column_count(row); i++)
        for (int j = 0; j < 3; j++)
            if (strcmp(cb_db_column_name(row, i), key[j]) == 0)
                cb_db_bind_column(find, j + 2, row, i);
    int rc = cb_db_step(find);
    if (rc == CB_DB_ROW)
        *dst_id = cb_db_column_int64(find, 0);
    cb_db_finalize(find);
    return rc == CB_DB_ROW || rc == CB_DB_DONE ? rc
           : cb_merge_sql_fail(m, m->dst->db, "calibrations");
}

/* The source's calibration row (its columns but id, in list's order) into
 * the destination, with the destination's host. */
static int calib_insert(struct cb_merge *m, struct cb_db_stmt *row, const char *list, int host_at,
                        int64_t host, int64_t *dst_id)
{
    char ph[512], sql[4096];
    int nc = cb_db_column_count(row);
    cb_merge_placeholders(nc, ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO calibrations (%s) VALUES (%s)", list, ph);
    struct cb_db_stmt *ins;
    if (cb_db_prepare(m->dst->db, sql, &ins) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, "calibrations");
    for (int i = 0; i < nc; i++) {
        if (i == host_at)
            cb_db_bind_int64(ins, i + 1, host);
        else
            cb_db_bind_column(ins, i + 1, row, i);
    }
    int rc = cb_st_step_done(ins);
    cb_db_finalize(ins);
    if (rc != CB_DB_OK)
        return cb_merge_sql_fail(m, m->dst->db, "calibrations");
    *dst_id = cb_db_last_insert_id(m->dst->db);
    return 0;
}

/* The ceilings of source calibration src_id, as ceilings of dst_id. */
static int calib_ceilings(struct cb_merge *m, int64_t src_id, int64_t dst_id)
{
    struct cb_merge_cols k;
    char klist[2048], ph[512], sql[6144];
    int cal_at;
    int r = calib_cols(m, "ceilings", "calibration_id", &k, klist, sizeof klist, &cal_at);
    if (r < 0)
        return r;
    struct cb_db_stmt *ksel = NULL, *kins = NULL;
    snprintf(sql, sizeof sql, "SELECT %s FROM ceilings WHERE calibration_id = ?1 ORDER BY id", klist);
    if (cb_db_prepare(m->src->db, sql, &ksel) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "ceilings");
    /* klist's columns: counted from the schema, as PostgreSQL tells a
     * statement's columns only after its first step. */
    int kn = k.n - (cb_merge_col_index(&k, "id") >= 0), rc = CB_DB_DONE;
    cb_merge_placeholders(kn, ph, sizeof ph);
    snprintf(sql, sizeof sql, "INSERT INTO ceilings (%s) VALUES (%s)", klist, ph);
    if (cb_db_prepare(m->dst->db, sql, &kins) != CB_DB_OK)
        r = cb_merge_sql_fail(m, m->dst->db, "ceilings");
    cb_db_bind_int64(ksel, 1, src_id);
    while (r == 0 && (rc = cb_db_step(ksel)) == CB_DB_ROW) {
        cb_db_reset(kins);
        for (int i = 0; i < kn; i++) {
            if (i == cal_at)
                cb_db_bind_int64(kins, i + 1, dst_id);
            else
                cb_db_bind_column(kins, i + 1, ksel, i);
        }
        if (cb_st_step_done(kins) != CB_DB_OK)
            r = cb_merge_sql_fail(m, m->dst->db, "ceilings");
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = cb_merge_sql_fail(m, m->src->db, "ceilings");
    cb_db_finalize(ksel);
    cb_db_finalize(kins);
    return r;
}

/* The destination's id of a calibration of the source (the ceilings a run
 * is judged against): the same one when DST holds it (its host, its
 * fingerprint and the instant it was taken), else copied with its
 * ceilings.  Many runs share one, so it is matched, never copied twice. */
int cb_merge_calib_row(struct cb_merge *m, int64_t src_id, int64_t *dst_id)
{
    if (cb_merge_map_get(&m->map[M_CALIB], src_id, dst_id) == 0)
        return 0;
    struct cb_merge_cols c;
    char list[2048], sql[4096];
    int host_at;
    int r = calib_cols(m, "calibrations", "host_id", &c, list, sizeof list, &host_at);
    if (r < 0)
        return r;
    struct cb_db_stmt *row = NULL;
    snprintf(sql, sizeof sql, "SELECT %s FROM calibrations WHERE id = ?1", list);
    if (cb_db_prepare(m->src->db, sql, &row) != CB_DB_OK)
        return cb_merge_sql_fail(m, m->src->db, "calibrations");
    cb_db_bind_int64(row, 1, src_id);
    int64_t host;
    if (cb_db_step(row) != CB_DB_ROW) {
        cb_st_msg(m->err, "merging %s: calibration %lld is missing", m->src_name,
                  (long long)src_id);
        r = -EINVAL;
    } else {
        r = cb_merge_shared_row(m, M_HOST, cb_db_column_int64(row, host_at), &host);
    }
    if (r == 0)
        r = calib_find(m, row, host, dst_id);
    if (r == CB_DB_DONE) {
        r = calib_insert(m, row, list, host_at, host, dst_id);
        if (r == 0)
            r = calib_ceilings(m, src_id, *dst_id);
    }
    cb_db_finalize(row);
    if (r == CB_DB_ROW)
        r = 0;
    return r < 0 ? r : cb_merge_map_put(m, M_CALIB, src_id, *dst_id);
}
