/* ab_print.c — ab's table and verdict as text, Markdown or JSON
 * (ab_print.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/judge.h"
#include "harness/stats.h"
#include "report/ab_print.h"

/* An unsure case's words: what it saw, and what would decide it. */
static void unsure_text(const struct cb_ab_case *c, char *buf, size_t len)
{
    size_t more = c->more_rounds;
    int sig = !isnan(c->p_adj) && c->p_adj < 0.05 && !isnan(c->st.lo);
    const char *what = c->host_state ? "fewer than 2 rounds quiet on both sides"
                     : sig ? "a change, not yet beyond the threshold" : "no clear change";
    const char *head = c->host_state ? "unsure (host state)" : "unsure";
    if (c->host_state)
        snprintf(buf, len, "%s: %s; quiet rounds needed", head, what);
    else if (more >= CMP_ROUNDS_CAP)
        snprintf(buf, len, "%s: %s; %d+ more rounds needed", head, what, CMP_ROUNDS_CAP);
    else
        snprintf(buf, len, "%s: %s; %zu more round%s needed", head, what, more, more == 1 ? "" : "s");
}

static const char *verdict_word(const struct cb_ab_case *c)
{
    if (c->bad[0] || c->bad[1])
        return c->bad[0] && c->bad[1] ? "bad (both)" : c->bad[1] ? "broken in HEAD" : "fixed in HEAD";
    if (c->skipped)
        return "skipped";
    switch (c->verdict) {
    case CB_CMP_REGRESSED: return "regressed";
    case CB_CMP_IMPROVED: return "improved";
    case CB_CMP_UNCHANGED: return "unchanged";
    default: return "unsure";
    }
}

/* The median over the rounds of a side's values; NAN without any. */
static double side_median(const struct cb_ab_case *c, int s)
{
    if (!c->n)
        return NAN;
    double *v = malloc(c->n * sizeof *v);
    if (!v)
        return NAN;
    memcpy(v, c->val[s], c->n * sizeof *v);
    cb_sort_doubles(v, c->n);
    double m = cb_quantile_sorted(v, c->n, 0.5);
    free(v);
    return m;
}

static void pct(double ratio, char *buf, size_t len)
{
    if (isnan(ratio))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
}

static void interval(const struct cb_ab_case *c, char *buf, size_t len)
{
    if (isnan(c->st.lo)) {
        snprintf(buf, len, "too few rounds");
        return;
    }
    char lo[24], hi[24];
    pct(c->st.lo, lo, sizeof lo);
    pct(c->st.hi, hi, sizeof hi);
    snprintf(buf, len, "[%s, %s]", lo, hi);
}

static void print_header(const struct cb_ab *ab, const char *where, FILE *f)
{
    for (int s = 0; s < 2; s++)
        fprintf(f, "%s %s (%s, sha256 %.16s...)\n", s ? "HEAD" : "BASE", ab->info[s].path,
                ab->info[s].name, ab->info[s].sha256);
    fprintf(f, "rounds       %d (%d planned), ABBA order, both builds in one process, %s; "
            "%.1f s\n", ab->rounds_done, ab->rounds, where, ab->seconds);
    fprintf(f, "figure       TSC ticks per operation, each round's %gth percentile of its "
            "samples; base is their median over the rounds, head/base the Hodges-Lehmann "
            "estimate of the rounds' paired ratios, and head base x head/base (a drift "
            "between rounds cancels in a pair)\n", 100 * CB_AB_ROUND_QUANTILE);
    fprintf(f, "test         Wilcoxon signed-rank test on the rounds' log-ratios, Holm over %zu case%s, "
            "alpha %g; a change is beyond %g%% over the whole %g%% CI\n", ab->n,
            ab->n == 1 ? "" : "s", ab->o.alpha, 100 * ab->o.threshold, 100 * ab->o.level);
}

static void print_lists(const struct cb_ab *ab, FILE *f, int md)
{
    if (ab->added[0])
        fprintf(f, "%sadded:   %s (only HEAD has it: not compared)\n", md ? "\n" : "", ab->added);
    if (ab->removed[0])
        fprintf(f, "%sremoved: %s (only BASE has it: not compared)\n", md ? "\n" : "", ab->removed);
}

static void print_table(const struct cb_ab *ab, FILE *f, int md)
{
    if (md)
        fprintf(f, "\n| case | base | head | head/base | 95%% CI | p (Holm) | rounds | verdict |\n"
                   "|---|---:|---:|---:|---|---:|---:|---|\n");
    else
        fprintf(f, "\n%-32s %10s %10s %9s %-18s %8s %6s  %s\n", "case", "base", "head", "head/base",
                "95% CI", "p(Holm)", "rounds", "verdict");
    for (size_t i = 0; i < ab->n; i++) {
        const struct cb_ab_case *c = &ab->cases[i];
        char r[32], ci[80], p[32];
        pct(c->st.ratio, r, sizeof r);
        interval(c, ci, sizeof ci);
        snprintf(p, sizeof p, isnan(c->p_adj) ? "-" : "%.4f", c->p_adj);
        char b[32], h[32], word[96];
        snprintf(b, sizeof b, c->n ? "%.1f" : "-", side_median(c, 0));
        snprintf(h, sizeof h, c->n && !isnan(c->st.ratio) ? "%.1f" : "-",
                 side_median(c, 0) * c->st.ratio);
        snprintf(word, sizeof word, "%s", verdict_word(c));
        if (!c->bad[0] && !c->bad[1] && !c->skipped && c->verdict == CB_CMP_UNSURE)
            unsure_text(c, word, sizeof word);
        const char *fmt = md ? "| %s | %s | %s | %s | %s | %s | %zu | %s |\n"
                             : "%-32s %10s %10s %9s %-18s %8s %6zu  %s\n";
        fprintf(f, fmt, c->key, b, h, r, ci, p, c->n, word);
        if (!md && c->why[0])
            fprintf(f, "  %s\n", c->why);
    }
}

/* The last line: what the exit status says, naming the changed cases. */
static void print_verdict(const struct cb_ab *ab, FILE *f, int md)
{
    int changed, regressed, unsure, bad;
    cb_ab_counts(ab, &changed, &regressed, &unsure, &bad);
    fprintf(f, "%s%s", ab->o.quiet ? "" : "\n", md ? "**ab:** " : "ab: ");
    struct cb_sb why = CB_SB_INIT;
    if (changed + bad == 0 && cb_ab_compared(ab, &why) == 0) {
        fprintf(f, "no verdict: no case could be compared (%s) (exit 2)\n", why.buf);
        cb_sb_release(&why);
        return;
    }
    cb_sb_release(&why);
    if (changed + bad == 0 && unsure) {
        size_t most = 0;
        int host = 0;
        for (size_t i = 0; i < ab->n; i++)
            if (ab->cases[i].verdict == CB_CMP_UNSURE && !ab->cases[i].bad[0] &&
                !ab->cases[i].bad[1] && !ab->cases[i].skipped) {
                size_t m = ab->cases[i].more_rounds;
                most = m > most ? m : most;
                host += ab->cases[i].host_state;
            }
        if (host == unsure) {
            fprintf(f, "no change decided; %d case%s in a host state after %d rounds (fewer than 2 "
                    "rounds quiet on both sides): measure again on a quiet host (exit 0)\n", unsure,
                    unsure > 1 ? "s" : "", ab->rounds_done);
            return;
        }
        fprintf(f, "no change decided; %d case%s unsure after %d rounds (each row says what it "
                "saw): %s%zu more rounds (--rounds %zu) would decide %s (exit 0)\n", unsure,
                unsure > 1 ? "s" : "", ab->rounds_done, most >= CMP_ROUNDS_CAP ? "over " : "",
                most, (size_t)ab->rounds_done + most, unsure > 1 ? "them" : "it");
        return;
    }
    if (changed + bad == 0) {
        fprintf(f, "no change (exit 0)\n");
        return;
    }
    fprintf(f, "changed (exit 1):");
    for (size_t i = 0; i < ab->n; i++) {
        const struct cb_ab_case *c = &ab->cases[i];
        char r[32];
        pct(c->st.ratio, r, sizeof r);
        if (c->bad[0] != c->bad[1])
            fprintf(f, " %s (%s)", c->key, verdict_word(c));
        else if (!c->bad[0] && (c->verdict == CB_CMP_REGRESSED || c->verdict == CB_CMP_IMPROVED))
            fprintf(f, " %s (%s %s)", c->key, verdict_word(c), r);
    }
    fprintf(f, "\n");
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.6g", x);
    else
        fprintf(f, "null");
}

static void json_list(FILE *f, const char *name, const char *csv)
{
    fprintf(f, ",\"%s\":[", name);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", csv);
    int first = 1;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        fprintf(f, "%s", first ? "" : ",");
        json_str(f, t);
        first = 0;
    }
    fprintf(f, "]");
}

static void json_case(FILE *f, const struct cb_ab_case *c)
{
    fprintf(f, "{\"case\":");
    json_str(f, c->key);
    fprintf(f, ",\"verdict\":\"%s\",\"base\":", verdict_word(c));
    json_num(f, side_median(c, 0));
    fprintf(f, ",\"head\":");
    json_num(f, side_median(c, 0) * c->st.ratio);
    fprintf(f, ",\"head_median\":");
    json_num(f, side_median(c, 1));
    if (!c->bad[0] && !c->bad[1] && !c->skipped && c->verdict == CB_CMP_UNSURE) {
        char word[96];
        unsure_text(c, word, sizeof word);
        fprintf(f, ",\"more_rounds\":%zu,\"state\":\"%s\",\"says\":", c->more_rounds,
                c->host_state ? "host" : "quiet");
        json_str(f, word);
    }
    fprintf(f, ",\"ratio\":");
    json_num(f, c->st.ratio);
    fprintf(f, ",\"ci\":[");
    json_num(f, c->st.lo);
    fprintf(f, ",");
    json_num(f, c->st.hi);
    fprintf(f, "],\"p_holm\":");
    json_num(f, c->p_adj);
    fprintf(f, ",\"round_ratios\":[");
    for (size_t r = 0; r < c->n; r++) {
        fprintf(f, "%s", r ? "," : "");
        json_num(f, c->val[1][r] / c->val[0][r]);
    }
    fprintf(f, "]}");
}

static void print_json(const struct cb_ab *ab, const char *where, FILE *f)
{
    int changed, regressed, unsure, bad;
    cb_ab_counts(ab, &changed, &regressed, &unsure, &bad);
    fprintf(f, "{\"figure\":\"tsc_ticks_per_op\"");
    for (int s = 0; s < 2; s++) {
        fprintf(f, ",\"%s\":{\"path\":", cb_ab_side_name[s]);
        json_str(f, ab->info[s].path);
        fprintf(f, ",\"sha256\":\"%s\"}", ab->info[s].sha256);
    }
    fprintf(f, ",\"where\":");
    json_str(f, where);
    fprintf(f, ",\"rounds\":%d,\"alpha\":%g,\"threshold_pct\":%g,\"seconds\":%.3f,\"cases\":[",
            ab->rounds_done, ab->o.alpha, 100 * ab->o.threshold, ab->seconds);
    for (size_t i = 0; i < ab->n; i++) {
        fprintf(f, "%s", i ? "," : "");
        json_case(f, &ab->cases[i]);
    }
    fprintf(f, "]");
    json_list(f, "added", ab->added);
    json_list(f, "removed", ab->removed);
    fprintf(f, ",\"unsure\":%d,\"compared\":%zu,\"exit\":%d}\n", unsure, cb_ab_compared(ab, NULL),
            cb_ab_exit(ab));
}

void cb_ab_print(const struct cb_ab *ab, enum cb_format fmt, const char *where, FILE *f)
{
    if (fmt == CB_FMT_JSON) {
        print_json(ab, where, f);
        return;
    }
    int md = fmt == CB_FMT_MARKDOWN;
    if (!ab->o.quiet) {
        print_header(ab, where, f);
        print_table(ab, f, md);
        print_lists(ab, f, md);
    }
    print_verdict(ab, f, md);
}
