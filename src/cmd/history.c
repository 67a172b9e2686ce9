/* history.c — `cyclebudget history`: each case over commits, its steps.
 *
 * The series is one point per measured commit (every complete run of a
 * clean tree at that commit), in commit order (the commit_order view:
 * author date, then the first run).  A point is what compare makes of a
 * side: each run counts as the 0.1-quantile of its quiet samples, and the
 * point is their geometric mean (analysis/history_points.h).  Steps come
 * from the step fit (analysis/history.h); each is reported with Welch's
 * interval of the change between the runs of the segment before and those
 * of the segment after, and only when that interval excludes zero. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/arrays.h"
#include "cli/cmd.h"
#include "analysis/compare.h"
#include "host/fingerprint.h"
#include "analysis/history.h"
#include "analysis/history_points.h"
#include "report/history_html.h"
#include "report/history_text.h"
#include "store/lookup.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "report/path.h"
#include "analysis/acks.h"
#include "analysis/sides.h"

/* One machine's history kept for the page: its trends borrow from its
 * points, so both stay until the page is written. */
struct hist_kept {
    struct cb_trend *trends;
    size_t nk;
    struct cb_hist_point *pts;
    size_t np;
    const char *metric;
    char label[400], summary[448];
};

/* What the command line asked for, and what the command has read. */
struct hist {
    const char *since, *db, *repo, *glob, *host;
    const char *path;             /* --path: a per-packet path's stored totals instead */
    const char *outpath;          /* -o: the page's file (html only); NULL stdout */
    double min_change;
    long persist;
    int series, html;
    int sim, min_change_set;      /* --sim; --min-change was given */
    struct cb_store *st;
    struct cb_hist_point *pts;    /* the commits, in order, each with its runs */
    size_t np;
    const char *metric, *metric_label;
    char (*keys)[CB_CASE_KEY_MAX];  /* the case names, in the order they first appear */
    size_t nk;
    struct cb_trend *trends;      /* --format html: one per key */
    size_t nsteps, nreg, nack;
    char head[256];
    /* --format html over many machines: each one's panel, kept for the page. */
    struct hist_kept *kept;
    size_t nkept;
    char label[400];              /* the machine's, when the page has several */
};


enum { OPT_MIN_CHANGE = CB_OPT_LONG_ONLY };

static const struct cb_opt_choice formats[] = {{"text", 0}, {"html", 1}, {NULL, 0}};

/* history's option values: 0 taken, 1 not one of them, -EINVAL a bad one. */
static int history_opt(int ch, const char *arg, void *ctx, struct cb_sb *err)
{
    struct hist *H = ctx;
    switch (ch) {
    case OPT_MIN_CHANGE:
        H->min_change_set = 1;
        return cb_parse_percent(arg, "--min-change", &H->min_change, err);
    }
    return 1;
}

/* 0 parsed, 1 --help printed, -EINVAL a bad value (message in err),
 * -ENOENT an unknown option (reported). */
static int history_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct hist *H = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR(0, "since", struct hist, since, "REV",
                   "start at this commit (hash prefix or git revision)"),
        CB_OPT_CALL(OPT_MIN_CHANGE, "min-change", "PCT",
                    "a step must move the median this much (default 2%; 0.1% with --sim)"),
        CB_OPT_LONG(0, "persist", struct hist, persist, "N", 1, 100, "commits needed on each side of a step (default 2)"),
        CB_OPT_BOOL(0, "series", struct hist, series, "also print every case's series"),
        CB_OPT_BOOL(0, "sim", struct hist, sim,
                    "the runs counted under callgrind (run --sim) instead of the timed ones: a "
                    "count and a time are never one series"),
        CB_OPT_FORMAT(struct hist, html, formats,
                      "text (default) or html: one page with a trend chart per case and the steps "
                      "marked, a panel per machine (to standard output, or -o)"),
        CB_OPT_STR('o', "output", struct hist, outpath, "FILE",
                   "html: write the page there, replaced whole once written (as report -o)"),
        CB_OPT_STR(0, "host", struct hist, host, "H",
                   "only the runs of machine H: its id (as report shows it) or a hostname glob.  "
                   "Without it, a store holding several machines' runs (a merged one) shows each "
                   "machine's history in turn (html: a panel each), never one series of them all"),
        CB_OPT_STR(0, "path", struct hist, path, "NAME",
                   "a per-packet path's total in each run that stored it (every shipped path at "
                   "1500 bytes, stored by every run) instead of the cases; text only"),
        CB_OPT_STR(0, "db", struct hist, db, "PATH", "database (default ./" CB_DEFAULT_DB ")"),
        CB_OPT_STR(0, "repo", struct hist, repo, "DIR", "git tree for resolving --since (default .)"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "history",
        .synopsis = "usage: cyclebudget history [CASE-GLOB] [options]\n"
                    "  CASE-GLOB            case names probe/variant/size/mode to show (default: all)\n",
        .options = options,
        .option = history_opt,
    };
    memset(H, 0, sizeof *H);
    H->db = cb_default_db();
    H->min_change = 0.02;
    H->persist = 2;
    int rc = cb_getopt(argc, argv, &parser, H, err);
    if (rc != 0)
        return rc;
    if (argc - optind > 1) {
        cb_sb_setf(err, "history takes at most one CASE-GLOB (got %d arguments)", argc - optind);
        return -EINVAL;
    }
    if (optind < argc)
        H->glob = argv[optind];
    if (H->path && (H->html || H->outpath || H->glob || H->series || H->sim)) {
        cb_sb_setf(err, "--path shows a path's stored totals as text: leave out %s (the HTML "
                   "report draws each run's paths: 'cyclebudget report --format html')",
                   H->html || H->outpath ? "--format html and -o" : H->glob ? "the CASE-GLOB"
                   : H->series ? "--series" : "--sim");
        return -EINVAL;
    }
    if (H->outpath && !H->html) {
        cb_sb_setf(err, "-o writes the html page: give --format html too (the text "
                 "history goes to standard output)");
        return -EINVAL;
    }
    if (cb_output_check(H->outpath, H->db, err) < 0)
        return -EINVAL;
    if (H->host && !*H->host) {
        cb_sb_setf(err, "--host needs a machine id or a hostname glob");
        return -EINVAL;
    }
    /* Exact counts show a step far smaller than timings can (compare's
     * CB_CMP_EXACT_THRESHOLD). */
    if (H->sim && !H->min_change_set)
        H->min_change = CB_CMP_EXACT_THRESHOLD;
    return 0;
}


/* One metric for the whole history (PMU cycles only if every run had
 * them), every point's samples in it, and each point's environment. */
static int load_samples(struct hist *H)
{
    struct cb_side all = {0};
    int rc = 0;
    for (size_t i = 0; i < H->np && rc == 0; i++)
        for (size_t k = 0; k < H->pts[i].side.nruns && rc == 0; k++)
            rc = cb_side_add_run(&all, H->pts[i].side.runs[k]);
    H->metric = cb_sides_metric(H->st, &all, NULL);
    cb_side_free(&all);
    for (size_t i = 0; i < H->np && rc == 0; i++) {
        rc = cb_side_load(H->st, &H->pts[i].side, H->metric);
        if (rc == 0)
            rc = cb_run_fingerprint(H->st, H->pts[i].side.runs[0], H->pts[i].fp, sizeof H->pts[i].fp);
    }
    if (rc < 0)
        cb_error("cannot read the samples from %s: %s", H->db, cb_store_strerror(rc));
    return rc;
}

/* The case names matching the glob, in the order they first appear. */
static int collect_keys(struct hist *H)
{
    for (size_t i = 0; i < H->np; i++)
        for (size_t k = 0; k < H->pts[i].side.ncases; k++) {
            const char *key = H->pts[i].side.cases[k].key;
            if (H->glob && fnmatch(H->glob, key, 0) != 0)
                continue;
            size_t j = 0;
            while (j < H->nk && strcmp(H->keys[j], key) != 0)
                j++;
            if (j < H->nk)
                continue;
            char (*nkeys)[CB_CASE_KEY_MAX] = realloc(H->keys, (H->nk + 1) * sizeof *nkeys);
            if (!nkeys) {
                cb_error("out of memory");
                return -ENOMEM;
            }
            H->keys = nkeys;
            snprintf(H->keys[H->nk++], CB_CASE_KEY_MAX, "%s", key);
        }
    return 0;
}

/* The points of every machine: 0, or the exit status to end with. */
static int history_read(struct hist *H)
{
    char since_hash[64] = "";
    struct cb_sb err = CB_SB_INIT;
    if (H->since &&
        cb_commit_resolve(H->st, H->since, H->repo, since_hash, sizeof since_hash, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    int rc = cb_hist_points_read(H->st, H->sim, since_hash, &H->pts, &H->np, &err);
    if (rc == -EIO) {
        cb_error("cannot read %s: %s", H->db, err.buf);
        cb_sb_release(&err);
        return 1;
    }
    if (since_hash[0] && H->np == 0) {
        cb_error("--since %s: commit %.12s has no complete run of a clean tree", H->since, since_hash);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if (rc < 0) {
        cb_error("cannot read the samples from %s: %s", H->db, cb_store_strerror(rc));
        cb_sb_release(&err);
        return 1;
    }
    cb_sb_release(&err);
    return 0;
}

/* The samples and case names of the points (one machine's): 0, or 1 (said). */
static int history_load(struct hist *H)
{
    return load_samples(H) < 0 || collect_keys(H) < 0 ? 1 : 0;
}

/* The html page's copy of a series. */
static int trend_fill(const struct hist *H, const char *key, const struct cb_hist_series *S, struct cb_trend *tr)
{
    size_t n = S->n;
    snprintf(tr->key, sizeof tr->key, "%s", key);
    tr->n = n;
    tr->hash = malloc((n ? n : 1) * sizeof *tr->hash);
    tr->subject = malloc((n ? n : 1) * sizeof *tr->subject);
    tr->state = malloc((n ? n : 1) * sizeof *tr->state);
    tr->y = malloc((n ? n : 1) * sizeof *tr->y);
    tr->steps = malloc((n ? n : 1) * sizeof *tr->steps);
    if (!tr->hash || !tr->subject || !tr->state || !tr->y || !tr->steps) {
        cb_error("out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        tr->hash[i] = H->pts[S->idx[i]].hash;
        tr->subject[i] = H->pts[S->idx[i]].subject;
        tr->state[i] = H->pts[S->idx[i]].state;
        tr->y[i] = S->y[i];
    }
    return 0;
}

/* One step that the interval says is real: counted, and printed or kept
 * for the page. */
static void step_report(struct hist *H, const char *key, const struct cb_hist_series *S, const struct cb_step *st,
                        const double ci[3], struct cb_trend *tr)
{
    const struct cb_hist_point *p = &H->pts[S->idx[st->at]];
    const struct cb_hist_point *prev = &H->pts[S->idx[st->at - 1]];
    struct cb_sb why = CB_SB_INIT, envd = CB_SB_INIT;
    char c0[1][64], c1[1][64];
    snprintf(c0[0], 64, "%s", prev->hash);
    snprintf(c1[0], 64, "%s", p->hash);
    /* compare's rule (acks.h): an ack after the step's base, at or before its head. */
    int acked = cb_ack_covers(H->st, key, (const char(*)[64])c0, 1, (const char(*)[64])c1, 1, &why);
    int regressed = ci[0] > 0;
    H->nsteps++;
    if (regressed && !acked)
        H->nreg++;
    if (acked)
        H->nack++;
    if (tr) {
        tr->steps[tr->nsteps++] = (struct cb_trend_step){
            .at = st->at, .from = st->from, .to = st->to, .before = st->before, .after = st->after,
            .est = ci[0], .lo = ci[1], .hi = ci[2], .acked = acked,
        };
        cb_sb_copy(&why, tr->steps[tr->nsteps - 1].why, sizeof tr->steps[0].why);
        cb_sb_release(&why);
        return;
    }
    printf("%-34s %.12s  %10.1f -> %-10.1f %+6.1f%% [%+.1f%%, %+.1f%%]  %s%s  \"%.50s\"\n", key,
           p->hash, st->before, st->after, 100 * ci[0], 100 * ci[1], 100 * ci[2],
           regressed ? "regressed" : "improved", acked ? " (acknowledged)" : "", p->subject);
    if (acked)
        printf("%-34s acknowledged: %s\n", "", why.buf);
    if (cb_fingerprint_diff(prev->fp, p->fp, &envd))
        printf("%-34s note: the environment changed here too: %s\n", "", envd.buf);
    cb_sb_release(&why);
    cb_sb_release(&envd);
}

/* One case: its series, printed or kept, and its steps.  0 or -1 (said). */
static int history_case(struct hist *H, size_t k, struct cb_hist_series *S, struct cb_step *steps)
{
    const char *key = H->keys[k];
    int rc = cb_hist_series_read(H->pts, H->np, key, S);
    if (rc < 0)
        cb_error("cannot summarise %s: a run figure is not positive, or out of memory", key);
    struct cb_trend *tr = H->trends ? &H->trends[k] : NULL;
    if (rc == 0 && tr)
        rc = trend_fill(H, key, S, tr);
    if (rc < 0) {
        cb_hist_series_free(S);
        return -1;
    }
    if (H->series && !H->html) {
        printf("\n%s:\n", key);
        for (size_t i = 0; i < S->n; i++)
            printf("  %.12s %12.1f  %-44.44s  %s\n", H->pts[S->idx[i]].hash, S->y[i],
                   H->pts[S->idx[i]].subject, H->pts[S->idx[i]].state);
    }
    int ns = cb_steps_detect(S->y, S->n, H->min_change, (size_t)H->persist, steps, H->np);
    for (int s = 0; s < ns; s++) {
        double ci[3];
        cb_hist_step_interval(S, &steps[s], ci);
        if (isnan(ci[1]) || (ci[1] <= 0 && ci[2] >= 0))
            continue;     /* the interval does not exclude no change */
        step_report(H, key, S, &steps[s], ci, tr);
    }
    cb_hist_series_free(S);
    return 0;
}

/* Every case in turn.  0, or -1 when one failed (said). */
static int history_cases(struct hist *H)
{
    size_t np = H->np ? H->np : 1;
    struct cb_hist_series S = {.idx = malloc(np * sizeof *S.idx), .y = malloc(np * sizeof *S.y)};
    struct cb_step *steps = malloc(np * sizeof *steps);
    int rc = 0;
    for (size_t k = 0; S.idx && S.y && steps && k < H->nk && rc == 0; k++)
        rc = history_case(H, k, &S, steps);
    free(S.idx);
    free(S.y);
    free(steps);
    return rc;
}


static void history_header(struct hist *H)
{
    const char *metric = H->metric;
    /* With no run there is no metric: not the PMU's by default. */
    H->metric_label = H->np == 0                          ? "none (no runs)"
                      : strcmp(metric, "cycles") == 0       ? "core cycles (PMU) per op"
                      : strcmp(metric, "cycles-est") == 0 ? "ESTIMATED core cycles per op"
                      : strcmp(metric, "Ir") == 0         ? "SIMULATED instructions (callgrind's Ir) per op"
                                                          : "TSC ticks per op";
    snprintf(H->head, sizeof H->head, "history: %zu commit%s, %zu case%s; metric %s; a step needs %.1f%% and %ld "
             "commits on each side", H->np, H->np == 1 ? "" : "s", H->nk, H->nk == 1 ? "" : "s",
             H->metric_label, 100 * H->min_change, H->persist);
    if (!H->html)
        printf("%s\n", H->head);
    if (H->np == 0 && !H->html)
        cb_history_say_why_empty(H->st, H->db, stdout);
}

/* The last line, or the page.  0, or -1 (said). */
static int history_footer(struct hist *H)
{
    char tail[160];
    snprintf(tail, sizeof tail, "%zu step%s: %zu unacknowledged regression%s, %zu acknowledged", H->nsteps,
             H->nsteps == 1 ? "" : "s", H->nreg, H->nreg == 1 ? "" : "s", H->nack);
    if (!H->html) {
        printf("%s\n", tail);
        return 0;
    }
    /* The page is written once every machine is read: keep this one's. */
    struct hist_kept *k = realloc(H->kept, (H->nkept + 1) * sizeof *H->kept);
    if (!k) {
        cb_error("out of memory");
        return -1;
    }
    H->kept = k;
    k = &H->kept[H->nkept++];
    *k = (struct hist_kept){H->trends, H->nk, H->pts, H->np, H->metric_label, "", ""};
    snprintf(k->label, sizeof k->label, "%s", H->label);
    snprintf(k->summary, sizeof k->summary, "%.250s. %s.", H->head + strlen("history: "), tail);
    H->trends = NULL;
    H->pts = NULL;
    H->np = 0;
    return 0;
}

/* --format html: one page, a panel per machine kept; then they go.  0 or
 * 1 (said). */
static int history_page(struct hist *H)
{
    int rc = 0;
    struct cb_history_host *h = calloc(H->nkept + 1, sizeof *h);
    if (!h)
        rc = -ENOMEM;
    for (size_t i = 0; h && i < H->nkept; i++)
        h[i] = (struct cb_history_host){H->kept[i].label, H->kept[i].metric, H->kept[i].summary,
                                        H->kept[i].trends, H->kept[i].nk};
    struct cb_output o = {0};
    struct cb_sb err = CB_SB_INIT;
    if (rc == 0 && H->nkept) {
        rc = cb_output_open(&o, H->outpath, H->db, &err);
        if (rc == 0) {
            rc = cb_history_html(o.f, h, H->nkept);
            if (cb_output_close(&o, rc == 0, &err) < 0 && rc == 0)
                rc = -EIO;
        }
    }
    if (rc < 0 && err.buf[0])
        cb_error("%s", err.buf);
    else if (rc < 0)
        cb_error("cannot write the page: %s", strerror(-rc));
    for (size_t i = 0; i < H->nkept; i++) {
        struct hist_kept *k = &H->kept[i];
        for (size_t t = 0; k->trends && t < k->nk; t++)
            cb_free_all((void *const[]){k->trends[t].hash, k->trends[t].subject, k->trends[t].state, k->trends[t].y,
                                        k->trends[t].steps}, 5);
        free(k->trends);
        cb_hist_points_free(k->pts, k->np);
    }
    free(H->kept);
    free(h);
    H->kept = NULL;
    H->nkept = 0;
    cb_sb_release(&err);
    return rc < 0 ? 1 : 0;
}

/* What one machine's history read and made; the points go too. */
static void history_free(struct hist *H)
{
    for (size_t k = 0; H->trends && k < H->nk; k++) {
        free(H->trends[k].hash);
        free(H->trends[k].subject);
        free(H->trends[k].state);
        free(H->trends[k].y);
        free(H->trends[k].steps);
    }
    free(H->trends);
    free(H->keys);
    cb_hist_points_free(H->pts, H->np);
    H->trends = NULL;
    H->keys = NULL;
    H->nk = 0;
    H->pts = NULL;
    H->np = 0;
    H->nsteps = H->nreg = H->nack = 0;
}

/* One machine's history: header, each case's series and steps, and the
 * footer or the page.  0, 1 (said), or -1: no case matched the glob. */
static int history_one(struct hist *H)
{
    int status = history_load(H);
    if (status != 0)
        return status;
    if (H->glob && H->nk == 0)
        return -1;
    history_header(H);
    if (H->html && !(H->trends = calloc(H->nk ? H->nk : 1, sizeof *H->trends))) {
        cb_error("out of memory");
        return 1;
    }
    return history_cases(H) < 0 || history_footer(H) < 0 ? 1 : 0;
}

static const char *history_db(const void *ctx)
{
    return ((const struct hist *)ctx)->db;
}

/* The machines whose runs the points hold (those --host names): 0, or
 * the exit status to end with (said). */
static int history_machines(struct hist *H, struct cb_machine **m, size_t *n)
{
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_hist_machines(H->st, H->pts, H->np, H->host, m, n, &err);
    if (rc == -ESRCH)
        cb_error("--host %s names none of the machines with a history in %s (%s)", H->host, H->db,
                 err.buf);
    else if (rc < 0)
        cb_error("cannot read the hosts from %s: %s", H->db, strerror(-rc));
    cb_sb_release(&err);
    return rc == -ESRCH ? CB_EXIT_USAGE : rc < 0;
}

/* Read the points, then each machine's history in turn: runs of two
 * machines are never one series (a merged store holds many). */
static int history_body(void *ctx, struct cb_store *st)
{
    struct hist *H = ctx;
    H->st = st;
    if (H->path)
        return cb_path_history(st, H->path, CB_MTU, CB_CONTEXT_USER, stdout) < 0;
    struct cb_machine *m = NULL;
    size_t nm = 0;
    int status = history_read(H);
    if (status == 0)
        status = history_machines(H, &m, &nm);
    struct cb_hist_point *all = H->pts;
    size_t nall = H->np;
    H->pts = NULL;
    H->np = 0;
    int matched = 0;
    for (size_t i = 0; status == 0 && i < nm; i++) {
        if (cb_hist_points_of(st, all, nall, &m[i], &H->pts, &H->np) < 0) {
            cb_error("out of memory");
            status = 1;
            break;
        }
        H->label[0] = 0;
        if (nm > 1 || H->host)
            snprintf(H->label, sizeof H->label, "host %s [%s]: %s", m[i].hostname, m[i].id, m[i].model_name);
        if (H->label[0] && !H->html)
            printf("%s%s\n", i ? "\n" : "", H->label);
        int r = history_one(H);
        if (r == -1 && nm > 1 && !H->html)
            printf("no case matches '%s' on this machine\n", H->glob);
        else if (r == -1)
            matched = 0;
        else
            matched = 1;
        status = r > 0 ? r : 0;
        history_free(H);
    }
    if (status == 0 && nm == 0) {
        /* No point at all: the empty history, as before there were hosts. */
        status = history_one(H);
        matched = status != -1;
        status = status > 0 ? status : 0;
        history_free(H);
    }
    if (status == 0 && H->html && (!H->glob || matched))
        status = history_page(H);
    else if (H->html)
        history_page(H); /* frees what was kept */
    if (status == 0 && H->glob && !matched) {
        cb_error("'%s' matches no case with a history in %s (names look like csum/adc-1chain/1500/warm)",
                   H->glob, H->db);
        status = CB_EXIT_USAGE;
    }
    cb_hist_points_free(all, nall);
    free(m);
    return status;
}

int cmd_history(int argc, char **argv)
{
    static const struct cb_cmd cmd = {history_parse, CB_EXIT_USAGE, history_db, CB_EXIT_USAGE, history_body};
    struct hist H;
    return cb_cmd_main(&cmd, argc, argv, &H);
}
