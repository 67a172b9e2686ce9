/* verdict_text.c — a verdict (analysis/verdict.h) printed as text,
 * markdown (for a pull request) and JSON (verdict_out.h); JUnit XML in
 * verdict_junit.c. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/meter.h"
#include "report/path.h"
#include "report/report.h"
#include "report/verdict_out.h"

/* Exact counts move by less than timings can show: three decimals. */
static void fmt_pct(double x, int exact, char *buf, size_t len)
{
    if (isnan(x))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, exact ? "%+.3f%%" : "%+.1f%%", 100.0 * x);
}

/* What the contention meter made compare do: text in two lines at
 * most, markdown as bullets. */
static void print_contention(FILE *f, const struct cmp_result *res, int md)
{
    size_t runs = 0, samples = 0, total = 0, caseruns = 0;
    for (size_t i = 0; i < res->n; i++) {
        runs += res->rows[i].left_out;
        samples += res->rows[i].samples_left_out;
        total += res->rows[i].a->n + res->rows[i].b->n;
        caseruns += res->rows[i].a->nruns + res->rows[i].b->nruns;
    }
    const char *lead = md ? "- host state: " : "host state   ", *wrap = md ? " " : "\n             ";
    if (runs || samples)
        fprintf(f, "%sleft out %zu of %zu samples, taken with the core busy (meter over %.2fx its run's%s"
                   "baseline), and %zu of %zu case runs (one case in one run) with fewer than %d quiet%s"
                   "samples or a flagged case clock (--keep-contended keeps them)\n",
                lead, samples, total, CB_METER_SHIFT, wrap, runs, caseruns, CB_QUIET_MIN, wrap);
    if (res->host_state)
        fprintf(f, "%s%d case%s had fewer quiet runs on a side than the test needs (2 with runs as%s"
                   "the unit, else 1): the host was busy, so no change is called on %s; measure%s"
                   "again (compare --rerun), or on another CPU (cyclebudget calibrate --smt)\n",
                lead, res->host_state, res->host_state == 1 ? "" : "s", wrap,
                res->host_state == 1 ? "it" : "them", wrap);
    if (res->beyond)
        fprintf(f, "%s%d case%s measured in a host state changed by more than the state can%s"
                   "explain (a slowed reading's ratio, or its clock's distance from the run's):%s"
                   "called, the bound under the row\n",
                lead, res->beyond, res->beyond == 1 ? "" : "s", wrap, wrap);
}

static size_t by_runs(const struct cmp_result *res);

/* With fewer than CMP_RUNS_MIN runs a side: what the floor was learned
 * from, or that there is none yet and exactly what to record for one. */
static void print_floor(FILE *f, const struct cmp_ctx *x, const struct cmp_result *res, int md)
{
    const char *lead = md ? "- noise floor: " : "noise floor  ", *wrap = md ? " " : "\n             ";
    size_t few = res->n - by_runs(res), nf = res->by_test[CMP_TEST_NOFLOOR];
    if (res->by_test[CMP_TEST_FLOOR])
        fprintf(f, "%s%zu of %zu case%s with fewer than %d runs a side judged against the spread%s"
                   "between runs of the same bytes on this host and environment:%s"
                   "%zu other runs in %zu group%s, and %zu case runs of the sides' own (each side%s"
                   "a group of its own)\n", lead,
                res->by_test[CMP_TEST_FLOOR], few, few == 1 ? "" : "s", CMP_RUNS_MIN, wrap, wrap,
                res->floor_runs, res->floor_groups, res->floor_groups == 1 ? "" : "s",
                res->floor_own, wrap);
    if (nf) {
        fprintf(f, "%s%zu case%s with fewer than %d runs a side and no floor yet: nothing has%s"
                   "measured how far a run of these bytes moves, so a change between two runs%s"
                   "may be drift: unsure.  One more run a side gives a floor of the sides' own;%s"
                   "or record the base's bytes %d more times on this host,%s",
                lead, nf, nf == 1 ? "" : "s", CMP_RUNS_MIN, wrap, wrap, wrap, CMP_FLOOR_RECORD, wrap);
        if (md) {
            fputs("then compare again:\n\n  ```\n  ", f);
            cb_text_puts(f, x->record[0] ? x->record : "cyclebudget run ... (as the base was recorded)");
            fprintf(f, "\n  ```\n\n  (%d times), or use compare --rerun with --base-exec and "
                       "--head-exec\n", CMP_FLOOR_RECORD);
        } else {
            fputs("then compare again:\n               ", f);
            cb_text_puts(f, x->record[0] ? x->record : "cyclebudget run ... (as the base was recorded)");
            fprintf(f, "\n             (%d times), or use compare --rerun with --base-exec and "
                       "--head-exec\n", CMP_FLOOR_RECORD);
        }
    }
    if (res->floor_unkeyed && (nf || res->by_test[CMP_TEST_FLOOR]))
        fprintf(f, "%s%zu run%s of this host recorded before runs stored the bytes they measured%s"
                   "(schema 20) left out of the floor\n", lead, res->floor_unkeyed,
                res->floor_unkeyed == 1 ? "" : "s", wrap);
}

/* An interval estimated from the data at hand; else the rows say
 * CMP_NO_INTERVAL (one run a side gave [-9.8%, +7761.3%] on PostgreSQL). */
static int has_interval(const struct cmp_row *r)
{
    return isfinite(r->s.lo) && isfinite(r->s.hi) && r->test != CMP_TEST_NOFLOOR;
}

static int row_by_runs(const struct cmp_row *r)
{
    return r->test == CMP_TEST_RUNS;
}

static const char *row_test(const struct cmp_row *r)
{
    return r->test == CMP_TEST_RUNS ? "t-runs" : r->test == CMP_TEST_FLOOR ? "noise-floor" : "no-floor";
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
    if (o->exact) {
        snprintf(buf, len, "exact counts: no statistical test; the change of the medians decides");
        return buf;
    }
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
        snprintf(buf, len, "fewer than %d runs a side: each run's %s against the between-run noise "
                 "floor (t), and a within-run test (Mann-Whitney) that must agree", CMP_RUNS_MIN, q);
    else
        snprintf(buf, len, "runs as the unit (%s, each run's %s) where both sides have %d+ runs, "
                 "else the between-run noise floor and a within-run test", t, q, CMP_RUNS_MIN);
    return buf;
}

static const char *metric_unit(const char *metric)
{
    return strcmp(metric, "cycles") == 0       ? "core cycles (PMU) per op"
           : strcmp(metric, CB_SIDES_SIM_METRIC) == 0
               ? "SIMULATED instructions (callgrind's Ir) per op: exact counts, not timings"
           : strcmp(metric, "instructions") == 0
               ? "instructions (PMU) per op (--metric): exact counts, not timings"
           : strcmp(metric, "cycles-est") == 0 ? "ESTIMATED core cycles per op (no PMU cycles on every run)"
                                               : "TSC ticks per op (no PMU cycles and no estimate on every run)";
}

static const char *corr_name(const struct cmp_opts *o)
{
    return o->corr == CORR_HOLM ? "Holm" : "Benjamini-Hochberg";
}

/* One row of compare's JSON. */
static void json_row(const struct cmp_result *res, const struct cmp_row *r, int first, FILE *f)
{
    fputs(first ? "{\"case\":" : ",{\"case\":", f);
    cb_json_str(f, r->a->key);
    fprintf(f, ",\"n_base\":%zu,\"n_head\":%zu,\"runs_base\":%zu,\"runs_head\":%zu,"
               "\"runs_left_out\":%zu,\"samples_left_out\":%zu,\"state\":\"%s\","
               "\"test\":\"%s\",\"median_base\":",
            r->s.na, r->s.nb, r->s.runs_a, r->s.runs_b, r->left_out, r->samples_left_out,
            r->host_state ? "host" : "quiet", row_test(r));
    cb_json_num6(f, r->s.med_a);
    fputs(",\"median_head\":", f);
    cb_json_num6(f, r->s.med_b);
    fputs(",\"change_pct\":", f);
    cb_json_num6(f, 100 * r->s.change);
    fputs(",\"ci_lo_pct\":", f);
    cb_json_num6(f, has_interval(r) ? 100 * r->s.lo : NAN);
    fputs(",\"ci_hi_pct\":", f);
    cb_json_num6(f, has_interval(r) ? 100 * r->s.hi : NAN);
    if (!has_interval(r) && !res->exact)
        fputs(",\"interval\":\"" CMP_NO_INTERVAL "\"", f);
    if (isfinite(r->state_bound)) {
        fputs(",\"host_state_bound_pct\":", f);
        cb_json_num6(f, 100 * r->state_bound);
        fprintf(f, ",\"beyond_host_state\":%s", r->beyond ? "true" : "false");
    }
    if (r->test == CMP_TEST_FLOOR) {
        fputs(",\"noise_floor_pct\":", f);
        cb_json_num6(f, 100 * expm1(r->floor_sd));
        fprintf(f, ",\"noise_floor_df\":%g", r->floor_df);
        /* The within-run test a floor verdict must agree with. */
        fputs(",\"within_change_pct\":", f);
        cb_json_num6(f, 100 * r->sw.change);
        fputs(",\"within_ci_lo_pct\":", f);
        cb_json_num6(f, 100 * r->sw.lo);
        fputs(",\"within_ci_hi_pct\":", f);
        cb_json_num6(f, 100 * r->sw.hi);
        fputs(",\"within_p_adj\":", f);
        cb_json_num6(f, r->pw_adj);
    }
    char words[160];
    cmp_verdict_text(r, words, sizeof words);
    if (r->v == CB_CMP_UNSURE)
        fprintf(f, ",\"more_runs_a_side\":%zu", r->more_runs ? r->more_runs : 1);
    if (r->v == CB_CMP_UNCHANGED && isfinite(r->seen)) {
        fputs(",\"smallest_change_seen_pct\":", f);
        cb_json_num6(f, 100 * r->seen);
    }
    cb_json_field(f, ",\"says\":", words);
    fputs(",\"p\":", f);
    cb_json_num6(f, r->s.p);
    fputs(",\"p_adj\":", f);
    cb_json_num6(f, r->p_adj);
    fprintf(f, ",\"verdict\":\"%s\",\"acked\":%s", cb_cmp_verdict_name(r->v),
            r->acked ? "true" : "false");
    if (r->acked) {
        cb_json_field(f, ",\"ack_why\":", r->why);
    }
    fprintf(f, ",\"placement\":%s,\"same_code\":%s", r->placement ? "true" : "false",
            r->same_code ? "true" : "false");
    if (r->why[0] && !r->acked)
        cb_json_field(f, ",\"explained\":", r->why);
    if (r->a->code_hash[0] && strcmp(r->a->code_hash, r->b->code_hash) == 0)
        fprintf(f, ",\"code_hash\":\"%s\"", r->a->code_hash);
    fputc('}', f);
}

static void print_json(const struct cmp_ctx *x, const struct cmp_opts *o, const struct cmp_result *res,
                       int exit_status, FILE *f)
{
    cb_json_field(f, "{\"base\":", x->base_desc);
    cb_json_field(f, ",\"head\":", x->head_desc);
    cb_json_field(f, ",\"metric\":", x->metric);
    fprintf(f, ",\"run_quantile\":%g,\"exact\":%s", o->run_q, o->exact ? "true" : "false");
    fprintf(f, ",\"alpha\":%g,\"threshold_pct\":%g,\"correction\":\"%s\",\"crosses_environments\":%s",
            o->alpha, 100 * o->threshold, o->corr == CORR_HOLM ? "holm" : "bh",
            x->crosses ? "true" : "false");
    if (x->crosses) {
        cb_json_field(f, ",\"environment_diff\":", x->crosses);
    }
    if (x->cpu_note)
        cb_json_field(f, ",\"environment_note\":", x->cpu_note);
    fputs(",\"cases\":[", f);
    for (size_t i = 0; i < res->n; i++)
        json_row(res, &res->rows[i], i == 0, f);
    fputc(']', f);
    cb_path_versus_print(x->paths, x->npaths, CB_PATHV_JSON, f);
    fprintf(f, ",\"summary\":{\"regressed\":%d,\"improved\":%d,\"unchanged\":%d,\"unsure\":%d,"
               "\"acknowledged\":%d,\"placement\":%d,\"same_code\":%d,\"host_state\":%d,"
               "\"beyond_host_state\":%d},\"exit\":%d}\n",
            res->count[CB_CMP_REGRESSED], res->count[CB_CMP_IMPROVED],
            res->count[CB_CMP_UNCHANGED], res->count[CB_CMP_UNSURE], res->acked, res->placement,
            res->same_code, res->host_state, res->beyond, exit_status);
}

static void print_head_md(const struct cmp_ctx *x, const struct cmp_opts *o, const struct cmp_result *res,
                          FILE *f)
{
    char tn[320];
    /* The counts first: a pull request shows the top of the comment. */
    fprintf(f, "### cyclebudget compare\n\n**%d regressed**, %d improved, %d unchanged, **%d unsure**%s\n\n- base: ",
            res->count[CB_CMP_REGRESSED], res->count[CB_CMP_IMPROVED], res->count[CB_CMP_UNCHANGED],
            res->count[CB_CMP_UNSURE], res->n ? "" : " (no case in common)");
    cb_md_code(f, x->base_desc, 0); /* tags are the user's: no markup may escape the span */
    fputs("\n- head: ", f);
    cb_md_code(f, x->head_desc, 0);
    fprintf(f, "\n- metric: %s\n", metric_unit(x->metric));
    if (o->exact)
        fprintf(f, "- test: %s\n- regression: a change above +%g%%\n", test_name(res, o, tn, sizeof tn),
                100 * o->threshold);
    else
        fprintf(f, "- test: %s\n- regression: %s-corrected p < %g and the whole 95%% CI above +%g%%\n",
                test_name(res, o, tn, sizeof tn), corr_name(o), o->alpha, 100 * o->threshold);
    if (x->crosses)
        fprintf(f, "- **this comparison crosses environments** (--force): %s\n", x->crosses);
    if (x->cpu_note)
        fprintf(f, "- note: %s\n", x->cpu_note);
    if (by_runs(res) < res->n && !o->exact)
        print_floor(f, x, res, 1);
    print_contention(f, res, 1);
    fputs("\n| case | base | head | change | 95% CI | p/adjusted | verdict |\n"
          "|---|---:|---:|---:|---|---:|---|\n", f);
}

static void print_head_text(const struct cmp_ctx *x, const struct cmp_opts *o, const struct cmp_result *res,
                            FILE *f)
{
    char tn[320];
    char a[512], b[512];
    cb_text_clean(a, sizeof a, x->base_desc);
    cb_text_clean(b, sizeof b, x->head_desc);
    fprintf(f, "verdicts     %d regressed, %d improved, %d unchanged, %d unsure\n",
            res->count[CB_CMP_REGRESSED], res->count[CB_CMP_IMPROVED], res->count[CB_CMP_UNCHANGED],
            res->count[CB_CMP_UNSURE]);
    fprintf(f, "base         %s\nhead         %s\nmetric       %s\n", a, b, metric_unit(x->metric));
    size_t clustered = by_runs(res);
    if (o->exact)
        fprintf(f, "test         %s;\n             a change beyond %g%% over %zu case%s\n",
                test_name(res, o, tn, sizeof tn), 100 * o->threshold, res->n, res->n == 1 ? "" : "s");
    else
        fprintf(f, "test         %s;\n             %s over %zu case%s, alpha %g; change beyond %g%% over the whole 95%% CI\n",
                test_name(res, o, tn, sizeof tn), corr_name(o), res->n, res->n == 1 ? "" : "s", o->alpha,
                100 * o->threshold);
    if (clustered < res->n && !o->exact)
        print_floor(f, x, res, 0);
    if (x->crosses)
        fprintf(f, "environment  CROSSES ENVIRONMENTS (--force): %s\n", x->crosses);
    else
        fprintf(f, "environment  same fingerprint on both sides\n");
    if (x->cpu_note)
        fprintf(f, "note         %s\n", x->cpu_note);
    print_contention(f, res, 0);
    fprintf(f, "\n%-34s %10s %10s %8s  %-18s %13s  %s\n", "case", "base", "head", "change",
            "95% CI", "p/adjusted", "verdict");
}

static void print_rows(const struct cmp_result *res, int md, FILE *f)
{
    for (size_t i = 0; i < res->n; i++) {
        const struct cmp_row *r = &res->rows[i];
        char ch[32], lo[32], hi[32], ci[80], verdict[80];
        fmt_pct(r->s.change, res->exact, ch, sizeof ch);
        /* An exact count has no interval and no p: say so instead of
         * printing a zero-width CI and a NaN. */
        char p[32];
        if (res->exact) {
            snprintf(ci, sizeof ci, "exact");
            snprintf(p, sizeof p, "-");
        } else if (!has_interval(r)) {
            snprintf(ci, sizeof ci, "%s", CMP_NO_INTERVAL);
            snprintf(p, sizeof p, "-");
        } else {
            fmt_pct(r->s.lo, 0, lo, sizeof lo);
            fmt_pct(r->s.hi, 0, hi, sizeof hi);
            snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
            snprintf(p, sizeof p, "%.2g/%.2g", r->s.p, r->p_adj);
        }
        int prec = res->exact ? 3 : 1;
        cmp_verdict_text(r, verdict, sizeof verdict);
        const char *bold = cmp_row_fails(r) && md ? "**" : "";
        if (md) {
            fputs("| ", f);
            cb_md_code(f, r->a->key, 1);
        } else
            fprintf(f, "%-34s", r->a->key);
        fprintf(f, md ? " | %.*f | %.*f | %s | %s | %s | %s%s%s |\n" : " %10.*f %10.*f %8s  %-18s %13s  %s%s%s\n",
                prec, r->s.med_a, prec, r->s.med_b, ch, ci, p, bold, verdict, bold);
        if (r->why[0]) {
            fprintf(f, md ? "|  | | | | | | %s%s" : "%-34s %s", "", r->acked ? "acknowledged: " : "");
            (md ? cb_md_text : cb_text_puts)(f, r->why);
            fputs(md ? " |\n" : "\n", f);
        }
    }
}

static void print_summary(const struct cmp_result *res, int md, FILE *f)
{
    fprintf(f, "\n%s%d regressed%s, %d improved, %d unchanged, %d unsure", md ? "**" : "",
            res->count[CB_CMP_REGRESSED], md ? "**" : "", res->count[CB_CMP_IMPROVED],
            res->count[CB_CMP_UNCHANGED], res->count[CB_CMP_UNSURE]);
    if (res->acked)
        fprintf(f, " (%d regression%s acknowledged)", res->acked, res->acked > 1 ? "s" : "");
    if (res->placement)
        fprintf(f, " (%d change%s placement: the same code on both sides, placed apart)",
                res->placement, res->placement > 1 ? "s" : "");
    if (res->same_code)
        fprintf(f, " (%d unchanged by the same code at the same place)", res->same_code);
    if (res->n == 0)
        fprintf(f, " (no case in common)");
    fputc('\n', f);
}

void cmp_print_result(const struct cmp_ctx *x, const struct cmp_opts *o, enum cb_format fmt,
                      const struct cmp_result *res, int exit_status, FILE *f)
{
    if (fmt == CB_FMT_JSON) {
        print_json(x, o, res, exit_status, f);
        return;
    }
    if (fmt == CB_FMT_JUNIT) {
        cmp_print_junit(x, res, f);
        return;
    }
    int md = fmt == CB_FMT_MARKDOWN;
    if (md)
        print_head_md(x, o, res, f);
    else
        print_head_text(x, o, res, f);
    print_rows(res, md, f);
    cb_path_versus_print(x->paths, x->npaths, md ? CB_PATHV_MARKDOWN : CB_PATHV_TEXT, f);
    print_summary(res, md, f);
}


/* A path's verdict is its steps' cases' (path.h): the worst of them as the
 * gate ranks it (a regression it fails on, unsure, a regression it lets
 * pass, improved, unchanged), naming the case that decided it. */
void cmp_path_verdicts(const struct cmp_result *res, struct cb_path_delta *d, size_t n)
{
    static const char *const words[] = {"unchanged", "improved", "regressed (acknowledged or placement)",
                                        "unsure", "regressed"};
    for (size_t i = 0; i < n; i++) {
        int worst = -1, found = 0;
        const char *by = "";
        for (size_t k = 0; k < d[i].ncases; k++)
            for (size_t j = 0; j < res->n; j++) {
                const struct cmp_row *r = &res->rows[j];
                if (strcmp(r->a->key, d[i].cases[k]) != 0)
                    continue;
                int rank = r->v == CB_CMP_UNCHANGED ? 0 : r->v == CB_CMP_IMPROVED ? 1
                         : r->v == CB_CMP_UNSURE   ? 3 : (r->acked || r->excused) ? 2 : 4;
                found++;
                if (rank > worst) {
                    worst = rank;
                    by = r->a->key;
                }
            }
        if (!d[i].known)
            snprintf(d[i].reading, sizeof d[i].reading, "no verdict: a path file of one's own (compare "
                     "its steps' cases)");
        else if (!found)
            snprintf(d[i].reading, sizeof d[i].reading, "no verdict: none of its cases is on both sides");
        else if (worst == 0)
            snprintf(d[i].reading, sizeof d[i].reading, "unchanged (%d case%s)", found, found > 1 ? "s" : "");
        else
            snprintf(d[i].reading, sizeof d[i].reading, "%s (%.96s)", words[worst], by);
    }
}
