/* cmd_compare.c — `compare`, `ack` and `bisect-check`: the CI gate.
 *
 * compare's exit status is the contract: 0 no regression, 1 a regression
 * that nobody acknowledged, 2 a usage or tool error.  It fails only for the
 * right reason: a regression needs a corrected p-value below --alpha and an
 * interval wholly beyond --threshold; runs from different
 * environments are refused rather than compared; aborted and running runs
 * count only when asked.  bisect-check speaks git bisect run's language
 * instead: 0 good, 1 bad, 125 cannot tell, and 128 (abort the bisection)
 * for errors, because git would read exit 2 as "bad". */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "collect.h"
#include "compare.h"
#include "fingerprint.h"
#include "meter.h"
#include "parse.h"
#include "probe.h"
#include "shell.h"
#include "sides.h"
#include "tsc.h"

#define BISECT_ERROR 128

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    stop_flag = sig;
}

enum fmt { FMT_TEXT, FMT_MARKDOWN, FMT_JSON };
enum corr { CORR_HOLM, CORR_BH };

struct cmp_opts {
    double alpha, threshold;      /* threshold as a fraction */
    double run_q;                 /* each run's figure when runs are the unit */
    double trim;                  /* Yuen's trimming fraction (0: Welch) */
    int keep_contended;           /* 1: do not leave out runs measured on a shared core */
    enum corr corr;
    enum fmt fmt;
    const char *glob;             /* restrict to cases matching; NULL all */
};

struct cmp_row {
    const struct cb_side_case *a, *b;
    struct cb_cmp_stats s;
    double p_adj;
    enum cb_cmp_verdict v;
    size_t left_out;              /* runs left out: too few samples on a quiet core */
    size_t samples_left_out;      /* samples of kept runs taken on a shared core */
    int all_contended;            /* too few quiet runs on a side: every run was used */
    int acked;
    char why[256];
};

struct cmp_result {
    struct cmp_row *rows;
    size_t n;
    int count[4];                 /* per verdict */
    int acked;                    /* regressions acknowledged */
};

/* "2", "2%", "0.5%": a percentage in [0, 100], as a fraction. */
static int parse_pct(const char *s, const char *what, double *out, char *err, size_t errlen)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        goto bad;
    memcpy(buf, s, n + 1);
    if (buf[n - 1] == '%')
        buf[--n] = '\0';
    if (n == 0 || strspn(buf, "0123456789.") != n)
        goto bad;
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v) || v < 0 || v > 100)
        goto bad;
    *out = v / 100.0;
    return 0;
bad:
    snprintf(err, errlen, "%s '%s': give a percentage between 0 and 100, e.g. 2 or 2%%", what, s);
    return -EINVAL;
}

/* s as a plain decimal (digits and at most the point strtod takes: no sign,
 * exponent, "inf" or hex) into *v; 0 when it parses whole, else -EINVAL. */
static int plain_decimal(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return *s && !*end && strspn(s, "0123456789.") == strlen(s) ? 0 : -EINVAL;
}

static int parse_run_quantile(const char *s, double *out, char *err, size_t errlen)
{
    double v;
    if (plain_decimal(s, &v) < 0 || !(v >= 0 && v <= 0.5)) {
        snprintf(err, errlen,
                 "--run-quantile '%s': give a quantile from 0 (each run's fastest sample) to 0.5 "
                 "(its median), e.g. 0.1", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_trim(const char *s, double *out, char *err, size_t errlen)
{
    double v;
    if (plain_decimal(s, &v) < 0 || !(v >= 0 && v <= 0.4)) {
        snprintf(err, errlen, "--trim '%s': give the share of runs to trim from each end, 0 to 0.4, e.g. 0.2", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int parse_alpha(const char *s, double *out, char *err, size_t errlen)
{
    double v;
    if (plain_decimal(s, &v) < 0 || !(v > 0 && v < 1)) {
        snprintf(err, errlen, "--alpha '%s': give a probability strictly between 0 and 1, e.g. 0.01", s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/* One case's statistics on the quiet samples (cb_runs_quiet) of each side.
 * With two or more runs a side, runs are the unit and each side must keep
 * two runs with enough quiet samples; otherwise samples are the unit and
 * each side must keep one.  When a side keeps too few, every sample is used
 * and the row says so. */
static int case_stats(const struct cb_side_case *a, const struct cb_side_case *b,
                      const struct cmp_opts *o, struct cmp_row *r)
{
    int runs_unit = a->nruns >= 2 && b->nruns >= 2;
    size_t need = runs_unit ? 2 : 1;
    double *va = malloc(a->n * sizeof *va), *vb = malloc(b->n * sizeof *vb);
    size_t *ea = malloc(a->nruns * sizeof *ea), *eb = malloc(b->nruns * sizeof *eb);
    int rc = -ENOMEM;
    if (va && vb && ea && eb) {
        size_t da, db;
        size_t ka = cb_runs_quiet(a->v, o->keep_contended ? NULL : a->smt, a->ends, a->nruns,
                                  CB_QUIET_MIN, va, ea, &da);
        size_t kb = cb_runs_quiet(b->v, o->keep_contended ? NULL : b->smt, b->ends, b->nruns,
                                  CB_QUIET_MIN, vb, eb, &db);
        const double *ua = va, *ub = vb;
        const size_t *ua_end = ea, *ub_end = eb;
        if (ka >= need && kb >= need) {
            r->left_out = (a->nruns - ka) + (b->nruns - kb);
            r->samples_left_out = da + db;
        } else {
            r->all_contended = 1;
            ua = a->v;
            ub = b->v;
            ua_end = a->ends;
            ub_end = b->ends;
            ka = a->nruns;
            kb = b->nruns;
        }
        rc = runs_unit ? cb_cmp_stats_runs(ua, ua_end, ka, ub, ub_end, kb, o->run_q, o->trim, &r->s)
                       : cb_cmp_stats(ua, ua_end[ka - 1], ub, ub_end[kb - 1], &r->s);
    }
    free(va);
    free(vb);
    free(ea);
    free(eb);
    return rc;
}

static int evaluate(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                    const struct cmp_opts *o, struct cmp_result *res)
{
    free(res->rows);
    memset(res, 0, sizeof *res);
    res->rows = calloc(A->ncases ? A->ncases : 1, sizeof *res->rows);
    if (!res->rows)
        return -ENOMEM;
    for (size_t i = 0; i < A->ncases; i++) {
        const struct cb_side_case *a = &A->cases[i];
        const struct cb_side_case *b = cb_side_find(B, a->key);
        if (!b || (o->glob && fnmatch(o->glob, a->key, 0) != 0))
            continue;
        struct cmp_row *r = &res->rows[res->n++];
        r->a = a;
        r->b = b;
        int rc = case_stats(a, b, o, r);
        if (rc < 0)
            return rc;
    }
    double *p = malloc((res->n ? res->n : 1) * sizeof *p);
    if (!p)
        return -ENOMEM;
    for (size_t i = 0; i < res->n; i++)
        p[i] = res->rows[i].s.p;
    int rc = o->corr == CORR_HOLM ? cb_p_adjust_holm(p, res->n, p) : cb_p_adjust_bh(p, res->n, p);
    for (size_t i = 0; rc == 0 && i < res->n; i++) {
        struct cmp_row *r = &res->rows[i];
        r->p_adj = p[i];
        r->v = cb_cmp_decide(r->p_adj, r->s.lo, r->s.hi, o->alpha, o->threshold);
        res->count[r->v]++;
        if (r->v == CB_CMP_REGRESSED &&
            cb_ack_lookup(st, r->a->key, (const char(*)[64])B->commits, B->ncommits, r->why,
                          sizeof r->why)) {
            r->acked = 1;
            res->acked++;
        }
    }
    free(p);
    return rc;
}

static void describe_side(struct cb_store *st, const struct cb_side *s, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "%s = run%s ", s->spec, s->nruns > 1 ? "s" : "");
    for (size_t i = 0; i < s->nruns && off < len; i++) {
        if (i == 8) {
            off += (size_t)snprintf(buf + off, len - off, ",...");
            break;
        }
        off += (size_t)snprintf(buf + off, len - off, "%s%lld", i ? "," : "", (long long)s->runs[i]);
    }
    (void)st;
    if (s->ncommits == 1 && off < len)
        snprintf(buf + off, len - off, " (commit %.12s)", s->commits[0]);
    else if (s->ncommits > 1 && off < len)
        snprintf(buf + off, len - off, " (%zu commits)", s->ncommits);
}

static void fmt_pct(double x, char *buf, size_t len)
{
    if (isnan(x))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%+.1f%%", 100.0 * x);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.6g", x);
    else
        fputs("null", f);
}

/* What the contention meter made compare do: text in two lines at
 * most, markdown as bullets. */
static void print_contention(FILE *f, const struct cmp_result *res, int md)
{
    size_t runs = 0, samples = 0, total = 0, stuck = 0;
    for (size_t i = 0; i < res->n; i++) {
        runs += res->rows[i].left_out;
        samples += res->rows[i].samples_left_out;
        total += res->rows[i].a->n + res->rows[i].b->n;
        stuck += (size_t)res->rows[i].all_contended;
    }
    const char *lead = md ? "- contention: " : "contention   ", *wrap = md ? " " : "\n             ";
    if (runs || samples)
        fprintf(f, "%sleft out %zu of %zu samples, taken with the core busy (meter over %.2fx its run's%s"
                   "baseline), and %zu run%s with fewer than %d quiet samples (--keep-contended keeps them)\n",
                lead, samples, total, CB_METER_SHIFT, wrap, runs, runs == 1 ? "" : "s", CB_QUIET_MIN);
    if (stuck)
        fprintf(f, "%s%zu case%s had fewer quiet runs on a side than the test needs (2 with runs as the%s"
                   "unit, else 1), so every sample was used: the core was shared; record again,%s"
                   "or on another CPU (cyclebudget calibrate --smt)\n",
                lead, stuck, stuck == 1 ? "" : "s", wrap, wrap);
}

static int row_by_runs(const struct cmp_row *r)
{
    return r->s.runs_a >= 2 && r->s.runs_b >= 2;
}

static size_t by_runs(const struct cmp_result *res)
{
    size_t k = 0;
    for (size_t i = 0; i < res->n; i++)
        k += (size_t)row_by_runs(&res->rows[i]);
    return k;
}

static const char *test_name(const struct cmp_result *res, const struct cmp_opts *o, char *buf,
                             size_t len)
{
    size_t k = by_runs(res);
    char q[32], t[48];
    if (o->trim > 0)
        snprintf(t, sizeof t, "Yuen's %g%%-trimmed t", 100 * o->trim);
    else
        snprintf(t, sizeof t, "Welch's t");
    if (o->run_q == 0.5)
        snprintf(q, sizeof q, "median");
    else if (o->run_q == 0)
        snprintf(q, sizeof q, "fastest sample");
    else
        snprintf(q, sizeof q, "%g-quantile", o->run_q);
    if (k == res->n && k)
        snprintf(buf, len, "runs as the unit: %s on the log of each run's %s", t, q);
    else if (k == 0)
        snprintf(buf, len, "samples as the unit: Mann-Whitney U, bootstrap CI of the medians' ratio");
    else
        snprintf(buf, len, "runs as the unit (%s, each run's %s) where both sides have 2+ runs, "
                 "else samples (Mann-Whitney)", t, q);
    return buf;
}

struct cmp_ctx {
    const char *metric;
    const char *crosses;          /* NULL: same environment; else the difference */
    char base_desc[512], head_desc[512];
};

static void print_result(const struct cmp_ctx *x, const struct cmp_opts *o,
                         const struct cmp_result *res, int exit_status, FILE *f)
{
    const char *unit = strcmp(x->metric, "cycles") == 0 ? "core cycles (PMU) per op"
                       : strcmp(x->metric, "cycles-est") == 0
                           ? "ESTIMATED core cycles per op (no PMU cycles on every run)"
                           : "TSC ticks per op (no PMU cycles and no estimate on every run)";
    const char *corr = o->corr == CORR_HOLM ? "Holm" : "Benjamini-Hochberg";
    if (o->fmt == FMT_JSON) {
        fputs("{\"base\":", f);
        json_str(f, x->base_desc);
        fputs(",\"head\":", f);
        json_str(f, x->head_desc);
        fputs(",\"metric\":", f);
        json_str(f, x->metric);
        fprintf(f, ",\"run_quantile\":%g", o->run_q);
        fprintf(f, ",\"alpha\":%g,\"threshold_pct\":%g,\"correction\":\"%s\",\"crosses_environments\":%s",
                o->alpha, 100 * o->threshold, o->corr == CORR_HOLM ? "holm" : "bh",
                x->crosses ? "true" : "false");
        if (x->crosses) {
            fputs(",\"environment_diff\":", f);
            json_str(f, x->crosses);
        }
        fputs(",\"cases\":[", f);
        for (size_t i = 0; i < res->n; i++) {
            const struct cmp_row *r = &res->rows[i];
            fputs(i ? ",{\"case\":" : "{\"case\":", f);
            json_str(f, r->a->key);
            fprintf(f, ",\"n_base\":%zu,\"n_head\":%zu,\"runs_base\":%zu,\"runs_head\":%zu,"
                       "\"runs_left_out\":%zu,\"samples_left_out\":%zu,\"all_runs_contended\":%s,"
                       "\"test\":\"%s\",\"median_base\":",
                    r->s.na, r->s.nb, r->s.runs_a, r->s.runs_b, r->left_out, r->samples_left_out,
                    r->all_contended ? "true" : "false", row_by_runs(r) ? "t-runs" : "mann-whitney");
            json_num(f, r->s.med_a);
            fputs(",\"median_head\":", f);
            json_num(f, r->s.med_b);
            fputs(",\"change_pct\":", f);
            json_num(f, 100 * r->s.change);
            fputs(",\"ci_lo_pct\":", f);
            json_num(f, 100 * r->s.lo);
            fputs(",\"ci_hi_pct\":", f);
            json_num(f, 100 * r->s.hi);
            fputs(",\"p\":", f);
            json_num(f, r->s.p);
            fputs(",\"p_adj\":", f);
            json_num(f, r->p_adj);
            fprintf(f, ",\"verdict\":\"%s\",\"acked\":%s", cb_cmp_verdict_name(r->v),
                    r->acked ? "true" : "false");
            if (r->acked) {
                fputs(",\"ack_why\":", f);
                json_str(f, r->why);
            }
            fputc('}', f);
        }
        fprintf(f, "],\"summary\":{\"regressed\":%d,\"improved\":%d,\"unchanged\":%d,\"unsure\":%d,"
                   "\"acknowledged\":%d},\"exit\":%d}\n",
                res->count[CB_CMP_REGRESSED], res->count[CB_CMP_IMPROVED],
                res->count[CB_CMP_UNCHANGED], res->count[CB_CMP_UNSURE], res->acked, exit_status);
        return;
    }
    int md = o->fmt == FMT_MARKDOWN;
    char tn[320];
    if (md) {
        fprintf(f, "### cyclebudget compare\n\n- base: `%s`\n- head: `%s`\n- metric: %s\n", x->base_desc,
                x->head_desc, unit);
        fprintf(f, "- test: %s\n- regression: %s-corrected p < %g and the whole 95%% CI above +%g%%\n",
                test_name(res, o, tn, sizeof tn), corr, o->alpha, 100 * o->threshold);
        if (x->crosses)
            fprintf(f, "- **this comparison crosses environments** (--force): %s\n", x->crosses);
        print_contention(f, res, 1);
        fputs("\n| case | base | head | change | 95% CI | p (adj) | verdict |\n"
              "|---|---:|---:|---:|---|---:|---|\n", f);
    } else {
        fprintf(f, "base         %s\nhead         %s\nmetric       %s\n", x->base_desc, x->head_desc, unit);
        size_t clustered = by_runs(res);
        fprintf(f, "test         %s;\n             %s over %zu case%s, alpha %g; change beyond %g%% over the whole 95%% CI\n",
                test_name(res, o, tn, sizeof tn), corr, res->n, res->n == 1 ? "" : "s", o->alpha,
                100 * o->threshold);
        if (clustered < res->n)
            fprintf(f, "caveat       %zu case%s with a single run on a side: a shift between runs (core clock,\n"
                       "             load) looks like a change; record 5+ runs per side, interleaved, to gate on it\n",
                    res->n - clustered, res->n - clustered > 1 ? "s" : "");
        if (x->crosses)
            fprintf(f, "environment  CROSSES ENVIRONMENTS (--force): %s\n", x->crosses);
        else
            fprintf(f, "environment  same fingerprint on both sides\n");
        print_contention(f, res, 0);
        fprintf(f, "\n%-34s %10s %10s %8s  %-18s %9s  %s\n", "case", "base", "head", "change",
                "95% CI", "p (adj)", "verdict");
    }
    for (size_t i = 0; i < res->n; i++) {
        const struct cmp_row *r = &res->rows[i];
        char ch[32], lo[32], hi[32], ci[80], verdict[64];
        fmt_pct(r->s.change, ch, sizeof ch);
        fmt_pct(r->s.lo, lo, sizeof lo);
        fmt_pct(r->s.hi, hi, sizeof hi);
        snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
        snprintf(verdict, sizeof verdict, "%s%s", cb_cmp_verdict_name(r->v), r->acked ? " (acknowledged)" : "");
        if (md)
            fprintf(f, "| `%s` | %.1f | %.1f | %s | %s | %.2g | %s%s%s |\n", r->a->key, r->s.med_a,
                    r->s.med_b, ch, ci, r->p_adj, r->v == CB_CMP_REGRESSED && !r->acked ? "**" : "",
                    verdict, r->v == CB_CMP_REGRESSED && !r->acked ? "**" : "");
        else
            fprintf(f, "%-34s %10.1f %10.1f %8s  %-18s %9.2g  %s\n", r->a->key, r->s.med_a, r->s.med_b,
                    ch, ci, r->p_adj, verdict);
        if (r->acked)
            fprintf(f, md ? "|  | | | | | | acknowledged: %s |\n" : "%-34s acknowledged: %s\n", md ? r->why : "",
                    r->why);
    }
    fprintf(f, "\n%s%d regressed%s, %d improved, %d unchanged, %d unsure", md ? "**" : "",
            res->count[CB_CMP_REGRESSED], md ? "**" : "", res->count[CB_CMP_IMPROVED],
            res->count[CB_CMP_UNCHANGED], res->count[CB_CMP_UNSURE]);
    if (res->acked)
        fprintf(f, " (%d regression%s acknowledged)", res->acked, res->acked > 1 ? "s" : "");
    if (res->n == 0)
        fprintf(f, " (no case in common)");
    fputc('\n', f);
}

static int exit_of(const struct cmp_result *res)
{
    return res->count[CB_CMP_REGRESSED] > res->acked ? 1 : 0;
}

/* ---- shared option parsing for compare and bisect-check ---- */

struct common {
    const char *db, *repo;
    int force, include_aborted;
    struct cmp_opts o;
};

static int common_opt(int ch, struct common *c, char *err, size_t errlen)
{
    switch (ch) {
    case 'D': c->db = optarg; return 0;
    case 'R': c->repo = optarg; return 0;
    case 'F': c->force = 1; return 0;
    case 'I': c->include_aborted = 1; return 0;
    case 'a': return parse_alpha(optarg, &c->o.alpha, err, errlen);
    case 't': return parse_pct(optarg, "--threshold", &c->o.threshold, err, errlen);
    case 'c':
        if (strcmp(optarg, "holm") == 0)
            c->o.corr = CORR_HOLM;
        else if (strcmp(optarg, "bh") == 0)
            c->o.corr = CORR_BH;
        else {
            snprintf(err, errlen, "--correction '%s': give holm or bh", optarg);
            return -EINVAL;
        }
        return 0;
    case 'G': c->o.glob = optarg; return 0;
    case 'Q': return parse_run_quantile(optarg, &c->o.run_q, err, errlen);
    case 'K': c->o.keep_contended = 1; return 0;
    case 'T': return parse_trim(optarg, &c->o.trim, err, errlen);
    }
    return 1;
}

#define COMMON_LONGOPTS                                                                  \
    {"db", required_argument, 0, 'D'}, {"repo", required_argument, 0, 'R'},              \
    {"force", no_argument, 0, 'F'}, {"include-aborted", no_argument, 0, 'I'},            \
    {"alpha", required_argument, 0, 'a'}, {"threshold", required_argument, 0, 't'},      \
    {"correction", required_argument, 0, 'c'}, {"cases", required_argument, 0, 'G'},     \
    {"run-quantile", required_argument, 0, 'Q'}, {"keep-contended", no_argument, 0, 'K'},   \
    {"trim", required_argument, 0, 'T'}

#define COMMON_HELP                                                                                   \
    "      --db PATH          database (default ./" CB_DEFAULT_DB ")\n"                               \
    "      --alpha P          significance after correction (default 0.01)\n"                         \
    "      --threshold PCT    a change must exceed this over the whole 95%% CI (default 2%%)\n"       \
    "      --correction C     holm (default: no false alarm in the family) or bh (false\n"            \
    "                         discovery rate)\n"                                                      \
    "      --cases GLOB       only cases whose name probe/variant/size/mode matches\n"                \
    "      --run-quantile Q   with 2+ runs a side, each run counts as its Q-quantile sample\n"       \
    "                         (default 0.1: robust to a shared host; 0.5 is the median)\n"          \
    "      --trim T           with 2+ runs a side, trim this share of runs from each end\n"       \
    "                         (Yuen's test; default 0: Welch's)\n"                               \
    "      --keep-contended   keep samples taken on a shared core (by default left out\n"          \
    "                         while 2+ runs a side keep 5+ quiet samples)\n"                      \
    "      --force            compare runs from different environments (the output says so)\n"      \
    "      --include-aborted  let aborted and running runs count\n"                                   \
    "      --repo DIR         git tree for resolving revisions such as HEAD~1 (default .)\n"

static void common_defaults(struct common *c)
{
    memset(c, 0, sizeof *c);
    c->db = CB_DEFAULT_DB;
    c->o.alpha = 0.01;
    c->o.threshold = 0.02;
    c->o.run_q = CB_RUN_QUANTILE_DEFAULT;
    c->o.trim = CB_RUNS_TRIM;
    c->o.corr = CORR_HOLM;
    c->o.fmt = FMT_TEXT;
}

/* Check the fingerprints: within each side and across.  Returns 0, or
 * -EXDEV with the message in err when refused. */
static int check_env(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                     int force, char *crosses, size_t clen, char *err, size_t errlen)
{
    char fa[2048], fb[2048], why[900];
    crosses[0] = '\0';
    int rc = cb_side_fingerprint(st, A, fa, sizeof fa, why, sizeof why);
    if (rc == -EXDEV)
        snprintf(crosses, clen, "%s", why);
    else if (rc < 0)
        return rc;
    rc = cb_side_fingerprint(st, B, fb, sizeof fb, why, sizeof why);
    if (rc == -EXDEV && !crosses[0])
        snprintf(crosses, clen, "%s", why);
    else if (rc < 0 && rc != -EXDEV)
        return rc;
    if (!crosses[0] && cb_fingerprint_diff(fa, fb, why, sizeof why))
        snprintf(crosses, clen, "base vs head: %s", why);
    if (crosses[0] && !force) {
        snprintf(err, errlen, "refusing to compare across environments (%.900s): measure both sides on the same "
                 "machine, kernel, build and pinned CPU (run --cpu N), or pass --force", crosses);
        return -EXDEV;
    }
    return 0;
}

static void quote_cmdline(const char *cmd, int argc, char **argv, char *buf, size_t len)
{
    size_t off = (size_t)snprintf(buf, len, "cyclebudget %s", cmd);
    for (int i = 1; i < argc && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, " %s", argv[i]);
}

static int run_cpu(struct cb_store *st, int64_t run)
{
    sqlite3_stmt *q;
    int cpu = -1;
    if (sqlite3_prepare_v2(cb_store_sqlite(st), "SELECT cpu FROM runs WHERE id = ?1", -1, &q, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(q, 1, run);
    if (sqlite3_step(q) == SQLITE_ROW)
        cpu = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    return cpu;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* A rerun is stopped by SIGINT/SIGTERM between measurements, never mid-way. */
static void catch_stop_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Measure one case of a side's key in col; its per-op metric values are
 * appended to side.  Returns 0, 1 when the case cannot be measured here, or
 * a negative errno (-EINTR on a signal). */
static int measure_into(struct cb_collector *col, const struct cb_side_case *k, const char *metric,
                        struct cb_side *side)
{
    const struct cb_probe *p = cb_probe_find(k->probe);
    const struct cb_variant *v = p ? cb_variant_find(p, k->variant) : NULL;
    int mode = cb_mode_parse(k->mode);
    if (!v || mode < 0)
        return 1;
    struct cb_measurement m;
    int rc = cb_collector_case(col, p, v, k->size, (enum cb_mode)mode, &stop_flag, NULL, &m);
    if (rc < 0)
        return rc;
    if (rc != CB_CASE_MEASURED)
        return 1;
    int idx = cb_counters_find(&col->cs, metric);
    rc = 1;
    if (idx >= 0 && m.n) {
        double *vals = malloc(m.n * sizeof *vals), *smt = malloc(m.n * sizeof *smt);
        size_t n = 0;
        for (size_t s = 0; vals && smt && s < m.n; s++) {
            double x = cb_measurement_per_op(&m, s, idx);
            if (isfinite(x)) {
                smt[n] = m.smt[s];
                vals[n++] = x;
            }
        }
        rc = vals && smt ? cb_side_append(side, k->probe, k->variant, k->size, k->mode, k->unit, vals,
                                          smt, n)
                         : -ENOMEM;
        free(vals);
        free(smt);
    }
    cb_measurement_free(&m);
    return rc;
}

/* --rerun: measure the undecided cases again with this binary, both sides
 * in turn (ABBA order, so a drift in the machine hits both alike), each into
 * a new stored run, until every case is decided or the time cap. */
static int rerun(struct cb_store *st, struct cb_side *A, struct cb_side *B, const char *metric,
                 const struct common *c, double cap_s, const char *cmdline, struct cmp_result *res,
                 char *err, size_t errlen)
{
    struct cb_collector cols[2];
    struct cb_harness_opts h;
    cb_harness_defaults(&h);
    const char *tags[2] = {"rerun-base", "rerun-head"};
    int usage = 0;
    for (int s = 0; s < 2; s++) {
        struct cb_collect_opts co = {
            .db = c->db, .events = NULL, .tag = tags[s], .repo = c->repo, .cmdline = cmdline,
            .cpu = run_cpu(st, A->runs[0]), .quiet = 1, .harness = h,
        };
        int rc = cb_collector_open(&cols[s], &co, err, errlen, &usage);
        if (rc < 0) {
            if (s)
                cb_collector_finish(&cols[0], "aborted");
            return rc;
        }
    }
    catch_stop_signals();
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct cb_side *sides[2] = {A, B};
    int rc = 0, round = 0;
    for (;;) {
        char keys[256][CB_CASE_KEY_MAX];
        size_t nk = 0;
        for (size_t i = 0; i < res->n && nk < 256; i++)
            if (res->rows[i].v == CB_CMP_UNSURE)
                snprintf(keys[nk++], CB_CASE_KEY_MAX, "%s", res->rows[i].a->key);
        double el = seconds_since(&t0);
        if (nk == 0 || el >= cap_s || stop_flag)
            break;
        fprintf(stderr, "cyclebudget: rerun round %d: %zu undecided case%s (%.0f s of %.0f s)\n",
                round + 1, nk, nk > 1 ? "s" : "", el, cap_s);
        for (size_t i = 0; i < nk && rc >= 0; i++) {
            for (int k = 0; k < 2 && rc >= 0; k++) {
                int s = (int)((round + i + (size_t)k) % 2);
                struct cb_side_case key = *cb_side_find(sides[s], keys[i]);
                rc = measure_into(&cols[s], &key, metric, sides[s]);
            }
        }
        if (rc < 0)
            break;
        round++;
        if ((rc = evaluate(st, A, B, &c->o, res)) < 0)
            break;
    }
    const char *status = rc < 0 ? "aborted" : "complete";
    for (int s = 0; s < 2; s++) {
        if (rc >= 0 && round > 0)
            cb_side_add_run(sides[s], cols[s].run_id);   /* so the output names them */
        cb_collector_finish(&cols[s], status);
    }
    if (rc == -EINTR || stop_flag) {
        snprintf(err, errlen, "interrupted: the rerun runs were marked aborted");
        return -EINTR;
    }
    if (rc < 0)
        snprintf(err, errlen, "rerun failed: %s", strerror(-rc));
    return rc;
}

/* The newest complete run with tag that is newer than after; 0 when none. */
static int64_t newest_run(struct cb_store *st, const char *tag, int64_t after)
{
    sqlite3_stmt *q;
    int64_t id = 0;
    if (sqlite3_prepare_v2(cb_store_sqlite(st),
                           "SELECT max(id) FROM runs WHERE id > ?1 AND tag = ?2 AND status = 'complete'",
                           -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(q, 1, after);
    sqlite3_bind_text(q, 2, tag, -1, SQLITE_STATIC);
    if (sqlite3_step(q) == SQLITE_ROW)
        id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return id;
}

/* Append run's values of every case to side, as one more run. */
static int take_run(struct cb_store *st, int64_t run, const char *metric, struct cb_side *side)
{
    struct cb_side one;
    memset(&one, 0, sizeof one);
    int rc = cb_side_add_run(&one, run);
    if (rc == 0)
        rc = cb_side_load(st, &one, metric);
    for (size_t i = 0; rc >= 0 && i < one.ncases; i++) {
        const struct cb_side_case *k = &one.cases[i];
        if (k->n)
            rc = cb_side_append(side, k->probe, k->variant, k->size, k->mode, k->unit, k->v, k->smt,
                                k->n);
    }
    if (rc >= 0)
        rc = cb_side_add_run(side, run);
    cb_side_free(&one);
    return rc;
}

/* --rerun with --base-exec/--head-exec: each round records one new run per
 * side of the undecided cases, by running the user's command for that side
 * (BASE's binary, HEAD's binary) as a process of its own.  A process, not
 * this one: on a VM a process draws its own host state (README, "Rounds"),
 * and only more processes average over those states; and only the user's
 * binaries hold the two sides' code.  ABBA order, as above. */
static int rerun_exec(struct cb_store *st, struct cb_side *A, struct cb_side *B, const char *metric,
                      const struct common *c, double cap_s, const char *const exec[2],
                      struct cmp_result *res, char *crosses, size_t clen, char *err, size_t errlen)
{
    static const char *const tags[2] = {"rerun-base", "rerun-head"};
    struct cb_side *sides[2] = {A, B};
    int cpu = run_cpu(st, A->runs[0]);
    char cpubuf[16];
    snprintf(cpubuf, sizeof cpubuf, "%d", cpu);
    catch_stop_signals();
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    for (int round = 0;; round++) {
        size_t nk = 0, len = 1;
        for (size_t i = 0; i < res->n; i++)
            if (res->rows[i].v == CB_CMP_UNSURE) {
                nk++;
                len += strlen(res->rows[i].a->key) + 1;
            }
        double el = seconds_since(&t0);
        if (nk == 0 || el >= cap_s || stop_flag)
            break;
        char *list = malloc(len);
        if (!list)
            return -ENOMEM;
        list[0] = '\0';
        for (size_t i = 0; i < res->n; i++)
            if (res->rows[i].v == CB_CMP_UNSURE) {
                if (list[0])
                    strcat(list, ",");
                strcat(list, res->rows[i].a->key);
            }
        fprintf(stderr, "cyclebudget: rerun round %d: %zu undecided case%s (%.0f s of %.0f s)\n",
                round + 1, nk, nk > 1 ? "s" : "", el, cap_s);
        for (int k = 0; k < 2 && rc >= 0 && !stop_flag; k++) {
            int s = (round + k) % 2;
            const char *args[] = {"--cases", list, "--tag", tags[s], "--db", c->db, "-q", "--cpu", cpubuf};
            char *cmd = cb_shell_join(exec[s], args, cpu >= 0 ? 9 : 7);
            if (!cmd) {
                rc = -ENOMEM;
                break;
            }
            int64_t before = newest_run(st, tags[s], 0);
            int status = cb_shell_run(cmd);
            int64_t run = status == 0 ? newest_run(st, tags[s], before) : 0;
            if (status != 0 || run == 0) {
                if (stop_flag || status == 130)
                    rc = -EINTR;
                else {
                    const char *side = s ? "head" : "base";
                    char what[64];
                    if (status < 0)
                        snprintf(what, sizeof what, "could not start (%s)", strerror(-status));
                    else if (status)
                        snprintf(what, sizeof what, "exited with status %d", status);
                    else
                        snprintf(what, sizeof what, "stored no complete run tagged %s", tags[s]);
                    snprintf(err, errlen, "rerun: the %s command %s: %.400s; it must record a run "
                             "(compare appends --cases, --tag, --db, -q), e.g. --%s-exec "
                             "'path/to/cyclebudget run'", side, what, exec[s], side);
                    rc = -ECHILD;
                }
            } else {
                rc = take_run(st, run, metric, sides[s]);
            }
            free(cmd);
        }
        free(list);
        if (rc < 0 || stop_flag)
            break;
        /* A side's command that measures in another environment (another
         * build's flags, CPU) is refused after its first run, not after the
         * whole time cap.  The last check's crosses is what compare prints. */
        if ((rc = check_env(st, A, B, c->force, crosses, clen, err, errlen)) < 0) {
            if (rc != -EXDEV)
                snprintf(err, errlen, "rerun: cannot read the new runs' environment: %s", strerror(-rc));
            return rc;
        }
        if ((rc = evaluate(st, A, B, &c->o, res)) < 0)
            break;
    }
    if (rc == -EINTR || stop_flag) {
        snprintf(err, errlen, "interrupted: the runs recorded so far stay in %s", c->db);
        return -EINTR;
    }
    if (rc < 0 && rc != -ECHILD)
        snprintf(err, errlen, "rerun failed: %s", strerror(-rc));
    return rc;
}

static void compare_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget compare BASE HEAD [options]\n"
            "  BASE, HEAD: a run id, 'latest', a tag (all its runs), a commit (hash prefix or\n"
            "  git revision: all its runs), or a comma list of those (pooled)\n"
            COMMON_HELP
            "      --format F         text (default), markdown (for a pull request) or json\n"
            "      --rerun            measure the undecided cases again, both sides\n"
            "                         interleaved, until decided or --rerun-time\n"
            "      --rerun-time SEC   the time cap of --rerun (default 60)\n"
            "      --base-exec CMD    with --rerun: record BASE's new runs by running CMD (a\n"
            "      --head-exec CMD    shell command that records a run, e.g. 'base/cyclebudget\n"
            "                         run --reps 30'), each run a process of its own; both\n"
            "                         or neither.  Without them, this binary measures both\n"
            "                         sides, for A/A checks only\n"
            "exit status: 0 no regression, 1 an unacknowledged regression, 2 usage or tool error\n");
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        COMMON_LONGOPTS,
        {"format", required_argument, 0, 'f'}, {"rerun", no_argument, 0, 'r'},
        {"rerun-time", required_argument, 0, 'X'}, {"base-exec", required_argument, 0, 'B'},
        {"head-exec", required_argument, 0, 'H'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct common c;
    common_defaults(&c);
    int do_rerun = 0;
    double cap_s = 60;
    const char *exec[2] = {NULL, NULL};
    char err[1536];
    char cmdline[2048];
    quote_cmdline("compare", argc, argv, cmdline, sizeof cmdline);
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int r = common_opt(ch, &c, err, sizeof err);
        if (r < 0)
            goto usage_err;
        if (r == 0)
            continue;
        switch (ch) {
        case 'f':
            if (strcmp(optarg, "text") == 0)
                c.o.fmt = FMT_TEXT;
            else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
                c.o.fmt = FMT_MARKDOWN;
            else if (strcmp(optarg, "json") == 0)
                c.o.fmt = FMT_JSON;
            else {
                snprintf(err, sizeof err, "--format '%s': give text, markdown or json", optarg);
                goto usage_err;
            }
            break;
        case 'r': do_rerun = 1; break;
        case 'X':
            if (cb_parse_seconds(optarg, "--rerun-time", &cap_s, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'B': exec[0] = optarg; break;
        case 'H': exec[1] = optarg; break;
        case 'h': compare_usage(stdout); return 0;
        default: return cb_option_error("compare", argv);
        }
    }
    if ((exec[0] || exec[1]) && (!exec[0] || !exec[1] || !do_rerun || !*exec[0] || !*exec[1])) {
        snprintf(err, sizeof err, "--base-exec and --head-exec go together, with --rerun: give both "
                 "commands (e.g. --base-exec 'base/cyclebudget run --reps 30')");
        goto usage_err;
    }
    if (argc - optind != 2) {
        snprintf(err, sizeof err, "compare needs exactly two sides, BASE and HEAD (got %d); see 'cyclebudget compare --help'",
                 argc - optind);
        goto usage_err;
    }
    struct cb_store *st;
    int rc = cb_store_open(c.db, CB_STORE_READ, 0, &st, err, sizeof err);
    if (rc < 0)
        goto usage_err;
    struct cb_side A, B;
    memset(&B, 0, sizeof B);
    struct cmp_result res = {0};
    struct cmp_ctx x = {0};
    char crosses[1024];
    int status = CB_EXIT_USAGE;
    if ((rc = cb_side_resolve(st, argv[optind], c.include_aborted, c.repo, &A, err, sizeof err)) < 0 ||
        (rc = cb_side_resolve(st, argv[optind + 1], c.include_aborted, c.repo, &B, err, sizeof err)) < 0 ||
        (rc = check_env(st, &A, &B, c.force, crosses, sizeof crosses, err, sizeof err)) < 0) {
        cb_die_msg("%s", err);
        goto out;
    }
    x.crosses = crosses[0] ? crosses : NULL;
    x.metric = cb_sides_metric(st, &A, &B);
    if ((rc = cb_side_load(st, &A, x.metric)) < 0 || (rc = cb_side_load(st, &B, x.metric)) < 0 ||
        (rc = evaluate(st, &A, &B, &c.o, &res)) < 0) {
        cb_die_msg("cannot read the samples from %s: %s", c.db, strerror(-rc));
        goto out;
    }
    if (c.o.glob && res.n == 0) {
        cb_die_msg("--cases '%s' matches no case common to both sides (names look like csum/adc-1chain/1500/warm)",
                   c.o.glob);
        goto out;
    }
    if (do_rerun && res.count[CB_CMP_UNSURE] > 0) {
        rc = exec[0] ? rerun_exec(st, &A, &B, x.metric, &c, cap_s, exec, &res, crosses, sizeof crosses,
                                  err, sizeof err)
                     : rerun(st, &A, &B, x.metric, &c, cap_s, cmdline, &res, err, sizeof err);
        if (rc < 0) {
            cb_die_msg("%s", err);
            status = rc == -EINTR ? 130 : CB_EXIT_USAGE;
            goto out;
        }
        x.crosses = crosses[0] ? crosses : NULL;
    }
    describe_side(st, &A, x.base_desc, sizeof x.base_desc);
    describe_side(st, &B, x.head_desc, sizeof x.head_desc);
    status = exit_of(&res);
    print_result(&x, &c.o, &res, status, stdout);
out:
    free(res.rows);
    cb_side_free(&A);
    cb_side_free(&B);
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}

/* ---- ack ---- */

static void ack_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget ack CASE COMMIT --why TEXT [--db PATH] [--repo DIR]\n"
            "       cyclebudget ack --list [--db PATH]\n"
            "  CASE    a case name probe/variant/size/mode, or a glob (csum/*/1500/warm)\n"
            "  COMMIT  the commit that made the change: a hash prefix or a git revision\n"
            "An acknowledged regression stays in compare and history, marked, but no longer\n"
            "fails compare.\n");
}

int cmd_ack(int argc, char **argv)
{
    static const struct option opts[] = {
        {"why", required_argument, 0, 'w'}, {"db", required_argument, 0, 'D'},
        {"repo", required_argument, 0, 'R'}, {"list", no_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},      {0, 0, 0, 0},
    };
    const char *why = NULL, *db = CB_DEFAULT_DB, *repo = NULL;
    int list = 0;
    char err[1024];
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'w': why = optarg; break;
        case 'D': db = optarg; break;
        case 'R': repo = optarg; break;
        case 'l': list = 1; break;
        case 'h': ack_usage(stdout); return 0;
        default: return cb_option_error("ack", argv);
        }
    }
    if (!list && argc - optind != 2) {
        snprintf(err, sizeof err, "ack needs a CASE and a COMMIT (got %d arguments); see 'cyclebudget ack --help'",
                 argc - optind);
        goto usage_err;
    }
    if (!list && (!why || strspn(why, " \t\n") == strlen(why))) {
        snprintf(err, sizeof err, "ack needs --why \"...\": say why the change is expected, for whoever sees it next");
        goto usage_err;
    }
    struct cb_store *st;
    if (cb_store_open(db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    sqlite3 *h = cb_store_sqlite(st);
    sqlite3_stmt *q;
    int status = 1;
    if (list) {
        if (sqlite3_prepare_v2(h, "SELECT case_glob, substr(commit_hash, 1, 12), created, why FROM acks ORDER BY id",
                               -1, &q, NULL) != SQLITE_OK)
            goto sqlfail;
        while (sqlite3_step(q) == SQLITE_ROW)
            printf("%-34s %s  %.19s  %s\n", sqlite3_column_text(q, 0), sqlite3_column_text(q, 1),
                   sqlite3_column_text(q, 2), sqlite3_column_text(q, 3));
        sqlite3_finalize(q);
        cb_store_close(st);
        return 0;
    }
    const char *glob = argv[optind];
    /* A glob that matches nothing is a typo, not an acknowledgement. */
    if (sqlite3_prepare_v2(h, "SELECT DISTINCT probe, variant, size, mode FROM cases", -1, &q, NULL) != SQLITE_OK)
        goto sqlfail;
    int hits = 0;
    while (!hits && sqlite3_step(q) == SQLITE_ROW) {
        char key[CB_CASE_KEY_MAX];
        cb_case_key(key, sizeof key, (const char *)sqlite3_column_text(q, 0),
                    (const char *)sqlite3_column_text(q, 1), (uint64_t)sqlite3_column_int64(q, 2),
                    (const char *)sqlite3_column_text(q, 3));
        hits = fnmatch(glob, key, 0) == 0;
    }
    sqlite3_finalize(q);
    if (!hits) {
        snprintf(err, sizeof err, "case '%s' matches no case in %s (names look like csum/adc-1chain/1500/warm)", glob, db);
        cb_store_close(st);
        goto usage_err;
    }
    char hash[64];
    if (cb_commit_resolve(st, argv[optind + 1], repo, hash, sizeof hash, err, sizeof err) < 0) {
        cb_store_close(st);
        goto usage_err;
    }
    if (sqlite3_prepare_v2(h, "INSERT INTO acks (case_glob, commit_hash, why) VALUES (?1, ?2, ?3) "
                              "ON CONFLICT (case_glob, commit_hash) DO UPDATE SET why = excluded.why, "
                              "created = excluded.created",
                           -1, &q, NULL) != SQLITE_OK)
        goto sqlfail;
    sqlite3_bind_text(q, 1, glob, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, why, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        goto sqlfail;
    printf("acknowledged %s at %.12s: %s\n", glob, hash, why);
    cb_store_close(st);
    return 0;
sqlfail:
    cb_die_msg("cannot record the acknowledgement in %s: %s", db, sqlite3_errmsg(h));
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}

/* ---- bisect-check ---- */

static void bisect_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget bisect-check --against BASE [options]\n"
            "  measures this binary's cases that BASE has (stored as a new run tagged 'bisect')\n"
            "  and compares BASE with them, for 'git bisect run'\n"
            COMMON_HELP
            "      --reps N           exactly N samples per case (default: adaptive)\n"
            "      --max-time SEC     time cap per case when adaptive (default 0.25)\n"
            "      --rounds N         measure each case in N rounds with an idle pause between\n"
            "                         (as 'run --rounds'; default 1)\n"
            "      --cold-bytes SIZE  cold-mode working set\n"
            "  -q, --quiet            no table, only the verdict line\n"
            "exit status: 0 good, 1 bad (regressed against BASE), 125 cannot tell (skip),\n"
            "128 error (aborts git bisect run, which would read 1..127 as bad)\n");
}

int cmd_bisect_check(int argc, char **argv)
{
    static const struct option opts[] = {
        COMMON_LONGOPTS,
        {"against", required_argument, 0, 'A'}, {"reps", required_argument, 0, 'n'},
        {"max-time", required_argument, 0, 'm'}, {"cold-bytes", required_argument, 0, 'C'},
        {"rounds", required_argument, 0, 'N'},  {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct common c;
    common_defaults(&c);
    const char *against = NULL;
    int quiet = 0;
    struct cb_harness_opts h;
    cb_harness_defaults(&h);
    char err[1536];
    long lv;
    uint64_t u64;
    char cmdline[2048];
    quote_cmdline("bisect-check", argc, argv, cmdline, sizeof cmdline);
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        int r = common_opt(ch, &c, err, sizeof err);
        if (r < 0)
            goto usage_err;
        if (r == 0)
            continue;
        switch (ch) {
        case 'A': against = optarg; break;
        case 'n':
            if (cb_parse_long(optarg, 1, 1000000, "--reps", &lv, err, sizeof err) < 0)
                goto usage_err;
            h.reps = (int)lv;
            break;
        case 'm':
            if (cb_parse_seconds(optarg, "--max-time", &h.case_seconds, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'C':
            if (cb_parse_size(optarg, &u64, err, sizeof err) < 0)
                goto usage_err;
            h.cold_bytes = u64;
            break;
        case 'N':
            if (cb_parse_long(optarg, 1, CB_MAX_ROUNDS, "--rounds", &lv, err, sizeof err) < 0)
                goto usage_err;
            h.rounds = (int)lv;
            break;
        case 'q': quiet = 1; break;
        case 'h': bisect_usage(stdout); return 0;
        default: cb_option_error("bisect-check", argv); return BISECT_ERROR;
        }
    }
    if (!against || optind < argc) {
        snprintf(err, sizeof err, "bisect-check needs --against BASE and nothing else; see 'cyclebudget bisect-check --help'");
        goto usage_err;
    }
    struct cb_store *st;
    if (cb_store_open(c.db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    struct cb_side A, B, keys;
    memset(&B, 0, sizeof B);
    memset(&keys, 0, sizeof keys);
    int status = BISECT_ERROR, rc;
    if ((rc = cb_side_resolve(st, against, c.include_aborted, c.repo, &A, err, sizeof err)) < 0 ||
        (rc = cb_side_load(st, &A, "tsc")) < 0) {
        if (rc != -ENOENT && rc != -EINVAL)
            snprintf(err, sizeof err, "cannot read %s: %s", c.db, strerror(-rc));
        cb_store_close(st);
        cb_side_free(&A);
        goto usage_err;
    }
    int cpu = run_cpu(st, A.runs[0]);
    cb_store_close(st);
    /* Measure every case the base has (that this binary knows). */
    struct cb_collect_opts co = {
        .db = c.db, .tag = "bisect", .repo = c.repo, .cmdline = cmdline, .cpu = cpu, .quiet = 1,
        .harness = h,
    };
    struct cb_collector col;
    int usage = 0;
    if ((rc = cb_collector_open(&col, &co, err, sizeof err, &usage)) < 0) {
        cb_side_free(&A);
        goto usage_err;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    size_t measured = 0;
    for (size_t i = 0; i < A.ncases && rc >= 0; i++) {
        if (c.o.glob && fnmatch(c.o.glob, A.cases[i].key, 0) != 0)
            continue;
        rc = measure_into(&col, &A.cases[i], "tsc", &keys);
        if (rc == 0)
            measured++;
    }
    int64_t run_id = col.run_id;
    cb_collector_finish(&col, rc < 0 ? "aborted" : "complete");
    if (rc < 0) {
        cb_die_msg("measuring failed (%s): run %lld marked aborted", strerror(-rc), (long long)run_id);
        cb_side_free(&A);
        cb_side_free(&keys);
        return rc == -EINTR ? 130 : BISECT_ERROR;
    }
    cb_side_free(&keys);
    cb_side_free(&A);
    /* Compare from the store, exactly as 'compare BASE RUN' would. */
    if (cb_store_open(c.db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    struct cmp_result res = {0};
    char crosses[1024];
    char runspec[32];
    snprintf(runspec, sizeof runspec, "%lld", (long long)run_id);
    struct cmp_ctx x = {0};
    if (measured == 0) {
        cb_die_msg("none of the cases of '%s' can be measured by this binary: cannot tell", against);
        status = 125;
        goto out;
    }
    if ((rc = cb_side_resolve(st, against, c.include_aborted, c.repo, &A, err, sizeof err)) < 0 ||
        (rc = cb_side_resolve(st, runspec, 1, c.repo, &B, err, sizeof err)) < 0 ||
        (rc = check_env(st, &A, &B, c.force, crosses, sizeof crosses, err, sizeof err)) < 0) {
        cb_die_msg("%s", err);
        /* A different environment (governor, SMT, microcode, pinned CPU...)
         * changes timings by itself: this commit cannot be judged, but the
         * bisection can go on with the next one. */
        if (rc == -EXDEV) {
            printf("bisect-check: cannot tell (skip): this run's environment differs from %s's "
                   "(%s)\n", against, crosses);
            status = 125;
        }
        goto out;
    }
    x.crosses = crosses[0] ? crosses : NULL;
    x.metric = cb_sides_metric(st, &A, &B);
    describe_side(st, &A, x.base_desc, sizeof x.base_desc);
    snprintf(x.head_desc, sizeof x.head_desc, "this tree = run %lld", (long long)run_id);
    if ((rc = cb_side_load(st, &A, x.metric)) < 0 || (rc = cb_side_load(st, &B, x.metric)) < 0 ||
        (rc = evaluate(st, &A, &B, &c.o, &res)) < 0) {
        cb_die_msg("cannot read the samples from %s: %s", c.db, strerror(-rc));
        goto out;
    }
    struct cb_bisect_row *br = calloc(res.n ? res.n : 1, sizeof *br);
    if (!br) {
        cb_die_msg("out of memory");
        goto out;
    }
    size_t shared_bad = 0;
    for (size_t i = 0; i < res.n; i++) {
        br[i] = (struct cb_bisect_row){res.rows[i].v, res.rows[i].acked, res.rows[i].all_contended};
        shared_bad += br[i].v == CB_CMP_REGRESSED && !br[i].acked && br[i].shared;
    }
    status = cb_bisect_exit(br, res.n);
    free(br);
    if (!quiet)
        print_result(&x, &c.o, &res, status, stdout);
    printf("bisect-check: %s (run %lld against %s)\n",
           status == 0 ? "good" : status == 1 ? "bad: regressed" : "cannot tell (skip)",
           (long long)run_id, against);
    if (status == 125 && shared_bad)
        printf("bisect-check: %zu regressed case%s measured with the core busy (an SMT sibling or "
               "the host: the contention meter over %.2fx its run's baseline) the whole "
               "time: not trusted; run again, or pin BASE and this check to a quiet CPU "
               "(cyclebudget calibrate --smt)\n", shared_bad, shared_bad > 1 ? "s were" : " was",
               CB_METER_SHIFT);
out:
    free(res.rows);
    cb_side_free(&A);
    cb_side_free(&B);
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return BISECT_ERROR;
}
