/* report_html.c — one self-contained HTML page per report.
 *
 * Template, style sheet and script come from reports/ (embedded, assets.h);
 * the charts are inline SVG (drawn in html_charts.c), so the page opens
 * from disk and makes no request (its Content-Security-Policy forbids every
 * fetch).  Every string that came from outside goes through cb_html_esc.
 * Views, per run: header and counter sources, budget bars, throughput
 * curves, noise, counter breakdown, slab and rx_prefetch views, and the full
 * sortable table. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/assets.h"
#include "report/html_internal.h"
#include "report/path.h"
#include "report/report.h"

/* A table cell that sorts by value: data-v carries the number. */
static void tdnum(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("<td class=\"num\" data-v=\"\">–</td>", out);
    else {
        fprintf(out, "<td class=\"num\" data-v=\"%.9g\">", v);
        cb_html_fnum(out, v);
        fputs("</td>", out);
    }
}

static void tdtext(FILE *out, const char *s)
{
    fputs("<td>", out);
    cb_html_esc(out, s);
    fputs("</td>", out);
}

/* ---- tables -------------------------------------------------------------------- */

/* The cells that name a case: probe, variant, size (sorting by bytes), mode. */
static void td_case(FILE *out, const struct cb_case_info *i)
{
    tdtext(out, i->probe);
    tdtext(out, i->variant);
    int region = strcmp(i->probe, "region") == 0 && i->size == 0;
    fprintf(out, "<td class=\"num\" data-v=\"%" PRIu64 "\">", i->size);
    if (region)
        fputs("-", out);
    else
        cb_html_size_label(out, i->size, i->unit);
    fputs("</td>", out);
    tdtext(out, region ? "marked" : i->mode);
}

static int is_cycle_part(const struct cb_report *r, size_t e)
{
    return (int)e == r->cyc_event || (int)e == r->tsc_event ||
           strcmp(r->events[e].part, "cycles-est") == 0 || strcmp(r->events[e].part, "cycles") == 0;
}

static void counters_view(FILE *out, const struct cb_report *r)
{
    fprintf(out, "<h2 id=\"counters-%" PRId64 "\">Counter breakdown per operation</h2>", r->run.id);
    int ins = cb_report_event(r, "instructions"), any = 0;
    for (size_t e = 0; e < r->nevents; e++)
        any |= r->events[e].supported && !is_cycle_part(r, e);
    if (!any) {
        fputs("<p class=\"note\">Nothing beyond cycles and the TSC was counted in this run.", out);
        for (size_t e = 0; e < r->nevents; e++)
            if (!r->events[e].supported) {
                fputs(" <code>", out);
                cb_html_esc(out, r->events[e].part);
                fputs("</code>: ", out);
                cb_html_esc(out, r->events[e].why);
                fputs(".", out);
            }
        fputs("</p>", out);
        return;
    }
    fputs("<p class=\"lead\">Median per operation of every event that was counted (cache misses, "
          "ineffective prefetches, instructions ...). Unsupported events are not shown as zero: "
          "they are listed under the sources above.</p><div class=\"tablewrap\"><table class=\"sortable counters\">"
          "<thead><tr><th>probe</th><th>variant</th><th class=\"num\">size</th><th>mode</th><th class=\"num\">cycles/op</th>",
          out);
    for (size_t e = 0; e < r->nevents; e++)
        if (r->events[e].supported && !is_cycle_part(r, e)) {
            fputs("<th class=\"num\">", out);
            cb_html_esc(out, r->events[e].part);
            fputs("/op</th>", out);
        }
    if (ins >= 0)
        fprintf(out, "<th class=\"num\">IPC%s</th>", strcmp(r->cyc_source, "pmu") ? " (est. cycles)" : "");
    fputs("</tr></thead><tbody>", out);
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!c->measured)
            continue;
        fputs("<tr>", out);
        td_case(out, &c->info);
        tdnum(out, c->cyc.median);
        for (size_t e = 0; e < r->nevents; e++)
            if (r->events[e].supported && !is_cycle_part(r, e))
                tdnum(out, c->ev_median[e]);
        if (ins >= 0)
            tdnum(out, c->cyc.median > 0 ? c->ev_median[ins] / c->cyc.median : NAN);
        fputs("</tr>", out);
    }
    fputs("</tbody></table></div>", out);
}

/* One row of the full table; its budget share is from time (report.h). */
static void case_row(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    struct cb_summary s = cb_report_shown_cyc(c);
    fputs("<tr>", out);
    td_case(out, &c->info);
    /* The verdict beside the case, before the figures: a BAD variant's
     * reason is never past the table's right edge. */
    int bad = strcmp(c->info.verdict, "bad") == 0;
    fprintf(out, "<td class=\"wrap%s\">", bad ? " bad" : "");
    cb_html_esc(out, bad ? "BAD" : c->info.verdict);
    if (c->info.detail[0]) {
        fputs(": ", out);
        cb_html_esc(out, c->info.detail);
    }
    fputs("</td>", out);
    const double figs[] = {s.median, s.min, s.p25, s.p75, s.spread_pct, cb_report_bpc(c),
                           c->ns_per_op};
    for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++)
        tdnum(out, figs[f]);
    double share = 100 * cb_report_share(r, c, &r->budget);
    if (isnan(share))
        tdnum(out, share);
    else
        fprintf(out, "<td class=\"num %s\" data-v=\"%.6g\">%.1f</td>", share <= 100 ? "fit" : "over", share, share);
    struct cb_sb why = CB_SB_INIT;
    const char *over = cb_report_ceil_over(r, c, &why);
    for (int k = 0; k < 2; k++) {
        double v = 100 * (k ? c->share_store : c->share_load);
        if (over && v > 100 && (k == 1) == cb_report_stores(c->info.probe)) {
            /* Above its ceiling: flagged, with why (ceil_over.c). */
            fprintf(out, "<td class=\"num over\" data-v=\"%.9g\" title=\"", v);
            cb_html_esc(out, over);
            fprintf(out, "\">%.1f!</td>", v);
        } else
            tdnum(out, v);
    }
    cb_sb_release(&why);
    /* The clock the case's estimated cycles are at (caseclock.h). */
    if (c->measured && c->info.clock_used[0])
    {
        double g = strcmp(c->info.clock_used, "case") == 0 ? c->info.clock_ghz : r->run.core_ghz;
        fprintf(out, "<td class=\"num words\" data-v=\"%.6g\" title=\"the case's own clock %.3f GHz, "
                "noise %.1f%%\">%.2f %s%s</td>", g, c->info.clock_ghz, c->info.clock_spread_pct, g,
                c->info.clock_used, c->info.clock_flagged ? " flagged" : "");
    }
    else
        tdnum(out, NAN);
    fprintf(out, "<td class=\"num words\" data-v=\"%zu\">%zu%s%s</td>", s.n, s.n,
            c->scaled ? " scaled" : "", cb_report_case_marks(c));
    fputs("</tr>", out);
}

static void cases_table(FILE *out, const struct cb_report *r)
{
    fprintf(out, "<h2 id=\"cases-%" PRId64 "\">All cases</h2><p class=\"lead\">Click a header to "
                 "sort. Cycles are %s.</p><div class=\"tablewrap\"><table class=\"sortable cases\">"
                 "<thead><tr><th>probe</th><th>variant</th><th class=\"num\">size</th><th>mode</th>"
                 "<th>verdict</th>"
                 "<th class=\"num\">cycles/op</th><th class=\"num\">min</th><th class=\"num\">p25</th>"
                 "<th class=\"num\">p75</th><th class=\"num\">spread %%</th><th class=\"num\">B/cycle</th>"
                 "<th class=\"num\">ns/op</th><th class=\"num\" title=\"the share of the budget in the header, "
                 "charged by its rule\">budget %%</th>"
                 "<th class=\"num\" title=\"bytes per TSC tick over the load ceiling of the level the "
                 "working set fits in (DRAM when cold)\">%% load ceil</th>"
                 "<th class=\"num\" title=\"the same over the store ceiling, for the families that "
                 "write their bytes\">%% store ceil</th><th class=\"num\" title=\"the core clock the "
                 "case's estimated cycles are at: its own (case) or the run's (run); flagged: its "
                 "own disagreed with the run's\">clock GHz</th><th class=\"num\">n</th>"
                 "</tr></thead><tbody>",
            r->run.id, cb_report_cycles_what(r));
    for (size_t k = 0; k < r->ncases; k++)
        case_row(out, r, &r->cases[k]);
    fputs("</tbody></table></div>", out);
}

/* ---- header ---------------------------------------------------------------- */

static void dt(FILE *out, const char *k, const char *v)
{
    fprintf(out, "<dt>%s</dt><dd>", k);
    cb_html_esc(out, v);
    fputs("</dd>", out);
}

static void emit_dt(void *out, const char *k, const char *v)
{
    dt(out, k, v);
}

/* The run's number and tag, and a link to each section the page has: the
 * sections are written first (sections), and a link made for each <h2 id>
 * found there, so that no link points at a section this run lacks. */
static void header_title(FILE *out, const struct cb_run_info *u, const char *sections)
{
    fprintf(out, "<h1>Run %" PRId64, u->id);
    if (u->tag[0]) {
        fputs(" · <span class=\"tag\">", out);
        cb_html_esc(out, u->tag);
        fputs("</span>", out);
    }
    fputs("</h1><nav class=\"toc\">", out);
    for (const char *p = sections; (p = strstr(p, "<h2 id=\"")) != NULL;) {
        p += 8;
        const char *q = strchr(p, '"'), *t = q ? strchr(q, '>') : NULL, *e = t ? strstr(t, "</h2>") : NULL;
        if (!e)
            break;
        /* The heading's text up to its first tag or colon, already escaped. */
        size_t n = strcspn(t + 1, "<:");
        fprintf(out, "<a href=\"#%.*s\">%.*s</a>", (int)(q - p), p, (int)(n < (size_t)(e - t - 1) ? n : (size_t)(e - t - 1)), t + 1);
        p = e;
    }
    fputs("</nav>", out);
}

/* Where and how the run was measured: machine, clocks, build, commit, time. */
static void header_meta(FILE *out, const struct cb_report *r, const struct cb_budget *b)
{
    const struct cb_run_info *u = &r->run;
    char buf[1600];
    fputs("<dl class=\"meta\">", out);
    snprintf(buf, sizeof buf, "%s (%s family %d model %d stepping %d, microcode %s)", u->model_name,
             u->vendor, u->family, u->model, u->stepping, u->microcode[0] ? u->microcode : "?");
    dt(out, "CPU", buf);
    snprintf(buf, sizeof buf, "%s, %d CPUs, %s; pinned to CPU %d", u->hostname, u->ncpus, u->kernel, u->cpu);
    dt(out, "host", buf);
    const struct cb_run_lines lines = {"clocks", "contention meter", "environment", emit_dt, out,
                                       "host state"};
    cb_report_run_lines(u, &lines, buf, sizeof buf);
    dt(out, "PMU (libpfm4)", u->pmu[0] ? u->pmu : "none");
    dt(out, "features", u->features);
    snprintf(buf, sizeof buf, "cyclebudget %s, %s, %s", u->version, u->compiler, u->cflags);
    dt(out, "build", buf);
    if (u->commit[0]) {
        snprintf(buf, sizeof buf, "%s%s — %s (%s)", u->commit,
                 u->dirty == 1 ? " + uncommitted changes (dirty)" : u->dirty == 0 ? " (clean)" : " (dirty: unknown)",
                 u->subject, u->commit_date);
        dt(out, "commit", buf);
    } else {
        dt(out, "commit", "not measured from a git tree");
    }
    /* Which build of the user's own code was measured: as the text and
     * JSON reports say it. */
    if (u->plugins[0])
        dt(out, "plugins", u->plugins);
    snprintf(buf, sizeof buf, "%s → %s (%s)", u->started, u->finished[0] ? u->finished : "?", u->status);
    dt(out, "time", buf);
    if (u->uuid[0])
        dt(out, "uuid", u->uuid);
    fputs("<dt>command</dt><dd><code>", out);
    cb_html_esc(out, u->cmdline);
    fputs("</code></dd>", out);
    double bc = cb_budget_cycles(b, r->core_ghz);
    snprintf(buf, sizeof buf, "%s = %.0f cycles per packet at %.2f GHz, %s (10G %.0f, 40G %.0f, "
             "100G %.0f)", b->label, bc, r->core_ghz, cb_report_budget_clock_what(r),
             cb_report_budget_cycles(r, 10), cb_report_budget_cycles(r, 40),
             cb_report_budget_cycles(r, 100));
    dt(out, "budget", buf);
    dt(out, "budget rule", cb_budget_rule(b->frame ? b->frame : CB_MIN_FRAME, buf, sizeof buf));
    cb_report_context_line(r, buf, sizeof buf);
    dt(out, "context", buf);
    cb_report_ceil_line(r, buf, sizeof buf);
    dt(out, "ceilings", buf);
    fputs("</dl>", out);
}

/* What the cycle figures are, in words (TSC ticks are not core cycles),
 * and the warnings a reader must see first: fake clock, shared core. */
static void header_callouts(FILE *out, const struct cb_report *r)
{
    fputs("<div class=\"callout\"><strong>Cycles in this report: ", out);
    cb_html_esc(out, r->cyc_label);
    fputs(".</strong> ", out);
    if (strcmp(r->cyc_source, "pmu") == 0)
        fputs("These are core clock cycles from the hardware counter.", out);
    else if (strcmp(r->cyc_source, "simulated") == 0) {
        fputs("Every figure of this run was counted by valgrind's callgrind on its model of this "
              "CPU's caches: simulated counts, which repeat exactly from run to run, not "
              "timings. The simulated machine: ", out);
        cb_html_esc(out, r->run.sim_model);
        fputc('.', out);
    } else if (strcmp(r->cyc_source, "estimate") == 0) {
        const char *t = cb_report_counter(&r->run); /* TSC, or CNTVCT for an arm64 run */
        fprintf(out, "No hardware cycle counter was available, so every cycle figure is %s ticks "
                     "scaled by the measured ratio of core clock to %s rate: an estimate, not a "
                     "count. Variants are ranked by %s time, which the estimate's noise does not "
                     "touch.", t, t, t);
    } else
        fprintf(out, "These are %s reference ticks at a fixed rate, not core cycles: they do not "
                     "follow the core clock.", cb_report_counter(&r->run));
    if (strcmp(r->cyc_source, "simulated") != 0)
        fprintf(out, " Times (ns/op) come from the %s.", cb_report_counter(&r->run));
    fputs("</div>", out);
    if (cb_report_is_fake(&r->run))
        fputs("<div class=\"callout\"><strong>Fake clock.</strong> This run was timed on the fake "
              "clock (CB_FAKE_CLOCK, a test backend): its figures are a model, not measurements of "
              "this machine.</div>", out);
    size_t shared = cb_report_count_shared(r);
    if (shared) {
        fprintf(out, "<div class=\"callout\"><strong>A shared core.</strong> %zu of %zu cases had over "
                     "half their samples taken with ", shared, r->ncases);
        cb_html_esc(out, cb_report_shared_what(&r->run));
        fputs(", which adds cycles that are not the code's; they are marked <em>shared</em> in the n "
              "column. Rerun, or compare with runs as the unit, which counts only the quiet "
              "samples.</div>", out);
    }
}

/* Each event asked for: how it was counted, or why it was not. */
static void header_events(FILE *out, const struct cb_report *r)
{
    fputs("<div class=\"tablewrap\"><table class=\"events\"><thead><tr><th>event</th><th>counted as</th>"
          "<th>source</th><th>read</th><th>status</th></tr></thead><tbody>", out);
    for (size_t e = 0; e < r->nevents; e++) {
        const struct cb_event_info *ev = &r->events[e];
        fputs("<tr>", out);
        tdtext(out, ev->name);
        fputs("<td class=\"mono\">", out);
        cb_html_esc(out, ev->pfm[0] ? ev->pfm : ev->part);
        fputs("</td>", out);
        fprintf(out, "<td><span class=\"pill src-%s\">", ev->supported ? ev->source : "unsupported");
        cb_html_esc(out, ev->supported ? ev->source : "unsupported");
        fputs("</span></td>", out);
        tdtext(out, ev->read_method);
        fputs("<td class=\"wrap\">", out);
        cb_html_esc(out, ev->supported ? "counted" : ev->why);
        fputs("</td></tr>", out);
    }
    fputs("</tbody></table></div>", out);
}

/* ---- page ------------------------------------------------------------------ */

/* Every section of one run, summary first: the callouts a reader must see,
 * the run's details folded, then the detail charts and the full table. */
static void run_sections(FILE *out, const struct cb_report *r, const struct cb_report *base,
                         const struct cb_budget *b, const struct cb_report_case **v, struct line *ls)
{
    /* Above everything: no figure below is a timing. */
    if (r->run.emulated[0]) {
        fputs("<div class=\"callout emulated\" role=\"alert\"><strong>EMULATED</strong> (", out);
        cb_html_esc(out, r->run.emulated);
        fputs("): " CB_REPORT_EMULATED_WHAT "; " CB_REPORT_EMULATED_MORE ".</div>", out);
    }
    cb_html_summary_view(out, r, base, b);
    cb_report_inkernel_html(out, r);
    header_callouts(out, r);
    fprintf(out, "<details class=\"meta\"><summary>The run: machine, clocks, build, commit, events "
                 "(run %" PRId64 ")</summary>", r->run.id);
    header_meta(out, r, b);
    header_events(out, r);
    fputs("</details>", out);
    cb_html_budget_view(out, r, v);
    cb_path_html_view(out, r);
    cb_html_throughput_view(out, r, ls);
    cb_html_roofline_view(out, r, ls);
    cb_html_noise_view(out, r);
    counters_view(out, r);
    cb_html_family_views(out, r, v, ls);
    cases_table(out, r);
}

static void run_section(FILE *out, const struct cb_report *r, const struct cb_report *base,
                        const struct cb_budget *b, const struct cb_report_case **v, struct line *ls)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem) {
        run_sections(mem, r, base, b, v, ls);
        if (fclose(mem) != 0) {
            free(buf);
            buf = NULL;
        }
    }
    fprintf(out, "<section class=\"run\" id=\"run-%" PRId64 "\">", r->run.id);
    header_title(out, &r->run, buf ? buf : "");
    if (buf)
        fwrite(buf, 1, len, out);
    else
        run_sections(out, r, base, b, v, ls);
    free(buf);
    fputs("</section>", out);
}

static void body(FILE *out, const struct cb_report *runs, size_t nruns, const struct cb_budget *b,
                 const struct cb_report_case **v, struct line *ls)
{
    fputs("<main>", out);
    if (nruns > 1) {
        fprintf(out, "<h1>cyclebudget: %zu runs</h1><div class=\"tablewrap\"><table class=\"sortable runs\">"
                     "<thead><tr><th class=\"num\">run</th><th>started</th><th>tag</th><th>commit</th>"
                     "<th>host</th><th>cycles</th><th class=\"num\">cases</th></tr></thead><tbody>",
                nruns);
        for (size_t i = 0; i < nruns; i++) {
            const struct cb_run_info *u = &runs[i].run;
            fprintf(out, "<tr><td class=\"num\" data-v=\"%" PRId64 "\"><a href=\"#run-%" PRId64 "\">%" PRId64 "</a></td>",
                    u->id, u->id, u->id);
            tdtext(out, u->started);
            tdtext(out, u->tag);
            char c[80];
            snprintf(c, sizeof c, "%.12s%s", u->commit, u->dirty == 1 ? " (dirty)" : "");
            tdtext(out, c);
            tdtext(out, u->hostname);
            snprintf(c, sizeof c, "%s%s", runs[i].cyc_source, u->emulated[0] ? ", EMULATED" : "");
            tdtext(out, c);
            fprintf(out, "<td class=\"num\" data-v=\"%zu\">%zu</td></tr>", runs[i].ncases, runs[i].ncases);
        }
        fputs("</tbody></table></div>", out);
    }
    for (size_t i = 0; i < nruns; i++)
        run_section(out, &runs[i], i > 0 ? &runs[0] : NULL, b, v, ls);
    fputs("<footer>Made by cyclebudget from the store alone. Self-contained: no script, style, "
          "font or image is loaded from anywhere. Medians are of per-operation values after "
          "subtracting the empty batch; spread is the interquartile range over the median.</footer></main>",
          out);
}

int cb_html_page(FILE *out, const char *title, void (*body_fn)(FILE *, void *), void *ctx)
{
    const char *tpl = cb_asset_find("report.html.in");
    const char *css = cb_asset_find("report.css"), *js = cb_asset_find("report.js");
    if (!tpl || !css || !js)
        return -ENOENT;
    /* The template's @@NAME@@ markers are the only thing substituted. */
    const char *p = tpl;
    for (;;) {
        const char *m = strstr(p, "@@");
        if (!m) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(m - p), out);
        const char *e = strstr(m + 2, "@@");
        if (!e) {
            fputs(m, out);
            break;
        }
        size_t len = (size_t)(e - m - 2);
        if (len == 5 && strncmp(m + 2, "STYLE", 5) == 0)
            fputs(css, out);
        else if (len == 6 && strncmp(m + 2, "SCRIPT", 6) == 0)
            fputs(js, out);
        else if (len == 5 && strncmp(m + 2, "TITLE", 5) == 0)
            cb_html_esc(out, title);
        else if (len == 4 && strncmp(m + 2, "BODY", 4) == 0)
            body_fn(out, ctx);
        p = e + 2;
    }
    return ferror(out) ? -EIO : 0;
}

struct page_ctx {
    const struct cb_report *runs;
    size_t nruns;
    const struct cb_budget *budget;
    const struct cb_report_case **v;
    struct line *ls;
};

static void page_body(FILE *out, void *ctx)
{
    struct page_ctx *pc = ctx;
    body(out, pc->runs, pc->nruns, pc->budget, pc->v, pc->ls);
}

int cb_report_html(const struct cb_report *runs, size_t nruns, const struct cb_budget *budget,
                   FILE *out)
{
    size_t maxc = 1;
    for (size_t i = 0; i < nruns; i++)
        maxc = runs[i].ncases > maxc ? runs[i].ncases : maxc;
    const struct cb_report_case **v = malloc(maxc * sizeof *v);
    struct line *ls = malloc(MAXLINES * sizeof *ls);
    if (!v || !ls) {
        free(v);
        free(ls);
        return -ENOMEM;
    }
    struct page_ctx pc = {runs, nruns, budget, v, ls};
    char title[256];
    if (nruns == 1)
        snprintf(title, sizeof title, "cyclebudget run %" PRId64 "%s%s%s", runs[0].run.id,
                 runs[0].run.tag[0] ? " (" : "", runs[0].run.tag, runs[0].run.tag[0] ? ")" : "");
    else
        snprintf(title, sizeof title, "cyclebudget: %zu runs", nruns);
    int rc = cb_html_page(out, title, page_body, &pc);
    free(v);
    free(ls);
    return rc < 0 ? rc : ferror(out) ? -EIO : 0;
}

