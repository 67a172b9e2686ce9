/* peers.c — the other runs of the same bytes a report's claims rest on
 * (rank.h): one run of `run -p csum -s 1500` can say "best avx2 61.0,
 * avx512 67.0 not a tie" and the next, identical one "avx512 48.7 best".  A within-run test takes samples of one process for independent,
 * and they are not: the layout and the host's state of that process move
 * them together.  Where the store holds other runs of the same bytes
 * (runs.code_id, the same host, clock and plugins), each case's figure in
 * each of them is loaded beside the report's own, so that best, tie and
 * crossover can use runs as the unit. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "store/lookup.h"
#include "report/rank.h"
#include "analysis/sides.h"
#include "util/strbuf.h"

static int add_plugin(const char *sha256, void *ctx)
{
    cb_sb_addf(ctx, "%s,", sha256);
    return 0;
}

/* The runs of r's bytes, host and clock with the same plugins as r. */
struct same {
    struct cb_store *st;
    const char *mine;       /* r's plugin hashes, joined */
    struct cb_sb theirs;
    int64_t *ids;
    size_t n;
};

static int add_if_same_plugins(int64_t id, void *ctx)
{
    struct same *s = ctx;
    cb_sb_reset(&s->theirs);
    cb_store_each_run_plugin(s->st, id, add_plugin, &s->theirs);
    if (strcmp(s->mine, s->theirs.buf) == 0)
        s->ids[s->n++] = id;
    return s->n == CB_RANK_PEERS_MAX;
}

/* The newest runs of r's bytes, host and clock, r's own left out, with the
 * same plugins: up to CB_RANK_PEERS_MAX ids into ids. */
static size_t same_bytes(struct cb_store *st, const struct cb_report *r, int64_t *ids)
{
    struct cb_sb mine = CB_SB_INIT;
    cb_store_each_run_plugin(st, r->run.id, add_plugin, &mine);
    struct same s = {.st = st, .mine = mine.buf, .theirs = CB_SB_INIT, .ids = ids};
    cb_store_each_same_bytes_run(st, r->run.id, 4 * CB_RANK_PEERS_MAX, add_if_same_plugins, &s);
    cb_sb_release(&mine);
    cb_sb_release(&s.theirs);
    return s.n;
}

/* The median of one case's values in side s (one run), or NAN. */
static double case_median(const struct cb_side *s, const struct cb_report_case *c)
{
    char key[CB_CASE_KEY_MAX];
    cb_case_key(key, sizeof key, c->info.probe, c->info.variant, c->info.size, c->info.mode);
    struct cb_side_case *x = cb_side_find(s, key);
    if (!x || !x->n)
        return NAN;
    double *v = malloc(x->n * sizeof *v);
    if (!v)
        return NAN;
    memcpy(v, x->v, x->n * sizeof *v);
    double m = cb_median_inplace(v, x->n);
    free(v);
    return m;
}

int cb_report_load_peers(struct cb_store *st, struct cb_report *r)
{
    int64_t ids[CB_RANK_PEERS_MAX];
    size_t n = same_bytes(st, r, ids);
    int e = cb_rank_by_time(r) ? r->tsc_event : r->cyc_event;
    if (!n || e < 0)
        return 0;
    const char *metric = r->events[e].part;
    for (size_t k = 0; k < r->ncases; k++)
        if (!(r->cases[k].peer = malloc(n * sizeof(double))))
            return -ENOMEM;
    int rc = 0;
    for (size_t p = 0; p < n && rc == 0; p++) {
        struct cb_side s;
        memset(&s, 0, sizeof s);
        if ((rc = cb_side_add_run(&s, ids[p])) == 0 && (rc = cb_side_load(st, &s, metric)) == 0)
            for (size_t k = 0; k < r->ncases; k++)
                r->cases[k].peer[p] = case_median(&s, &r->cases[k]);
        cb_side_free(&s);
    }
    r->npeers = rc == 0 ? n : 0;
    return rc;
}
