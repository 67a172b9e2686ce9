/* race_store.c — a race's rows into the collector's store, one
 * transaction: every entrant's cases and each bucket's decision, so that
 * report and the next race can read them back (see race.h). */
#include "analysis/race.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/races.h"


/* The variants tied with the fastest (not beaten by it), comma-separated. */
static void tied_list(const struct cb_race_cell *c, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    if (c->decision != CB_RACE_TIE && c->decision != CB_RACE_CONFIDENT && c->winner >= 0) {
        snprintf(buf, len, "%s", c->e[c->winner].v->name);
        return;
    }
    for (size_t i = 0; i < c->ne && off + 1 < len; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        if (e->verdict != CB_RACE_OK || e->n == 0 || e->beaten)
            continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", e->v->name);
    }
}

/* One bucket's decision, its entrants and their cases: 0 or -EIO. */
static int store_cell(struct cb_store_race_writer *w, const struct cb_race_cell *c)
{
    const struct cb_race_entrant *win = c->winner >= 0 ? &c->e[c->winner] : NULL;
    const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
    char needs[128], tied[1024];
    cb_cpu_feature_names(win ? win->v->needs : 0, needs, sizeof needs);
    tied_list(c, tied, sizeof tied);
    int have = !isnan(c->margin) && !isnan(c->margin_lo) && !isnan(c->margin_hi);
    struct cb_store_race_result res = {
        .probe = c->probe->name, .bucket = c->bucket.name,
        .decision = cb_race_decision_name(c->decision),
        .min_size = (int64_t)cb_race_bucket_min(&c->bucket),
        .max_size = c->bucket.hi == CB_RACE_UNBOUNDED ? -1 : (int64_t)c->bucket.hi,
        .size = (int64_t)c->bucket.size, .winner = win ? win->v->name : NULL,
        .winner_needs = needs, .winner_median = win ? win->median : NAN,
        .runner_up = u ? u->v->name : NULL, .runner_up_median = u ? u->median : NAN,
        .margin = have ? c->margin : NAN, .margin_lo = have ? c->margin_lo : NAN,
        .margin_hi = have ? c->margin_hi : NAN, .p = c->p, .tied = tied,
    };
    struct cb_store_race_entrant *es = calloc(c->ne ? c->ne : 1, sizeof *es);
    if (!es)
        return -ENOMEM;
    for (size_t i = 0; i < c->ne; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        es[i] = (struct cb_store_race_entrant){
            .variant = e->v->name, .verdict = cb_race_verdict_name(e->verdict),
            .detail = e->detail, .n = e->verdict == CB_RACE_OK ? (int64_t)e->n : 0,
            .median = e->median, .p = e->p, .margin = e->margin,
            .beaten = e->verdict == CB_RACE_OK && e->beaten, .case_ids = e->case_ids,
            .rounds = e->rounds, .ncases = e->ncases,
        };
    }
    int rc = cb_store_race_add(w, &res, es, c->ne);
    free(es);
    return rc;
}

int cb_race_store(struct cb_collector *col, struct cb_race *r)
{
    double charge = r->o.context == CB_CONTEXT_KERNEL ? cb_race_kernel_charge(&r->o) : NAN;
    struct cb_store_race race = {
        .run_id = r->run_id, .mode = cb_mode_name(r->o.mode), .metric = r->metric,
        .context = cb_context_name(r->o.context), .alpha = r->o.alpha,
        .min_margin = r->o.min_margin, .rounds = r->o.rounds, .reps = r->reps,
        .seed = (int64_t)r->o.seed, .fpu_charge = charge,
    };
    struct cb_store_race_writer *w;
    int rc = cb_store_race_begin(col->st, &race, &w);
    for (size_t ci = 0; rc == 0 && ci < r->ncells; ci++)
        rc = store_cell(w, &r->cells[ci]);
    if (!w)
        return rc;
    int ok = rc == 0, end = cb_store_race_end(w, ok);
    rc = ok ? end : rc;
    r->race_id = rc == 0 ? race.id : 0;
    return rc;
}
