/* side_rows.c — the store's answers to a compared side (side_rows.h). */
#include "store/side_rows.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/db.h"
#include "store/store.h"

/* A failed prepare or step as a negative errno: -ENOMEM, -EBUSY or -EIO. */
static int sql_err(int rc)
{
    return rc == -ENOMEM || rc == -EBUSY ? rc : -EIO;
}

static const char *text(struct cb_db_stmt *q, int i)
{
    const char *t = (const char *)cb_db_column_text(q, i);
    return t ? t : "";
}

/* A run counts when complete, or when --include-aborted (?2) says so. */
#define STATUS_OK " AND (status = 'complete' OR ?2 <> 0)"

/* Each run id the query yields, ?1 bound to arg when given, ?2 to incl. */
static int each_run(struct cb_store *st, const char *sql, const char *arg, int incl,
                    int (*fn)(int64_t id, void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st), sql, &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    if (arg)
        cb_db_bind_text(q, 1, arg);
    cb_db_bind_int64(q, 2, incl);
    int stop = 0;
    while (!stop && (rc = cb_db_step(q)) == CB_DB_ROW)
        stop = fn(cb_db_column_int64(q, 0), ctx);
    cb_db_finalize(q);
    return stop ? stop : rc == CB_DB_DONE ? 0 : sql_err(rc);
}

static int take_first(int64_t id, void *ctx)
{
    *(int64_t *)ctx = id;
    return 1;
}

int cb_store_latest_run(struct cb_store *st, int incl, int64_t *id)
{
    int rc = each_run(st, "SELECT id FROM runs WHERE 1 = 1" STATUS_OK
                      " ORDER BY started DESC, id DESC LIMIT 1", NULL, incl, take_first, id);
    return rc == 1 ? 0 : rc < 0 ? rc : -ENOENT;
}

int cb_store_each_tagged_run(struct cb_store *st, const char *tag, int incl,
                             int (*fn)(int64_t id, void *ctx), void *ctx)
{
    return each_run(st, "SELECT id FROM runs WHERE tag = ?1" STATUS_OK " ORDER BY id", tag, incl,
                    fn, ctx);
}

int cb_store_each_clean_run_at(struct cb_store *st, const char *hash, int incl,
                               int (*fn)(int64_t id, void *ctx), void *ctx)
{
    return each_run(st, "SELECT r.id FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                    "WHERE cm.hash = ?1 AND cm.dirty <> 1 AND (r.status = 'complete' OR ?2 <> 0) "
                    "ORDER BY r.id", hash, incl, fn, ctx);
}

int cb_store_run_status(struct cb_store *st, int64_t id, char *status, size_t len)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st), "SELECT status FROM runs WHERE id = ?1", &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_int64(q, 1, id);
    rc = cb_db_step(q);
    if (rc == CB_DB_ROW)
        snprintf(status, len, "%s", text(q, 0));
    cb_db_finalize(q);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT : sql_err(rc);
}

int cb_store_commit_prefix(struct cb_store *st, const char *prefix, char *first, char *second)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT DISTINCT hash FROM commits WHERE substr(hash, 1, "
                           "length(?1)) = lower(?1) ORDER BY hash LIMIT 2", &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_text(q, 1, prefix);
    int found = 0;
    first[0] = second[0] = '\0';
    while ((rc = cb_db_step(q)) == CB_DB_ROW)
        snprintf(found++ ? second : first, 64, "%s", text(q, 0));
    cb_db_finalize(q);
    return found;
}

int cb_store_commit_known(struct cb_store *st, const char *hash)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st), "SELECT 1 FROM commits WHERE hash = ?1", &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_text(q, 1, hash);
    rc = cb_db_step(q);
    cb_db_finalize(q);
    return rc == CB_DB_ROW;
}

int cb_store_run_clean_commit(struct cb_store *st, int64_t run, char *hash, size_t len)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT cm.hash FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                           "WHERE r.id = ?1 AND cm.dirty <> 1", &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_int64(q, 1, run);
    int found = cb_db_step(q) == CB_DB_ROW;
    if (found)
        snprintf(hash, len, "%s", text(q, 0));
    cb_db_finalize(q);
    return found;
}

int cb_store_run_has_event(struct cb_store *st, int64_t run, const char *part, const char *source)
{
    struct cb_db_stmt *q;
    if (cb_db_prepare(cb_store_db(st),
                      "SELECT 1 FROM events WHERE run_id = ?1 AND part = ?2 AND "
                      "source = ?3 AND supported = 1", &q) != CB_DB_OK)
        return 0;
    cb_db_bind_int64(q, 1, run);
    cb_db_bind_text(q, 2, part);
    cb_db_bind_text(q, 3, source);
    int yes = cb_db_step(q) == CB_DB_ROW;
    cb_db_finalize(q);
    return yes;
}

/* The migration that added cases.code_hash (db/0021_case_code.sql): a store
 * opened read-only may predate it. */
#define SCHEMA_CASE_CODE 21
#define CASES_SQL(code)                                                                  \
    "SELECT c.id, c.probe, c.variant, c.size, c.mode, c.unit, e.id, " code               \
    "  FROM cases c JOIN events e ON e.run_id = c.run_id "                               \
    " WHERE c.run_id = ?1 AND c.verdict = 'ok' AND e.part = ?2 "                         \
    "   AND (c.side IS NULL OR c.side = 'head') "                                        \
    "   AND e.supported = 1 AND (?2 <> 'cycles' OR e.source = 'pmu') "                   \
    " ORDER BY c.id"

/* A case in a host state, as the store knows it: judged slowed against
 * the host's quiet figures (cases.state, db/0024_hoststate.sql), or its
 * clock flagged and the run's used, because the brackets before and after
 * it disagreed with each other (harness/caseclock.h): the clock moved while
 * it ran.  A flagged case that used its own clock saw a change confirmed on
 * both sides (a turbo step): its figures are converted at that clock, and
 * it stays quiet.  A case not judged (state NULL) counts as quiet. */
#define SCHEMA_HOST_STATE 24
#define CLOCK_STATE_SQL "(c.clock_flagged = 1 AND c.clock_used = 'run')"
#define HOST_STATE_SQL "(" CLOCK_STATE_SQL " OR COALESCE(c.state, 'quiet') = 'slowed')"
/* What bounds the state's effect (cb_state_bound): slowed and its ratio,
 * the clock state, the case's clock, the run's, and the clock's noise. */
#define CLOCK_COLS_SQL                                                                      \
    CLOCK_STATE_SQL ", c.clock_ghz, (SELECT core_ghz FROM runs WHERE id = c.run_id),"       \
    " c.clock_spread_pct"
#define BOUND_COLS_SQL "COALESCE(c.state, 'quiet') = 'slowed', c.state_ratio, " CLOCK_COLS_SQL
#define CLOCK_BOUND_COLS_SQL "0, NULL, " CLOCK_COLS_SQL

static double num(struct cb_db_stmt *q, int i)
{
    return cb_db_column_type(q, i) == CB_DB_NULL ? NAN : cb_db_column_double(q, i);
}

double cb_state_bound(int slowed, double ratio, int clock_run, double case_ghz, double run_ghz,
                      double spread_pct)
{
    double f = 1.0;
    if (slowed)
        f *= ratio >= 1 ? ratio : NAN;
    if (clock_run)
        f *= case_ghz > 0 && run_ghz > 0 && spread_pct >= 0
                 ? 1.0 + fabs(case_ghz / run_ghz - 1.0) + spread_pct / 100.0
                 : NAN;
    return f - 1.0;
}

int cb_store_side_cases(struct cb_store *st, int64_t run, const char *metric,
                        struct cb_store_side_case **rows, size_t *n)
{
    struct cb_db_stmt *q;
    *rows = NULL;
    *n = 0;
    int rc = cb_db_prepare(cb_store_db(st),
                           cb_store_schema_version(st) >= SCHEMA_HOST_STATE
                               ? CASES_SQL("c.code_hash, c.code_addr, " HOST_STATE_SQL ", "
                                           BOUND_COLS_SQL)
                           : cb_store_schema_version(st) >= SCHEMA_CASE_CODE
                               ? CASES_SQL("c.code_hash, c.code_addr, " CLOCK_STATE_SQL ", "
                                           CLOCK_BOUND_COLS_SQL)
                               : CASES_SQL("NULL, NULL, NULL, 0, NULL, 0, NULL, NULL, NULL"),
                           &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_int64(q, 1, run);
    cb_db_bind_text(q, 2, metric);
    while ((rc = cb_db_step(q)) == CB_DB_ROW) {
        struct cb_store_side_case *nr = realloc(*rows, (*n + 1) * sizeof *nr);
        if (!nr) {
            rc = -ENOMEM;
            break;
        }
        *rows = nr;
        struct cb_store_side_case *w = &nr[(*n)++];
        w->case_id = cb_db_column_int64(q, 0);
        snprintf(w->probe, sizeof w->probe, "%s", text(q, 1));
        snprintf(w->variant, sizeof w->variant, "%s", text(q, 2));
        w->size = (uint64_t)cb_db_column_int64(q, 3);
        snprintf(w->mode, sizeof w->mode, "%s", text(q, 4));
        snprintf(w->unit, sizeof w->unit, "%s", text(q, 5));
        w->event_id = cb_db_column_int64(q, 6);
        snprintf(w->code, sizeof w->code, "%s", text(q, 7));
        w->addr = cb_db_column_type(q, 8) == CB_DB_NULL ? -1 : (int)cb_db_column_int64(q, 8);
        w->flagged = cb_db_column_type(q, 9) != CB_DB_NULL && cb_db_column_int64(q, 9) != 0;
        w->bound = w->flagged ? cb_state_bound(cb_db_column_int64(q, 10) != 0, num(q, 11),
                                               cb_db_column_int64(q, 12) != 0, num(q, 13),
                                               num(q, 14), num(q, 15))
                              : 0.0;
    }
    cb_db_finalize(q);
    if (rc == CB_DB_DONE)
        return 0;
    free(*rows);
    *rows = NULL;
    *n = 0;
    return rc == -ENOMEM ? rc : sql_err(rc);
}

int cb_store_run_fingerprint(struct cb_store *st, int64_t run,
                             int (*fn)(const char *const field[13], void *ctx), void *ctx)
{
    struct cb_db_stmt *q;
    /* A store opened read-only may predate runs.fingerprint (migration 7). */
    int rc = cb_db_prepare(cb_store_db(st),
                           cb_store_schema_version(st) >= 7
                               ? "SELECT vendor, family, model, stepping, model_name, microcode, "
                                 "kernel, pmu, compiler, cflags, cpu, cycles_source, "
                                 "(SELECT fingerprint FROM runs WHERE id = ?1) "
                                 "FROM run_fingerprint WHERE run_id = ?1"
                               : "SELECT vendor, family, model, stepping, model_name, microcode, "
                                 "kernel, pmu, compiler, cflags, cpu, cycles_source, NULL "
                                 "FROM run_fingerprint WHERE run_id = ?1", &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    cb_db_bind_int64(q, 1, run);
    rc = cb_db_step(q);
    if (rc != CB_DB_ROW) {
        cb_db_finalize(q);
        return rc == CB_DB_DONE ? -ENOENT : sql_err(rc);
    }
    const char *field[13];
    for (int i = 0; i < 12; i++)
        field[i] = text(q, i);
    field[12] = (const char *)cb_db_column_text(q, 12);
    rc = fn(field, ctx);
    cb_db_finalize(q);
    return rc;
}
