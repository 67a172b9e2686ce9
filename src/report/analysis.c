/* analysis.c — crossovers and fusion worth (see analysis.h). */
#include "analysis.h"


#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 32
#define MAX_VARIANTS 64

/* The measured cases of one probe and mode, as a size x variant grid. */
struct grid {
    const char *probe, *mode;
    uint64_t sizes[MAX_SIZES];
    size_t nsizes;
    const char *variants[MAX_VARIANTS];
    size_t nvariants;
    const struct cb_report_case *cell[MAX_SIZES][MAX_VARIANTS];
};

static int byte_probe(const struct cb_report_case *c)
{
    return c->measured && c->info.bytes_per_op > 0 && strcmp(c->info.unit, "B") == 0;
}

static size_t index_of_size(struct grid *g, uint64_t size)
{
    size_t i;
    for (i = 0; i < g->nsizes; i++)
        if (g->sizes[i] == size)
            return i;
    if (g->nsizes == MAX_SIZES)
        return MAX_SIZES;
    /* Keep sizes sorted: insert and shift the cells along. */
    for (i = g->nsizes; i > 0 && g->sizes[i - 1] > size; i--) {
        g->sizes[i] = g->sizes[i - 1];
        memcpy(g->cell[i], g->cell[i - 1], sizeof g->cell[i]);
    }
    g->sizes[i] = size;
    memset(g->cell[i], 0, sizeof g->cell[i]);
    g->nsizes++;
    return i;
}

static size_t index_of_variant(struct grid *g, const char *v)
{
    for (size_t i = 0; i < g->nvariants; i++)
        if (strcmp(g->variants[i], v) == 0)
            return i;
    if (g->nvariants == MAX_VARIANTS)
        return MAX_VARIANTS;
    g->variants[g->nvariants] = v;
    return g->nvariants++;
}

/* Fill g with the measured byte cases of (probe, mode); 0 when none. */
static int build_grid(const struct cb_report *r, const char *probe, const char *mode, struct grid *g)
{
    memset(g, 0, sizeof *g);
    g->probe = probe;
    g->mode = mode;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!byte_probe(c) || strcmp(c->info.probe, probe) || strcmp(c->info.mode, mode))
            continue;
        size_t v = index_of_variant(g, c->info.variant);
        size_t s = index_of_size(g, c->info.size);
        if (v < MAX_VARIANTS && s < MAX_SIZES)
            g->cell[s][v] = c;
    }
    return g->nsizes > 0;
}

/* The incumbent keeps the size unless the challenger is faster beyond doubt:
 * a rank test on the two cases' samples at alpha 0.01 and at least 2% apart
 * in median.  A winner that changes within the noise is no crossover. */
static int clearly_faster(const struct cb_report *r, const struct cb_report_case *a,
                          const struct cb_report_case *b)
{
    if (r->cyc_event < 0 || a->cyc.median > b->cyc.median * 0.98)
        return 0;
    const struct cb_report_series *x = &a->ev[r->cyc_event], *y = &b->ev[r->cyc_event];
    if (x->n < 3 || y->n < 3)
        return 0;
    return cb_mann_whitney_p(x->v, x->n, y->v, y->n) < 0.01;
}

/* The case of variant name at size index s, or NULL. */
static const struct cb_report_case *cell_of(const struct grid *g, size_t s, const char *name)
{
    for (size_t v = 0; v < g->nvariants; v++)
        if (g->cell[s][v] && strcmp(g->variants[v], name) == 0)
            return g->cell[s][v];
    return NULL;
}

/* The winner at size s given the previous size's winner prev (may be NULL). */
static const struct cb_report_case *settled(const struct cb_report *r, const struct grid *g,
                                            size_t s, const struct cb_report_case *prev);

static const struct cb_report_case *winner(const struct grid *g, size_t s)
{
    const struct cb_report_case *best = NULL;
    for (size_t v = 0; v < g->nvariants; v++) {
        const struct cb_report_case *c = g->cell[s][v];
        if (c && (!best || c->cyc.median < best->cyc.median))
            best = c;
    }
    return best;
}

static const struct cb_report_case *settled(const struct cb_report *r, const struct grid *g,
                                            size_t s, const struct cb_report_case *prev)
{
    const struct cb_report_case *w = winner(g, s);
    if (!w || !prev || strcmp(w->info.variant, prev->info.variant) == 0)
        return w;
    const struct cb_report_case *inc = cell_of(g, s, prev->info.variant);
    if (inc && !clearly_faster(r, w, inc))
        return inc;
    return w;
}

/* Each distinct (probe, mode) pair of r, in first-seen order. */
static size_t pairs(const struct cb_report *r, const char **probes, const char **modes, size_t max)
{
    size_t n = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!byte_probe(c))
            continue;
        size_t i;
        for (i = 0; i < n; i++)
            if (!strcmp(probes[i], c->info.probe) && !strcmp(modes[i], c->info.mode))
                break;
        if (i == n && n < max) {
            probes[n] = c->info.probe;
            modes[n] = c->info.mode;
            n++;
        }
    }
    return n;
}

size_t cb_crossovers(const struct cb_report *r, struct cb_crossover *out, size_t max)
{
    const char *probes[64], *modes[64];
    size_t np = pairs(r, probes, modes, 64), total = 0;
    struct grid *g = malloc(sizeof *g);
    if (!g)
        return 0;
    for (size_t i = 0; i < np; i++) {
        build_grid(r, probes[i], modes[i], g);
        const struct cb_report_case *prev = NULL;
        for (size_t s = 0; s < g->nsizes; s++) {
            const struct cb_report_case *w = settled(r, g, s, prev);
            if (!w)
                continue;
            if (prev && strcmp(prev->info.variant, w->info.variant) != 0) {
                if (total < max)
                    out[total] = (struct cb_crossover){probes[i], modes[i], prev->info.size,
                                                       w->info.size, prev->info.variant,
                                                       w->info.variant};
                total++;
            }
            prev = w;
        }
    }
    free(g);
    return total;
}

int cb_report_crossover_text(const struct cb_report *r, FILE *out)
{
    const char *probes[64], *modes[64];
    size_t np = pairs(r, probes, modes, 64);
    struct grid *g = malloc(sizeof *g);
    if (!g)
        return -1;
    for (size_t i = 0; i < np; i++) {
        build_grid(r, probes[i], modes[i], g);
        if (g->nsizes < 2)
            continue;
        /* Columns are 8 wide: at most 10 sizes keep the table under 100. */
        size_t cols = g->nsizes > 10 ? 10 : g->nsizes;
        fprintf(out, "\n%s %s: bytes per cycle (%s) by size, fastest median per size marked *\n",
                probes[i], modes[i], r->cyc_source);
        fprintf(out, "  %-14s", "variant");
        for (size_t s = 0; s < cols; s++) {
            char b[32];
            cb_fmt_size(g->sizes[s], "B", b, sizeof b);
            for (char *p = strchr(b, ' '); p; p = strchr(p, ' '))
                memmove(p, p + 1, strlen(p));
            fprintf(out, " %6s ", b);
        }
        fputc('\n', out);
        for (size_t v = 0; v < g->nvariants; v++) {
            fprintf(out, "  %-14.14s", g->variants[v]);
            for (size_t s = 0; s < cols; s++) {
                const struct cb_report_case *c = g->cell[s][v];
                if (!c) {
                    fprintf(out, " %7s", "-");
                    continue;
                }
                double bpc = (double)c->info.bytes_per_op / c->cyc.median;
                fprintf(out, " %6.2f%c", bpc, winner(g, s) == c ? '*' : ' ');
            }
            fputc('\n', out);
        }
        const struct cb_report_case *prev = NULL;
        int any = 0;
        for (size_t s = 0; s < g->nsizes; s++) {
            const struct cb_report_case *w = settled(r, g, s, prev);
            if (prev && w && strcmp(prev->info.variant, w->info.variant) != 0) {
                char a[32], b[32];
                fprintf(out, "  crossover: %s wins up to %s, %s from %s\n", prev->info.variant,
                        cb_fmt_size(prev->info.size, "B", a, sizeof a), w->info.variant,
                        cb_fmt_size(w->info.size, "B", b, sizeof b));
                any = 1;
            }
            if (w)
                prev = w;
        }
        if (!any && prev)
            fprintf(out, "  no crossover: %s wins at every size measured\n", prev->info.variant);
        fprintf(out, "  (a crossover needs the new winner faster at p < 0.01 and by 2%% or more)\n");
    }
    free(g);
    return 0;
}

/* The fastest measured case of probe at size and mode, or NULL. */
static const struct cb_report_case *best_of(const struct cb_report *r, const char *probe,
                                            uint64_t size, const char *mode)
{
    const struct cb_report_case *best = NULL;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!c->measured || strcmp(c->info.probe, probe) || c->info.size != size ||
            strcmp(c->info.mode, mode))
            continue;
        if (!best || c->cyc.median < best->cyc.median)
            best = c;
    }
    return best;
}

/* A table's heading, written before its first row only: *shown says
 * whether it has been. */
static void heading_once(FILE *out, int *shown, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void heading_once(FILE *out, int *shown, const char *fmt, ...)
{
    if (*shown)
        return;
    *shown = 1;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
}

int cb_report_fusion_text(const struct cb_report *r, FILE *out)
{
    int header = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *f = &r->cases[k];
        if (!f->measured || strcmp(f->info.probe, "csum_copy") != 0)
            continue;
        /* One line per size and mode, for the fastest csum_copy variant. */
        if (best_of(r, "csum_copy", f->info.size, f->info.mode) != f)
            continue;
        const struct cb_report_case *cp = best_of(r, "copy", f->info.size, f->info.mode);
        const struct cb_report_case *cs = best_of(r, "csum", f->info.size, f->info.mode);
        heading_once(out, &header,
                     "\ncsum_copy against copy alone and csum alone (median %s per call)\n"
                     "  %-8s %-5s %-14s %9s %9s %9s %9s %10s\n",
                     r->cyc_source, "size", "mode", "best fused", "cyc", "copy", "csum", "copy+csum",
                     "fused vs");
        char sz[32];
        fprintf(out, "  %-8s %-5s %-14.14s %9.1f", cb_fmt_size(f->info.size, "B", sz, sizeof sz),
                f->info.mode, f->info.variant, f->cyc.median);
        if (cp)
            fprintf(out, " %9.1f", cp->cyc.median);
        else
            fprintf(out, " %9s", "-");
        if (cs)
            fprintf(out, " %9.1f", cs->cyc.median);
        else
            fprintf(out, " %9s", "-");
        if (cp && cs) {
            double both = cp->cyc.median + cs->cyc.median;
            fprintf(out, " %9.1f %+9.0f%%\n", both, (f->cyc.median - both) / both * 100.0);
        } else {
            fprintf(out, " %9s %10s\n", "-", "-");
        }
    }
    if (header)
        fprintf(out, "  copy and csum are the fastest variants of each family at that size; "
                     "negative = fusion wins.\n  Runs without copy or csum at the same size show -: "
                     "collect them together (-p csum,copy,csum_copy).\n");
    return 0;
}

/* Sum of the per-op medians of every supported part of event `name` (an
 * alias may have several parts); NAN when no part was counted. */
static double event_sum(const struct cb_report *r, const struct cb_report_case *c, const char *name)
{
    double sum = NAN;
    for (size_t e = 0; e < r->nevents; e++) {
        if (strcmp(r->events[e].name, name) != 0 || !r->events[e].supported ||
            isnan(c->ev_median[e]))
            continue;
        sum = isnan(sum) ? c->ev_median[e] : sum + c->ev_median[e];
    }
    return sum;
}

/* text after lead, wrapped at 100 columns with continuation lines indented. */
static void wrapped(FILE *out, const char *lead, const char *text)
{
    int col = fprintf(out, "%s", lead);
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (!w)
            break;
        if (col + 1 + (int)w > 100 && col > 6) {
            fputs("\n     ", out);
            col = 5;
        }
        col += fprintf(out, " %.*s", (int)w, p);
        p += w;
    }
    fputc('\n', out);
}

static void why_not(const struct cb_report *r, const char *name, FILE *out)
{
    for (size_t e = 0; e < r->nevents; e++)
        if (strcmp(r->events[e].name, name) == 0) {
            if (!r->events[e].supported)
                wrapped(out, "  not counted:", r->events[e].why);
            return;
        }
    fprintf(out, "  %s not asked for: add -e %s to count it where the PMU has it\n", name, name);
}

int cb_report_packet_text(const struct cb_report *r, const struct cb_budget *b, FILE *out)
{
    int header = 0, miss_any = 0, drop_any = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        if (!c->measured || strcmp(c->info.op, "packet") != 0)
            continue;
        heading_once(out, &header,
                     "\nper packet (%s cycles; Mpps = what this one core sustains at that cost)\n"
                     "  %-22s %-10s %-5s %9s %8s %8s %12s %12s\n",
                     r->cyc_source, "variant", "ring", "mode", "cyc/pkt", "Mpps", "budget%",
                     "misses/pkt", "pf-drops/pkt");
        double miss = event_sum(r, c, "cache-misses"), drop = event_sum(r, c, "prefetch-drops");
        miss_any |= !isnan(miss);
        drop_any |= !isnan(drop);
        char sz[32];
        int per_frame; /* a packet case counts descriptors, not bytes: its own share */
        fprintf(out, "  %-22.22s %-10s %-5s %9.1f %8.2f %8.1f", c->info.variant,
                cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz), c->info.mode, c->cyc.median,
                c->ns_per_op > 0 ? 1e3 / c->ns_per_op : NAN,
                100.0 * cb_report_shown_share(r, c, b, &per_frame));
        if (isnan(miss))
            fprintf(out, " %12s", "-");
        else
            fprintf(out, " %12.2f", miss);
        if (isnan(drop))
            fprintf(out, " %12s\n", "-");
        else
            fprintf(out, " %12.2f\n", drop);
    }
    if (header && !miss_any)
        why_not(r, "cache-misses", out);
    if (header && !drop_any)
        why_not(r, "prefetch-drops", out);
    return 0;
}
