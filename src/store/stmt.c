/* stmt.c — the store's SQL and the calls every piece of it makes
 * (see store_internal.h): the statement cache, binding and reading columns,
 * errors turned into errno and messages, and the transaction runner that
 * retries when another process holds the write lock. */
#include "store/store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const q_sql[Q__N] = {
    [Q_HOST_SEL] =
        "SELECT id FROM hosts WHERE hostname=?1 AND vendor=?2 AND family=?3 AND model=?4"
        " AND stepping=?5 AND model_name=?6 AND microcode=?7 AND features=?8 AND ncpus=?10"
        " AND llc_bytes=?11 AND kernel=?12 AND tsc_ghz=?13 AND tsc_source=?14 AND pmu=?15",
    [Q_HOST_INS] =
        "INSERT INTO hosts (hostname, vendor, family, model, stepping, model_name, microcode,"
        " features, feature_mask, ncpus, llc_bytes, kernel, tsc_ghz, tsc_source, pmu)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
    [Q_BUILD_SEL] = "SELECT id FROM builds WHERE version=?1 AND compiler=?2 AND cflags=?3",
    [Q_BUILD_INS] = "INSERT INTO builds (version, compiler, cflags) VALUES (?1,?2,?3)",
    [Q_COMMIT_SEL] = "SELECT id FROM commits WHERE hash=?1 AND dirty=?4",
    [Q_COMMIT_INS] =
        "INSERT INTO commits (hash, subject, author_date, dirty) VALUES (?1,?2,?3,?4)",
    [Q_RUN_INS] =
        "INSERT INTO runs (host_id, build_id, commit_id, cmdline, tag, cpu, tsc_ghz,"
        " core_ghz, core_ghz_spread, core_ghz_source, pid, pid_start, boot_id)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
    /* Migration 7's columns, in their own statement so that a store held
     * at an older schema (tests) can still begin a run. */
    [Q_RUN_TRUTH] =
        "UPDATE runs SET clock_backend=?2, core_est_method=?3, core_est_ghz=?4,"
        " core_est_spread=?5, core_est_add_ghz=?6, core_est_imul_ghz=?7, meter_kind=?8,"
        " meter_baseline=?9, meter_spread=?10, meter_why=?11, fingerprint=?12 WHERE id=?1",
    [Q_RUN_SIM] = "UPDATE runs SET sim_model=?2 WHERE id=?1",
    [Q_RUN_EMUL] = "UPDATE runs SET emulated=?2 WHERE id=?1",
    [Q_RUN_SOURCE] = "UPDATE runs SET source=?2 WHERE id=?1",
    [Q_RUN_CODE] = "UPDATE runs SET code_id=?2, code_what=?3 WHERE id=?1",
    [Q_RUN_UUID] = "UPDATE runs SET uuid=?2 WHERE id=?1",
    [Q_RUN_STATUS] = "SELECT status FROM runs WHERE id=?1",
    [Q_RUN_FINISH] =
        "UPDATE runs SET status=?2, finished=cb_now()"
        " WHERE id=?1 AND status='running'",
    [Q_EVENT_INS] =
        "INSERT INTO events (run_id, name, part, pfm, encoding, source, read_method,"
        " supported, why) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    [Q_CASE_INS] =
        "INSERT INTO cases (run_id, probe, variant, size, unit, op, mode, bytes_per_op,"
        " verdict, detail, contention, contended_share, side, clock_ghz, clock_spread_pct,"
        " clock_used, clock_flagged, cpu_pair, code_hash, code_addr) VALUES (?1,?2,?3,?4,?5,?6,?7,"
        "?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)",
    [Q_SAMPLE_INS] =
        "INSERT INTO samples (case_id, event_id, seq, iters, value, overhead, enabled,"
        " running, scaled, smt, round, raw, method)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
    [Q_REAP_SEL] =
        "SELECT r.id, r.pid, r.pid_start, r.boot_id FROM runs r JOIN hosts h ON h.id = r.host_id"
        " WHERE r.status = 'running' AND h.hostname = ?1",
    [Q_REAP_UPD] = "UPDATE runs SET status='aborted' WHERE id=?1 AND status='running'",
    [Q_RUN_GET] =
        "SELECT r.id, r.status, r.started, COALESCE(r.finished,''), r.cmdline,"
        " COALESCE(r.tag,''), r.cpu, COALESCE(cm.hash,''), COALESCE(cm.subject,''),"
        " COALESCE(cm.author_date,''), COALESCE(cm.dirty,-1), h.hostname, h.vendor,"
        " h.model_name, h.microcode, h.kernel, h.family, h.model, h.stepping, h.ncpus,"
        " h.features, r.tsc_ghz, h.tsc_source, r.core_ghz, r.core_ghz_spread,"
        " r.core_ghz_source, h.pmu, b.version, b.compiler, b.cflags,"
        " COALESCE(r.clock_backend,''), COALESCE(r.core_est_method,''), r.core_est_ghz,"
        " r.core_est_spread, r.core_est_add_ghz, r.core_est_imul_ghz, COALESCE(r.meter_kind,''),"
        " r.meter_baseline, r.meter_spread, COALESCE(r.meter_why,''), COALESCE(r.fingerprint,''),"
        " COALESCE(r.sim_model,''), COALESCE(r.uuid,''),"
        " COALESCE((SELECT group_concat(COALESCE(p.side || ' ', '') || p.path || ' (sha256 ' || substr(p.sha256, 1, 16) || '...): '"
        " || p.variants, '; ') FROM run_plugins p WHERE p.run_id = r.id), ''),"
        " COALESCE(r.emulated,''), COALESCE(r.source,'')"
        " FROM runs r JOIN hosts h ON h.id = r.host_id JOIN builds b ON b.id = r.build_id"
        " LEFT JOIN commits cm ON cm.id = r.commit_id WHERE r.id = ?1",
    [Q_EVENTS] =
        "SELECT id, name, part, pfm, encoding, source, read_method, why, supported"
        " FROM events WHERE run_id=?1 ORDER BY id",
    [Q_CASES] =
        /* An ab run's case names its side: mine@base, mine@head. */
        "SELECT c.id, c.probe, CASE WHEN c.side IS NULL THEN c.variant ELSE c.variant || '@' || c.side END,"
        " c.unit, c.op, c.mode, c.verdict, c.detail, c.size,"
        " c.bytes_per_op, (SELECT COUNT(DISTINCT s.seq) FROM samples s WHERE s.case_id = c.id),"
        " c.contention, c.contended_share, c.clock_ghz, c.clock_spread_pct,"
        " COALESCE(c.clock_used, ''), COALESCE(c.clock_flagged, 0), COALESCE(c.cpu_pair, ''),"
        " COALESCE(c.code_hash, ''), COALESCE(c.code_addr, -1)"
        " FROM cases c WHERE c.run_id=?1 ORDER BY c.id",
    [Q_VALUES] =
        "SELECT (value - COALESCE(overhead, 0.0)) / CAST(iters AS DOUBLE PRECISION), scaled, smt,"
        " value, iters FROM samples"
        " WHERE case_id=?1 AND event_id=?2 AND value IS NOT NULL ORDER BY seq",
};

void cb_st_msg(struct cb_sb *err, const char *fmt, ...)
{
    va_list ap;
    if (!err)
        return;
    va_start(ap, fmt);
    cb_sb_vsetf(err, fmt, ap);
    va_end(ap);
}

int cb_st_errno_of(int rc)
{
    return rc < 0 ? rc : 0;
}

int cb_st_errno_or_eio(int rc)
{
    int e = cb_st_errno_of(rc);
    return e ? e : -EIO;
}

/* The write/read calls have no err buffer: say what the database said on
 * stderr (a failed CHECK names the column and the rule) and return an errno. */
int cb_st_fail(struct cb_store *st, int rc, const char *what)
{
    fprintf(stderr, "cyclebudget: store: %s: %s\n", what,
            st && st->db && cb_db_errmsg(st->db)[0] ? cb_db_errmsg(st->db)
            : strerror(rc < 0 ? -rc : EIO));
    return cb_st_errno_of(rc);
}

struct cb_db_stmt *cb_st_stmt(struct cb_store *st, int i, int *rc)
{
    if (!st->q[i]) {
        *rc = cb_db_prepare(st->db, q_sql[i], &st->q[i]);
        if (*rc != CB_DB_OK)
            return NULL;
    }
    cb_db_reset(st->q[i]);
    cb_db_clear_bindings(st->q[i]);
    *rc = CB_DB_OK;
    return st->q[i];
}

int cb_st_bind_str(struct cb_db_stmt *s, int i, const char *v)
{
    return cb_db_bind_text(s, i, v ? v : "");
}

int cb_st_bind_strs(struct cb_db_stmt *s, int first, const char *const *v, int n)
{
    int rc = CB_DB_OK;
    for (int i = 0; i < n && rc == CB_DB_OK; i++)
        rc = cb_st_bind_str(s, first + i, v[i]);
    return rc;
}

/* NAN means "not measured": store NULL, never a number. */
int cb_st_bind_real_or_null(struct cb_db_stmt *s, int i, double v)
{
    return isnan(v) ? cb_db_bind_null(s, i) : cb_db_bind_double(s, i, v);
}

double cb_st_col_real_or_nan(struct cb_db_stmt *s, int i)
{
    return cb_db_column_type(s, i) == CB_DB_NULL ? NAN : cb_db_column_double(s, i);
}

void cb_st_col_str(struct cb_db_stmt *s, int i, char *buf, size_t len)
{
    const char *t = cb_db_column_text(s, i);
    snprintf(buf, len, "%s", t ? t : "");
}

int cb_st_exec(struct cb_store *st, const char *sql)
{
    return cb_db_exec(st->db, sql);
}

void cb_st_backoff(int attempt)
{
    struct timespec ts = {0, (long)(20 + 30 * attempt) * 1000000L};
    nanosleep(&ts, NULL);
}

int cb_st_is_busy(int rc)
{
    return rc == -EBUSY;
}

/* Run fn inside cb_db_begin ... COMMIT, the whole of it again when the
 * database says busy.  cb_db_begin takes the write lock up front (SQLite's
 * BEGIN IMMEDIATE, PostgreSQL's advisory lock): a deferred transaction that
 * reads and then writes can get SQLITE_BUSY on the upgrade without the busy
 * handler ever being called.  Returns a db.h code. */
int cb_st_in_tx(struct cb_store *st, int (*fn)(struct cb_store *, void *), void *ctx)
{
    int rc = -EBUSY;
    for (int attempt = 0; attempt < CB_TX_TRIES && !(attempt && cb_db_stopped()); attempt++) {
        if (attempt)
            cb_st_backoff(attempt);
        cb_sb_reset(&st->why);
        rc = cb_db_begin(st->db);
        if (cb_st_is_busy(rc))
            continue;
        if (rc != CB_DB_OK)
            return rc;
        rc = fn(st, ctx);
        if (rc == CB_DB_OK || rc == CB_DB_DONE) {
            rc = cb_st_exec(st, "COMMIT");
            if (rc == CB_DB_OK)
                return CB_DB_OK;
        }
        struct cb_sb keep = CB_SB_INIT;
        cb_sb_adds(&keep, st->why.len ? st->why.buf : cb_db_errmsg(st->db));
        if (cb_db_in_tx(st->db))
            cb_db_rollback(st->db);
        if (!cb_st_is_busy(rc)) {
            if (rc == CB_DB_OK || rc == CB_DB_DONE)
                rc = -EIO;
            /* A full disk is said once, with its remedy, by the caller. */
            if (rc != -ENOSPC)
                fprintf(stderr, "cyclebudget: store: %s\n", keep.buf);
            cb_sb_setf(&st->why, "%s", keep.buf);
            cb_sb_release(&keep);
            return rc;
        }
        cb_sb_release(&keep);
    }
    return rc;
}

int cb_st_tx(struct cb_store *st, int (*fn)(struct cb_store *, void *), void *ctx)
{
    int rc = cb_st_in_tx(st, fn, ctx);
    return rc == CB_DB_OK ? 0 : cb_st_errno_or_eio(rc);
}

int cb_st_row_once(struct cb_store *st, const char *sql, const char *const *text, int ntext,
                   void (*row)(struct cb_db_stmt *, void *), void *ctx)
{
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(st->db, sql, &s);
    if (rc != CB_DB_OK)
        return rc;
    for (int i = 0; i < ntext; i++)
        cb_db_bind_text(s, i + 1, text[i]);
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW)
        row(s, ctx);
    cb_db_finalize(s);
    return rc;
}

/* Step a statement that returns no rows. */
int cb_st_step_done(struct cb_db_stmt *s)
{
    int rc = cb_db_step(s);
    cb_db_reset(s);
    return rc == CB_DB_DONE ? CB_DB_OK : rc;
}

/* The case's columns that may be NULL: its clock (0014), its CPU pair
 * (0016), its code hash and address (0021). */
void cb_st_bind_case_optional(struct cb_db_stmt *s, const struct cb_case_row *c)
{
    int clk = c->clock_ghz > 0 && c->clock_used, code = c->code_hash && c->code_hash[0];
    cb_st_bind_real_or_null(s, 14, clk ? c->clock_ghz : NAN);
    cb_st_bind_real_or_null(s, 15, clk ? c->clock_spread_pct : NAN);
    if (clk) {
        cb_st_bind_strs(s, 16, (const char *const[]){c->clock_used}, 1);
        cb_db_bind_int64(s, 17, c->clock_flagged != 0);
    } else {
        cb_db_bind_null(s, 16);
        cb_db_bind_null(s, 17);
    }
    if (c->cpu_pair && c->cpu_pair[0])
        cb_st_bind_str(s, 18, c->cpu_pair);
    else
        cb_db_bind_null(s, 18);
    if (code) {
        cb_st_bind_str(s, 19, c->code_hash);
        if (c->code_addr >= 0)   /* -1: code known, address not (a BPF program's tag) */
            cb_db_bind_int64(s, 20, c->code_addr);
        else
            cb_db_bind_null(s, 20);
    } else {
        cb_db_bind_null(s, 19);
        cb_db_bind_null(s, 20);
    }
}
