/* cmp_scope.c — what a compare judges before and around its rows
 * (judge.h): the figure it decides on (time, a PMU count, or simulated
 * counts), and, when no case is in common, why: each case BAD on a side or
 * measured on one side only. */
#define _GNU_SOURCE
#include "analysis/judge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store/lookup.h"

/* --metric instructions: the PMU's instruction counts, which repeat exactly
 * where nothing else runs in the counted code (in a VM with qemu -icount,
 * and the user-space count of a loop on most cores): compared like
 * callgrind's, by the threshold alone. */
static int pick_count(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                      struct cmp_opts *o, const char **metric, struct cb_sb *err)
{
    if (strcmp(o->want, "instructions") != 0) {
        cb_sb_setf(err, "--metric '%s': the one count compare decides on is instructions", o->want);
        return -EINVAL;
    }
    const struct cb_side *s[2] = {A, B};
    for (int k = 0; k < 2; k++) {
        size_t n = cb_side_counted(st, s[k], o->want, "pmu");
        if (n != s[k]->nruns) {
            cb_sb_setf(err, "--metric instructions: %zu of the %zu runs of %s counted "
                     "instructions with the PMU; every run of both sides must (run -e instructions "
                     "where the PMU has it)", n, s[k]->nruns, s[k]->spec);
            return -EXDEV;
        }
    }
    *metric = o->metric = o->want;
    o->exact = 1;
    if (!o->threshold_set)
        o->threshold = CB_CMP_EXACT_THRESHOLD;
    return 0;
}

int cmp_pick_metric(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                    struct cmp_opts *o, const char **metric, struct cb_sb *err)
{
    if (o->want)
        return pick_count(st, A, B, o, metric, err);
    size_t sa = cb_side_simulated(st, A), sb = cb_side_simulated(st, B);
    if ((sa || sb) && (sa != A->nruns || sb != B->nruns)) {
        cb_sb_setf(err, "%s has %zu of %zu runs counted under callgrind (run --sim) and %s "
                 "%zu of %zu: compare counts with counts and timings with timings (select runs "
                 "by tag, e.g. run --sim --tag sim)", A->spec, sa, A->nruns, B->spec, sb, B->nruns);
        return -EXDEV;
    }
    *metric = cb_sides_metric(st, A, B);
    o->metric = *metric;
    o->exact = strcmp(*metric, CB_SIDES_SIM_METRIC) == 0;
    if (o->exact && !o->threshold_set)
        o->threshold = CB_CMP_EXACT_THRESHOLD;
    return 0;
}

/* A bad case found, said in the list being built. */
struct bad {
    const char *name;
    struct cb_sb *out;
    size_t k;
};

static int add_bad(const char *probe, const char *variant, uint64_t size, const char *mode,
                   const char *verdict, void *ctx)
{
    struct bad *b = ctx;
    char key[CB_CASE_KEY_MAX];
    cb_case_key(key, sizeof key, probe, variant, size, mode);
    cb_sb_addf(b->out, "%s%s (%s on %s)", b->out->len ? ", " : "", key, verdict, b->name);
    b->k++;
    return 0;
}

/* The cases of side s whose variant failed verification (or was skipped),
 * "key (bad)" each, appended to out: how many. */
static size_t not_ok(struct cb_store *st, const struct cb_side *s, const char *name,
                     struct cb_sb *out)
{
    struct bad b = {name, out, 0};
    for (size_t r = 0; r < s->nruns; r++)
        if (cb_store_each_bad_case(st, s->runs[r], add_bad, &b) < 0)
            break;
    return b.k;
}

/* The cases of x missing from y, "key (only on NAME)" each. */
static void only_on(const struct cb_side *x, const struct cb_side *y, const char *name,
                    struct cb_sb *out)
{
    for (size_t i = 0; i < x->ncases; i++)
        if (!cb_side_find(y, x->cases[i].key))
            cb_sb_addf(out, "%s%s (only on %s)", out->len ? ", " : "", x->cases[i].key, name);
}

void cmp_nothing_compared(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                          struct cb_sb *out)
{
    not_ok(st, A, "base", out);
    not_ok(st, B, "head", out);
    only_on(A, B, "base", out);
    only_on(B, A, "head", out);
}
