/* crossover.c — crossovers and fusion worth (see crossover.h). */
#include "report/crossover.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/probe.h"
#include "report/rank.h"

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

/* A case whose cost is not above the overhead subtracted from it (the
 * empty loop, or a bpf run's empty program) has no rate and no rank. */
static int resolved(const struct cb_report *r, const struct cb_report_case *c)
{
    return c && c->measured && cb_rank_shown(r, c) > 0;
}

/* The verdict at size index s: the resolved cases there, fastest first
 * (rank.h), into v, and tied[] for those within noise of the first.
 * Returns how many share first place: 1 is a clear winner, more a tie, 0
 * nothing to rank (fewer than two cases: no winner is claimed over none). */
static size_t at_size(const struct cb_report *r, const struct grid *g, size_t s,
                      const struct cb_report_case **v, int *tied, size_t *nv)
{
    size_t n = 0;
    for (size_t k = 0; k < g->nvariants; k++)
        if (resolved(r, g->cell[s][k]))
            v[n++] = g->cell[s][k];
    *nv = n;
    return n < 2 ? 0 : cb_rank_group(r, v, n, tied);
}

/* The clear winner at size s, or NULL for a tie or nothing measured. */
static const struct cb_report_case *clear_winner(const struct cb_report *r, const struct grid *g,
                                                 size_t s)
{
    const struct cb_report_case *v[MAX_VARIANTS];
    size_t nv;
    return at_size(r, g, s, v, NULL, &nv) == 1 ? v[0] : NULL;
}

/* The crossovers of one grid: a crossover is claimed only between two
 * clear winners (each faster than every other variant at its size beyond
 * the noise), so no claim can be contradicted by the table; tied sizes
 * between them are passed over. */
static size_t grid_crossovers(const struct cb_report *r, const struct grid *g,
                              struct cb_crossover *out, size_t max)
{
    const struct cb_report_case *prev = NULL;
    size_t total = 0;
    for (size_t s = 0; s < g->nsizes; s++) {
        const struct cb_report_case *w = clear_winner(r, g, s);
        if (!w)
            continue;
        if (prev && strcmp(prev->info.variant, w->info.variant) != 0) {
            if (total < max)
                out[total] = (struct cb_crossover){g->probe, g->mode, prev->info.size,
                                                   w->info.size, prev->info.variant,
                                                   w->info.variant};
            total++;
        }
        prev = w;
    }
    return total;
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
        total += grid_crossovers(r, g, total < max ? out + total : NULL,
                                 total < max ? max - total : 0);
    }
    free(g);
    return total;
}

/* The size as a column heading: "1500B", "4KiB". */
static void size_heading(uint64_t size, FILE *out)
{
    char b[32];
    cb_fmt_size(size, "B", b, sizeof b);
    for (char *p = strchr(b, ' '); p; p = strchr(p, ' '))
        memmove(p, p + 1, strlen(p));
    fprintf(out, " %6s ", b);
}

/* The table: bytes per the figure the run ranks on (per ns of TSC time
 * where cycles are estimated, so that a star never sits on a cell that
 * reads slower than another), '*' on a clear winner, '=' on tied leaders. */
static void grid_table(const struct cb_report *r, const struct grid *g, FILE *out)
{
    int by_time = cb_rank_by_time(r);
    size_t cols = g->nsizes > 10 ? 10 : g->nsizes; /* 8 wide: under 100 columns */
    fprintf(out, "\n%s %s: bytes per %s by size; * fastest beyond noise, = tied within noise\n",
            g->probe, g->mode, by_time ? "ns (TSC time)" : "cycle");
    if (!by_time)
        fprintf(out, "  (%s cycles)\n", r->cyc_source);
    fprintf(out, "  %-14s", "variant");
    for (size_t s = 0; s < cols; s++)
        size_heading(g->sizes[s], out);
    fputc('\n', out);
    char mark[MAX_SIZES][MAX_VARIANTS];
    int unresolved = 0;
    memset(mark, ' ', sizeof mark);
    for (size_t s = 0; s < cols; s++) {
        const struct cb_report_case *v[MAX_VARIANTS];
        int tied[MAX_VARIANTS];
        size_t nv, first = at_size(r, g, s, v, tied, &nv);
        for (size_t k = 0; k < nv; k++)
            for (size_t j = 0; j < g->nvariants; j++)
                if (g->cell[s][j] == v[k] && (tied[k] == CB_RANK_TIED || (k == 0 && first == 1)))
                    mark[s][j] = first == 1 ? '*' : '=';
    }
    for (size_t j = 0; j < g->nvariants; j++) {
        fprintf(out, "  %-14.14s", g->variants[j]);
        for (size_t s = 0; s < cols; s++) {
            const struct cb_report_case *c = g->cell[s][j];
            if (!c || !c->measured) {
                fprintf(out, " %7s", "-");
                continue;
            }
            if (!resolved(r, c)) {
                fprintf(out, " %7s", "?");
                unresolved = 1;
                continue;
            }
            fprintf(out, " %6.2f%c", (double)c->info.bytes_per_op / cb_rank_shown(r, c), mark[s][j]);
        }
        fputc('\n', out);
    }
    if (unresolved)
        fprintf(out, "  ?: its cost did not exceed the overhead subtracted from it; no rate, no rank\n");
}

/* Under the table: the crossovers, the tied sizes, or the one winner. */
static void grid_claims(const struct cb_report *r, const struct grid *g, FILE *out)
{
    struct cb_crossover x[MAX_SIZES];
    size_t nx = grid_crossovers(r, g, x, MAX_SIZES);
    char a[32], b[32];
    for (size_t i = 0; i < nx && i < MAX_SIZES; i++)
        fprintf(out, "  crossover: %s wins up to %s, %s from %s\n", x[i].from,
                cb_fmt_size(x[i].below, "B", a, sizeof a), x[i].to,
                cb_fmt_size(x[i].at, "B", b, sizeof b));
    size_t clear = 0, contested = 0;
    const struct cb_report_case *one = NULL;
    for (size_t s = 0; s < g->nsizes; s++) {
        const struct cb_report_case *v[MAX_VARIANTS];
        int tied[MAX_VARIANTS];
        size_t nv, first = at_size(r, g, s, v, tied, &nv);
        contested += nv >= 2;
        if (first == 1) {
            clear++;
            one = v[0];
            continue;
        }
        if (first == 0)
            continue;
        cb_fmt_size(g->sizes[s], "B", a, sizeof a);
        if (tied[0] == CB_RANK_TIED)
            cb_report_tied_names(v, tied, nv, fprintf(out, "  tie at %s (within noise):", a), out);
        char lead[64];
        snprintf(lead, sizeof lead, "  at %s, not separated from", a);
        cb_report_unseparated(r, v, tied, nv, lead, out);
    }
    if (contested == 0) {
        fprintf(out, "  nothing to rank: no size has two variants with a rate\n");
        return;
    }
    if (nx == 0 && clear == g->nsizes && one)
        fprintf(out, "  no crossover: %s wins at every size measured\n", one->info.variant);
    else if (nx == 0 && clear && one)
        fprintf(out, "  no crossover: %s wins at the %zu of %zu sizes with a clear winner\n",
                one->info.variant, clear, g->nsizes);
    else if (clear == 0)
        fprintf(out, "  no winner at any size: at each with two variants or more, one is tied\n"
                     "   with the first or not separated from it\n");
    const char *on = cb_rank_by_time(r) ? cb_report_time_what(r) : "cycles";
    if (cb_rank_runs(r) > 1)
        fprintf(out, "  (a winner: faster than each other variant by %.0f%%+ at p < %.2g, paired t\n"
                     "   on %s over %zu runs of the same bytes: runs as the unit)\n",
                CB_RANK_MARGIN * 100, CB_RANK_ALPHA, on, cb_rank_runs(r));
    else
        fprintf(out, "  (a winner: faster than each other variant by %.0f%%+ at p < %.2g, exact rank\n"
                     "   test on %s: a claim within this one run; %d more runs of the same bytes\n"
                     "   make it a claim across runs)\n",
                CB_RANK_MARGIN * 100, CB_RANK_ALPHA, on, CB_RANK_RUNS_MIN - 1 - (int)r->npeers);
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
        grid_table(r, g, out);
        grid_claims(r, g, out);
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
        if (!best || cb_rank_median(r, c) < cb_rank_median(r, best))
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

/* One fused family's table: its best variant at each size and mode
 * against the best of each of the two families it fuses (its probe
 * record's fuses). */
static void fusion_table(const struct cb_report *r, const struct cb_probe *fam, FILE *out)
{
    const char *a = fam->fuses[0], *b = fam->fuses[1];
    int header = 0;
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *f = &r->cases[k];
        if (!f->measured || strcmp(f->info.probe, fam->name) != 0)
            continue;
        /* One line per size and mode, for the fastest fused variant. */
        if (best_of(r, fam->name, f->info.size, f->info.mode) != f)
            continue;
        const struct cb_report_case *cp = best_of(r, a, f->info.size, f->info.mode);
        const struct cb_report_case *cs = best_of(r, b, f->info.size, f->info.mode);
        char both_name[64];
        snprintf(both_name, sizeof both_name, "%s+%s", a, b);
        heading_once(out, &header,
                     "\n%s against %s alone and %s alone (median %s per %s)\n"
                     "  %-8s %-5s %-14s %9s %9s %9s %9s %10s\n",
                     fam->name, a, b, r->cyc_source, fam->op, "size", "mode", "best fused", "cyc",
                     a, b, both_name, "fused vs");
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
        fprintf(out, "  %s and %s are the fastest variants of each family at that size; "
                     "negative = fusion wins.\n  Runs without %s or %s at the same size show -: "
                     "collect them together (-p %s,%s,%s).\n", a, b, a, b, b, a, fam->name);
}

int cb_report_fusion_text(const struct cb_report *r, FILE *out)
{
    for (size_t i = 0; i < cb_probe_count(); i++) {
        const struct cb_probe *fam = cb_probe_at(i);
        if (fam->fuses[0] && fam->fuses[1])
            fusion_table(r, fam, out);
    }
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
        fprintf(out, "  %-22.22s %-10s %-5s %9.1f %8.2f %8.1f", c->info.variant,
                cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz), c->info.mode, c->cyc.median,
                c->ns_per_op > 0 ? 1e3 / c->ns_per_op : NAN,
                100.0 * cb_report_share(r, c, b));
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
