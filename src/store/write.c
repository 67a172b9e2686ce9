/* write.c — recording a run (see store.h): its host, build and commit rows,
 * its events, each case with all its samples in one transaction, its end
 * (who writes it, and the reaping of dead writers' runs: writer.c). */
#include "store/secret.h"
#include "store/store_internal.h"
#include "store/uuid.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- writing ------------------------------------------------------------ */

struct begin_ctx {
    const struct cb_run_meta *m;
    int64_t run_id;
};

static int find_or_add(struct cb_store *st, int qsel, int qins,
                       int (*bind)(struct cb_db_stmt *, const void *), const void *arg, int64_t *id)
{
    int rc;
    struct cb_db_stmt *s = cb_st_stmt(st, qsel, &rc);
    if (!s || (rc = bind(s, arg)) != CB_DB_OK)
        return rc;
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW) {
        *id = cb_db_column_int64(s, 0);
        cb_db_reset(s);
        return CB_DB_OK;
    }
    cb_db_reset(s);
    if (rc != CB_DB_DONE)
        return rc;
    s = cb_st_stmt(st, qins, &rc);
    if (!s || (rc = bind(s, arg)) != CB_DB_OK)
        return rc;
    rc = cb_st_step_done(s);
    if (rc == CB_DB_OK)
        *id = cb_db_last_insert_id(st->db);
    return rc;
}

/* The SELECTs use the INSERTs' ?N numbers, so one binder serves both; a
 * number a statement does not mention is within range and ignored. */
static int bind_host(struct cb_db_stmt *s, const void *arg)
{
    const struct cb_run_meta *m = arg;
    const struct cb_host *h = m->host;
    char feat[256];
    cb_cpu_feature_names(h->features, feat, sizeof feat);
    /* Rounded to 1 MHz: see hosts.tsc_ghz in 0001_init.sql. */
    double tsc = isfinite(m->tsc_ghz) && m->tsc_ghz > 0 ? (double)(long long)(m->tsc_ghz * 1000.0 + 0.5) / 1000.0 : 0;
    int rc = CB_DB_OK;
#define B(i, call) if (rc == CB_DB_OK) rc = (call)
    B(1, cb_st_bind_str(s, 1, h->hostname));
    B(2, cb_st_bind_str(s, 2, h->vendor));
    B(3, cb_db_bind_int64(s, 3, h->family));
    B(4, cb_db_bind_int64(s, 4, h->model));
    B(5, cb_db_bind_int64(s, 5, h->stepping));
    B(6, cb_st_bind_str(s, 6, h->model_name));
    B(7, cb_st_bind_str(s, 7, h->microcode));
    B(8, cb_st_bind_str(s, 8, feat));
    B(9, cb_db_bind_int64(s, 9, h->features));
    B(10, cb_db_bind_int64(s, 10, h->ncpus));
    B(11, cb_db_bind_int64(s, 11, (int64_t)h->llc_bytes));
    B(12, cb_st_bind_str(s, 12, h->kernel));
    B(13, cb_db_bind_double(s, 13, tsc));
    B(14, cb_st_bind_str(s, 14, m->tsc_source));
    B(15, cb_st_bind_str(s, 15, m->pmu));
#undef B
    return rc;
}

int cb_st_host_id(struct cb_store *st, const struct cb_run_meta *m, int add, int64_t *id)
{
    if (add)
        return find_or_add(st, Q_HOST_SEL, Q_HOST_INS, bind_host, m, id);
    int rc;
    struct cb_db_stmt *s = cb_st_stmt(st, Q_HOST_SEL, &rc);
    if (!s || (rc = bind_host(s, m)) != CB_DB_OK)
        return rc;
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW)
        *id = cb_db_column_int64(s, 0);
    cb_db_reset(s);
    return rc;
}

static int bind_build(struct cb_db_stmt *s, const void *arg)
{
    const struct cb_run_meta *m = arg;
    return cb_st_bind_strs(s, 1, (const char *const[]){m->version, m->compiler, m->cflags}, 3);
}

static int bind_commit(struct cb_db_stmt *s, const void *arg)
{
    const struct cb_run_meta *m = arg;
    int rc = cb_st_bind_strs(s, 1, (const char *const[]){m->commit, m->subject, m->commit_date}, 3);
    return rc == CB_DB_OK ? cb_db_bind_int64(s, 4, m->dirty < 0 ? -1 : m->dirty > 0) : rc;
}

/* One text column of a run: uuid, sim_model, emulated, source. */
static int set_run_text(struct cb_store *st, int q, int64_t run_id, const char *text)
{
    int rc;
    struct cb_db_stmt *s = cb_st_stmt(st, q, &rc);
    if (!s)
        return rc;
    cb_db_bind_int64(s, 1, run_id);
    cb_st_bind_str(s, 2, text);
    return cb_st_step_done(s);
}

/* What the run measured, as bytes (0020_code_id.sql). */
static int set_run_code(struct cb_store *st, int64_t run_id, const struct cb_run_meta *m)
{
    int rc;
    struct cb_db_stmt *s = cb_st_stmt(st, Q_RUN_CODE, &rc);
    if (!s)
        return rc;
    cb_db_bind_int64(s, 1, run_id);
    cb_st_bind_str(s, 2, m->code_id);
    cb_st_bind_str(s, 3, m->code_what ? m->code_what : "");
    return cb_st_step_done(s);
}

/* The run's name in every store.  0009_uuid.sql's trigger has already given
 * it a random one in SQL; this one comes from getrandom(2), which does not
 * depend on how SQLite seeds randomblob(). */
static int set_uuid(struct cb_store *st, int64_t run_id)
{
    char uuid[CB_UUID_LEN + 1];
    int r = cb_uuid_v4(uuid, sizeof uuid);
    if (r < 0) {
        cb_sb_setf(&st->why, "no random bytes for the run's UUID: %s", strerror(-r));
        return -EIO;
    }
    return set_run_text(st, Q_RUN_UUID, run_id, uuid);
}

static int begin_fn(struct cb_store *st, void *vctx)
{
    struct begin_ctx *c = vctx;
    const struct cb_run_meta *m = c->m;
    int64_t host, build, commit = 0;
    int rc = find_or_add(st, Q_HOST_SEL, Q_HOST_INS, bind_host, m, &host);
    if (rc == CB_DB_OK)
        rc = find_or_add(st, Q_BUILD_SEL, Q_BUILD_INS, bind_build, m, &build);
    if (rc == CB_DB_OK && m->commit && *m->commit)
        rc = find_or_add(st, Q_COMMIT_SEL, Q_COMMIT_INS, bind_commit, m, &commit);
    if (rc != CB_DB_OK)
        return rc;

    char boot[64];
    cb_st_boot_id(boot, sizeof boot);
    long long start = cb_st_proc_start(getpid());
    struct cb_db_stmt *s = cb_st_stmt(st, Q_RUN_INS, &rc);
    if (!s)
        return rc;
    cb_db_bind_int64(s, 1, host);
    cb_db_bind_int64(s, 2, build);
    if (commit)
        cb_db_bind_int64(s, 3, commit);
    struct cb_sb cmdline = CB_SB_INIT;    /* never a password (secret.h) */
    cb_secret_strip(m->cmdline, &cmdline, 0);
    cb_st_bind_str(s, 4, cmdline.buf);
    cb_sb_release(&cmdline);
    if (m->tag && *m->tag)
        cb_st_bind_str(s, 5, m->tag);
    cb_db_bind_int64(s, 6, m->cpu);
    cb_db_bind_double(s, 7, isfinite(m->tsc_ghz) ? m->tsc_ghz : 0);
    cb_db_bind_double(s, 8, isfinite(m->core_ghz) ? m->core_ghz : 0);
    cb_db_bind_double(s, 9, isfinite(m->core_ghz_spread) ? m->core_ghz_spread : 0);
    cb_st_bind_str(s, 10, m->core_ghz_source);
    cb_db_bind_int64(s, 11, getpid());
    if (start >= 0)
        cb_db_bind_int64(s, 12, start);
    cb_st_bind_str(s, 13, boot);
    rc = cb_st_step_done(s);
    if (rc != CB_DB_OK)
        return rc;
    c->run_id = cb_db_last_insert_id(st->db);
    if (cb_store_schema_version(st) < 7)
        return rc;
    if (!(s = cb_st_stmt(st, Q_RUN_TRUTH, &rc)))
        return rc;
    cb_db_bind_int64(s, 1, c->run_id);
    cb_st_bind_str(s, 2, m->clock_backend ? m->clock_backend : "perf_event");
    if (m->core_est_method) {
        cb_st_bind_str(s, 3, m->core_est_method);
        cb_st_bind_real_or_null(s, 4, m->core_est_ghz);
        cb_st_bind_real_or_null(s, 5, m->core_est_spread);
        cb_st_bind_real_or_null(s, 6, m->core_est_add_ghz > 0 ? m->core_est_add_ghz : NAN);
        cb_st_bind_real_or_null(s, 7, m->core_est_imul_ghz > 0 ? m->core_est_imul_ghz : NAN);
    }
    if (m->meter_kind) {
        cb_st_bind_str(s, 8, m->meter_kind);
        cb_st_bind_real_or_null(s, 9, m->meter_baseline > 0 ? m->meter_baseline : NAN);
        cb_st_bind_real_or_null(s, 10, m->meter_spread);
        cb_st_bind_str(s, 11, m->meter_why ? m->meter_why : "");
    }
    if (m->fingerprint)
        cb_st_bind_str(s, 12, m->fingerprint);
    if ((rc = cb_st_step_done(s)) != CB_DB_OK)
        return rc;
    if (m->sim_model && (rc = set_run_text(st, Q_RUN_SIM, c->run_id, m->sim_model)) != CB_DB_OK)
        return rc;
    /* A store held at an older schema exists only in tests. */
    if (m->emulated && cb_store_schema_version(st) >= 17 &&
        (rc = set_run_text(st, Q_RUN_EMUL, c->run_id, m->emulated)) != CB_DB_OK)
        return rc;
    if (m->source && cb_store_schema_version(st) >= 19 &&
        (rc = set_run_text(st, Q_RUN_SOURCE, c->run_id, m->source)) != CB_DB_OK)
        return rc;
    if (m->code_id && cb_store_schema_version(st) >= 20 && (rc = set_run_code(st, c->run_id, m)) != CB_DB_OK)
        return rc;
    return cb_store_schema_version(st) < 9 ? CB_DB_OK : set_uuid(st, c->run_id);
}

int cb_store_run_begin(struct cb_store *st, const struct cb_run_meta *m, int64_t *run_id)
{
    if (!st || !m || !m->host || !run_id)
        return -EINVAL;
    struct begin_ctx c = {m, 0};
    int r = cb_st_tx(st, begin_fn, &c);
    if (r < 0)
        return r;
    *run_id = c.run_id;
    return 0;
}

struct event_ctx {
    int64_t run_id;
    const struct cb_event_row *e;
    int64_t id;
};

static int event_fn(struct cb_store *st, void *vctx)
{
    struct event_ctx *c = vctx;
    const struct cb_event_row *e = c->e;
    int rc;
    struct cb_db_stmt *s = cb_st_stmt(st, Q_EVENT_INS, &rc);
    if (!s)
        return rc;
    const char *const strs[] = {e->name, e->part && *e->part ? e->part : e->name, e->pfm,
                                e->encoding, e->source, e->read_method};
    cb_db_bind_int64(s, 1, c->run_id);
    cb_st_bind_strs(s, 2, strs, 6);
    cb_db_bind_int64(s, 8, e->supported ? 1 : 0);
    cb_st_bind_str(s, 9, e->why);
    rc = cb_st_step_done(s);
    if (rc == CB_DB_OK)
        c->id = cb_db_last_insert_id(st->db);
    return rc;
}

int cb_store_event_add(struct cb_store *st, int64_t run_id, const struct cb_event_row *e,
                       int64_t *event_id)
{
    if (!st || !e)
        return -EINVAL;
    struct event_ctx c = {run_id, e, 0};
    int r = cb_st_tx(st, event_fn, &c);
    if (r < 0)
        return r;
    if (event_id)
        *event_id = c.id;
    return 0;
}

/* 1 running, 0 exists but not running, -1 no such run; or an SQLite error
 * code through *rc. */
static int run_running(struct cb_store *st, int64_t run_id, int *rc)
{
    struct cb_db_stmt *s = cb_st_stmt(st, Q_RUN_STATUS, rc);
    if (!s)
        return -1;
    cb_db_bind_int64(s, 1, run_id);
    int r = cb_db_step(s), res = -1;
    if (r == CB_DB_ROW)
        res = strcmp((const char *)cb_db_column_text(s, 0), "running") == 0;
    else if (r != CB_DB_DONE)
        *rc = r;
    cb_db_reset(s);
    return res;
}

struct case_ctx {
    int64_t run_id;
    const struct cb_case_row *c;
    const struct cb_sample_row *s;
    size_t ns;
    int64_t id;
};

static int case_fn(struct cb_store *st, void *vctx)
{
    struct case_ctx *x = vctx;
    const struct cb_case_row *c = x->c;
    int rc = CB_DB_OK;
    int running = run_running(st, x->run_id, &rc);
    if (rc != CB_DB_OK)
        return rc;
    if (running != 1) {
        /* A run reaped as aborted or already finished takes no more cases. */
        cb_sb_setf(&st->why, "run %lld: %s", (long long)x->run_id,
                 running < 0 ? "no such run" : "not running (finished, or reaped as aborted)");
        return -EINVAL;
    }
    struct cb_db_stmt *s = cb_st_stmt(st, Q_CASE_INS, &rc);
    if (!s)
        return rc;
    cb_db_bind_int64(s, 1, x->run_id);
    cb_st_bind_strs(s, 2, (const char *const[]){c->probe, c->variant}, 2);
    cb_db_bind_int64(s, 4, (int64_t)c->size);
    cb_st_bind_strs(s, 5, (const char *const[]){c->unit, c->op, c->mode}, 3);
    cb_db_bind_int64(s, 8, (int64_t)c->bytes_per_op);
    cb_st_bind_strs(s, 9, (const char *const[]){c->verdict, c->detail}, 2);
    cb_st_bind_real_or_null(s, 11, c->metered ? c->contention : NAN);
    cb_st_bind_real_or_null(s, 12, c->metered ? c->contended_share : NAN);
    cb_db_bind_text(s, 13, c->side);
    cb_st_bind_case_optional(s, c);
    rc = cb_st_step_done(s);
    if (rc != CB_DB_OK)
        return rc;
    x->id = cb_db_last_insert_id(st->db);

    s = cb_st_stmt(st, Q_SAMPLE_INS, &rc);
    if (!s)
        return rc;
    for (size_t i = 0; i < x->ns; i++) {
        const struct cb_sample_row *r = &x->s[i];
        cb_db_reset(s);
        cb_db_bind_int64(s, 1, x->id);
        cb_db_bind_int64(s, 2, r->event_id);
        cb_db_bind_int64(s, 3, r->seq);
        cb_db_bind_int64(s, 4, (int64_t)r->iters);
        cb_st_bind_real_or_null(s, 5, r->value);
        cb_st_bind_real_or_null(s, 6, r->overhead);
        cb_db_bind_int64(s, 7, (int64_t)r->enabled);
        cb_db_bind_int64(s, 8, (int64_t)r->running);
        cb_db_bind_int64(s, 9, r->scaled ? 1 : 0);
        cb_st_bind_real_or_null(s, 10, r->smt > 0 ? r->smt : NAN);
        cb_db_bind_int64(s, 11, r->round);
        cb_st_bind_real_or_null(s, 12, r->raw);
        if (r->method)
            cb_st_bind_str(s, 13, r->method);
        else
            cb_db_bind_null(s, 13);
        rc = cb_st_step_done(s);
        if (rc != CB_DB_OK)
            return rc;
        if (i == x->ns / 2 && st->kill_in_case && ++st->cases_written == st->kill_in_case)
            raise(SIGKILL);
    }
    return CB_DB_OK;
}

int cb_store_case_add(struct cb_store *st, int64_t run_id, const struct cb_case_row *c,
                      const struct cb_sample_row *s, size_t ns, int64_t *case_id)
{
    if (!st || !c || (ns && !s))
        return -EINVAL;
    struct case_ctx x = {run_id, c, s, ns, 0};
    int r = cb_st_tx(st, case_fn, &x);
    if (r < 0)   /* a full disk can read as an I/O error: name it */
        return cb_st_disk_full(st, NULL) ? -ENOSPC : r;
    if (case_id)
        *case_id = x.id;
    return 0;
}

int cb_store_run_plugin_add(struct cb_store *st, int64_t run_id, const char *path,
                            const char *sha256, const char *name, const char *variants,
                            const char *side)
{
    static const char sql[] = "INSERT INTO run_plugins (run_id, path, sha256, name, variants, side) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
    if (!st || !path || !sha256 || strlen(sha256) != 64 || !name || !variants)
        return -EINVAL;
    int rc = -EBUSY;
    for (int attempt = 0; attempt < CB_TX_TRIES && !(attempt && cb_db_stopped()) && cb_st_is_busy(rc); attempt++) {
        if (attempt)
            cb_st_backoff(attempt);
        struct cb_db_stmt *s;
        if ((rc = cb_db_prepare(st->db, sql, &s)) != CB_DB_OK)
            continue;
        cb_db_bind_int64(s, 1, run_id);
        const char *const text[] = {path, sha256, name, variants};
        cb_st_bind_strs(s, 2, text, 4);
        cb_db_bind_text(s, 6, side);
        rc = cb_db_step(s);
        cb_db_finalize(s);
        if (rc == CB_DB_DONE)
            return 0;
    }
    return cb_st_fail(st, rc, "storing the run's plugin");
}

/* One try at ending the run: 0, -EAGAIN to try again (busy), or an errno. */
static int finish_once(struct cb_store *st, int64_t run_id, const char *status, int quiet)
{
    int rc;
    struct cb_db_stmt *s = cb_st_stmt(st, Q_RUN_FINISH, &rc);
    if (s) {
        cb_db_bind_int64(s, 1, run_id);
        cb_st_bind_str(s, 2, status);
        rc = cb_st_step_done(s);
    }
    if (cb_st_is_busy(rc))
        return -EAGAIN;
    if (rc != CB_DB_OK)
        return quiet ? cb_st_errno_or_eio(rc) : cb_st_fail(st, rc, "finishing the run");
    if (cb_db_changes(st->db) == 1)
        return 0;
    int running = run_running(st, run_id, &rc);
    if (running < 0) {
        fprintf(stderr, "cyclebudget: store: no run %lld to finish\n", (long long)run_id);
        return -ENOENT;
    }
    fprintf(stderr, "cyclebudget: store: run %lld was no longer running (reaped as "
            "aborted?)\n", (long long)run_id);
    return -EINVAL;
}

int cb_store_run_finish(struct cb_store *st, int64_t run_id, const char *status)
{
    if (!st || !status || (strcmp(status, "complete") && strcmp(status, "aborted")))
        return -EINVAL;
    int r = -EAGAIN;
    for (int attempt = 0; attempt < CB_TX_TRIES && !(attempt && cb_db_stopped()) && r == -EAGAIN; attempt++) {
        if (attempt)
            cb_st_backoff(attempt);
        /* Quiet while the reserve may still save it: a full disk is said
         * once, by the caller. */
        r = finish_once(st, run_id, status, st->has_reserve);
        if (r < 0 && r != -EAGAIN && cb_st_disk_full(st, NULL))
            r = -ENOSPC;
        /* A full disk: end the run in the space held back for it. */
        if (r == -ENOSPC && cb_st_reserve_release(st)) {
            if (cb_db_in_tx(st->db))
                cb_db_rollback(st->db);
            r = -EAGAIN;
        }
    }
    if (r == -EAGAIN) {
        fprintf(stderr, "cyclebudget: store: finishing the run: %s\n", cb_db_errmsg(st->db));
        return -EBUSY;
    }
    return r;
}
