/* ab_rounds.c — the paired A/B protocol (ab.h): load two builds, time their
 * common cases round by round in ABBA order, and judge the rounds through
 * the verdict pipeline (analysis/verdict.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <alloca.h>
#include <time.h>
#include <unistd.h>

#include "analysis/ab.h"
#include "analysis/verdict.h"
#include "harness/stats.h"


const char *const cb_ab_side_name[2] = {"base", "head"};
/* The registry namespaces of each side's copies: the fake clock's head=X
 * applies to every namespace whose name starts with "head". */
const char *const cb_ab_copy_ns[2][CB_AB_COPIES] = {{"base", "base.1", "base.2"},
                                                    {"head", "head.1", "head.2"}};

void cb_ab_defaults(struct cb_ab_opts *o)
{
    *o = (struct cb_ab_opts){
        .rounds = CB_AB_DEFAULT_ROUNDS, .alpha = 0.01, .threshold = 0.02, .level = 0.95,
        .pause_ms = CB_ROUND_PAUSE_MS, .copies = CB_AB_COPIES,
    };
}

int cb_ab_load(struct cb_ab *ab, const char *base, const char *head, struct cb_sb *err)
{
    const char *paths[2] = {base, head};
    for (int s = 0; s < 2; s++) {
        struct cb_sb why = CB_SB_INIT;
        int rc = cb_plugin_load_ns(paths[s], cb_ab_side_name[s], &ab->info[s], &why);
        for (int k = 1; rc == 0 && k < ab->o.copies && k < CB_AB_COPIES; k++)
            rc = cb_plugin_load_copy(ab->info[s].path, cb_ab_copy_ns[s][k], &why);
        if (rc < 0)
            cb_sb_setf(err, "%s (%s): %s", s ? "HEAD" : "BASE", paths[s], why.buf);
        cb_sb_release(&why);
        if (rc < 0)
            return rc;
    }
    ab->ncopies = ab->o.copies < 1 ? 1 : ab->o.copies > CB_AB_COPIES ? CB_AB_COPIES : ab->o.copies;
    return 0;
}

/* ---- measuring ----------------------------------------------------------- */

static int append_round(struct cb_ab_case *c, const double x[2])
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        for (int s = 0; s < 2; s++) {
            double *g = realloc(c->val[s], cap * sizeof *g);
            if (!g)
                return -ENOMEM;
            c->val[s] = g;
        }
        c->cap = cap;
    }
    c->val[0][c->n] = x[0];
    c->val[1][c->n++] = x[1];
    return 0;
}

/* One side's round: its per-operation samples (TSC ticks), the meter
 * beside each, whether the case's clock was flagged (a host state), and
 * the round's figure as printed (CB_AB_ROUND_QUANTILE of its samples). */
struct ab_round {
    double *v, *smt;
    size_t n;
    int flagged;
    double fig;
};

static void round_free(struct ab_round *x)
{
    free(x->v);
    free(x->smt);
    memset(x, 0, sizeof *x);
}

/* Time side s of case c once, stored with its side: 0 with the round in
 * *out, 1 when it could not be timed (BAD, skipped, no sample), or a
 * negative errno. */
static int time_side(struct cb_collector *col, struct cb_ab_case *c, int s, int copy,
                     volatile sig_atomic_t *stop, struct ab_round *out)
{
    struct cb_measurement m;
    memset(out, 0, sizeof *out);
    col->side = cb_ab_side_name[s];
    int rc = cb_collector_case(col, c->pc[s][copy], c->vc[s][copy], c->size, c->mode, stop,
                               NULL, &m);
    col->side = NULL;
    if (rc < 0)
        return rc;
    if (rc == CB_CASE_BAD) {
        const struct cb_verdict *vd = cb_collector_verdict(col, c->pc[s][copy], c->vc[s][copy]);
        c->bad[s] = 1;
        snprintf(c->why, sizeof c->why, "BAD in %s: %.200s", s ? "HEAD" : "BASE", vd ? vd->detail : "");
        return 1;
    }
    if (rc == CB_CASE_SKIPPED) {
        c->skipped = 1;
        snprintf(c->why, sizeof c->why, "skipped: this CPU cannot run it");
        return 1;
    }
    int idx = cb_counters_find(&col->cs, "tsc");
    out->v = m.n ? malloc(m.n * sizeof *out->v) : NULL;
    out->smt = m.n ? malloc(m.n * sizeof *out->smt) : NULL;
    double *sorted = m.n ? malloc(m.n * sizeof *sorted) : NULL;
    for (size_t i = 0; out->v && out->smt && sorted && idx >= 0 && i < m.n; i++) {
        double x = cb_measurement_per_op(&m, i, idx);
        if (isfinite(x) && x > 0) {
            out->smt[out->n] = m.smt ? m.smt[i] : NAN;
            sorted[out->n] = x;
            out->v[out->n++] = x;
        }
    }
    /* A low quantile, not the median: on a shared host, interference only
     * ever slows a sample (compare's --run-quantile 0.1, for the same reason). */
    if (out->n)
        cb_sort_doubles(sorted, out->n);
    out->fig = out->n ? cb_quantile_sorted(sorted, out->n, CB_AB_ROUND_QUANTILE) : NAN;
    out->flagged = m.clock.flagged && !m.clock.used_case;
    free(sorted);
    cb_measurement_free(&m);
    if (!out->n)
        round_free(out);
    return out->n ? 0 : 1;
}

/* A round timed on both sides: one run of each side (ab->side). */
static int keep_round(struct cb_ab *ab, struct cb_ab_case *c, struct ab_round x[2])
{
    for (int s = 0; s < 2; s++) {
        int rc = cb_side_append(&ab->side[s], c->p[0]->name, c->v[0]->name, c->size,
                                cb_mode_name(c->mode), "op", x[s].v, x[s].smt, x[s].n);
        struct cb_side_case *sc = rc < 0 ? NULL : cb_side_find(&ab->side[s], c->key);
        if (!sc)
            return rc < 0 ? rc : -ENOMEM;
        cb_side_case_run(sc, ab->run_id, x[s].flagged, NAN);
        /* Each round times another copy of the build: no one place. */
        cb_side_case_code(sc, c->code[s], -1);
    }
    return 0;
}

static void progress(const struct cb_ab *ab, int round, size_t i)
{
    if (ab->o.quiet || !isatty(2))
        return;
    fprintf(stderr, "\r\033[K[round %d%s] %s", round + 1, round < ab->rounds ? "" : ", extra",
            ab->cases[i].key);
}

/* Both sides of case c in round r, on copy r mod ncopies of each build,
 * with the stack moved by a multiple of 64 bytes and the warm buffers by
 * whole pages (CB_AB_BUF_PAGES of them: the L2 sets and physical pages
 * move, the case's alignment in its page stays), each changing with the
 * round and alike for both sides (where code and data sit moved
 * a case by 10%; a paired verdict over rounds that move them is beyond
 * that).  ABBA order. */
static int time_pair(struct cb_ab *ab, struct cb_collector *col, struct cb_ab_case *c, int round,
                     size_t i, struct ab_round x[2])
{
    size_t pad = (size_t)((round * 37 + (int)i) % 64) * 64;
    volatile unsigned char *gap = alloca(pad + 1);
    gap[0] = 0;
    int first = (int)((round + i) % 2), k = round % ab->ncopies, rc = 0;
    col->buf_pages = (unsigned)((round * 5 + (int)i) % CB_AB_BUF_PAGES);
    for (int j = 0; j < 2 && rc == 0; j++)
        rc = time_side(col, c, first ^ j, k, ab->stop, &x[first ^ j]);
    col->buf_pages = 0;
    gap[pad] = 0;
    return rc;
}

/* One round: each case on both sides, the first side alternating with
 * the round and the case (ABBA).  only_unsure: the undecided cases only. */
static int one_round(struct cb_ab *ab, struct cb_collector *col, int round, int only_unsure)
{
    for (size_t i = 0; i < ab->n; i++) {
        struct cb_ab_case *c = &ab->cases[i];
        if (c->bad[0] || c->bad[1] || c->skipped || (only_unsure && c->verdict != CB_CMP_UNSURE))
            continue;
        progress(ab, round, i);
        struct ab_round x[2] = {{0}};
        int rc = time_pair(ab, col, c, round, i, x);
        if (rc == 0 && (rc = keep_round(ab, c, x)) == 0)
            rc = append_round(c, (double[2]){x[0].fig, x[1].fig});
        round_free(&x[0]);
        round_free(&x[1]);
        if (rc < 0)
            return rc;
        if (*ab->stop)
            return -EINTR;
    }
    return 0;
}

static void idle(double ms, volatile sig_atomic_t *stop)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    while (ms > 0 && nanosleep(&t, &t) < 0 && !*stop)
        ;
}

static int any_unsure(const struct cb_ab *ab)
{
    for (size_t i = 0; i < ab->n; i++)
        if (ab->cases[i].verdict == CB_CMP_UNSURE && !ab->cases[i].bad[0] && !ab->cases[i].bad[1] &&
            !ab->cases[i].skipped)
            return 1;
    return 0;
}

/* Each case's code identity on each side (codehash.h), the fake clock's
 * planted head=X counted as a change of code (collect.h). */
static void code_ids(struct cb_ab *ab)
{
    struct cb_fake fake, *fp = NULL;
    struct cb_backend be;
    struct cb_sb ferr = CB_SB_INIT;
    const char *spec = getenv(CB_FAKE_ENV);
    if (spec && *spec && cb_fake_init(&fake, spec, &be, &ferr) == 0)
        fp = &fake;
    cb_sb_release(&ferr);
    for (size_t i = 0; i < ab->n; i++) {
        struct cb_ab_case *c = &ab->cases[i];
        unsigned addr;
        for (int s = 0; s < 2; s++)
            cb_code_id_of(fp, c->p[s], c->v[s], cb_ab_side_name[s], c->code[s], &addr);
    }
}

int cb_ab_measure(struct cb_ab *ab, struct cb_collector *col, volatile sig_atomic_t *stop)
{
    int rc = 0;
    ab->stop = stop;
    ab->run_id = col->run_id;
    for (int s = 0; s < 2; s++) {
        snprintf(ab->side[s].spec, sizeof ab->side[s].spec, "%s", cb_ab_side_name[s]);
        if (rc == 0 && !ab->side[s].nruns)
            rc = cb_side_add_run(&ab->side[s], col->run_id);
    }
    code_ids(ab);
    for (int s = 0; s < 2 && rc == 0; s++) {
        const struct cb_plugin_info *pi = &ab->info[s];
        rc = cb_store_run_plugin_add(col->st, col->run_id, pi->path, pi->sha256, pi->name,
                                     pi->variants, cb_ab_side_name[s]);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* A variant BAD on a side is never timed there; its row is stored once,
     * and the case is not compared (a change by itself: cb_ab_counts). */
    for (size_t i = 0; rc == 0 && i < ab->n; i++)
        for (int s = 0; s < 2 && rc >= 0; s++) {
            struct cb_ab_case *c = &ab->cases[i];
            const struct cb_verdict *vd = cb_collector_verdict(col, c->p[s], c->v[s]);
            if (!vd)
                rc = *stop ? -EINTR : -ENOMEM;   /* stopped while verifying */
            else if (!vd->ok) {
                struct ab_round x;
                rc = time_side(col, c, s, 0, stop, &x) < 0 ? -EIO : 0;
                round_free(&x);
            }
        }
    /* With a time budget (bisect-check), undecided cases get rounds until
     * it is spent, however many that is. */
    int limit = ab->o.max_seconds > 0 ? 1000000 : ab->o.max_rounds;
    for (int r = 0; rc == 0 && r < limit; r++) {
        int extra = r >= ab->rounds;
        if (extra && ((rc = cb_ab_judge(ab, col->st)) < 0 || !any_unsure(ab)))
            break;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double spent = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (extra && ab->o.max_seconds > 0 && spent >= ab->o.max_seconds)
            break;
        if (r)
            idle(ab->o.pause_ms, ab->stop);
        rc = one_round(ab, col, r, extra);
        ab->rounds_done = r + 1;
    }
    if (!ab->o.quiet && isatty(2))
        fprintf(stderr, "\r\033[K");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ab->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc < 0 ? rc : cb_ab_judge(ab, col->st);
}

int cb_ab_run(struct cb_ab *ab, const struct cb_collect_opts *co, volatile sig_atomic_t *stop,
              int64_t *run, int *cpu, struct cb_sb *err)
{
    struct cb_collector col;
    int usage = 0;
    if (cb_collector_open(&col, co, err, &usage) < 0)
        return -EINVAL;
    int rc = cb_ab_measure(ab, &col, stop);
    *run = col.run_id;
    *cpu = col.pinned;
    if (rc == -EINTR || *stop) {
        cb_collector_finish(&col, "aborted");
        cb_sb_setf(err, "interrupted: ab run %lld marked aborted (no verdict)", (long long)*run);
        return -EINTR;
    }
    if (rc == 0 && (rc = cb_collector_finish(&col, "complete")) < 0) {
        cb_sb_setf(err, "cannot mark run %lld complete: %s", (long long)*run, strerror(-rc));
        return rc;
    }
    if (rc < 0) {
        cb_collector_finish(&col, "aborted");
        cb_sb_setf(err, "ab failed: %s; run %lld marked aborted", strerror(-rc), (long long)*run);
    }
    return rc;
}

/* ---- judging ------------------------------------------------------------- */

int cb_ab_judge(struct cb_ab *ab, struct cb_store *st)
{
    struct cmp_opts o = {
        .alpha = ab->o.alpha, .threshold = ab->o.threshold, .run_q = CB_AB_ROUND_QUANTILE,
        .corr = CORR_HOLM, .metric = "tsc", .paired = 1, .level = ab->o.level,
    };
    struct cmp_verdict v;
    cb_verdict_init(&v);
    int rc = cb_verdict_again(st, &ab->side[0], &ab->side[1], &o, &v);
    for (size_t i = 0; rc == 0 && i < ab->n; i++) {
        struct cb_ab_case *c = &ab->cases[i];
        const struct cmp_row *r = NULL;
        for (size_t k = 0; k < v.res.n && !r; k++)
            if (strcmp(v.res.rows[k].a->key, c->key) == 0)
                r = &v.res.rows[k];
        c->st = (struct cb_paired){0, NAN, NAN, NAN, NAN};
        c->p_adj = NAN;
        c->verdict = CB_CMP_UNSURE;
        c->more_rounds = c->n < 6 ? 6 - c->n : 1;
        c->host_state = 0;
        if (!r || c->bad[0] || c->bad[1])
            continue;
        c->st = (struct cb_paired){r->s.runs_a, r->s.change + 1, r->s.lo + 1, r->s.hi + 1, r->s.p};
        c->p_adj = r->p_adj;
        c->verdict = r->v;
        c->more_rounds = r->more_runs;
        c->host_state = r->host_state;
    }
    cb_verdict_release(&v);
    return rc;
}

void cb_ab_counts(const struct cb_ab *ab, int *changed, int *regressed, int *unsure, int *bad)
{
    *changed = *regressed = *unsure = *bad = 0;
    for (size_t i = 0; i < ab->n; i++) {
        const struct cb_ab_case *c = &ab->cases[i];
        if (c->bad[0] != c->bad[1]) {
            (*bad)++;
            continue;
        }
        if (c->bad[0] || c->skipped)
            continue;
        *changed += c->verdict == CB_CMP_REGRESSED || c->verdict == CB_CMP_IMPROVED;
        *regressed += c->verdict == CB_CMP_REGRESSED;
        *unsure += c->verdict == CB_CMP_UNSURE;
    }
}

int cb_ab_exit(const struct cb_ab *ab)
{
    int changed, regressed, unsure, bad;
    cb_ab_counts(ab, &changed, &regressed, &unsure, &bad);
    return changed + bad ? 1 : cb_ab_compared(ab, NULL) ? 0 : 2;
}

size_t cb_ab_compared(const struct cb_ab *ab, struct cb_sb *why)
{
    size_t n = 0;
    if (why)
        cb_sb_reset(why);
    for (size_t i = 0; i < ab->n; i++) {
        const struct cb_ab_case *c = &ab->cases[i];
        if (!c->bad[0] && !c->bad[1] && !c->skipped && c->n) {
            n++;
            continue;
        }
        const char *what = c->bad[0] && c->bad[1] ? "BAD in both builds"
                         : c->bad[0] ? "BAD in BASE" : c->bad[1] ? "BAD in HEAD"
                         : c->skipped ? "skipped" : "not timed";
        if (why)
            cb_sb_addf(why, "%s%s %s", why->len ? "; " : "", c->key, what);
    }
    return n;
}

int cb_ab_same_code(struct cb_ab *ab)
{
    code_ids(ab);
    int same = ab->n > 0;
    for (size_t i = 0; i < ab->n; i++)
        same &= ab->cases[i].code[0][0] && strcmp(ab->cases[i].code[0], ab->cases[i].code[1]) == 0;
    return same;
}

void cb_ab_free(struct cb_ab *ab)
{
    for (size_t i = 0; ab->cases && i < ab->n; i++)
        for (int s = 0; s < 2; s++)
            free(ab->cases[i].val[s]);
    free(ab->cases);
    ab->cases = NULL;
    ab->n = 0;
    cb_side_free(&ab->side[0]);
    cb_side_free(&ab->side[1]);
}
