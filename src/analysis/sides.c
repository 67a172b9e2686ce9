/* sides.c — runs, pooled samples and fingerprints of a side (see sides.h). */
#define _GNU_SOURCE
#include "analysis/sides.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "host/fingerprint.h"
#include "host/gitinfo.h"
#include "store/side_rows.h"

void cb_case_key(char *buf, size_t len, const char *probe, const char *variant, uint64_t size,
                 const char *mode)
{
    snprintf(buf, len, "%s/%s/%" PRIu64 "/%s", probe, variant, size, mode);
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
                               s->cases[i].run_id, s->cases[i].flagged, s->cases[i].bound}, 6);
    cb_free_all((void *[]){s->cases, s->runs, s->commits}, 3);
    memset(s, 0, sizeof *s);
}

/* A run a store walk found, added to the side and counted. */
struct adding {
    struct cb_side *s;
    size_t added;
};

static int add_found(int64_t id, void *ctx)
{
    struct adding *a = ctx;
    if (cb_side_add_run(a->s, id) < 0)
        return -ENOMEM;
    a->added++;
    return 0;
}

static int is_hex(const char *s)
{
    return *s && strspn(s, "0123456789abcdefABCDEF") == strlen(s);
}

int cb_commit_resolve(struct cb_store *st, const char *rev, const char *repo, char *hash,
                      size_t hashlen, struct cb_sb *err)
{
    if (is_hex(rev) && strlen(rev) >= 4 && strlen(rev) <= 40) {
        char first[64], second[64];
        int found = cb_store_commit_prefix(st, rev, first, second);
        if (found < 0)
            return found;
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
        int rc = cb_store_commit_known(st, gi.commit);
        if (rc < 0)
            return rc;
        if (rc) {
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

static int resolve_item(struct cb_store *st, const char *item, int incl, const char *repo,
                        struct cb_side *s, struct cb_sb *err)
{
    struct adding a = {s, 0};
    int rc;
    if (strcmp(item, "latest") == 0) {
        int64_t id;
        if ((rc = cb_store_latest_run(st, incl, &id)) == -ENOENT) {
            cb_sb_setf(err, "latest: no complete run in this database");
            return -ENOENT;
        }
        return rc < 0 ? rc : cb_side_add_run(s, id);
    }
    if (strspn(item, "0123456789") == strlen(item) && strlen(item) < 16) {
        char status[16];
        int64_t id = strtoll(item, NULL, 10);
        rc = cb_store_run_status(st, id, status, sizeof status);
        if (rc == 0) {
            if (strcmp(status, "complete") != 0 && !incl) {
                cb_sb_setf(err, "run %s is %s, and only complete runs count: pass --include-aborted to use it anyway",
                         item, status);
                return -EINVAL;
            }
            return cb_side_add_run(s, id);
        }
        if (rc != -ENOENT)
            return rc;
        /* All digits but no such run: it may still be a tag or a hash prefix. */
    }
    if ((rc = cb_store_each_tagged_run(st, item, incl, add_found, &a)) < 0)
        return rc;
    if (a.added)
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
        if ((rc = cb_store_each_clean_run_at(st, hash, incl, add_found, &a)) < 0)
            return rc;
        if (a.added)
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
    for (size_t i = 0; i < s->nruns && rc == 0; i++) {
        char hash[64];
        int got = cb_store_run_clean_commit(st, s->runs[i], hash, sizeof hash);
        rc = got < 0 ? got : got ? add_commit(s, hash) : 0;
    }
    return rc;
}

static int run_has(struct cb_store *st, int64_t run, const char *part, const char *source)
{
    return cb_store_run_has_event(st, run, part, source);
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
        if (fl)
            c->flagged = fl;
        double *bd = fl ? realloc(c->bound, c->capruns * sizeof *bd) : NULL;
        if (!bd)
            return -ENOMEM;
        c->bound = bd;
    }
    c->run_id[c->nruns] = 0;
    c->flagged[c->nruns] = 0;
    c->bound[c->nruns] = 0;
    memcpy(c->v + c->n, v, n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        c->smt[c->n + i] = smt ? smt[i] : NAN;
    c->n += n;
    c->ends[c->nruns++] = c->n;
    return 0;
}

void cb_side_case_run(struct cb_side_case *c, int64_t run, int flagged, double bound)
{
    if (!c || !c->nruns)
        return;
    c->run_id[c->nruns - 1] = run;
    c->flagged[c->nruns - 1] = flagged != 0;
    c->bound[c->nruns - 1] = flagged ? bound : 0;
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

int cb_side_load(struct cb_store *st, struct cb_side *s, const char *metric)
{
    for (size_t r = 0; r < s->nruns; r++) {
        /* The rows come out whole first: reading values runs other statements. */
        struct cb_store_side_case *rows;
        size_t nrows;
        int rc = cb_store_side_cases(st, s->runs[r], metric, &rows, &nrows);
        for (size_t i = 0; i < nrows && rc == 0; i++) {
            double *v = NULL, *sm = NULL;
            size_t n = 0;
            rc = cb_store_case_values(st, rows[i].case_id, rows[i].event_id, &v, NULL, &sm, &n);
            if (rc == 0 && n)
                rc = cb_side_append(s, rows[i].probe, rows[i].variant, rows[i].size, rows[i].mode,
                                    rows[i].unit, v, sm, n);
            if (rc == 0 && n) {
                char key[CB_CASE_KEY_MAX];
                cb_case_key(key, sizeof key, rows[i].probe, rows[i].variant, rows[i].size,
                            rows[i].mode);
                struct cb_side_case *c = cb_side_find(s, key);
                cb_side_case_code(c, rows[i].code, rows[i].addr);
                cb_side_case_run(c, s->runs[r], rows[i].flagged, rows[i].bound);
            }
            free(v);
            free(sm);
        }
        free(rows);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A fingerprint being written into buf. */
struct fp_out {
    char *buf;
    size_t len;
};

static int fingerprint_lines(const char *const field[13], void *ctx)
{
    static const char *const names[] = {"cpu vendor", "cpu family", "cpu model", "cpu stepping",
                                        "cpu model name", "microcode", "kernel", "pmu",
                                        "compiler", "cflags", "pinned cpu", "cycles source"};
    struct fp_out *o = ctx;
    char *buf = o->buf;
    size_t len = o->len, off = 0;
    buf[0] = '\0';
    for (int i = 0; i < 12 && off < len; i++) {
        /* The CPU number alone does not change timings; its class does
         * (cb_fingerprint_cpu_lines, below).  compare notes the number. */
        if (i == 10)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s=%s\n", names[i], field[i]);
    }
    /* The environment the run recorded (migration 7 on); older runs give
     * the same lines, unknown, which cb_fingerprint_diff does not count. */
    const char *env = field[12];
    struct cb_fingerprint fp;
    int have = env && cb_fingerprint_parse(env, &fp) == 0;
    if (off < len)
        off += cb_fingerprint_lines(have ? &fp : NULL, buf + off, len - off);
    if (off < len)
        cb_fingerprint_cpu_lines(have ? &fp : NULL, buf + off, len - off);
    return 0;
}

int cb_run_fingerprint(struct cb_store *st, int64_t run_id, char *buf, size_t len)
{
    struct fp_out o = {buf, len};
    return cb_store_run_fingerprint(st, run_id, fingerprint_lines, &o);
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

