/* report_text.c — the text report: aligned, under 100 columns, best first.
 *
 * Grouped by probe, size and mode, so each block answers "which variant do I
 * want for this size" and "does it fit my per-packet budget". */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/machine.h"
#include "report/rank.h"
#include "report/report.h"
#include "report/crossover.h"

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BOLD "\033[1m"
#define C_OFF "\033[0m"

static int same_group(const struct cb_report_case *a, const struct cb_report_case *b)
{
    return strcmp(a->info.probe, b->info.probe) == 0 && a->info.size == b->info.size &&
           strcmp(a->info.mode, b->info.mode) == 0;
}

/* One number as every table of the text report writes it: no exponent
 * beside a plain figure in one row (a 16 MiB memset read "2.28e+06" beside
 * "(2305471.0)"); from 100,000 up, whole units. */
static const char *fmt_num(char *buf, size_t len, double v, int prec)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", fabs(v) >= 1e5 ? 0 : prec, v);
    return buf;
}

static void num(FILE *out, double v, int width, int prec)
{
    char b[48];
    fprintf(out, " %*s", width, fmt_num(b, sizeof b, v, prec));
}

/* A share of the budget, % (cb_report_share: the one rule), coloured on a
 * terminal. */
static void share_cell(FILE *out, const struct cb_report *r, const struct cb_report_case *c,
                       const struct cb_text_opts *o, int width)
{
    double share = 100.0 * cb_report_share(r, c, o->budget);
    char b[48];
    fmt_num(b, sizeof b, share, 1);
    fprintf(out, "%s %*s%s", o->color && !isnan(share) ? (share <= 100.0 ? C_GREEN : C_RED) : "",
            width, b, o->color && !isnan(share) ? C_OFF : "");
}

/* "label   text", word-wrapped to the report's 100 columns with the
 * continuation indented under the text: long host names, labels and
 * reasons must not break the layout.  A label as wide as the column or
 * wider ("EMULATED ") keeps its own width on the first line. */
#define TEXT_WIDTH 100
#define LABEL_WIDTH 8
static void wrapped(FILE *out, const char *label, const char *raw)
{
    char text[4096];
    cb_text_clean(text, sizeof text, raw); /* no control character reaches a terminal */
    int n = fprintf(out, "%-*s", LABEL_WIDTH, label);
    size_t col = n > LABEL_WIDTH ? (size_t)n : LABEL_WIDTH;
    int start = 1;           /* at the first word of a line */
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w == 0)
            break;
        if (!start && col + 1 + w > TEXT_WIDTH) {
            fprintf(out, "\n%*s", LABEL_WIDTH, "");
            col = LABEL_WIDTH;
        } else if (!start) {
            fputc(' ', out);
            col++;
        }
        start = 0;
        /* A single word longer than the line is cut rather than let through. */
        int take = (int)(w > TEXT_WIDTH - LABEL_WIDTH ? TEXT_WIDTH - LABEL_WIDTH : w);
        fprintf(out, "%.*s", take, p);
        col += (size_t)take;
        p += w;
    }
    fputc('\n', out);
}

static void emit_wrapped(void *out, const char *label, const char *text)
{
    wrapped(out, label, text);
}

int cb_report_want_color(int fd)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    return isatty(fd);
}

/* The budget, once per run: its time, and in cycles at the clock the
 * report uses, saying which.  Shares are from time (ns per op over ns per
 * packet), so they do not move with a clock estimate. */
static void budget_line(const struct cb_report *r, const struct cb_text_opts *o, char *buf,
                        size_t len)
{
    const struct cb_budget *b = o->budget;
    if (b->cycles > 0) {
        snprintf(buf, len, "%.0f cycles per packet (given); budget %% = cyc/op over it", b->cycles);
        return;
    }
    int n = snprintf(buf, len, "%s: %.2f Mpps, %.1f ns per packet", b->label,
                     cb_budget_pps(b->gbps, b->frame) / 1e6, cb_budget_ns(b->gbps, b->frame));
    if (n < 0 || (size_t)n >= len)
        return;
    if (r->core_ghz > 0)
        n += snprintf(buf + n, len - (size_t)n, " = %.0f cycles at %.2f GHz (%s)",
                      cb_budget_cycles(b, r->core_ghz), r->core_ghz, cb_report_budget_clock_what(r));
    else
        n += snprintf(buf + n, len - (size_t)n, "; no share of it for SIMULATED cycles, which have "
                      "no time: give --ghz G to convert at a clock");
    (void)n;
}

/* Right under a run's first line: its figures time no machine. */
static void emulated_line(const struct cb_run_info *u, FILE *out)
{
    char line[768];
    if (!u->emulated[0])
        return;
    snprintf(line, sizeof line, "(%s): " CB_REPORT_EMULATED_WHAT " (" CB_REPORT_EMULATED_MORE ")",
             u->emulated);
    wrapped(out, "EMULATED ", line);
}

static void header(const struct cb_report *r, const struct cb_text_opts *o, FILE *out)
{
    const struct cb_run_info *u = &r->run;
    const char *b = o->color ? C_BOLD : "", *off = o->color ? C_OFF : "";
    char line[2048];
    fprintf(out, "%scyclebudget run %" PRId64 "%s (%s)  started %s", b, u->id, off, u->status,
            u->started);
    if (u->tag[0]) {
        char tag[256];
        cb_text_clean(tag, sizeof tag, u->tag);
        fprintf(out, "  tag %.60s", tag);
    }
    fputc('\n', out);
    emulated_line(u, out);
    if (u->uuid[0]) {
        char machine[CB_MACHINE_ID_LEN + 1];
        cb_machine_id(u->hostname, u->vendor, u->family, u->model, u->stepping, u->model_name,
                      machine);
        snprintf(line, sizeof line, "%s on %s, machine %s (--host)", u->uuid, u->hostname, machine);
        wrapped(out, "uuid", line);
    }
    snprintf(line, sizeof line, "%s, %d CPUs, pinned to CPU %d, %s, PMU %s", u->model_name,
             u->ncpus, u->cpu, u->kernel, u->pmu[0] ? u->pmu : "none");
    wrapped(out, "host", line);
    if (cb_report_is_fake(u))
        wrapped(out, "FAKE", "this run was timed on the fake clock (CB_FAKE_CLOCK, a test backend): "
                             "its figures are a model, not measurements of this machine");
    const struct cb_run_lines lines = {"clock", "meter", "env", emit_wrapped, out, "state"};
    cb_report_run_lines(u, &lines, line, sizeof line);
    snprintf(line, sizeof line, "cyclebudget %s, %s, %s", u->version, u->compiler, u->cflags);
    wrapped(out, "build", line);
    if (u->commit[0]) {
        snprintf(line, sizeof line, "%.12s%s %s", u->commit, u->dirty == 1 ? " (dirty)" : "",
                 u->subject);
        wrapped(out, "commit", line);
    }
    wrapped(out, "cycles", r->cyc_label);
    if (cb_rank_by_time(r)) {
        snprintf(line, sizeof line, "by %s, not by these estimated cycles: best first, "
                 "crossovers and winners are decided on time", cb_report_time_what(r));
        wrapped(out, "ranked", line);
    }
    cb_report_ceil_line(r, line, sizeof line);
    wrapped(out, "ceiling", line);
    if (u->sim_model[0])
        wrapped(out, "model", u->sim_model);
    if (u->plugins[0])
        wrapped(out, "plugins", u->plugins);
    size_t len = 0;
    line[0] = 0;
    for (size_t e = 0; e < r->nevents && len < sizeof line; e++) {
        const struct cb_event_info *ev = &r->events[e];
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%s[%s%s%s]", e ? " " : "",
                                ev->part, ev->supported ? ev->source : "unsupported",
                                ev->supported ? "," : "", ev->supported ? ev->read_method : "");
    }
    wrapped(out, "events", line);
    for (size_t e = 0; e < r->nevents; e++)
        if (!r->events[e].supported)
            wrapped(out, "", r->events[e].why);
    budget_line(r, o, line, sizeof line);
    wrapped(out, "budget", line);
    wrapped(out, "rule", cb_budget_rule(o->budget->frame ? o->budget->frame : CB_MIN_FRAME, line,
                                        sizeof line));
    cb_report_context_line(r, line, sizeof line);
    wrapped(out, "context", line);
}

/* Cases measured mostly on a busy core cost more for a reason that is not
 * the code's: say how many, and what to do. */
static void shared_note(const struct cb_report *r, size_t shared, FILE *out)
{
    char line[640];
    snprintf(line, sizeof line,
             "%zu of %zu cases had over half their samples taken with %s, which adds cycles that "
             "are not the code's: rerun, or compare with runs as the unit, which counts only the "
             "quiet samples", shared, r->ncases, cb_report_shared_what(&r->run));
    wrapped(out, "shared:", line);
}

/* Cases whose own clock disagreed with the run's (caseclock.h). */
static void clock_note(const struct cb_report *r, size_t flagged, FILE *out)
{
    char line[640];
    snprintf(line, sizeof line,
             "%zu of %zu cases, listed under their group after '~ clock flagged:', read a core clock "
             "around them that disagreed with the "
             "run's beyond its own noise: their cycles are at the run's clock, or at theirs where "
             "both sides of the case agreed on the change ('report --format json' gives each "
             "case's clock); their ns/op stand either way", flagged, r->ncases);
    wrapped(out, "clock:", line);
}

/* Each case and event some of whose samples were multiplexed (the event
 * was on a counter only part of the time it was enabled, and its figure
 * was scaled by enabled/running, as perf stat does): named with the share
 * of time it was counted, so that a scaled figure is never read as a
 * counted one.  The row's "scaled" mark says it for cycles alone. */
static void multiplex_note(const struct cb_report *r, FILE *out)
{
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t e = 0; e < r->nevents; e++) {
            const struct cb_report_series *s = &r->cases[i].ev[e];
            if (!s->scaled)
                continue;
            double en = 0, run = 0;
            for (size_t k = 0; k < s->n; k++) {
                en += (double)s->enabled[k];
                run += (double)s->running[k];
            }
            const struct cb_case_info *g = &r->cases[i].info;
            fprintf(out, "multiplexed: %s/%s/%" PRIu64 "/%s %s: counted %.1f%% of the time it was "
                    "enabled (running/enabled over %zu samples); scaled by enabled/running\n",
                    g->probe, g->variant, g->size, g->mode, r->events[e].part,
                    en > 0 ? 100 * run / en : 0.0, s->n);
        }
}

/* Under a group's rows, the variants tied with its first: a line of its
 * own, because a row already fills 100 columns when it is also "scaled"
 * or "shared", and the rows' layout is what scripts read.  Then those the
 * test cannot separate from the first although further than a tie spans,
 * with what would decide them. */
static void tie_line(const struct cb_report *r, const struct cb_report_case *const *v, const int *tied,
                     size_t n, FILE *out)
{
    if (n == 0)
        return;
    if (tied[0] == CB_RANK_TIED)
        cb_report_tied_names(v, tied, n, fprintf(out, "  = tied within noise:"), out);
    cb_report_unseparated(r, v, tied, n, "  ? not separated from", out);
}

void cb_report_tied_names(const struct cb_report_case *const *v, const int *tied, size_t n, int col,
                          FILE *out)
{
    for (size_t k = 0; k < n; k++) {
        if (tied[k] != CB_RANK_TIED)
            continue;
        /* Many tied names wrap under 100 columns. */
        if (col + 1 + (int)strlen(v[k]->info.variant) > 100)
            col = fprintf(out, "\n   ");
        col += fprintf(out, " %s", v[k]->info.variant);
    }
    fputc('\n', out);
}

const char *cb_report_decides(const struct cb_report *r, char *buf, size_t len)
{
    if (cb_rank_runs(r) > 1)
        snprintf(buf, len, "more runs of the same bytes decide");
    else
        snprintf(buf, len, "--reps 10 or more, or %d more runs of the same bytes, decide",
                 CB_RANK_RUNS_MIN - 1 - (int)r->npeers);
    return buf;
}

void cb_report_unseparated(const struct cb_report *r, const struct cb_report_case *const *v,
                           const int *tied, size_t n, const char *lead, FILE *out)
{
    int col = 0;
    double f0 = n ? cb_rank_median(r, v[0]) : NAN;
    for (size_t k = 1; k < n; k++) {
        if (tied[k] != CB_RANK_UNSEPARATED)
            continue;
        if (!col)
            col = fprintf(out, "%s %s:", lead, v[0]->info.variant);
        if (col + 12 + (int)strlen(v[k]->info.variant) > 100)
            col = fprintf(out, "\n   ");
        col += fprintf(out, " %s (%.2fx)", v[k]->info.variant, cb_rank_median(r, v[k]) / f0);
    }
    if (col) {
        char why[96];
        fprintf(out, "\n    no claim between them: %s\n", cb_report_decides(r, why, sizeof why));
    }
}

/* Under a group's rows, its variants whose clock was flagged (caseclock.h):
 * a line of its own for the reason tie_line has one. */
static void clock_line(const struct cb_report_case *const *v, size_t n, FILE *out)
{
    int col = 0;
    for (size_t k = 0; k < n; k++) {
        if (!v[k]->measured || !v[k]->info.clock_flagged)
            continue;
        if (!col)
            col = fprintf(out, "  ~ clock flagged:");
        if (col + 1 + (int)strlen(v[k]->info.variant) > 100)
            col = fprintf(out, "\n   ");
        col += fprintf(out, " %s", v[k]->info.variant);
    }
    if (col)
        fputc('\n', out);
}

/* % ceil, with '!' after a figure above its ceiling (cb_report_ceil_over
 * says why, under the group). */
static void ceil_cell(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    char b[48];
    struct cb_sb why = CB_SB_INIT;
    double v = 100 * cb_report_ceil_share(c);
    int over = cb_report_ceil_over(r, c, &why) != NULL;
    cb_sb_release(&why);
    if (!over) {
        num(out, v, 6, 1);
        return;
    }
    fmt_num(b, sizeof b - 1, v, 1);
    strcat(b, "!");
    fprintf(out, " %6s", b);
}

/* Under a group's rows: each case above its ceiling, and why. */
static void over_lines(const struct cb_report *r, const struct cb_report_case *const *v, size_t n,
                       FILE *out)
{
    struct cb_sb why = CB_SB_INIT, line = CB_SB_INIT;
    for (size_t k = 0; k < n; k++)
        if (v[k]->measured && cb_report_ceil_over(r, v[k], &why)) {
            cb_sb_setf(&line, "%s above its ceiling: %s", v[k]->info.variant, why.buf);
            wrapped(out, "  !", line.buf);
        }
    cb_sb_release(&why);
    cb_sb_release(&line);
}

/* Under a group's rows in kernel context: the variant the kernel would
 * run, and its cost there (its budget % above is already that cost's). */
static void kernel_line(const struct cb_report *r, const struct cb_report_case *const *v, size_t n,
                        FILE *out)
{
    if (r->context != CB_CONTEXT_KERNEL || n == 0)
        return;
    const struct cb_report_case *k = cb_report_kernel_pick(r, v, n);
    char b[48];
    if (k)
        fprintf(out, "  > kernel's pick: %s, %s cycles in the kernel\n", k->info.variant,
                fmt_num(b, sizeof b, cb_report_context_cycles(r, k), 1));
    else
        fprintf(out, "  > kernel's pick: none with a known in-kernel cost\n");
}

/* Under the table: what each column is. */
static void legend(const struct cb_report *r, FILE *out)
{
    fprintf(out, "\ncyc/op = median %s per operation, after subtracting the empty batch;\n"
                 "spread %% = IQR / median; budget %% = the share of the per-packet budget (above);\n"
                 "%% ceil = bytes per TSC tick as a share of the machine's load ceiling at the level\n"
                 "the working set fits in (DRAM when cold; the store ceiling for families that\n"
                 "write their bytes; '-' with no ceilings stored); ns/op from the TSC; B/cyc =\n"
                 "bytes per cycle; best variant first, by %s;\n",
            cb_report_cycles_what(r), cb_rank_by_time(r) ? cb_report_time_what(r) : "cycles");
    if (cb_rank_runs(r) > 1)
        fprintf(out, "= tied within noise: not faster or slower than the first at p < %.2g by a\n"
                     "paired t over %zu runs of the same bytes (runs as the unit), or under %.0f%%\n"
                     "apart, and at most %.0f%% above the first; no best among them.\n",
                CB_RANK_ALPHA, cb_rank_runs(r), CB_RANK_MARGIN * 100, CB_RANK_TIE_SPAN * 100);
    else
        fprintf(out, "= tied within noise: not faster or slower than the first at p < %.2g by the\n"
                     "exact rank test, or under %.0f%% apart, and at most %.0f%% above the first;\n"
                     "no best among them.  Best and ties are claims within this one run: %d more\n"
                     "runs of the same bytes make them claims across runs.\n",
                CB_RANK_ALPHA, CB_RANK_MARGIN * 100, CB_RANK_TIE_SPAN * 100,
                CB_RANK_RUNS_MIN - 1 - (int)r->npeers);
    fprintf(out, "? not separated: more than %.0f%% above the first, yet not slower at p < %.2g:\n"
                 "neither tied nor ranked, and no best named.\n", CB_RANK_TIE_SPAN * 100, CB_RANK_ALPHA);
}

int cb_report_text(const struct cb_report *r, const struct cb_text_opts *o, FILE *out)
{
    header(r, o, out);
    const struct cb_report_case **v = malloc((r->ncases ? r->ncases : 1) * sizeof *v);
    int *tied = malloc((r->ncases ? r->ncases : 1) * sizeof *tied);
    if (!v || !tied) {
        free(v);
        free(tied);
        return -1;
    }
    int measured_any = 0;
    size_t shared = 0, flagged = 0;
    for (size_t i = 0; i < r->ncases;) {
        size_t j = i;
        while (j < r->ncases && same_group(&r->cases[i], &r->cases[j]))
            j++;
        size_t n = 0;
        for (size_t k = i; k < j; k++)
            v[n++] = &r->cases[k];
        cb_rank_group(r, v, n, tied);
        char where[64];
        const struct cb_case_info *g = &r->cases[i].info;
        /* A cross-CPU case's pair is part of what was measured. */
        const char *pair = "";
        for (size_t k = i; k < j && !pair[0]; k++)
            pair = r->cases[k].info.cpu_pair;
        fprintf(out, "\n%s%s  %s%s  (per %s)%s%s\n", o->color ? C_BOLD : "", g->probe,
                cb_report_where(g, "  ", where, sizeof where), o->color ? C_OFF : "", g->op,
                pair[0] ? "  cross-CPU rows on " : "", pair);
        /* Narrower than before the ceiling column, so that a row with its
         * "shared" mark still fits 100 columns; names are at most 18. */
        fprintf(out, "  %-18s %8s %8s %8s %7s %8s %8s %6s %7s %4s\n", "variant", "cyc/op", "min cyc",
                "cyc/KB", "B/cyc", "spread %", "budget %", "% ceil", "ns/op", "n");
        for (size_t k = 0; k < n; k++) {
            const struct cb_report_case *c = v[k];
            if (!c->measured) {
                int bad = strcmp(c->info.verdict, "bad") == 0;
                fprintf(out, "  %-18.18s %s%s%s %s\n", c->info.variant,
                        o->color && bad ? C_RED : "", bad ? "BAD" : "skipped",
                        o->color && bad ? C_OFF : "", c->info.detail);
                continue;
            }
            measured_any = 1;
            double bytes = (double)c->info.bytes_per_op;
            /* The best variant of the group leads, in bold on a terminal. */
            fprintf(out, "  %s%-18.18s%s", o->color && k == 0 ? C_BOLD : "", c->info.variant,
                    o->color && k == 0 ? C_OFF : "");
            num(out, c->cyc.median, 8, 1);
            num(out, c->cyc.min, 8, 1);
            num(out, bytes > 0 ? c->cyc.median * 1024.0 / bytes : NAN, 8, 0);
            num(out, bytes > 0 && c->cyc.median > 0 ? bytes / c->cyc.median : NAN, 7, 2);
            num(out, c->cyc.spread_pct, 8, 1);
            share_cell(out, r, c, o, 8);
            ceil_cell(out, r, c);
            num(out, c->ns_per_op, 7, 2);
            fprintf(out, " %4zu%s%s\n", c->cyc.n, c->scaled ? " scaled" : "",
                    cb_report_case_marks(c));
            flagged += (size_t)c->info.clock_flagged;
            shared += (size_t)cb_report_case_shared(c);
        }
        tie_line(r, v, tied, n, out);
        over_lines(r, v, n, out);
        kernel_line(r, v, n, out);
        clock_line(v, n, out);
        i = j;
    }
    free(v);
    free(tied);
    legend(r, out);
    multiplex_note(r, out);
    if (shared)
        shared_note(r, shared, out);
    cb_report_kernel_text(r, out);
    cb_report_inkernel_text(r, out);
    if (flagged)
        clock_note(r, flagged, out);
    if (!measured_any)
        fprintf(out, "(no case of this run was measured)\n");
    return 0;
}

#define SUMMARY_MAX 64

/* In kernel context a summary row is the kernel's pick (the lowest
 * in-kernel cost, cb_report_kernel_pick): its cost there, time, share;
 * then the best in user space beside it, where that is another variant
 * (avx512 at 10.7 cycles in user space, adc-2chain at 14.4 in the kernel). */
static void kernel_row(const struct cb_report *r, const struct cb_text_opts *o,
                       const struct cb_report_case *const *v, size_t n,
                       const struct cb_report_case *best, FILE *out)
{
    const struct cb_report_case *k = cb_report_kernel_pick(r, v, n);
    char b[48];
    if (!k) {
        fprintf(out, " %-18s", "(none known)");
        return;
    }
    double m = cb_report_context_cycles(r, k), bytes = (double)k->info.bytes_per_op;
    fprintf(out, " %-18.18s", k->info.variant);
    num(out, m, 9, 1);
    num(out, k->ns_per_op * (k->cyc.median > 0 ? m / k->cyc.median : 1), 8, 2);
    num(out, bytes > 0 && m > 0 ? bytes / m : NAN, 7, 2);
    share_cell(out, r, k, o, 8);
    if (best && best != k)
        fprintf(out, "  %s (%s)", best->info.variant,
                fmt_num(b, sizeof b, best->cyc.median, 1));
    else
        fprintf(out, "  the same");
}

/* The one-screen summary `run` ends with: one line per probe, size and mode,
 * naming the best variant, its cost and budget share, and the runner-up. */
int cb_report_summary(const struct cb_report *r, const struct cb_text_opts *o, FILE *out)
{
    char line[1024];
    fprintf(out, "run %" PRId64 ": %s\n", r->run.id, r->cyc_label);
    emulated_line(&r->run, out);
    if (cb_rank_by_time(r))
        fprintf(out, "ranked by %s (cycles are estimated); tie = within noise of the best\n",
                cb_report_time_what(r));
    else
        fprintf(out, "tie = within noise of the best (exact rank test, p < %.2g and %.0f%% apart)\n",
                CB_RANK_ALPHA, CB_RANK_MARGIN * 100);
    const struct cb_report_case *v[SUMMARY_MAX];
    budget_line(r, o, line, sizeof line);
    wrapped(out, "budget", line);
    wrapped(out, "rule", cb_budget_rule(o->budget->frame ? o->budget->frame : CB_MIN_FRAME, line,
                                        sizeof line));
    cb_report_context_line(r, line, sizeof line);
    wrapped(out, "context", line);
    fputc('\n', out);
    /* The runner-up shows the figure the ranking used: the same one as the
     * best's ns/op column when ranked by time ("177075 tie:
     * ntdq-avx2 (176821)" read as a tie won by the larger number). */
    int by_time = cb_rank_by_time(r);
    fprintf(out, "%-11s %9s %-5s %-18s %9s %8s %7s %8s  %s\n", "probe", "size", "mode",
            r->context == CB_CONTEXT_KERNEL ? "kernel's pick" : "best", "cyc/op", "ns/op", "B/cyc",
            "budget%", r->context == CB_CONTEXT_KERNEL ? "the best in user space (cyc/op)"
                       : by_time ? "runner-up (ns/op)" : "runner-up (cyc/op)");
    for (size_t i = 0; i < r->ncases;) {
        size_t j = i, n = 0;
        int bad = 0;
        while (j < r->ncases && same_group(&r->cases[i], &r->cases[j])) {
            const struct cb_report_case *c = &r->cases[j++];
            bad += strcmp(c->info.verdict, "bad") == 0;
            if (c->measured && n < SUMMARY_MAX)
                v[n++] = c;
        }
        size_t first = cb_rank_group(r, v, n, NULL);
        const struct cb_report_case *best = first ? v[0] : NULL, *second = n > 1 ? v[1] : NULL;
        const struct cb_case_info *g = &r->cases[i].info;
        char sz[32];
        if (strcmp(g->probe, "region") == 0 && g->size == 0)
            fprintf(out, "%-11.11s %-15s", g->probe, cb_report_where(g, "", sz, sizeof sz));
        else
            fprintf(out, "%-11.11s %9s %-5s", g->probe, cb_fmt_size(g->size, g->unit, sz, sizeof sz), g->mode);
        if (best && r->context == CB_CONTEXT_KERNEL) {
            kernel_row(r, o, v, n, best, out);
        } else if (best) {
            double bytes = (double)best->info.bytes_per_op;
            char b[48];
            double fig2 = second ? cb_rank_shown(r, second) : NAN;
            fprintf(out, " %-18.18s", best->info.variant);
            num(out, best->cyc.median, 9, 1);
            num(out, best->ns_per_op, 8, 2);
            num(out, bytes > 0 ? bytes / best->cyc.median : NAN, 7, 2);
            share_cell(out, r, best, o, 8);
            if (first > 1)
                fprintf(out, "  %s: %s (%s)%s",
                        cb_rank_within_span(r, best, second) ? "tie" : "not separated",
                        second->info.variant, fmt_num(b, sizeof b, fig2, by_time ? 2 : 1),
                        first > 2 ? " and more" : "");
            else if (second)
                fprintf(out, "  %s (%s)", second->info.variant, fmt_num(b, sizeof b, fig2, by_time ? 2 : 1));
        } else {
            fprintf(out, " %-18s", "(nothing measured)");
        }
        if (bad)
            fprintf(out, "  %s%d BAD%s", o->color ? C_RED : "", bad, o->color ? C_OFF : "");
        fputc('\n', out);
        i = j;
    }
    size_t shared = cb_report_count_shared(r);
    if (shared) {
        fputc('\n', out);
        shared_note(r, shared, out);
    }
    return 0;
}
