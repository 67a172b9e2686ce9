/* cmd_history.c — `cyclebudget history`: each case over commits, its steps.
 *
 * The series is one point per measured commit (every complete run of a
 * clean tree at that commit), in commit order (the commit_order view:
 * author date, then the first run).  A point is what compare makes of a
 * side: each run counts as the 0.1-quantile of its quiet samples, and the
 * point is their geometric mean.  Steps come from history.c's step fit;
 * each is reported with Welch's interval of the change between the runs of
 * the segment before and those of the segment after, and only when that
 * interval excludes zero. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "fingerprint.h"
#include "history.h"
#include "history_html.h"
#include "parse.h"
#include "sides.h"

struct point {
    char hash[64], subject[256];
    struct cb_side side;
    char fp[2048];
};

static void history_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget history [CASE-GLOB] [options]\n"
            "  CASE-GLOB            case names probe/variant/size/mode to show (default: all)\n"
            "      --since REV      start at this commit (hash prefix or git revision)\n"
            "      --min-change PCT a step must move the median this much (default 2%%)\n"
            "      --persist N      commits needed on each side of a step (default 2)\n"
            "      --series         also print every case's series\n"
            "      --format F       text (default) or html: one page with a trend chart per\n"
            "                       case and the steps marked (to standard output)\n"
            "      --db PATH        database (default ./" CB_DEFAULT_DB ")\n"
            "      --repo DIR       git tree for resolving --since (default .)\n");
}

static int parse_pct(const char *s, double *out)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return -EINVAL;
    memcpy(buf, s, n + 1);
    if (buf[n - 1] == '%')
        buf[--n] = '\0';
    if (n == 0 || strspn(buf, "0123456789.") != n)
        return -EINVAL;
    char *end;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v) || v < 0 || v > 100)
        return -EINVAL;
    *out = v / 100.0;
    return 0;
}

/* Each point's run figures (compare's: the log of each run's 0.1-quantile
 * of its quiet samples), point after point; start[i] is where point i's
 * begin, start[n] the total; quiet[j] whether run j had enough quiet
 * samples. */
struct runvals {
    double *lv;
    int *quiet;
    size_t *start;
};

static void runvals_free(struct runvals *rv)
{
    free(rv->lv);
    free(rv->quiet);
    free(rv->start);
}

static int run_values(struct point *pts, const size_t *idx, size_t n, const char *key,
                      struct runvals *rv)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += cb_side_find(&pts[idx[i]].side, key)->nruns;
    rv->lv = malloc((total ? total : 1) * sizeof *rv->lv);
    rv->quiet = malloc((total ? total : 1) * sizeof *rv->quiet);
    rv->start = malloc((n + 1) * sizeof *rv->start);
    if (!rv->lv || !rv->quiet || !rv->start)
        return -ENOMEM;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cb_side_case *c = cb_side_find(&pts[idx[i]].side, key);
        rv->start[i] = at;
        int rc = cb_run_log_values(c->v, c->smt, c->ends, c->nruns, CB_RUN_QUANTILE_DEFAULT,
                                   rv->lv + at, rv->quiet + at);
        if (rc < 0)
            return rc;
        at += c->nruns;
    }
    rv->start[n] = at;
    return 0;
}

/* The figures of runs [from, to) into out: the quiet runs when at least
 * need of them, else all, as compare leaves out runs taken on a shared
 * core only while enough others remain. */
static size_t pick_runs(const struct runvals *rv, size_t from, size_t to, size_t need, double *out)
{
    size_t nq = 0, n = 0;
    for (size_t j = from; j < to; j++)
        nq += (size_t)rv->quiet[j];
    for (size_t j = from; j < to; j++)
        if (rv->quiet[j] || nq < need)
            out[n++] = rv->lv[j];
    return n;
}

int cmd_history(int argc, char **argv)
{
    static const struct option opts[] = {
        {"since", required_argument, 0, 's'},  {"min-change", required_argument, 0, 'm'},
        {"persist", required_argument, 0, 'p'}, {"series", no_argument, 0, 'S'},
        {"db", required_argument, 0, 'D'},     {"repo", required_argument, 0, 'R'},
        {"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *since = NULL, *db = CB_DEFAULT_DB, *repo = NULL, *glob = NULL;
    double min_change = 0.02;
    long persist = 2;
    int series = 0, html = 0;
    char err[1024];
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 's': since = optarg; break;
        case 'm':
            if (parse_pct(optarg, &min_change) < 0) {
                snprintf(err, sizeof err, "--min-change '%s': give a percentage between 0 and 100, e.g. 2 or 2%%", optarg);
                goto usage_err;
            }
            break;
        case 'p':
            if (cb_parse_long(optarg, 1, 100, "--persist", &persist, err, sizeof err) < 0)
                goto usage_err;
            break;
        case 'S': series = 1; break;
        case 'f':
            if (strcmp(optarg, "html") == 0)
                html = 1;
            else if (strcmp(optarg, "text") != 0) {
                snprintf(err, sizeof err, "--format '%s': give text or html", optarg);
                goto usage_err;
            }
            break;
        case 'D': db = optarg; break;
        case 'R': repo = optarg; break;
        case 'h': history_usage(stdout); return 0;
        default: return cb_option_error("history", argv);
        }
    }
    if (argc - optind > 1) {
        snprintf(err, sizeof err, "history takes at most one CASE-GLOB (got %d arguments)", argc - optind);
        goto usage_err;
    }
    if (optind < argc)
        glob = argv[optind];
    struct cb_store *st;
    if (cb_store_open(db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    int status = 1, rc = 0;
    char since_hash[64] = "";
    if (since && cb_commit_resolve(st, since, repo, since_hash, sizeof since_hash, err, sizeof err) < 0) {
        cb_store_close(st);
        goto usage_err;
    }
    /* The commits, in order, each with its runs. */
    struct point *pts = NULL;
    size_t np = 0;
    sqlite3_stmt *q, *qr;
    sqlite3 *h = cb_store_sqlite(st);
    if (sqlite3_prepare_v2(h, "SELECT hash, subject FROM commit_order", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(h,
                           "SELECT r.id FROM runs r JOIN commits cm ON cm.id = r.commit_id "
                           "WHERE cm.hash = ?1 AND cm.dirty <> 1 AND r.status = 'complete' ORDER BY r.id",
                           -1, &qr, NULL) != SQLITE_OK) {
        cb_die_msg("cannot read %s: %s", db, sqlite3_errmsg(h));
        cb_store_close(st);
        return 1;
    }
    int started = since_hash[0] == '\0';
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *hash = (const char *)sqlite3_column_text(q, 0);
        if (!started && strcmp(hash, since_hash) == 0)
            started = 1;
        if (!started)
            continue;
        struct point *n = realloc(pts, (np + 1) * sizeof *n);
        if (!n) {
            rc = -ENOMEM;
            break;
        }
        pts = n;
        struct point *p = &pts[np++];
        memset(p, 0, sizeof *p);
        snprintf(p->hash, sizeof p->hash, "%s", hash);
        snprintf(p->subject, sizeof p->subject, "%s", (const char *)sqlite3_column_text(q, 1));
        sqlite3_reset(qr);
        sqlite3_bind_text(qr, 1, hash, -1, SQLITE_TRANSIENT);
        while (rc == 0 && sqlite3_step(qr) == SQLITE_ROW)
            rc = cb_side_add_run(&p->side, sqlite3_column_int64(qr, 0));
        snprintf(p->side.spec, sizeof p->side.spec, "%.12s", hash);
    }
    sqlite3_finalize(q);
    sqlite3_finalize(qr);
    if (since_hash[0] && np == 0) {
        cb_die_msg("--since %s: commit %.12s has no complete run of a clean tree", since, since_hash);
        status = CB_EXIT_USAGE;
        goto out;
    }
    /* One metric for the whole history: PMU cycles only if every run had them. */
    struct cb_side all = {0};
    for (size_t i = 0; i < np && rc == 0; i++)
        for (size_t k = 0; k < pts[i].side.nruns && rc == 0; k++)
            rc = cb_side_add_run(&all, pts[i].side.runs[k]);
    const char *metric = cb_sides_metric(st, &all, NULL);
    cb_side_free(&all);
    for (size_t i = 0; i < np && rc == 0; i++) {
        rc = cb_side_load(st, &pts[i].side, metric);
        if (rc == 0)
            rc = cb_run_fingerprint(st, pts[i].side.runs[0], pts[i].fp, sizeof pts[i].fp);
    }
    if (rc < 0) {
        cb_die_msg("cannot read the samples from %s: %s", db, strerror(-rc));
        goto out;
    }
    /* The case names, in the order they first appear. */
    char (*keys)[CB_CASE_KEY_MAX] = NULL;
    size_t nk = 0;
    for (size_t i = 0; i < np; i++)
        for (size_t k = 0; k < pts[i].side.ncases; k++) {
            const char *key = pts[i].side.cases[k].key;
            if (glob && fnmatch(glob, key, 0) != 0)
                continue;
            size_t j = 0;
            while (j < nk && strcmp(keys[j], key) != 0)
                j++;
            if (j < nk)
                continue;
            char (*nkeys)[CB_CASE_KEY_MAX] = realloc(keys, (nk + 1) * sizeof *nkeys);
            if (!nkeys) {
                free(keys);
                cb_die_msg("out of memory");
                goto out;
            }
            keys = nkeys;
            snprintf(keys[nk++], CB_CASE_KEY_MAX, "%s", key);
        }
    if (glob && nk == 0) {
        cb_die_msg("'%s' matches no case with a history in %s (names look like csum/adc-1chain/1500/warm)", glob, db);
        status = CB_EXIT_USAGE;
        free(keys);
        goto out;
    }
    const char *metric_label = strcmp(metric, "cycles") == 0       ? "core cycles (PMU) per op"
                               : strcmp(metric, "cycles-est") == 0 ? "ESTIMATED core cycles per op"
                                                                   : "TSC ticks per op";
    char head[256];
    snprintf(head, sizeof head, "history: %zu commit%s, %zu case%s; metric %s; a step needs %.1f%% and %ld "
             "commits on each side", np, np == 1 ? "" : "s", nk, nk == 1 ? "" : "s", metric_label,
             100 * min_change, persist);
    if (!html)
        printf("%s\n", head);
    struct cb_trend *trends = html ? calloc(nk ? nk : 1, sizeof *trends) : NULL;
    if (html && !trends) {
        free(keys);
        cb_die_msg("out of memory");
        goto out;
    }
    size_t nsteps = 0, nreg = 0, nack = 0;
    int failed = 0;
    size_t *idx = malloc((np ? np : 1) * sizeof *idx);
    double *y = malloc((np ? np : 1) * sizeof *y);
    struct cb_step *steps = malloc((np ? np : 1) * sizeof *steps);
    for (size_t k = 0; idx && y && steps && k < nk; k++) {
        size_t n = 0;
        for (size_t i = 0; i < np && n < CB_HISTORY_MAX_POINTS; i++) {
            struct cb_side_case *c = cb_side_find(&pts[i].side, keys[k]);
            if (c && c->n)
                idx[n++] = i;
        }
        /* A commit's point is the geometric mean of its runs' figures, as
         * compare's side is: run medians of all samples moved with the
         * host's load and state, and made steps of it. */
        struct runvals rv = {0};
        double *a = NULL, *b = NULL;
        if (run_values(pts, idx, n, keys[k], &rv) < 0 ||
            !(a = malloc((rv.start[n] + 1) * sizeof *a)) ||
            !(b = malloc((rv.start[n] + 1) * sizeof *b))) {
            runvals_free(&rv);
            free(a);
            cb_die_msg("cannot summarise %s: a run figure is not positive, or out of memory", keys[k]);
            failed = 1;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            size_t m = pick_runs(&rv, rv.start[i], rv.start[i + 1], 1, a);
            double sum = 0;
            for (size_t j = 0; j < m; j++)
                sum += a[j];
            y[i] = exp(sum / (double)m);
        }
        struct cb_trend *tr = trends ? &trends[k] : NULL;
        if (tr) {
            snprintf(tr->key, sizeof tr->key, "%s", keys[k]);
            tr->n = n;
            tr->hash = malloc((n ? n : 1) * sizeof *tr->hash);
            tr->subject = malloc((n ? n : 1) * sizeof *tr->subject);
            tr->y = malloc((n ? n : 1) * sizeof *tr->y);
            tr->steps = malloc((n ? n : 1) * sizeof *tr->steps);
            if (!tr->hash || !tr->subject || !tr->y || !tr->steps) {
                runvals_free(&rv);
                free(a);
                free(b);
                cb_die_msg("out of memory");
                failed = 1;
                break;
            }
            for (size_t i = 0; i < n; i++) {
                tr->hash[i] = pts[idx[i]].hash;
                tr->subject[i] = pts[idx[i]].subject;
                tr->y[i] = y[i];
            }
        }
        if (series && !html) {
            printf("\n%s:\n", keys[k]);
            for (size_t i = 0; i < n; i++)
                printf("  %.12s %12.1f  %.60s\n", pts[idx[i]].hash, y[i], pts[idx[i]].subject);
        }
        int ns = cb_steps_detect(y, n, min_change, (size_t)persist, steps, np);
        for (int s = 0; s < ns; s++) {
            /* Welch's interval over the runs of the segment before and the
             * segment after, as compare's with runs as the unit. */
            size_t na = pick_runs(&rv, rv.start[steps[s].from], rv.start[steps[s].at], 2, a);
            size_t nb = pick_runs(&rv, rv.start[steps[s].at], rv.start[steps[s].to], 2, b);
            struct cb_yuen w;
            double est = NAN, lo = NAN, hi = NAN;
            if (na >= 2 && nb >= 2 && cb_yuen(a, na, b, nb, 0.0, 0.95, &w) == 0) {
                est = expm1(w.est);
                lo = expm1(w.lo);
                hi = expm1(w.hi);
            }
            if (isnan(lo) || (lo <= 0 && hi >= 0))
                continue;     /* the interval does not exclude no change */
            const struct point *p = &pts[idx[steps[s].at]];
            const struct point *prev = &pts[idx[steps[s].at - 1]];
            char why[256] = "", envd[512] = "";
            char commit1[1][64];
            snprintf(commit1[0], 64, "%s", p->hash);
            int acked = cb_ack_lookup(st, keys[k], (const char(*)[64])commit1, 1, why, sizeof why);
            int regressed = est > 0;
            nsteps++;
            if (regressed && !acked)
                nreg++;
            if (acked)
                nack++;
            if (tr) {
                tr->steps[tr->nsteps++] = (struct cb_trend_step){
                    .at = steps[s].at, .from = steps[s].from, .to = steps[s].to,
                    .before = steps[s].before, .after = steps[s].after,
                    .est = est, .lo = lo, .hi = hi, .acked = acked,
                };
                snprintf(tr->steps[tr->nsteps - 1].why, sizeof tr->steps[0].why, "%s", why);
                continue;
            }
            printf("%-34s %.12s  %10.1f -> %-10.1f %+6.1f%% [%+.1f%%, %+.1f%%]  %s%s  \"%.50s\"\n",
                   keys[k], p->hash, steps[s].before, steps[s].after, 100 * est, 100 * lo, 100 * hi,
                   regressed ? "regressed" : "improved", acked ? " (acknowledged)" : "", p->subject);
            if (acked)
                printf("%-34s acknowledged: %s\n", "", why);
            if (cb_fingerprint_diff(prev->fp, p->fp, envd, sizeof envd))
                printf("%-34s note: the environment changed here too: %s\n", "", envd);
        }
        runvals_free(&rv);
        free(a);
        free(b);
    }
    free(idx);
    free(y);
    free(steps);
    free(keys);
    char tail[160];
    snprintf(tail, sizeof tail, "%zu step%s: %zu unacknowledged regression%s, %zu acknowledged", nsteps,
             nsteps == 1 ? "" : "s", nreg, nreg == 1 ? "" : "s", nack);
    if (!failed && html) {
        char summary[448];
        snprintf(summary, sizeof summary, "%.250s. %s.", head + strlen("history: "), tail);
        if ((rc = cb_history_html(stdout, metric_label, summary, trends, nk)) < 0 || fflush(stdout) != 0) {
            cb_die_msg("cannot write the page: %s", strerror(rc < 0 ? -rc : errno));
            failed = 1;
        }
    } else if (!failed) {
        printf("%s\n", tail);
    }
    for (size_t k = 0; trends && k < nk; k++) {
        free(trends[k].hash);
        free(trends[k].subject);
        free(trends[k].y);
        free(trends[k].steps);
    }
    free(trends);
    if (failed)
        goto out;
    status = 0;
out:
    for (size_t i = 0; i < np; i++)
        cb_side_free(&pts[i].side);
    free(pts);
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
