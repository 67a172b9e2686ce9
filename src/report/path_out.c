/* path_out.c — a composed path as text and as the HTML report's stacked
 * bars (path.h). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/html_internal.h"
#include "report/path.h"
#include "harness/probe.h"

/* A share of the budget of the path's frames at gbps: cycles over that
 * budget in cycles at the run's clock, so that the figures printed beside
 * each other agree; from time where the run has no clock. */
static double path_share(const struct cb_report *r, const struct cb_path_result *res, double cyc,
                         double ns, double gbps)
{
    double bc = cb_path_budget_cycles(r, res, gbps);
    if (isfinite(bc) && bc > 0)
        return isfinite(cyc) ? cyc / bc : NAN;
    double t = cb_budget_charge_ns(&res->charge, gbps);
    return isfinite(ns) && t > 0 ? ns / t : NAN;
}

static void part_where(const struct cb_path_part *pt, char *buf, size_t len)
{
    char sz[32];
    const struct cb_probe *f = pt->c ? NULL : cb_probe_find(pt->step->family);
    cb_fmt_size(pt->size, pt->c ? pt->c->info.unit : f && f->unit ? f->unit : "B", sz, sizeof sz);
    snprintf(buf, len, "%s %s %s", pt->step->family, sz, pt->step->mode);
}

/* Per link rate: the budget, the headroom, and what breaks it: the step
 * at which the running sum crosses the budget, and any step over it alone.
 * A path with a step missing has no total: only the budget, and the steps
 * measured that are over it alone. */
static void links_text(const struct cb_report *r, const struct cb_path_result *res, FILE *out)
{
    fprintf(out, "\n  %-6s %10s %10s %18s  %s\n", "link", "budget", "total", "headroom", "verdict");
    for (int l = 0; l < CB_PATH_NLINKS; l++) {
        double g = cb_path_links[l], bc = cb_path_budget_cycles(r, res, g);
        if (res->missing) {
            fprintf(out, "  %4gG  %10.1f %10s %18s  none: %zu of %zu steps not measured", g, bc, "-",
                    "-", res->missing, res->nparts);
            for (size_t k = 0; k < res->nparts; k++)
                if (path_share(r, res, res->parts[k].cyc, res->parts[k].ns, g) > 1)
                    fprintf(out, "; %s alone %.0f%%", res->parts[k].step->label,
                            100 * path_share(r, res, res->parts[k].cyc, res->parts[k].ns, g));
            fputc('\n', out);
            continue;
        }
        double share = path_share(r, res, res->cyc, res->ns, g);
        char head[48];
        snprintf(head, sizeof head, "%.1f (%.0f%%)", bc - res->cyc, 100 * (1 - share));
        fprintf(out, "  %4gG  %10.1f %10.1f %18s  ", g, bc, res->cyc, head);
        if (!(share > 1)) {
            fputs("fits\n", out);
            continue;
        }
        double run = 0;
        const char *at = NULL;
        for (size_t k = 0; k < res->nparts && !at; k++) {
            run += isfinite(res->parts[k].cyc) ? res->parts[k].cyc : 0;
            if (path_share(r, res, run, NAN, g) > 1)
                at = res->parts[k].step->label;
        }
        fprintf(out, "OVER by %.0f%%: breaks at %s", 100 * (share - 1), at ? at : "?");
        for (size_t k = 0; k < res->nparts; k++)
            if (path_share(r, res, res->parts[k].cyc, res->parts[k].ns, g) > 1)
                fprintf(out, "; %s alone %.0f%%", res->parts[k].step->label,
                        100 * path_share(r, res, res->parts[k].cyc, res->parts[k].ns, g));
        fputc('\n', out);
    }
}

const char *cb_path_frame_text(const struct cb_path_result *res, double gbps, char *buf, size_t len)
{
    char ch[48];
    snprintf(buf, len, "%gG's budget for %s", gbps, cb_budget_charge_text(&res->charge, ch, sizeof ch));
    return buf;
}

void cb_path_summary_line(const struct cb_report *r, const struct cb_path *p,
                          const struct cb_path_result *res, double gbps, int first, FILE *out)
{
    char what[96];
    fprintf(out, "%spath %-4s %4" PRIu64 " B: ", first ? "\n" : "", p->name, res->size);
    if (res->missing) {
        fprintf(out, "no total: %zu of %zu steps not measured in this run ('cyclebudget budget "
                "--path %s' names them)\n", res->missing, res->nparts, p->name);
        return;
    }
    double bc = cb_path_budget_cycles(r, res, gbps);
    fprintf(out, "%8.1f cycles, %5.1f%% of %s", res->cyc,
            100 * path_share(r, res, res->cyc, res->ns, gbps), cb_path_frame_text(res, gbps, what,
                                                                                sizeof what));
    if (isfinite(bc))
        fprintf(out, " (%.1f cycles)", bc);
    fputc('\n', out);
}

void cb_path_text(const struct cb_report *r, const struct cb_path *p, const struct cb_path_result *res,
                  const struct cb_budget *b, FILE *out)
{
    char buf[160], ch[48], ctx[512];
    fprintf(out, "path %s: %s\n", p->name, p->title[0] ? p->title : "(no title)");
    fprintf(out, "  %" PRIu64 "-byte packets from run %" PRId64 "; charged to %s; %s\n", res->size,
            r->run.id, cb_budget_charge_text(&res->charge, ch, sizeof ch), cb_report_cycles_what(r));
    cb_report_context_line(r, ctx, sizeof ctx);
    fprintf(out, "  %s\n", ctx);
    double gb = b->gbps > 0 ? b->gbps : 10;
    snprintf(buf, sizeof buf, "%% of %gG", gb);
    fprintf(out, "\n  %-14s %-26s %-18s %9s %21s %8s\n", "step", "case", "variant", "cycles",
            "95% interval", buf);
    for (size_t k = 0; k < res->nparts; k++) {
        const struct cb_path_part *pt = &res->parts[k];
        part_where(pt, buf, sizeof buf);
        fprintf(out, "  %-14.14s %-26.26s ", pt->step->label, buf);
        if (!pt->c) {
            fprintf(out, "not measured in run %" PRId64 ": cyclebudget run -p %s -V '%s' -s %" PRIu64
                    " -m %s\n", r->run.id, pt->step->family, pt->step->variants, pt->size, pt->step->mode);
            continue;
        }
        char iv[48];
        snprintf(iv, sizeof iv, "[%.1f, %.1f]", pt->lo, pt->hi);
        fprintf(out, "%-18.18s %9.1f %21s %7.1f%%", pt->c->info.variant, pt->cyc, iv,
                100 * path_share(r, res, pt->cyc, pt->ns, gb));
        if (pt->step->count != 1)
            fprintf(out, "  (x%g)", pt->step->count);
        fputc('\n', out);
    }
    double bc = cb_path_budget_cycles(r, res, gb);
    if (res->missing) {
        fprintf(out, "  %-14s no total: %zu of %zu steps not measured in run %" PRId64 " (above: the "
                "command that measures each)\n", "total", res->missing, res->nparts, r->run.id);
        fprintf(out, "  budget at %gG: %.1f cycles for %s\n", gb, bc, ch);
    } else {
        char iv[48];
        snprintf(iv, sizeof iv, "[%.1f, %.1f]", res->lo, res->hi);
        fprintf(out, "  %-14s %-26s %-18s %9.1f %21s %7.1f%%\n", "total", "", "", res->cyc, iv,
                100 * path_share(r, res, res->cyc, res->ns, gb));
        fprintf(out, "  headroom at %gG: %.1f cycles of %.1f for %s (%.0f%%)\n", gb, bc - res->cyc, bc,
                ch, 100 * (1 - path_share(r, res, res->cyc, res->ns, gb)));
    }
    links_text(r, res, out);
    fprintf(out, "\n  interval: each step's median's 95%% interval; the total's, their half-widths "
                 "added in quadrature; %% of %gG: cycles over the budget of %s at the run's clock\n",
            gb, ch);
}

/* ---- HTML ------------------------------------------------------------- */

static void bar_segments(FILE *out, const struct cb_path_result *res, const struct scale *s, double y)
{
    double x = s->r0;
    for (size_t k = 0; k < res->nparts; k++) {
        const struct cb_path_part *pt = &res->parts[k];
        if (!pt->c || !(pt->cyc > 0))
            continue;
        double w = sx(s, pt->cyc) - s->r0;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"18\" fill=\"%s\"><title>",
                x, y, w > 0.5 ? w : 0.5, cb_html_palette[k % CB_HTML_NPAL]);
        cb_html_esc(out, pt->step->label);
        fputs(": ", out);
        cb_html_esc(out, pt->c->info.variant);
        fprintf(out, ", %.1f cycles [%.1f, %.1f]</title></rect>", pt->cyc, pt->lo, pt->hi);
        x += w;
    }
}

static void path_chart(FILE *out, const struct cb_report *r, const struct cb_path *p,
                       const struct cb_path_result *res)
{
    /* 400 wide, as every chart (report.css): whole in a phone's card.  The
     * legend wraps to another row where its next entry would run past
     * the chart's right edge ("(not measured)" entries were cut). */
    const int w = 400;
    int rows = 1;
    for (size_t k = 0, x = 10; k < res->nparts; k++) {
        size_t len = 14 + (size_t)(7.0 * (double)strlen(res->parts[k].step->label)) +
                     (res->parts[k].c ? 8 : 110);
        if (x > 10 && x + len > (size_t)w - 4) {
            rows++;
            x = 10;
        }
        x += len;
    }
    const int h = 96 + 14 * (rows - 1);
    double hi = res->cyc;
    for (int l = 0; l < CB_PATH_NLINKS; l++)
        hi = fmax(hi, cb_path_budget_cycles(r, res, cb_path_links[l]));
    struct scale s = {0, hi * 1.05, 10, (double)w - 10, 0};
    fprintf(out, "<svg class=\"chart path\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                 "role=\"img\">", w, h, w, h);
    bar_segments(out, res, &s, 30);
    for (int l = 0; l < CB_PATH_NLINKS; l++) {
        double bc = cb_path_budget_cycles(r, res, cb_path_links[l]), x = sx(&s, bc);
        if (!isfinite(bc))
            continue;
        fprintf(out, "<line class=\"bud\" stroke=\"#d73027\" x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" "
                     "y2=\"56\"><title>%gG: %.1f cycles per packet</title></line>"
                     "<text class=\"bl\" x=\"%.1f\" y=\"16\" text-anchor=\"middle\">%gG</text>",
                x, x, cb_path_links[l], bc, x, cb_path_links[l]);
    }
    double x = 10;
    int y = 72;
    for (size_t k = 0; k < res->nparts; k++) {
        const struct cb_path_part *pt = &res->parts[k];
        double len = 14 + 7.0 * (double)strlen(pt->step->label) + (pt->c ? 8 : 110);
        if (x > 10 && x + len > w - 4) {
            x = 10;
            y += 14;
        }
        fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"9\" height=\"9\" fill=\"%s\"/>"
                     "<text class=\"lab\" x=\"%.1f\" y=\"%d\">", x, y, cb_html_palette[k % CB_HTML_NPAL],
                x + 12, y + 8);
        cb_html_esc(out, pt->step->label);
        fprintf(out, "%s</text>", pt->c ? "" : " (not measured)");
        x += len;
    }
    (void)p;
    fputs("</svg>", out);
}

void cb_path_html_view(FILE *out, const struct cb_report *r)
{
    fprintf(out, "<h2 id=\"paths-%" PRId64 "\">Per-packet paths</h2><p class=\"lead\">One packet's "
                 "path composed from this run's cases, step by step as a kernel developer "
                 "accounts for a packet's cycles (docs/budget.md): each "
                 "step's best variant%s, stacked, against the budget of the frame a 1500-byte packet "
                 "is charged to at 10, 25, 40 and 100G. <code>cyclebudget budget --path NAME</code> "
                 "prints the table with each step's interval.</p><div class=\"grid\">", r->run.id,
            r->context == CB_CONTEXT_KERNEL ? " in the kernel" : "");
    for (size_t i = 0; cb_path_shipped()[i]; i++) {
        struct cb_path p;
        struct cb_sb err = CB_SB_INIT;
        int rc = cb_path_load(cb_path_shipped()[i], &p, &err);
        cb_sb_release(&err);
        if (rc < 0)
            continue;
        struct cb_path_result res;
        cb_path_compose(r, &p, CB_MTU, &res);
        if (res.missing == res.nparts)
            continue;
        fputs("<div class=\"card\"><h3>", out);
        cb_html_esc(out, p.name);
        fputs(": ", out);
        cb_html_esc(out, p.title);
        if (res.missing)
            fprintf(out, " <span class=\"pill\">no total: %zu of %zu steps not measured</span></h3>",
                    res.missing, res.nparts);
        else
            fprintf(out, " <span class=\"pill\">%.0f cycles</span></h3>", res.cyc);
        path_chart(out, r, &p, &res);
        fputs("</div>", out);
    }
    fputs("</div>", out);
}
