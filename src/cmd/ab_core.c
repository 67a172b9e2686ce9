/* ab_core.c — the paired A/B protocol (ab.h): load two builds, plan their
 * common cases, time them round by round in ABBA order, judge. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <alloca.h>
#include <time.h>
#include <unistd.h>

#include "cmd/ab.h"
#include "cli/cmd.h"
#include "cli/parse.h"
#include "util/dist.h"
#include "harness/stats.h"

#define AB_MAX_SIZES 32
#define AB_MAX_FAMILIES 32

const char *const cb_ab_side_name[2] = {"base", "head"};
/* The registry namespaces of each side's copies: the fake clock's head=X
 * applies to every namespace whose name starts with "head". */
static const char *const copy_ns[2][CB_AB_COPIES] = {{"base", "base.1", "base.2"},
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
            rc = cb_plugin_load_copy(ab->info[s].path, copy_ns[s][k], &why);
        if (rc < 0)
            cb_sb_setf(err, "%s (%s): %s", s ? "HEAD" : "BASE", paths[s], why.buf);
        cb_sb_release(&why);
        if (rc < 0)
            return rc;
    }
    ab->ncopies = ab->o.copies < 1 ? 1 : ab->o.copies > CB_AB_COPIES ? CB_AB_COPIES : ab->o.copies;
    return 0;
}

/* Is fam/name in a plugin's list of what it added ("csum/a,csum/b")? */
static int in_list(const char *list, const char *fam, const char *name)
{
    size_t fl = strlen(fam), nl = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == fl + 1 + nl && strncmp(p, fam, fl) == 0 && p[fl] == '/' &&
            strncmp(p + fl + 1, name, nl) == 0)
            return 1;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

static void list_add(char *buf, size_t len, const char *fam, const char *name)
{
    size_t used = strlen(buf), need = strlen(fam) + strlen(name) + 3;
    if (used + need < len) {
        if (used)
            buf[used++] = ',';
        buf[used] = '\0';
        strcat(strcat(strcat(buf, fam), "/"), name);
    }
}

/* The families: -p's, else those either plugin adds variants to. */
static int plan_families(struct cb_ab *ab, char fams[][64], struct cb_sb *err)
{
    int nf = 0;
    if (ab->o.sel.probes) {
        char **names = NULL, *store = NULL;
        int n = cb_parse_name_list(ab->o.sel.probes, "--probes", &names, &store, err);
        for (int i = 0; i < n && nf >= 0; i++) {
            if (!cb_probe_find_ns("base", names[i]) && !cb_probe_find_ns("head", names[i])) {
                cb_sb_setf(err, "unknown probe '%s': neither build has it, and it is not a "
                         "built-in family ('cyclebudget list probes --plugin BASE.so')", names[i]);
                nf = -ENOENT;
            } else if (nf < AB_MAX_FAMILIES) {
                snprintf(fams[nf++], 64, "%s", names[i]);
            }
        }
        free(names);
        free(store);
        return n < 0 ? n : nf;
    }
    for (int s = 0; s < 2; s++) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", ab->info[s].variants);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *slash = strchr(t, '/');
            if (!slash)
                continue;
            *slash = '\0';
            int seen = 0;
            for (int k = 0; k < nf; k++)
                seen |= strcmp(fams[k], t) == 0;
            if (!seen && nf < AB_MAX_FAMILIES)
                snprintf(fams[nf++], 64, "%s", t);
        }
    }
    return nf;
}

static int glob_any(char **globs, const char *name)
{
    for (char **g = globs; g && *g; g++)
        if (fnmatch(*g, name, 0) == 0)
            return 1;
    return 0;
}

/* The sizes and modes every case is timed at. */
static int plan_grid(const struct cb_ab *ab, uint64_t *sizes, int *ns, enum cb_mode *modes, int *nm,
                     struct cb_sb *err)
{
    *ns = 0;
    if (ab->o.sel.sizes && (*ns = cb_parse_size_list(ab->o.sel.sizes, sizes, AB_MAX_SIZES, err)) < 0)
        return *ns;
    char **names = NULL, *store = NULL;
    int n = cb_parse_name_list(ab->o.sel.modes ? ab->o.sel.modes : "warm,cold", "--mode", &names, &store,
                               err);
    int rc = n < 0 ? n : 0;
    *nm = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        int m = cb_mode_parse(names[i]);
        if (m < 0 || i >= 2) {
            cb_sb_setf(err, "--mode '%s': give warm, cold or warm,cold", ab->o.sel.modes);
            rc = -EINVAL;
        } else {
            modes[(*nm)++] = (enum cb_mode)m;
        }
    }
    free(names);
    free(store);
    return rc;
}

static int add_case(struct cb_ab *ab, const struct cb_probe *const p[2],
                    const struct cb_variant *const v[2], uint64_t size, enum cb_mode mode)
{
    if (v[0]->only_size && v[0]->only_size != size)
        return 0;
    if (ab->n == CB_AB_MAX_CASES)
        return -E2BIG;
    struct cb_ab_case *c = &ab->cases[ab->n++];
    memset(c, 0, sizeof *c);
    for (int s = 0; s < 2; s++) {
        c->p[s] = p[s];
        c->v[s] = v[s];
        for (int k = 0; k < CB_AB_COPIES; k++) {
            const struct cb_probe *pk = k < ab->ncopies ? cb_probe_find_ns(copy_ns[s][k], p[s]->name) : NULL;
            const struct cb_variant *vk = pk ? cb_variant_find(pk, v[s]->name) : NULL;
            c->pc[s][k] = vk ? pk : p[s];
            c->vc[s][k] = vk ? vk : v[s];
        }
    }
    c->size = size;
    c->mode = mode;
    c->verdict = CB_CMP_UNSURE;
    c->st = (struct cb_paired){0, NAN, NAN, NAN, NAN};
    c->p_adj = NAN;
    snprintf(c->key, sizeof c->key, "%s/%s/%llu/%s", p[0]->name, v[0]->name,
             (unsigned long long)size, cb_mode_name(mode));
    return 0;
}

/* One family: each variant either build has that is selected (-V, else the
 * plugins' own), compared where both have it. */
static int plan_family(struct cb_ab *ab, const char *fam, char **vglobs, int *hits,
                       const uint64_t *sizes, int ns, const enum cb_mode *modes, int nm)
{
    const struct cb_probe *p[2] = {cb_probe_find_ns("base", fam), cb_probe_find_ns("head", fam)};
    for (int s = 0; s < 2; s++) {
        const struct cb_probe *ps = p[s];
        for (size_t j = 0; ps && j < ps->nvariants; j++) {
            const struct cb_variant *vj = &ps->variants[j];
            int plug = in_list(ab->info[0].variants, fam, vj->name) ||
                       in_list(ab->info[1].variants, fam, vj->name);
            if ((vj->flags & CB_VARIANT_TESTONLY) || (vglobs ? !glob_any(vglobs, vj->name) : !plug))
                continue;
            for (char **g = vglobs; g && *g; g++)
                hits[g - vglobs] |= fnmatch(*g, vj->name, 0) == 0;
            const struct cb_variant *o = p[!s] ? cb_variant_find(p[!s], vj->name) : NULL;
            if (!o) {
                list_add(s ? ab->added : ab->removed, sizeof ab->added, fam, vj->name);
                continue;
            }
            if (s == 1)
                continue;   /* both have it: planned from the base side */
            const struct cb_variant *v[2] = {vj, o};
            const size_t *def = p[0]->sizes;
            int n = ns ? ns : 0;
            while (!ns && def && def[n])
                n++;
            for (int si = 0; si < n; si++)
                for (int mi = 0; mi < nm; mi++) {
                    int rc = add_case(ab, p, v, ns ? sizes[si] : def[si], modes[mi]);
                    if (rc < 0)
                        return rc;
                }
        }
    }
    return 0;
}

int cb_ab_plan(struct cb_ab *ab, struct cb_sb *err)
{
    char fams[AB_MAX_FAMILIES][64];
    uint64_t sizes[AB_MAX_SIZES];
    enum cb_mode modes[2];
    int ns, nm, rc;
    int nf = plan_families(ab, fams, err);
    if (nf < 0)
        return nf;
    if ((rc = plan_grid(ab, sizes, &ns, modes, &nm, err)) < 0)
        return rc;
    char **vglobs = NULL, *vstore = NULL;
    int nv = ab->o.sel.variants ? cb_parse_name_list(ab->o.sel.variants, "--variants", &vglobs, &vstore,
                                                 err) : 0;
    if (nv < 0)
        return nv;
    int hits[64] = {0};
    if (nv > 64) {
        cb_sb_setf(err, "--variants: at most 64 names");
        rc = -EINVAL;
    } else if (!(ab->cases = calloc(CB_AB_MAX_CASES, sizeof *ab->cases))) {
        rc = -ENOMEM;
    }
    for (int f = 0; f < nf && rc == 0; f++)
        rc = plan_family(ab, fams[f], vglobs, hits, sizes, ns, modes, nm);
    if (rc == -E2BIG)
        cb_sb_setf(err, "more than %d cases: narrow them with -p, -V, -s or -m", CB_AB_MAX_CASES);
    for (int g = 0; g < nv && rc == 0; g++)
        if (!hits[g]) {
            cb_sb_setf(err, "no variant of either build matches '%s' ('cyclebudget list "
                     "variants --plugin BASE.so' lists them)", vglobs[g]);
            rc = -ENOENT;
        }
    free(vglobs);
    free(vstore);
    if (rc == 0 && ab->n == 0 && !ab->added[0] && !ab->removed[0]) {
        cb_sb_setf(err, "nothing to compare: the two builds add no variant to %s",
                 ab->o.sel.probes ? ab->o.sel.probes : "any family");
        rc = -EINVAL;
    } else if (rc == 0 && ab->n == 0) {
        /* No verdict from nothing measured. */
        cb_sb_setf(err, "nothing to compare: the two builds have no variant in common "
                 "(only BASE has %s; only HEAD has %s): give two builds of one plugin, or -V a "
                 "variant both have", ab->removed[0] ? ab->removed : "none",
                 ab->added[0] ? ab->added : "none");
        rc = -EINVAL;
    }
    int need = cb_paired_min_rounds(ab->n, ab->o.alpha);
    ab->rounds = ab->o.rounds > need ? ab->o.rounds : need;
    if (!ab->o.max_rounds)
        ab->o.max_rounds = 3 * ab->rounds;
    if (ab->o.max_rounds < ab->rounds)
        ab->o.max_rounds = ab->rounds;
    return rc < 0 ? (rc == -E2BIG ? -EINVAL : rc) : 0;
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

/* Time side s of case c once, stored with its side: 0 with the round's
 * figure (CB_AB_ROUND_QUANTILE of its TSC ticks per operation) in *out, 1 when it could not be timed (BAD, skipped,
 * no sample), or a negative errno. */
static int time_side(struct cb_collector *col, struct cb_ab_case *c, int s, int copy, double *out)
{
    struct cb_measurement m;
    col->side = cb_ab_side_name[s];
    int rc = cb_collector_case(col, c->pc[s][copy], c->vc[s][copy], c->size, c->mode, cb_stop_flag(),
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
    double *v = m.n ? malloc(m.n * sizeof *v) : NULL;
    size_t k = 0;
    for (size_t i = 0; v && idx >= 0 && i < m.n; i++) {
        double x = cb_measurement_per_op(&m, i, idx);
        if (isfinite(x) && x > 0)
            v[k++] = x;
    }
    /* A low quantile, not the median: on a shared host, interference only
     * ever slows a sample, and a burst of it can cover half of one side's
     * samples in a round (compare's --run-quantile 0.1, for the same reason). */
    if (k)
        cb_sort_doubles(v, k);
    *out = k ? cb_quantile_sorted(v, k, CB_AB_ROUND_QUANTILE) : NAN;
    free(v);
    cb_measurement_free(&m);
    return k ? 0 : 1;
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
                     size_t i, double x[2])
{
    size_t pad = (size_t)((round * 37 + (int)i) % 64) * 64;
    volatile unsigned char *gap = alloca(pad + 1);
    gap[0] = 0;
    int first = (int)((round + i) % 2), k = round % ab->ncopies, rc = 0;
    col->buf_pages = (unsigned)((round * 5 + (int)i) % CB_AB_BUF_PAGES);
    for (int j = 0; j < 2 && rc == 0; j++)
        rc = time_side(col, c, first ^ j, k, &x[first ^ j]);
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
        double x[2];
        int rc = time_pair(ab, col, c, round, i, x);
        if (rc < 0)
            return rc;
        if (rc == 0 && (rc = append_round(c, x)) < 0)
            return rc;
        if (*cb_stop_flag())
            return -EINTR;
    }
    return 0;
}

static void idle(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
    while (ms > 0 && nanosleep(&t, &t) < 0 && !*cb_stop_flag())
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

int cb_ab_measure(struct cb_ab *ab, struct cb_collector *col)
{
    int rc = 0;
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
            double x;
            if (!vd)
                rc = *cb_stop_flag() ? -EINTR : -ENOMEM;   /* stopped while verifying */
            else if (!vd->ok)
                rc = time_side(col, c, s, 0, &x) < 0 ? -EIO : 0;
        }
    /* With a time budget (bisect-check), undecided cases get rounds until
     * it is spent, however many that is. */
    int limit = ab->o.max_seconds > 0 ? 1000000 : ab->o.max_rounds;
    for (int r = 0; rc == 0 && r < limit; r++) {
        int extra = r >= ab->rounds;
        if (extra && ((rc = cb_ab_judge(ab)) < 0 || !any_unsure(ab)))
            break;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double spent = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (extra && ab->o.max_seconds > 0 && spent >= ab->o.max_seconds)
            break;
        if (r)
            idle(ab->o.pause_ms);
        rc = one_round(ab, col, r, extra);
        ab->rounds_done = r + 1;
    }
    if (!ab->o.quiet && isatty(2))
        fprintf(stderr, "\r\033[K");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ab->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return rc < 0 ? rc : cb_ab_judge(ab);
}

int cb_ab_run(struct cb_ab *ab, const struct cb_collect_opts *co, int64_t *run, int *cpu, struct cb_sb *err)
{
    struct cb_collector col;
    int usage = 0;
    if (cb_collector_open(&col, co, err, &usage) < 0)
        return -EINVAL;
    int rc = cb_ab_measure(ab, &col);
    *run = col.run_id;
    *cpu = col.pinned;
    if (rc == -EINTR || *cb_stop_flag()) {
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

int cb_ab_judge(struct cb_ab *ab)
{
    double *p = calloc(ab->n ? ab->n : 1, sizeof *p), *adj = calloc(ab->n ? ab->n : 1, sizeof *adj);
    if (!p || !adj) {
        free(p);
        free(adj);
        return -ENOMEM;
    }
    for (size_t i = 0; i < ab->n; i++) {
        struct cb_ab_case *c = &ab->cases[i];
        p[i] = NAN;
        if (c->n && cb_paired_ratio(c->val[0], c->val[1], c->n, ab->o.level, &c->st) < 0)
            c->st = (struct cb_paired){0, NAN, NAN, NAN, NAN};
        if (c->n >= 2 && !c->bad[0] && !c->bad[1])
            p[i] = c->st.p;
    }
    int rc = cb_p_adjust_holm(p, ab->n, adj);
    for (size_t i = 0; rc == 0 && i < ab->n; i++) {
        struct cb_ab_case *c = &ab->cases[i];
        c->p_adj = adj[i];
        c->verdict = isnan(p[i]) ? CB_CMP_UNSURE
                           : cb_cmp_decide(adj[i], c->st.lo - 1, c->st.hi - 1, ab->o.alpha,
                                           ab->o.threshold);
    }
    free(p);
    free(adj);
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
    /* The fake clock's planted head=X is a change of code (collect.h). */
    struct cb_fake fake, *fp = NULL;
    struct cb_backend be;
    struct cb_sb ferr = CB_SB_INIT;
    const char *spec = getenv(CB_FAKE_ENV);
    if (spec && *spec && cb_fake_init(&fake, spec, &be, &ferr) == 0)
        fp = &fake;
    cb_sb_release(&ferr);
    int same = ab->n > 0;
    for (size_t i = 0; i < ab->n; i++) {
        struct cb_ab_case *c = &ab->cases[i];
        unsigned addr;
        for (int s = 0; s < 2; s++)
            cb_code_id_of(fp, c->p[s], c->v[s], cb_ab_side_name[s], c->code[s], &addr);
        same &= c->code[0][0] && strcmp(c->code[0], c->code[1]) == 0;
    }
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
}
