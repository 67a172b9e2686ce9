/* path_versus.c — a path across compare's two sides ("history
 * and compare track a path like a case").
 *
 * Each run keeps its composition of rx and fwd (path_results); compare
 * sets a side's median total beside the other's, in the budget's own unit
 * (cycles per packet), with the steps whose best variant changed.  The
 * path's verdict is its steps' cases' verdicts (compare's, the gate's): a
 * path stores only its steps' within-run intervals, which know nothing of
 * run-to-run noise, and an interval of its own would call "slower" what
 * the gate calls unsure.  A path is shown, never gated twice. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store/paths.h"
#include "report/assets.h"
#include "report/path.h"
#include "analysis/sides.h"
#include "harness/stats.h"

struct side_row {
    char key[96], detail[256];
    double cyc;
    int missing;
};

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct side_row *)a)->key, ((const struct side_row *)b)->key);
}

/* The rows of a side being gathered. */
struct side {
    struct side_row *rows;
    size_t n, cap;
};

static int add_row(const struct cb_store_path_row *row, void *ctx)
{
    struct side *s = ctx;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct side_row *g = realloc(s->rows, cap * sizeof *g);
        if (!g)
            return -ENOMEM;
        s->rows = g;
        s->cap = cap;
    }
    struct side_row *r = &s->rows[s->n++];
    snprintf(r->key, sizeof r->key, "%s/%" PRId64 "/%s", row->path, row->size, row->context);
    snprintf(r->detail, sizeof r->detail, "%s", row->detail);
    r->cyc = row->cycles;
    r->missing = (int)row->missing;
    return 0;
}

/* The side's stored results that have a total (every step measured: a
 * path with a step missing is never a total nor a verdict), by key. */
static int load_side(struct cb_store *st, const int64_t *runs, size_t nruns, struct side_row **out,
                     size_t *n)
{
    struct side s = {0};
    int rc = 0;
    for (size_t i = 0; i < nruns && rc == 0; i++)
        rc = cb_store_each_path_total(st, runs[i], add_row, &s);
    *out = s.rows;
    *n = s.n;
    if (rc == 0 && *n > 1)
        qsort(*out, *n, sizeof **out, by_key);
    return rc < 0 ? rc : 0;
}

/* The median total of the rows [lo, hi) of one key; the first run's
 * steps; any step missing in any run. */
static void summarize(const struct side_row *r, size_t lo, size_t hi, double *cyc, const char **detail,
                      int *missing)
{
    double c[64];
    size_t m = 0;
    *missing = 0;
    for (size_t i = lo; i < hi && m < 64; i++, m++) {
        c[m] = r[i].cyc;
        *missing |= r[i].missing > 0;
    }
    cb_sort_doubles(c, m);
    *cyc = cb_quantile_sorted(c, m, 0.5);
    *detail = r[lo].detail;
}

/* The cases the steps of a shipped path p took on one side, at packets of
 * size bytes: each step's variant from the stored detail (in the path's
 * order). */
static void step_cases(struct cb_path_delta *d, const struct cb_path *p, unsigned long long size,
                       const char *detail)
{
    char dcopy[256], *sv = NULL;
    snprintf(dcopy, sizeof dcopy, "%s", detail);
    size_t k = 0;
    for (char *t = strtok_r(dcopy, ";", &sv); t && k < p->nsteps; t = strtok_r(NULL, ";", &sv), k++) {
        char *v = strchr(t, '=');
        if (!v || v[1] == '-' || d->ncases >= sizeof d->cases / sizeof d->cases[0])
            continue;
        v++;
        v[strcspn(v, ":")] = 0;
        const struct cb_path_step *s = &p->steps[k];
        char key[sizeof d->cases[0]];
        cb_case_key(key, sizeof key, s->family, v, s->size ? s->size : size, s->mode);
        size_t j = 0;
        while (j < d->ncases && strcmp(d->cases[j], key) != 0)
            j++;
        if (j == d->ncases)
            snprintf(d->cases[d->ncases++], sizeof d->cases[0], "%s", key);
    }
}

/* Both sides' step cases, the path parsed once.  A user's own path file
 * is not known by its name here: none, and d->known stays 0. */
static void both_sides_cases(struct cb_path_delta *d, const char *da, const char *db)
{
    char name[80], path[64], ctx[8];
    unsigned long long size;
    struct cb_path p;
    struct cb_sb err = CB_SB_INIT;
    if (sscanf(d->key, "%63[^/]/%llu/%7s", path, &size, ctx) != 3)
        return;
    snprintf(name, sizeof name, "%s.path", path);
    const char *text = cb_asset_find(name);
    int rc = text ? cb_path_parse(text, path, &p, &err) : -ENOENT;
    cb_sb_release(&err);
    if (rc < 0)
        return;
    d->known = 1;
    step_cases(d, &p, size, da);
    step_cases(d, &p, size, db);
}

/* The steps whose variant differs: "csum adc-1chain->avx2, ...", or "". */
static void steps_changed(const char *a, const char *b, char *buf, size_t len)
{
    char x[256], y[256], *sa = NULL, *sb = NULL;
    size_t used = 0;
    buf[0] = 0;
    snprintf(x, sizeof x, "%s", a);
    snprintf(y, sizeof y, "%s", b);
    for (char *p = strtok_r(x, ";", &sa), *q = strtok_r(y, ";", &sb); p && q;
         p = strtok_r(NULL, ";", &sa), q = strtok_r(NULL, ";", &sb)) {
        char *pv = strchr(p, '='), *qv = strchr(q, '=');
        if (!pv || !qv)
            continue;
        *pv++ = 0;
        *qv++ = 0;
        pv[strcspn(pv, ":")] = 0;
        qv[strcspn(qv, ":")] = 0;
        if (strcmp(pv, qv) != 0 && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s %s->%s", used ? ", " : "", p, pv, qv);
    }
}

int cb_path_versus(struct cb_store *st, const int64_t *a_runs, size_t na, const int64_t *b_runs, size_t nb,
                   struct cb_path_delta **out, size_t *n)
{
    struct side_row *A = NULL, *B = NULL;
    size_t nA = 0, nB = 0;
    *out = NULL;
    *n = 0;
    int rc = load_side(st, a_runs, na, &A, &nA);
    if (rc == 0)
        rc = load_side(st, b_runs, nb, &B, &nB);
    for (size_t i = 0, j = 0; rc == 0 && i < nA;) {
        size_t ie = i, je;
        while (ie < nA && strcmp(A[ie].key, A[i].key) == 0)
            ie++;
        while (j < nB && strcmp(B[j].key, A[i].key) < 0)
            j++;
        for (je = j; je < nB && strcmp(B[je].key, A[i].key) == 0;)
            je++;
        if (je > j) {
            struct cb_path_delta *g = realloc(*out, (*n + 1) * sizeof *g), *d;
            if (!g) {
                rc = -ENOMEM;
                break;
            }
            *out = g;
            d = &g[(*n)++];
            memset(d, 0, sizeof *d);
            const char *da, *dbb;
            int ma, mb;
            snprintf(d->key, sizeof d->key, "%s", A[i].key);
            summarize(A, i, ie, &d->a, &da, &ma);
            summarize(B, j, je, &d->b, &dbb, &mb);
            d->a_runs = ie - i;
            d->b_runs = je - j;
            d->missing = ma || mb;
            d->pct = 100 * (d->b - d->a) / d->a;
            steps_changed(da, dbb, d->changed, sizeof d->changed);
            both_sides_cases(d, da, dbb);
        }
        i = ie;
    }
    free(A);
    free(B);
    if (rc < 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static void print_json(const struct cb_path_delta *d, size_t n, FILE *f)
{
    fputs(",\"paths\":[", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"path\":", i ? "," : "");
        cb_json_str(f, d[i].key);
        fputs(",\"base_cycles\":", f);
        cb_json_num6(f, d[i].a);
        fputs(",\"head_cycles\":", f);
        cb_json_num6(f, d[i].b);
        fputs(",\"change_pct\":", f);
        cb_json_num6(f, d[i].pct);
        fprintf(f, ",\"base_runs\":%d,\"head_runs\":%d,\"incomplete\":%s", d[i].a_runs, d[i].b_runs,
                d[i].missing ? "true" : "false");
        cb_json_field(f, ",\"verdict\":", d[i].reading);
        cb_json_field(f, ",\"steps_changed\":", d[i].changed);
        fputc('}', f);
    }
    fputc(']', f);
}

void cb_path_versus_print(const struct cb_path_delta *d, size_t n, int style, FILE *f)
{
    if (style == CB_PATHV_JSON) {
        print_json(d, n, f);
        return;
    }
    if (n == 0)
        return;
    int md = style == CB_PATHV_MARKDOWN;
    fprintf(f, md ? "\n#### Paths (cycles per packet)\n\n%s\n\n| path | base | head | change | verdict (its steps') |"
                    " steps changed |\n|---|---:|---:|---:|---|---|\n"
                  : "\npaths: one packet's steps summed, cycles per packet (%s)\n",
            "a path's verdict is its steps' cases' verdicts above; 'budget --path' shows the steps");
    for (size_t i = 0; i < n; i++) {
        const char *gap = d[i].missing ? " (a step missing)" : "";
        if (md) {
            /* a user's path file names the path: no markup may escape */
            fputs("| ", f);
            cb_md_code(f, d[i].key, 1);
            fprintf(f, " | %.1f | %.1f | %+.1f%% | %s%s | ", d[i].a, d[i].b, d[i].pct, d[i].reading, gap);
            cb_md_code(f, d[i].changed[0] ? d[i].changed : "-", 1);
            fputs(" |\n", f);
        } else {
            fprintf(f, "  %-18s %9.1f -> %9.1f  %+6.1f%%  %s%s%s%s\n", d[i].key, d[i].a, d[i].b, d[i].pct,
                    d[i].reading, gap, d[i].changed[0] ? "; steps changed: " : "", d[i].changed);
        }
    }
}
