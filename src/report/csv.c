/* report_csv.c — one row per case (or per sample), RFC 4180.
 *
 * Columns are fixed whatever the run counted, so that the rows of many runs
 * share one header and load straight into a spreadsheet or pandas.  Cycle
 * figures say their source in a column of their own (pmu, estimate, tsc).
 * The last column, emulated, is empty for a timed run and says why for a
 * run on an emulated CPU, whose figures time no machine (emulation.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "util/strbuf.h"

/* Quote when needed: a field with a comma, quote or line break.  Bytes
 * that are not UTF-8 become U+FFFD, so the file stays valid UTF-8, and
 * control characters \xNN: a CSV is cat'ed to terminals too, and a tag's
 * ESC and BEL once reached them raw from here alone. */
static void field(FILE *out, const char *raw)
{
    struct cb_sb sb = CB_SB_INIT;
    cb_esc_add(&sb, raw, CB_ESC_FFFD | CB_ESC_CTRL | CB_ESC_KEEP_NL);
    const char *s = sb.buf;
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, out);
    } else {
        fputc('"', out);
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    }
    cb_sb_release(&sb);
}

static void numf(FILE *out, double v)
{
    fputc(',', out);
    if (!isnan(v) && !isinf(v))
        fprintf(out, "%.6g", v);
}

static void textf(FILE *out, const char *s)
{
    fputc(',', out);
    field(out, s);
}

/* The clock a case's estimated cycles are at (caseclock.h): its own,
 * its noise, which was used, flagged; empty where none. */
static void csv_clock(FILE *out, const struct cb_case_info *i)
{
    int have = i->clock_used[0] != 0;
    numf(out, have ? i->clock_ghz : NAN);
    numf(out, have ? i->clock_spread_pct : NAN);
    textf(out, i->clock_used);
    fprintf(out, ",%s", have ? (i->clock_flagged ? "1" : "0") : "");
}

/* One case's row; its budget share is from time (report.h). */
static void csv_case(FILE *out, const struct cb_report *r, const struct cb_report_case *c)
{
    struct cb_summary s = cb_report_shown_cyc(c);
    fprintf(out, "%" PRId64, r->run.id);
    textf(out, r->run.started);
    textf(out, r->run.tag);
    textf(out, r->run.commit);
    fprintf(out, ",%s", r->run.commit[0] ? (r->run.dirty == 1 ? "1" : r->run.dirty == 0 ? "0" : "") : "");
    textf(out, r->run.hostname);
    textf(out, c->info.probe);
    textf(out, c->info.variant);
    fprintf(out, ",%" PRIu64, c->info.size);
    textf(out, c->info.unit);
    textf(out, c->info.mode);
    textf(out, c->info.op);
    fprintf(out, ",%" PRIu64, c->info.bytes_per_op);
    textf(out, c->info.verdict);
    textf(out, r->cyc_source);
    fprintf(out, ",%zu", s.n);
    const double figs[] = {s.median, s.min, s.p25, s.p75, s.max, s.ci_lo, s.ci_hi, s.spread_pct,
                           cb_report_bpc(c), c->ns_per_op,
                           100 * cb_report_share(r, c, &r->budget)};
    for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++)
        numf(out, figs[f]);
    fprintf(out, ",%d", c->scaled);
    /* The machine's ceilings, last so that older columns keep their places;
     * empty (null) where unknown, never 0. */
    textf(out, c->ceil_level >= 0 ? cb_ceil_level_name(c->ceil_level) : "");
    const double ceil[] = {c->bpt, c->ceil_load, 100 * c->share_load, c->ceil_store,
                           100 * c->share_store};
    for (size_t f = 0; f < sizeof ceil / sizeof ceil[0]; f++)
        numf(out, ceil[f]);
    csv_clock(out, &c->info);
    /* What the budget share was charged to (budget.h's rule). */
    struct cb_charge ch;
    cb_report_case_charge(c, r->budget.frame, &ch);
    textf(out, r->budget.label);
    fprintf(out, ",%u,%" PRIu64, ch.frame, ch.frames);
    textf(out, cb_context_name(r->context));
    struct cb_sb why = CB_SB_INIT;
    const char *over = cb_report_ceil_over(r, c, &why);
    textf(out, over ? over : "");
    cb_sb_release(&why);
    textf(out, c->info.code_hash);
    if (c->info.code_addr >= 0)
        fprintf(out, ",%d", c->info.code_addr);
    else
        fputc(',', out);
    cb_report_state_csv(out, c);
    textf(out, r->run.emulated); /* last, as emulated.test holds it */
    fputs("\r\n", out);
}

static int csv_cases(const struct cb_report *runs, size_t nruns, FILE *out)
{
    fputs("run,started,tag,commit,dirty,host,probe,variant,size,unit,mode,op,bytes_per_op,"
          "verdict,cycles_source,n,cycles_median,cycles_min,cycles_p25,cycles_p75,cycles_max,"
          "cycles_ci_lo,cycles_ci_hi,spread_pct,bytes_per_cycle,ns_per_op,budget_pct,"
          "scaled,ceiling_level,bytes_per_tick,load_ceiling_bytes_per_tick,load_ceiling_pct,"
          "store_ceiling_bytes_per_tick,store_ceiling_pct,clock_ghz,clock_spread_pct,clock_used,"
          "clock_flagged,budget,budget_frame_bytes,budget_frames,context,ceiling_over,code_hash,code_addr,"
          "host_state,host_state_ratio,host_state_ref,tries,emulated\r\n",
          out);
    for (size_t i = 0; i < nruns; i++) {
        const struct cb_report *r = &runs[i];
        for (size_t k = 0; k < r->ncases; k++)
            csv_case(out, r, &r->cases[k]);
    }
    return ferror(out) ? -EIO : 0;
}

static int csv_samples(const struct cb_report *runs, size_t nruns, FILE *out)
{
    fputs("run,case,probe,variant,size,mode,event,part,source,seq,iters,per_op,raw,enabled_ns,"
          "running_ns,method,clock_ghz,clock_spread_pct,clock_used,clock_flagged,emulated\r\n", out);
    for (size_t i = 0; i < nruns; i++) {
        const struct cb_report *r = &runs[i];
        for (size_t k = 0; k < r->ncases; k++) {
            const struct cb_report_case *c = &r->cases[k];
            for (size_t e = 0; e < r->nevents; e++) {
                const struct cb_event_info *ev = &r->events[e];
                for (size_t j = 0; j < c->ev[e].n; j++) {
                    fprintf(out, "%" PRId64 ",%" PRId64, r->run.id, c->info.id);
                    textf(out, c->info.probe);
                    textf(out, c->info.variant);
                    fprintf(out, ",%" PRIu64, c->info.size);
                    textf(out, c->info.mode);
                    textf(out, ev->name);
                    textf(out, ev->part);
                    textf(out, ev->source);
                    fprintf(out, ",%zu,%" PRIu64, j, c->ev[e].iters[j]);
                    numf(out, c->ev[e].v[j]);
                    numf(out, c->ev[e].raw[j]);
                    fprintf(out, ",%" PRIu64 ",%" PRIu64, c->ev[e].enabled[j], c->ev[e].running[j]);
                    textf(out, c->ev[e].method[j]);
                    csv_clock(out, &c->info);
                    textf(out, r->run.emulated);
                    fputs("\r\n", out);
                }
            }
        }
    }
    return ferror(out) ? -EIO : 0;
}

int cb_report_csv(const struct cb_report *runs, size_t nruns, int samples, FILE *out)
{
    return samples ? csv_samples(runs, nruns, out) : csv_cases(runs, nruns, out);
}
