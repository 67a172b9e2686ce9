/* sides.c — runs, pooled samples and fingerprints of a side (see sides.h). */
#define _GNU_SOURCE
#include "analysis/sides.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include "store/db.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "host/fingerprint.h"
#include "host/gitinfo.h"

void cb_case_key(char *buf, size_t len, const char *probe, const char *variant, uint64_t size,
                 const char *mode)
{
    snprintf(buf, len, "%s/%s/%" PRIu64 "/%s", probe, variant, size, mode);
}

static int sql_err(int rc)
{
    return rc == -ENOMEM || rc == -EBUSY ? rc : -EIO;
}

int cb_side_add_run(struct cb_side *s, int64_t run_id)
{
    for (size_t i = 0; i < s->nruns; i++)
        if (s->runs[i] == run_id)
            return 0;
    int64_t *n = realloc(s->runs, (s->nruns + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    s->runs = n;
    s->runs[s->nruns++] = run_id;
    return 0;
}

static int add_commit(struct cb_side *s, const char *hash)
{
    for (size_t i = 0; i < s->ncommits; i++)
        if (strcmp(s->commits[i], hash) == 0)
            return 0;
    char(*n)[64] = realloc(s->commits, (s->ncommits + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    s->commits = n;
    snprintf(s->commits[s->ncommits++], 64, "%s", hash);
    return 0;
}

void cb_side_free(struct cb_side *s)
{
    for (size_t i = 0; i < s->ncases; i++)
        cb_free_all((void *[]){s->cases[i].v, s->cases[i].ends, s->cases[i].smt,
                               s->cases[i].run_id, s->cases[i].flagged}, 5);
    cb_free_all((void *[]){s->cases, s->runs, s->commits}, 3);
    memset(s, 0, sizeof *s);
}

/* Every run id the query yields (?1 bound to text when given). */
static int add_runs(struct cb_store *st, struct cb_side *s, const char *sql, const char *text,
                    int incl, size_t *added)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st), sql, &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    if (text)
        cb_db_bind_text(q, 1, text);
    cb_db_bind_int64(q, 2, incl);
    *added = 0;
    while ((rc = cb_db_step(q)) == CB_DB_ROW) {
        if (cb_side_add_run(s, cb_db_column_int64(q, 0)) < 0) {
            cb_db_finalize(q);
            return -ENOMEM;
        }
        (*added)++;
    }
    cb_db_finalize(q);
    return rc == CB_DB_DONE ? 0 : sql_err(rc);
}

static int is_hex(const char *s)
{
    return *s && strspn(s, "0123456789abcdefABCDEF") == strlen(s);
}

int cb_commit_resolve(struct cb_store *st, const char *rev, const char *repo, char *hash,
                      size_t hashlen, struct cb_sb *err)
{
    struct cb_db *db = cb_store_db(st);
    if (is_hex(rev) && strlen(rev) >= 4 && strlen(rev) <= 40) {
        struct cb_db_stmt *q;
        int rc = cb_db_prepare(db,
                                    "SELECT DISTINCT hash FROM commits WHERE substr(hash, 1, "
                                    "length(?1)) = lower(?1) ORDER BY hash LIMIT 2", &q);
        if (rc != CB_DB_OK)
            return sql_err(rc);
        cb_db_bind_text(q, 1, rev);
        int found = 0;
        char first[64] = "", second[64] = "";
        while ((rc = cb_db_step(q)) == CB_DB_ROW) {
            snprintf(found ? second : first, 64, "%s", (const char *)cb_db_column_text(q, 0));
            found++;
        }
        cb_db_finalize(q);
        if (found > 1) {
            cb_sb_setf(err, "commit prefix '%s' is ambiguous (%.12s, %.12s, ...): give more digits",
                     rev, first, second);
            return -EINVAL;
        }
        if (found == 1) {
            snprintf(hash, hashlen, "%s", first);
            return 0;
        }
    }
    /* Not a stored hash prefix: maybe a name git knows (HEAD~2, v1.0). */
    struct cb_gitinfo gi;
    int grc = cb_gitinfo_read(repo, rev, &gi);
    /* git hung (or the user interrupted it): say so, not "names no commit" */
    if (grc == -EINTR)
        cb_sb_setf(err, "interrupted while git was asked what '%s' names", rev);
    else if (grc == -ETIMEDOUT)
        cb_sb_setf(err, "'%s' is no stored hash prefix, and git did not answer in time when asked "
                   "what it names (in %s): killed; fix git there, give it longer with "
                   "CB_GIT_TIMEOUT=SECONDS, or give a run id, a tag or a hash prefix", rev,
                   repo ? repo : ".");
    if (grc == -EINTR || grc == -ETIMEDOUT)
        return grc;
    if (grc == 0 && gi.commit[0]) {
        struct cb_db_stmt *q;
        int rc = cb_db_prepare(db, "SELECT 1 FROM commits WHERE hash = ?1", &q);
        if (rc != CB_DB_OK)
            return sql_err(rc);
        cb_db_bind_text(q, 1, gi.commit);
        rc = cb_db_step(q);
        cb_db_finalize(q);
        if (rc == CB_DB_ROW) {
            snprintf(hash, hashlen, "%s", gi.commit);
            return 0;
        }
        cb_sb_setf(err, "'%s' is commit %.12s, which has no runs in this database: record one with 'cyclebudget run --commit %s'",
                 rev, gi.commit, rev);
        return -ENOENT;
    }
    cb_sb_setf(err, "'%s' names no commit in this database (nor in the git tree at %s)", rev,
             repo ? repo : ".");
    return -ENOENT;
}

/* A run counts when complete, or when --include-aborted (?2) says so. */
#define STATUS_OK " AND (status = 'complete' OR ?2 <> 0)"

static int resolve_item(struct cb_store *st, const char *item, int incl, const char *repo,
                        struct cb_side *s, struct cb_sb *err)
{
    size_t added = 0;
    int rc;
    if (strcmp(item, "latest") == 0) {
        if ((rc = add_runs(st, s, "SELECT id FROM runs WHERE 1 = 1" STATUS_OK
                           " ORDER BY started DESC, id DESC LIMIT 1", NULL, incl, &added)) < 0)
            return rc;
        if (!added) {
            cb_sb_setf(err, "latest: no complete run in this database");
            return -ENOENT;
        }
        return 0;
    }
    if (strspn(item, "0123456789") == strlen(item) && strlen(item) < 16) {
        struct cb_db_stmt *q;
        rc = cb_db_prepare(cb_store_db(st), "SELECT id, status FROM runs WHERE id = ?1", &q);
        if (rc != CB_DB_OK)
            return sql_err(rc);
        cb_db_bind_int64(q, 1, strtoll(item, NULL, 10));
        rc = cb_db_step(q);
        if (rc == CB_DB_ROW) {
            char status[16];
            snprintf(status, sizeof status, "%s", (const char *)cb_db_column_text(q, 1));
            int64_t id = cb_db_column_int64(q, 0);
            cb_db_finalize(q);
            if (strcmp(status, "complete") != 0 && !incl) {
                cb_sb_setf(err, "run %s is %s, and only complete runs count: pass --include-aborted to use it anyway",
                         item, status);
                return -EINVAL;
            }
            return cb_side_add_run(s, id);
        }
        cb_db_finalize(q);
        /* All digits but no such run: it may still be a tag or a hash prefix. */
    }
    rc = add_runs(st, s, "SELECT id FROM runs WHERE tag = ?1" STATUS_OK " ORDER BY id", item, incl,
                  &added);
    if (rc < 0)
        return rc;
    if (added)
        return 0;
    char hash[64];
    struct cb_sb cerr = CB_SB_INIT;
    rc = cb_commit_resolve(st, item, repo, hash, sizeof hash, &cerr);
    int said = rc == -EINVAL || rc == -ETIMEDOUT || rc == -EINTR;   /* git's own trouble too */
    if (said)
        cb_sb_setf(err, "%s", cerr.buf);
    cb_sb_release(&cerr);
    if (said)
        return rc;
    if (rc == 0) {
        rc = add_runs(st, s, "SELECT r.id FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                      "WHERE cm.hash = ?1 AND cm.dirty <> 1 AND (r.status = 'complete' OR ?2 <> 0) "
                      "ORDER BY r.id", hash, incl, &added);
        if (rc < 0)
            return rc;
        if (added)
            return 0;
        cb_sb_setf(err, "commit %.12s has no complete run of a clean tree (pass --include-aborted for aborted ones)",
                 hash);
        return -ENOENT;
    }
    cb_sb_setf(err, "'%s' is not a run id, a tag or a commit in this database ('sqlite3 DB \"select * from runs_overview\"' lists them)",
             item);
    return -ENOENT;
}

int cb_side_resolve(struct cb_store *st, const char *spec, int include_aborted, const char *repo,
                    struct cb_side *s, struct cb_sb *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    if (!*spec) {
        cb_sb_setf(err, "an empty side: give a run id, a tag, a commit, or a comma list");
        return -EINVAL;
    }
    char *copy = strdup(spec);
    if (!copy)
        return -ENOMEM;
    int rc = 0;
    char *save = NULL;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save))
        rc = resolve_item(st, it, include_aborted, repo, s, err);
    if (rc == 0 && s->nruns == 0) {
        cb_sb_setf(err, "'%s' names no runs", spec);
        rc = -EINVAL;
    }
    free(copy);
    if (rc == 0) {
        struct cb_db_stmt *q;
        int r2 = cb_db_prepare(cb_store_db(st),
                                    "SELECT cm.hash FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                                    "WHERE r.id = ?1 AND cm.dirty <> 1", &q);
        if (r2 != CB_DB_OK)
            return sql_err(r2);
        for (size_t i = 0; i < s->nruns && rc == 0; i++) {
            cb_db_reset(q);
            cb_db_bind_int64(q, 1, s->runs[i]);
            if (cb_db_step(q) == CB_DB_ROW)
                rc = add_commit(s, (const char *)cb_db_column_text(q, 0));
        }
        cb_db_finalize(q);
    }
    return rc;
}

static int run_has(struct cb_store *st, int64_t run, const char *part, const char *source)
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

const char *cb_sides_metric(struct cb_store *st, const struct cb_side *a, const struct cb_side *b)
{
    const struct cb_side *sides[2] = {a, b};
    int pmu = 1, est = 1, sim = 1;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; sides[k] && i < sides[k]->nruns; i++) {
            pmu &= run_has(st, sides[k]->runs[i], "cycles", "pmu");
            est &= run_has(st, sides[k]->runs[i], "cycles-est", "estimate");
            sim &= run_has(st, sides[k]->runs[i], CB_SIDES_SIM_METRIC, "simulated");
        }
    return pmu ? "cycles" : sim ? CB_SIDES_SIM_METRIC : est ? "cycles-est" : "tsc";
}

size_t cb_side_counted(struct cb_store *st, const struct cb_side *s, const char *part,
                       const char *source)
{
    size_t n = 0;
    for (size_t i = 0; s && i < s->nruns; i++)
        n += (size_t)run_has(st, s->runs[i], part, source);
    return n;
}

size_t cb_side_simulated(struct cb_store *st, const struct cb_side *s)
{
    return cb_side_counted(st, s, CB_SIDES_SIM_METRIC, "simulated");
}

struct cb_side_case *cb_side_find(const struct cb_side *s, const char *key)
{
    for (size_t i = 0; i < s->ncases; i++)
        if (strcmp(s->cases[i].key, key) == 0)
            return &s->cases[i];
    return NULL;
}

int cb_side_append(struct cb_side *s, const char *probe, const char *variant, uint64_t size,
                   const char *mode, const char *unit, const double *v, const double *smt, size_t n)
{
    char key[CB_CASE_KEY_MAX];
    cb_case_key(key, sizeof key, probe, variant, size, mode);
    struct cb_side_case *c = cb_side_find(s, key);
    if (!c) {
        struct cb_side_case *nc = realloc(s->cases, (s->ncases + 1) * sizeof *nc);
        if (!nc)
            return -ENOMEM;
        s->cases = nc;
        c = &s->cases[s->ncases++];
        memset(c, 0, sizeof *c);
        snprintf(c->key, sizeof c->key, "%s", key);
        snprintf(c->probe, sizeof c->probe, "%s", probe);
        snprintf(c->variant, sizeof c->variant, "%s", variant);
        snprintf(c->mode, sizeof c->mode, "%s", mode);
        snprintf(c->unit, sizeof c->unit, "%s", unit);
        c->size = size;
    }
    const struct cb_column cols[] = {CB_COLUMN(c->v), CB_COLUMN(c->smt)};
    size_t capruns = c->capruns;
    if (cb_grow_columns(cols, 2, &c->cap, c->n + n, 64) < 0 ||
        cb_grow((void **)&c->ends, &c->capruns, c->nruns + 1, 8, sizeof *c->ends) < 0)
        return -ENOMEM;
    if (c->capruns != capruns || !c->run_id) {
        int64_t *ri = realloc(c->run_id, c->capruns * sizeof *ri);
        if (ri)
            c->run_id = ri;
        unsigned char *fl = ri ? realloc(c->flagged, c->capruns * sizeof *fl) : NULL;
        if (!fl)
            return -ENOMEM;
        c->flagged = fl;
    }
    c->run_id[c->nruns] = 0;
    c->flagged[c->nruns] = 0;
    memcpy(c->v + c->n, v, n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        c->smt[c->n + i] = smt ? smt[i] : NAN;
    c->n += n;
    c->ends[c->nruns++] = c->n;
    return 0;
}

void cb_side_case_run(struct cb_side_case *c, int64_t run, int flagged)
{
    if (!c || !c->nruns)
        return;
    c->run_id[c->nruns - 1] = run;
    c->flagged[c->nruns - 1] = flagged != 0;
}

void cb_side_case_code(struct cb_side_case *c, const char *hash, int addr)
{
    if (c->nruns <= 1) {
        c->code_mixed = 0;
        c->code_hash[0] = '\0';
        c->code_addr = addr;
    }
    if (c->code_mixed)
        return;
    if (!hash || !hash[0] || (c->nruns > 1 && strcmp(c->code_hash, hash) != 0)) {
        c->code_mixed = 1;
        c->code_hash[0] = '\0';
        return;
    }
    snprintf(c->code_hash, sizeof c->code_hash, "%s", hash);
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
 * it disagreed with each other (caseclock.h): the clock moved while it
 * ran.  A flagged case that used its own clock saw a change confirmed on
 * both sides (a turbo step): its figures are converted at that clock, and
 * it stays quiet.  A case not judged (state NULL) counts as quiet. */
#define SCHEMA_HOST_STATE 24
#define CLOCK_STATE_SQL "(c.clock_flagged = 1 AND c.clock_used = 'run')"
#define HOST_STATE_SQL "(" CLOCK_STATE_SQL " OR COALESCE(c.state, 'quiet') = 'slowed')"

int cb_side_load(struct cb_store *st, struct cb_side *s, const char *metric)
{
    struct cb_db_stmt *q;
    int rc = cb_db_prepare(cb_store_db(st),
                           cb_store_schema_version(st) >= SCHEMA_HOST_STATE
                               ? CASES_SQL("c.code_hash, c.code_addr, " HOST_STATE_SQL)
                           : cb_store_schema_version(st) >= SCHEMA_CASE_CODE
                               ? CASES_SQL("c.code_hash, c.code_addr, " CLOCK_STATE_SQL)
                               : CASES_SQL("NULL, NULL, NULL"),
                           &q);
    if (rc != CB_DB_OK)
        return sql_err(rc);
    for (size_t r = 0; r < s->nruns; r++) {
        cb_db_reset(q);
        cb_db_bind_int64(q, 1, s->runs[r]);
        cb_db_bind_text(q, 2, metric);
        /* Copy the rows out first: reading values runs other statements. */
        struct row {
            int64_t cid, eid;
            char probe[32], variant[64], mode[8], unit[8];
            uint64_t size;
            char code[17];
            int addr, flagged;
        } *rows = NULL;
        size_t nrows = 0;
        while ((rc = cb_db_step(q)) == CB_DB_ROW) {
            struct row *nr = realloc(rows, (nrows + 1) * sizeof *nr);
            if (!nr) {
                free(rows);
                cb_db_finalize(q);
                return -ENOMEM;
            }
            rows = nr;
            struct row *w = &rows[nrows++];
            w->cid = cb_db_column_int64(q, 0);
            snprintf(w->probe, sizeof w->probe, "%s", (const char *)cb_db_column_text(q, 1));
            snprintf(w->variant, sizeof w->variant, "%s", (const char *)cb_db_column_text(q, 2));
            w->size = (uint64_t)cb_db_column_int64(q, 3);
            snprintf(w->mode, sizeof w->mode, "%s", (const char *)cb_db_column_text(q, 4));
            snprintf(w->unit, sizeof w->unit, "%s", (const char *)cb_db_column_text(q, 5));
            w->eid = cb_db_column_int64(q, 6);
            const char *code = (const char *)cb_db_column_text(q, 7);
            snprintf(w->code, sizeof w->code, "%s", code ? code : "");
            w->addr = cb_db_column_type(q, 8) == CB_DB_NULL ? -1 : (int)cb_db_column_int64(q, 8);
            w->flagged = cb_db_column_type(q, 9) != CB_DB_NULL && cb_db_column_int64(q, 9) != 0;
        }
        cb_db_reset(q);
        if (rc != CB_DB_DONE) {
            free(rows);
            cb_db_finalize(q);
            return sql_err(rc);
        }
        rc = 0;
        for (size_t i = 0; i < nrows && rc == 0; i++) {
            double *v = NULL, *sm = NULL;
            size_t n = 0;
            rc = cb_store_case_values(st, rows[i].cid, rows[i].eid, &v, NULL, &sm, &n);
            if (rc == 0 && n)
                rc = cb_side_append(s, rows[i].probe, rows[i].variant, rows[i].size, rows[i].mode,
                                    rows[i].unit, v, sm, n);
            if (rc == 0 && n) {
                char key[CB_CASE_KEY_MAX];
                cb_case_key(key, sizeof key, rows[i].probe, rows[i].variant, rows[i].size,
                            rows[i].mode);
                struct cb_side_case *c = cb_side_find(s, key);
                cb_side_case_code(c, rows[i].code, rows[i].addr);
                cb_side_case_run(c, s->runs[r], rows[i].flagged);
            }
            free(v);
            free(sm);
        }
        free(rows);
        if (rc < 0) {
            cb_db_finalize(q);
            return rc;
        }
    }
    cb_db_finalize(q);
    return 0;
}

int cb_run_fingerprint(struct cb_store *st, int64_t run_id, char *buf, size_t len)
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
    cb_db_bind_int64(q, 1, run_id);
    rc = cb_db_step(q);
    if (rc != CB_DB_ROW) {
        cb_db_finalize(q);
        return rc == CB_DB_DONE ? -ENOENT : sql_err(rc);
    }
    static const char *const names[] = {"cpu vendor", "cpu family", "cpu model", "cpu stepping",
                                        "cpu model name", "microcode", "kernel", "pmu",
                                        "compiler", "cflags", "pinned cpu", "cycles source"};
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < 12 && off < len; i++) {
        const char *t = cb_db_column_text(q, i);
        /* The CPU number alone does not change timings; its class does
         * (cb_fingerprint_cpu_lines, below).  compare notes the number. */
        if (i == 10)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s=%s\n", names[i], t ? (const char *)t : "");
    }
    /* The environment the run recorded (migration 7 on); older runs give
     * the same lines, unknown, which cb_fingerprint_diff does not count. */
    const char *env = cb_db_column_text(q, 12);
    struct cb_fingerprint fp;
    int have = env && cb_fingerprint_parse((const char *)env, &fp) == 0;
    if (off < len)
        off += cb_fingerprint_lines(have ? &fp : NULL, buf + off, len - off);
    if (off < len)
        cb_fingerprint_cpu_lines(have ? &fp : NULL, buf + off, len - off);
    cb_db_finalize(q);
    return 0;
}

int cb_side_fingerprint(struct cb_store *st, const struct cb_side *s, char *buf, size_t len,
                        struct cb_sb *why)
{
    char other[2048];
    int rc = cb_run_fingerprint(st, s->runs[0], buf, len);
    if (rc < 0)
        return rc;
    for (size_t i = 1; i < s->nruns; i++) {
        if ((rc = cb_run_fingerprint(st, s->runs[i], other, sizeof other)) < 0)
            return rc;
        struct cb_sb d = CB_SB_INIT;
        if (cb_fingerprint_diff(buf, other, &d)) {
            cb_sb_setf(why, "runs %lld and %lld of '%s' differ: %s", (long long)s->runs[0],
                       (long long)s->runs[i], s->spec, d.buf);
            cb_sb_release(&d);
            return -EXDEV;
        }
        cb_sb_release(&d);
    }
    return 0;
}

