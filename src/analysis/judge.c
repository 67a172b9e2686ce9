/* judge.c — BASE against HEAD, case by case (judge.h): each case tested on
 * its runs (3+ a side), or against the between-run floor (floor.h) and the
 * within-run test, or exactly (simulated counts); p corrected over the
 * cases; acknowledgements applied. */
#define _GNU_SOURCE
#include "analysis/judge.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "store/lookup.h"
#include "util/dist.h"
#include "analysis/paired.h"
#include "util/sort.h"
#include "harness/stats.h"

/* The meter with the store's flagged runs read as contended; admit: a
 * flagged run whose state has a known bound keeps its samples' own meter
 * (the bounded evaluation, cmp_bounded). */
static double *state_meter(const struct cb_side_case *c, const struct cmp_opts *o, int admit)
{
    if (o->keep_contended)
        return NULL;
    double *m = malloc((c->n ? c->n : 1) * sizeof *m);
    if (!m)
        return NULL;
    for (size_t r = 0; r < c->nruns; r++) {
        int out = cb_side_run_flagged(c, r) && !(admit && c->bound && isfinite(c->bound[r]));
        for (size_t i = r ? c->ends[r - 1] : 0; i < c->ends[r]; i++)
            m[i] = out ? INFINITY : c->smt[i];
    }
    return m;
}

double *cmp_state_meter(const struct cb_side_case *c, const struct cmp_opts *o)
{
    return state_meter(c, o, 0);
}

/* One case's statistics on the quiet samples (cmp_state_meter) of each
 * side.  With CMP_RUNS_MIN or more runs a side, runs are the unit and each
 * side must keep two quiet runs; otherwise samples are the unit (the
 * within-run test, r->sw) and each side must keep one.  When a side keeps
 * too few, the row is in a host state: its figures are shown from every
 * sample, and it is never called a change (cmp_evaluate). */
static int case_stats(const struct cb_side_case *a, const struct cb_side_case *b,
                      const struct cmp_opts *o, int admit, struct cmp_row *r)
{
    int runs_unit = a->nruns >= CMP_RUNS_MIN && b->nruns >= CMP_RUNS_MIN;
    size_t need = runs_unit ? 2 : 1;
    double *va = malloc(a->n * sizeof *va), *vb = malloc(b->n * sizeof *vb);
    size_t *ea = malloc(a->nruns * sizeof *ea), *eb = malloc(b->nruns * sizeof *eb);
    double *ma = state_meter(a, o, admit), *mb = state_meter(b, o, admit);
    int rc = -ENOMEM;
    if (va && vb && ea && eb && (o->keep_contended || (ma && mb))) {
        size_t da, db;
        size_t ka = cb_runs_quiet(a->v, ma, a->ends, a->nruns, CB_QUIET_MIN, va, ea, &da);
        size_t kb = cb_runs_quiet(b->v, mb, b->ends, b->nruns, CB_QUIET_MIN, vb, eb, &db);
        const double *ua = va, *ub = vb;
        const size_t *ua_end = ea, *ub_end = eb;
        r->left_out = (a->nruns - ka) + (b->nruns - kb);
        r->samples_left_out = da + db;
        if (ka < need || kb < need) {
            r->host_state = 1;
            ua = a->v;
            ub = b->v;
            ua_end = a->ends;
            ub_end = b->ends;
            ka = a->nruns;
            kb = b->nruns;
        }
        r->test = runs_unit ? CMP_TEST_RUNS : CMP_TEST_NOFLOOR;
        rc = runs_unit ? cb_cmp_stats_runs(ua, ua_end, ka, ub, ub_end, kb, o->run_q, o->trim, &r->s)
                       : cb_cmp_stats(ua, ua_end[ka - 1], ub, ub_end[kb - 1], &r->sw);
    }
    cb_free_all((void *[]){va, vb, ea, eb, ma, mb}, 6);
    return rc;
}

/* A side's run figures (logs of each run's q-quantile) into x (c->nruns
 * long): its quiet runs only, unless none is quiet or keep_contended; *n
 * the count. */
static int side_logs(const struct cb_side_case *c, const struct cmp_opts *o, int admit, double *x,
                     size_t *n)
{
    int *quiet = malloc((c->nruns ? c->nruns : 1) * sizeof *quiet);
    double *m = state_meter(c, o, admit);
    if (!quiet || (!m && !o->keep_contended)) {
        free(quiet);
        free(m);
        return -ENOMEM;
    }
    int rc = cb_run_log_values(c->v, m, c->ends, c->nruns, o->run_q, x, quiet);
    size_t k = 0;
    for (size_t r = 0; rc == 0 && r < c->nruns; r++)
        if (quiet[r] || o->keep_contended)
            x[k++] = x[r];
    free(quiet);
    free(m);
    *n = rc == 0 ? k : 0;
    return rc;
}

/* Paired rounds (o->paired: ab): round r of A was timed beside round r of
 * B, so a drift of the machine hits both alike and the unit is the
 * round's ratio (paired.h).  Each round's figure is its run_q quantile of
 * its quiet samples; a round where either side was not quiet is left out
 * with its pair, and with fewer than 2 quiet pairs the row is in a host
 * state (every round's figures shown, never a change). */
static int paired_stats(const struct cb_side_case *a, const struct cb_side_case *b,
                        const struct cmp_opts *o, struct cmp_row *r)
{
    size_t n = a->nruns < b->nruns ? a->nruns : b->nruns, k = 0;
    double *xa = malloc((a->nruns + 1) * sizeof *xa), *xb = malloc((b->nruns + 1) * sizeof *xb);
    double *pa = malloc((n + 1) * sizeof *pa), *pb = malloc((n + 1) * sizeof *pb);
    int *qa = malloc((a->nruns + 1) * sizeof *qa), *qb = malloc((b->nruns + 1) * sizeof *qb);
    double *ma = cmp_state_meter(a, o), *mb = cmp_state_meter(b, o);
    int rc = -ENOMEM;
    if (xa && xb && pa && pb && qa && qb && (o->keep_contended || (ma && mb)) &&
        (rc = cb_run_log_values(a->v, ma, a->ends, a->nruns, o->run_q, xa, qa)) == 0 &&
        (rc = cb_run_log_values(b->v, mb, b->ends, b->nruns, o->run_q, xb, qb)) == 0) {
        size_t quiet = 0;
        for (size_t i = 0; i < n; i++)
            quiet += o->keep_contended || (qa[i] && qb[i]);
        int all = quiet < 2;
        for (size_t i = 0; i < n; i++)
            if (all || o->keep_contended || (qa[i] && qb[i])) {
                pa[k] = exp(xa[i]);
                pb[k++] = exp(xb[i]);
            }
        r->host_state = all && n >= 2 && quiet < n;
        r->left_out = 2 * (n - quiet);
        struct cb_paired st;
        memset(&r->s, 0, sizeof r->s);
        r->s.na = a->n;
        r->s.nb = b->n;
        r->s.runs_a = r->s.runs_b = k;
        r->s.med_a = r->s.med_b = r->s.change = r->s.lo = r->s.hi = r->s.p = NAN;
        if (k && cb_paired_ratio(pa, pb, k, o->level > 0 ? o->level : 0.95, &st) == 0) {
            cb_sort_doubles(pa, k);
            r->s.med_a = k % 2 ? pa[k / 2] : (pa[k / 2 - 1] + pa[k / 2]) / 2;
            r->s.med_b = r->s.med_a * st.ratio;
            r->s.change = st.ratio - 1;
            r->s.lo = st.lo - 1;
            r->s.hi = st.hi - 1;
            r->s.p = k >= 2 ? st.p : NAN;
        }
        r->test = CMP_TEST_PAIRED;
    }
    cb_free_all((void *[]){xa, xb, pa, pb, qa, qb, ma, mb}, 8);
    return rc;
}

/* More paired rounds that would decide an unsure row: its interval's
 * half-width shrinks as 1/sqrt(rounds), and must shrink to the distance
 * between its estimate and the threshold (a change clears the band, or
 * "unchanged" fits inside it).  CMP_ROUNDS_CAP when the estimate sits on
 * the threshold. */
static size_t rounds_more(const struct cmp_row *r, const struct cmp_opts *o)
{
    double n = (double)r->s.runs_a;
    if (!(n > 0) || isnan(r->s.lo) || isnan(r->s.hi) || !(r->s.lo > -1) || !(r->s.change > -1))
        return n < 6 ? 6 - (size_t)n : 1;
    double w = (log1p(r->s.hi) - log1p(r->s.lo)) / 2, est = fabs(log1p(r->s.change)),
           t = log1p(o->threshold), room = fabs(est - t);
    if (room < w / 30)
        return CMP_ROUNDS_CAP;
    double need = ceil(n * (w / room) * (w / room));
    size_t more = need > n ? (size_t)(need - n) : 1;
    return more > CMP_ROUNDS_CAP ? CMP_ROUNDS_CAP : more;
}

/* Fewer than CMP_RUNS_MIN runs a side: the change of the run figures
 * against the floor learned from other runs of the same bytes (fl).  The
 * two sides are never one group of it: a regression between them would
 * widen it.  Without a floor of CB_FLOOR_MIN_DF the row stays
 * CMP_TEST_NOFLOOR. */
static int floor_stats(const struct cb_floor *fl, const struct cmp_opts *o, int admit,
                       struct cmp_row *r)
{
    double *la = malloc((r->a->nruns + 1) * sizeof *la), *lb = malloc((r->b->nruns + 1) * sizeof *lb);
    size_t na = 0, nb = 0;
    int rc = la && lb ? 0 : -ENOMEM;
    if (rc == 0 && (side_logs(r->a, o, admit, la, &na) < 0 || side_logs(r->b, o, admit, lb, &nb) < 0))
        na = nb = 0;
    const struct cb_floor_case *c = cb_floor_find(fl, r->a->key);
    if (rc == 0 && na && nb && c) {
        double sd, df;
        cb_floor_moderate(fl, c, &sd, &df);
        if (!isnan(sd) && cb_floor_stats(la, na, lb, nb, sd, df, &r->s) == 0) {
            r->s.na = r->sw.na;
            r->s.nb = r->sw.nb;
            r->test = CMP_TEST_FLOOR;
            r->floor_sd = sd;
            r->floor_df = df;
        }
    }
    free(la);
    free(lb);
    return rc;
}

/* 1 when a side's runs of case c timed one code: one known hash, or a
 * side of one commit.  Only then are its runs a group of the floor: runs
 * of different code would put a change in the spread. */
static int one_code(const struct cb_side *S, const struct cb_side_case *c)
{
    return (c->code_hash[0] && !c->code_mixed) || S->ncommits <= 1;
}

/* Each side's own quiet runs of each case as a group of the floor: they
 * are its between-run spread, so more runs never give fewer answers. */
static int own_groups(const struct cb_side *S, const struct cmp_opts *o, struct cb_floor *fl)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < S->ncases; i++) {
        const struct cb_side_case *c = &S->cases[i];
        double *x = malloc((c->nruns + 1) * sizeof *x);
        size_t n = 0;
        if (!x)
            return -ENOMEM;
        if (c->nruns >= 2 && one_code(S, c) && side_logs(c, o, 0, x, &n) == 0 && n >= 2) {
            rc = cb_floor_add(fl, c->key, x, n);
            fl->own += n;
        }
        free(x);
    }
    return rc;
}

/* The floor of the head side's host and environment, from other runs of
 * the same bytes (the compared runs are not mixed into them: a group of
 * both sides would hold the change it judges), and each side's own runs
 * as groups of their own. */
static int learn_floor(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                       const struct cmp_opts *o, struct cb_floor *fl)
{
    memset(fl, 0, sizeof *fl);
    fl->s0 = NAN;
    if (o->exact || o->paired || !o->metric || !B->nruns ||
        (A->nruns >= CMP_RUNS_MIN && B->nruns >= CMP_RUNS_MIN))
        return 0;
    int64_t *skip = malloc((A->nruns + B->nruns) * sizeof *skip);
    if (!skip)
        return -ENOMEM;
    memcpy(skip, A->runs, A->nruns * sizeof *skip);
    memcpy(skip + A->nruns, B->runs, B->nruns * sizeof *skip);
    int rc = cb_floor_learn_groups(st, B->runs[0], o->metric, o->run_q, o->keep_contended, skip,
                                   A->nruns + B->nruns, fl);
    free(skip);
    if (rc == 0 && (rc = own_groups(A, o, fl)) == 0)
        rc = own_groups(B, o, fl);
    cb_floor_finish(fl);
    return rc;
}

/* An exact count's verdict: the medians' ratio, beyond the threshold or
 * not.  With counts that repeat exactly there is no noise to test against;
 * the interval is the change itself. */
static void exact_stats(const struct cb_side_case *a, const struct cb_side_case *b,
                        const struct cmp_opts *o, struct cmp_row *r)
{
    double *va = malloc((a->n ? a->n : 1) * sizeof *va), *vb = malloc((b->n ? b->n : 1) * sizeof *vb);
    memset(&r->s, 0, sizeof r->s);
    r->s.na = a->n;
    r->s.nb = b->n;
    r->s.runs_a = a->nruns;
    r->s.runs_b = b->nruns;
    r->s.med_a = r->s.med_b = r->s.change = r->s.lo = r->s.hi = r->s.p = r->p_adj = NAN;
    if (va && vb && a->n && b->n) {
        memcpy(va, a->v, a->n * sizeof *va);
        memcpy(vb, b->v, b->n * sizeof *vb);
        r->s.med_a = cb_median_inplace(va, a->n);
        r->s.med_b = cb_median_inplace(vb, b->n);
        if (r->s.med_a > 0)
            r->s.change = r->s.lo = r->s.hi = r->s.med_b / r->s.med_a - 1;
    }
    free(va);
    free(vb);
    double c = r->s.change;
    r->v = isnan(c) ? CB_CMP_UNSURE : c > o->threshold ? CB_CMP_REGRESSED
         : c < -o->threshold ? CB_CMP_IMPROVED : CB_CMP_UNCHANGED;
}

/* Each row's p corrected over the rows that have one: get(r) picks which. */
static int adjust(struct cmp_result *res, const struct cmp_opts *o, int within)
{
    double *p = malloc((res->n ? res->n : 1) * sizeof *p);
    if (!p)
        return -ENOMEM;
    for (size_t i = 0; i < res->n; i++)
        p[i] = within ? res->rows[i].sw.p : res->rows[i].s.p;
    int rc = o->corr == CORR_HOLM ? cb_p_adjust_holm(p, res->n, p) : cb_p_adjust_bh(p, res->n, p);
    for (size_t i = 0; rc == 0 && i < res->n; i++)
        *(within ? &res->rows[i].pw_adj : &res->rows[i].p_adj) = p[i];
    free(p);
    return rc;
}

/* Runs a side still needed when the sides are tested on their runs: from
 * the spread the interval implies (Welch's, na + nb - 2 degrees of
 * freedom), as cb_floor_runs_needed counts them. */
static size_t runs_more(const struct cmp_row *r, const struct cmp_opts *o, size_t m)
{
    size_t na = r->s.runs_a, nb = r->s.runs_b, have = na < nb ? na : nb;
    if (na < 2 || nb < 2 || isnan(r->s.lo) || isnan(r->s.hi) || isnan(r->s.change))
        return 1;
    double t = cb_t_quantile(0.975, (double)(na + nb - 2));
    double se = (log1p(r->s.hi) - log1p(r->s.lo)) / (2 * t);
    double sd = se / sqrt(1.0 / (double)na + 1.0 / (double)nb);
    size_t need = cb_floor_runs_needed(r->s.change, sd, o->alpha, m, o->threshold);
    return need >= CB_FLOOR_RUNS_CAP ? CB_FLOOR_RUNS_CAP : need > have ? need - have : 1;
}

/* The verdict of a row with fewer than CMP_RUNS_MIN runs a side.  Against
 * a floor: its verdict, but a change only when the within-run test sees
 * the same change (exit 1 means beyond both noises).  Without one: unsure,
 * whatever the within-run test says, since nothing measured how far a run
 * moves, and "unchanged" is never said without an interval;
 * one more run a side makes a floor of the sides' own runs.  bisect-check
 * alone (nofloor_within) keeps the within-run test's unchanged, printed as
 * such.  An unsure row says how many runs a side would decide it. */
static void decide_few(struct cmp_row *r, const struct cmp_opts *o, size_t m)
{
    enum cb_cmp_verdict vw = cb_cmp_decide(r->pw_adj, r->sw.lo, r->sw.hi, o->alpha, o->threshold);
    size_t have = r->a->nruns < r->b->nruns ? r->a->nruns : r->b->nruns;
    if (r->test == CMP_TEST_FLOOR) {
        r->v = cb_cmp_decide(r->p_adj, r->s.lo, r->s.hi, o->alpha, o->threshold);
        if ((r->v == CB_CMP_REGRESSED || r->v == CB_CMP_IMPROVED) && vw != r->v)
            r->v = CB_CMP_UNSURE;
        size_t need = cb_floor_runs_needed(r->s.change, r->floor_sd, o->alpha, m, o->threshold);
        if (r->v == CB_CMP_UNSURE)
            r->more_runs = need >= CB_FLOOR_RUNS_CAP ? CB_FLOOR_RUNS_CAP : need > have ? need - have : 1;
        return;
    }
    r->v = o->nofloor_within && vw == CB_CMP_UNCHANGED ? CB_CMP_UNCHANGED : CB_CMP_UNSURE;
    r->more_runs = 1;
    r->s = r->sw;
    r->s.lo = r->s.hi = r->s.p = NAN;   /* no interval holds the drift between runs */
    r->p_adj = NAN;
}

int cmp_row_fails(const struct cmp_row *r)
{
    return r->v == CB_CMP_REGRESSED && !r->acked && !r->excused;
}

/* Both sides timed one known code (a complete hash: codehash.h makes an
 * incomplete one unknown) at one known place. */
static int same_place(const struct cmp_row *r)
{
    const struct cb_side_case *a = r->a, *b = r->b;
    return a->code_hash[0] && strcmp(a->code_hash, b->code_hash) == 0 && a->code_addr >= 0 &&
           a->code_addr == b->code_addr;
}

/* What the code's identity says of a row.  A change whose code is byte for
 * byte the same on both sides but placed elsewhere (address mod 4096) is
 * where the code sat, not what it does: labelled placement, shown, and let
 * through unless --placement-fails.  The same code at the same place
 * explains nothing: a change stays a change, said so.  And a row that is
 * not a change, with the same code at the same place, is unchanged
 * without more timing: the code cannot have moved. */
static void code_identity(struct cmp_row *r, const struct cmp_opts *o, struct cmp_result *res)
{
    const struct cb_side_case *a = r->a, *b = r->b;
    int change = r->v == CB_CMP_REGRESSED || r->v == CB_CMP_IMPROVED;
    int same = a->code_hash[0] && strcmp(a->code_hash, b->code_hash) == 0;
    if (!change && same_place(r)) {
        r->v = CB_CMP_UNCHANGED;
        r->same_code = 1;
        r->more_runs = 0;
        res->same_code++;
        return;
    }
    if (!change || !same || r->acked)
        return;
    if (same_place(r)) {
        snprintf(r->why, sizeof r->why, "not explained by the code or its placement: the same "
                 "code (hash %s) at the same address mod 4096 (%d) on both sides", a->code_hash,
                 a->code_addr);
        return;
    }
    if (a->code_addr < 0 || b->code_addr < 0)
        return;
    r->placement = 1;
    res->placement++;
    r->excused = r->v == CB_CMP_REGRESSED && !o->placement_fails;
    snprintf(r->why, sizeof r->why, "placement: the same code (hash %s) on both sides, at "
             "address mod 4096 %d vs %d", a->code_hash, a->code_addr, b->code_addr);
}

/* The largest bound over a side's flagged runs: 0 none flagged, NAN when
 * one has no known bound. */
static double side_bound(const struct cb_side_case *c)
{
    double b = 0;
    for (size_t r = 0; r < c->nruns; r++)
        if (cb_side_run_flagged(c, r))
            b = c->bound && isfinite(c->bound[r]) && !isnan(b) ? fmax(b, c->bound[r]) : NAN;
    return b;
}

#define TRADE(a, b)                                                                         \
    do {                                                                                    \
        __typeof__(a) k_ = (a);                                                             \
        (a) = (b);                                                                          \
        (b) = k_;                                                                           \
    } while (0)

/* Swap the row's figures with f's. */
static void trade_figs(struct cmp_row *r, struct cmp_figs *f)
{
    TRADE(r->s, f->s);
    TRADE(r->sw, f->sw);
    TRADE(r->test, f->test);
    TRADE(r->floor_sd, f->floor_sd);
    TRADE(r->floor_df, f->floor_df);
    TRADE(r->left_out, f->left_out);
    TRADE(r->samples_left_out, f->samples_left_out);
}

/* A row in a host state only because the store flagged some of its runs,
 * each with a known bound on how far the state moved its figure: judged
 * again with those runs in.  The host state can explain a change up to its
 * bound and no further, so decide() calls a change whose whole interval
 * lies beyond it (a memcpy made 2.4x slower is not a clock 5% off); any
 * other row gets its figures back (held).  A row short of quiet samples
 * by the meter (the core shared) has no bound and stays as it was. */
static int cmp_bounded(const struct cb_floor *fl, const struct cmp_opts *o, struct cmp_row *r)
{
    double ba = side_bound(r->a), bb = side_bound(r->b);
    if (!isfinite(ba) || !isfinite(bb) || (ba == 0 && bb == 0))
        return 0;
    struct cmp_row t;
    memset(&t, 0, sizeof t);
    t.a = r->a;
    t.b = r->b;
    t.s.p = t.sw.p = t.p_adj = t.pw_adj = t.seen = NAN;
    int rc = case_stats(r->a, r->b, o, 1, &t);
    if (rc == 0 && t.host_state)
        return 0;
    if (rc == 0 && t.test != CMP_TEST_RUNS)
        rc = floor_stats(fl, o, 1, &t);
    if (rc < 0)
        return rc;
    struct cmp_figs f = {t.s, t.sw, t.test, t.floor_sd, t.floor_df, t.left_out, t.samples_left_out};
    trade_figs(r, &f);
    r->held = f;
    r->state_bound = fmax(ba, bb);
    return 0;
}

/* Whether a row's change lies wholly beyond what its host state explains:
 * both the threshold and the state's bound, compounded, outside its
 * interval. */
static int beyond_state(const struct cmp_row *r, const struct cmp_opts *o)
{
    if (!isfinite(r->state_bound) || isnan(r->s.lo) || isnan(r->s.hi))
        return 0;
    double edge = (1 + r->state_bound) * (1 + o->threshold);
    return (r->v == CB_CMP_REGRESSED && r->s.lo > edge - 1) ||
           (r->v == CB_CMP_IMPROVED && r->s.hi < 1 / edge - 1);
}

/* A bounded row whose change the state can explain: its figures as they
 * were without the flagged runs, the p of those runs gone with them. */
static void unhold(struct cmp_row *r)
{
    trade_figs(r, &r->held);
    r->p_adj = r->pw_adj = NAN;
    if (r->test == CMP_TEST_NOFLOOR) {   /* shown as decide_few shows it */
        r->s = r->sw;
        r->s.lo = r->s.hi = r->s.p = NAN;
    }
}

/* One row's verdict, once every p is corrected over the m rows. */
static void decide(struct cmp_row *r, const struct cmp_opts *o, size_t m)
{
    if (o->exact) {
        r->more_runs = r->v == CB_CMP_UNSURE;
    } else if (r->test == CMP_TEST_PAIRED) {
        r->v = isnan(r->s.p) ? CB_CMP_UNSURE
                             : cb_cmp_decide(r->p_adj, r->s.lo, r->s.hi, o->alpha, o->threshold);
        r->more_runs = r->v == CB_CMP_UNSURE ? rounds_more(r, o) : 0;
    } else if (r->test == CMP_TEST_RUNS) {
        r->v = cb_cmp_decide(r->p_adj, r->s.lo, r->s.hi, o->alpha, o->threshold);
        r->more_runs = r->v == CB_CMP_UNSURE ? runs_more(r, o, m) : 0;
    } else {
        decide_few(r, o, m);
    }
    if (r->host_state && !o->exact) {
        if (beyond_state(r, o)) {
            /* The change is larger than the state can make one: called. */
            r->beyond = 1;
            r->more_runs = 0;
        } else {
            /* Not one quiet run on a side: whatever the samples say is
             * the host's, never a change. */
            r->v = CB_CMP_UNSURE;
            r->more_runs = 1;
            if (isfinite(r->state_bound))
                unhold(r);
        }
    }
    if (r->v == CB_CMP_UNCHANGED && isfinite(r->s.lo) && isfinite(r->s.hi))
        r->seen = fmax(fabs(r->s.lo), fabs(r->s.hi));
}

/* The row's note: what the state could explain and that the change is
 * larger, after whatever the code's identity said. */
static void state_note(struct cmp_row *r)
{
    char note[160];
    snprintf(note, sizeof note, "beyond the host state: a side was measured slowed or off its "
             "clock by at most %.1f%%, and the change's whole interval lies past that",
             100 * r->state_bound);
    size_t used = strlen(r->why);
    snprintf(r->why + used, sizeof r->why - used, "%s%s", used ? "; " : "", note);
}

int cmp_evaluate(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                 const struct cmp_opts *o, struct cmp_result *res)
{
    free(res->rows);
    memset(res, 0, sizeof *res);
    res->exact = o->exact;
    res->rows = calloc(A->ncases ? A->ncases : 1, sizeof *res->rows);
    struct cb_floor fl;
    if (!res->rows)
        return -ENOMEM;
    int rc = learn_floor(st, A, B, o, &fl);
    res->floor_runs = fl.runs;
    res->floor_groups = fl.groups;
    res->floor_unkeyed = fl.unkeyed;
    res->floor_own = fl.own;
    for (size_t i = 0; rc == 0 && i < A->ncases; i++) {
        const struct cb_side_case *a = &A->cases[i];
        const struct cb_side_case *b = cb_side_find(B, a->key);
        if (!b || (o->glob && fnmatch(o->glob, a->key, 0) != 0))
            continue;
        struct cmp_row *r = &res->rows[res->n++];
        r->a = a;
        r->b = b;
        r->s.p = r->sw.p = r->p_adj = r->pw_adj = r->seen = r->state_bound = NAN;
        if (o->exact) {
            exact_stats(a, b, o, r);
            continue;
        }
        if (o->paired)
            rc = paired_stats(a, b, o, r);
        else if ((rc = case_stats(a, b, o, 0, r)) == 0 && r->test != CMP_TEST_RUNS)
            rc = floor_stats(&fl, o, 0, r);
        if (rc == 0 && r->host_state && !o->paired)
            rc = cmp_bounded(&fl, o, r);
    }
    cb_floor_free(&fl);
    if (rc == 0 && !o->exact && (rc = adjust(res, o, 0)) == 0)
        rc = adjust(res, o, 1);
    for (size_t i = 0; rc == 0 && i < res->n; i++) {
        struct cmp_row *r = &res->rows[i];
        decide(r, o, res->n);
        struct cb_sb why = CB_SB_INIT;
        if (r->v == CB_CMP_REGRESSED && st && cb_ack_between(st, r->a->key, A, B, &why)) {
            cb_sb_copy(&why, r->why, sizeof r->why);
            r->acked = 1;
            res->acked++;
        }
        cb_sb_release(&why);
        code_identity(r, o, res);
        if (r->beyond)
            state_note(r);
        res->host_state += r->host_state && !r->beyond;
        res->beyond += r->beyond;
        res->count[r->v]++;
        res->by_test[r->test] += !r->host_state || r->beyond;
    }
    return rc;
}
