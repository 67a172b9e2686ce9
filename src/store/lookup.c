/* lookup.c — the store's answers to the small questions of lookup.h. */
#include "store/lookup.h"

#include <errno.h>

#include "store/db.h"
#include "store/secret.h"
#include "store/store.h"
#include "util/strbuf.h"

static const char *text(struct cb_db_stmt *q, int col)
{
    return (const char *)cb_db_column_text(q, col);
}

int cb_store_run_cpu(struct cb_store *st, int64_t run)
{
    struct cb_db_stmt *q;
    int cpu = -1;
    if (cb_db_prepare(cb_store_db(st), "SELECT cpu FROM runs WHERE id = ?1", &q) != CB_DB_OK)
        return -1;
    cb_db_bind_int64(q, 1, run);
    if (cb_db_step(q) == CB_DB_ROW)
        cpu = cb_db_column_int(q, 0);
    cb_db_finalize(q);
    return cpu;
}

int cb_store_run_cmdline(struct cb_store *st, int64_t run, struct cb_sb *cmdline,
                         struct cb_sb *code_what)
{
    struct cb_db_stmt *q;
    const char *sql = cb_store_schema_version(st) >= 20
        ? "SELECT cmdline, COALESCE(code_what, '') FROM runs WHERE id = ?1"
        : "SELECT cmdline, '' FROM runs WHERE id = ?1";
    if (cb_db_prepare(cb_store_db(st), sql, &q) != CB_DB_OK)
        return -EIO;
    cb_db_bind_int64(q, 1, run);
    int rc = -ENOENT;
    if (cb_db_step(q) == CB_DB_ROW) {
        const char *c = text(q, 0), *w = text(q, 1);
        cb_secret_strip(c ? c : "", cmdline, 0);   /* an older binary's stored password */
        cb_sb_adds(code_what, w ? w : "");
        rc = 0;
    }
    cb_db_finalize(q);
    return rc;
}

int64_t cb_store_newest_tagged(struct cb_store *st, const char *tag, int64_t after)
{
    struct cb_db_stmt *q;
    int64_t id = 0;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT max(id) FROM runs WHERE id > ?1 AND tag = ?2 AND status = 'complete'",
                      &q) != CB_DB_OK)
        return 0;
    cb_db_bind_int64(q, 1, after);
    cb_db_bind_text(q, 2, tag);
    if (cb_db_step(q) == CB_DB_ROW)
        id = cb_db_column_int64(q, 0);
    cb_db_finalize(q);
    return id;
}

int cb_store_newest_complete(struct cb_store *st, int64_t *ids, size_t max, size_t *n)
{
    struct cb_db_stmt *q;
    *n = 0;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT id FROM runs WHERE status = 'complete' ORDER BY id DESC LIMIT ?1",
                      &q) != CB_DB_OK)
        return -EIO;
    cb_db_bind_int64(q, 1, (int64_t)max);
    int rc;
    while (*n < max && (rc = cb_db_step(q)) == CB_DB_ROW)
        ids[(*n)++] = cb_db_column_int64(q, 0);
    cb_db_finalize(q);
    return rc < 0 ? -EIO : 0;
}

int cb_store_count_runs(struct cb_store *st, struct cb_store_run_counts *out)
{
    struct cb_db_stmt *q;
    *out = (struct cb_store_run_counts){0, 0, 0};
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT count(*), count(cm.id), "
                      "COALESCE(sum(CASE WHEN cm.dirty = 0 THEN 1 ELSE 0 END), 0) "
                      "FROM runs r LEFT JOIN commits cm ON cm.id = r.commit_id "
                      "WHERE r.status = 'complete'",
                      &q) != CB_DB_OK)
        return -EIO;
    int rc = cb_db_step(q) == CB_DB_ROW ? 0 : -EIO;
    if (rc == 0)
        *out = (struct cb_store_run_counts){cb_db_column_int64(q, 0), cb_db_column_int64(q, 1),
                                            cb_db_column_int64(q, 2)};
    cb_db_finalize(q);
    return rc;
}

int cb_store_each_commit(struct cb_store *st,
                         int (*fn)(const char *hash, const char *subject, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st), "SELECT hash, subject FROM commit_order", &q) != CB_DB_OK)
        return -EIO;
    int rc = 0;
    while (rc == 0 && cb_db_step(q) == CB_DB_ROW)
        rc = fn(text(q, 0), text(q, 1), ctx);
    cb_db_finalize(q);
    return rc;
}

int cb_store_each_commit_run(struct cb_store *st, const char *hash, int sim,
                             int (*fn)(int64_t run, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT r.id FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                      "WHERE cm.hash = ?1 AND cm.dirty <> 1 AND r.status = 'complete' "
                      /* an emulated run times no machine */
                      "AND r.emulated IS NULL "
                      "AND (CASE WHEN COALESCE(r.clock_backend, '') = 'callgrind' THEN 1 ELSE 0 END) = ?2 "
                      "ORDER BY r.id",
                      &q) != CB_DB_OK)
        return -EIO;
    cb_db_bind_text(q, 1, hash);
    cb_db_bind_int64(q, 2, sim ? 1 : 0);
    int rc = 0;
    while (rc == 0 && cb_db_step(q) == CB_DB_ROW)
        rc = fn(cb_db_column_int64(q, 0), ctx);
    cb_db_finalize(q);
    return rc;
}

int cb_store_each_case_key(struct cb_store *st,
                           int (*fn)(const char *probe, const char *variant, uint64_t size,
                                     const char *mode, void *ctx),
                           void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st), "SELECT DISTINCT probe, variant, size, mode FROM cases",
                      &q) != CB_DB_OK)
        return -EIO;
    int rc = 0;
    while (rc == 0 && cb_db_step(q) == CB_DB_ROW)
        rc = fn(text(q, 0), text(q, 1), (uint64_t)cb_db_column_int64(q, 2), text(q, 3), ctx);
    cb_db_finalize(q);
    return rc;
}

int cb_store_each_ack(struct cb_store *st, int newest_first,
                      int (*fn)(const struct cb_store_ack *a, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st),
                      newest_first ? "SELECT case_glob, commit_hash, created, why FROM acks "
                                     "ORDER BY id DESC"
                                   : "SELECT case_glob, commit_hash, created, why FROM acks "
                                     "ORDER BY id",
                      &q) != CB_DB_OK)
        return -EIO;
    int rc = 0;
    while (rc == 0 && cb_db_step(q) == CB_DB_ROW) {
        struct cb_store_ack a = {text(q, 0), text(q, 1), text(q, 2), text(q, 3)};
        rc = fn(&a, ctx);
    }
    cb_db_finalize(q);
    return rc;
}

int cb_store_ack_put(struct cb_store *st, const char *glob, const char *commit, const char *why)
{
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st),
                      "INSERT INTO acks (case_glob, commit_hash, why) VALUES (?1, ?2, ?3) "
                      "ON CONFLICT (case_glob, commit_hash) DO UPDATE SET why = excluded.why, "
                      "created = excluded.created",
                      &q) != CB_DB_OK)
        return -EIO;
    cb_db_bind_text(q, 1, glob);
    cb_db_bind_text(q, 2, commit);
    cb_db_bind_text(q, 3, why);
    int rc = cb_db_step(q);
    cb_db_finalize(q);
    return rc == CB_DB_DONE ? 0 : -EIO;
}
