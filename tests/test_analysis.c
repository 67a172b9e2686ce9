/* test_analysis.c — crossovers and the fusion table, on reports built in
 * memory with planted costs, so the right answer is known by construction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/crossover.h"
#include "tap.h"

#define NS 12   /* samples per case */

/* A measured case whose cycles per op are `cost` times (1 +- jitter). */
static void mk(struct cb_report_case *c, const char *probe, const char *variant, uint64_t size,
               const char *mode, double cost, double jitter)
{
    memset(c, 0, sizeof *c);
    snprintf(c->info.probe, sizeof c->info.probe, "%s", probe);
    snprintf(c->info.variant, sizeof c->info.variant, "%s", variant);
    snprintf(c->info.mode, sizeof c->info.mode, "%s", mode);
    snprintf(c->info.unit, sizeof c->info.unit, "B");
    snprintf(c->info.op, sizeof c->info.op, "call");
    snprintf(c->info.verdict, sizeof c->info.verdict, "ok");
    c->info.size = size;
    c->info.bytes_per_op = size;
    c->measured = 1;
    c->ev = calloc(1, sizeof *c->ev);
    c->ev_median = calloc(1, sizeof(double));
    c->ev[0].n = NS;
    c->ev[0].v = malloc(NS * sizeof(double));
    for (int k = 0; k < NS; k++)
        c->ev[0].v[k] = cost * (1 + jitter * ((k % 5) - 2) / 2.0);
    cb_summarize(c->ev[0].v, NS, &c->cyc);
    c->ev_median[0] = c->cyc.median;
}

static void release(struct cb_report *r)
{
    for (size_t k = 0; k < r->ncases; k++) {
        free(r->cases[k].ev[0].v);
        free(r->cases[k].ev);
        free(r->cases[k].ev_median);
    }
    free(r->cases);
}

int main(void)
{
    struct cb_event_info ev = {.id = 1, .supported = 1};
    snprintf(ev.name, sizeof ev.name, "cycles-est");
    snprintf(ev.part, sizeof ev.part, "cycles-est");
    struct cb_report r;
    memset(&r, 0, sizeof r);
    r.events = &ev;
    r.nevents = 1;
    r.cyc_event = 0;
    r.tsc_event = -1; /* no TSC series: these ranks go by the cycle figure */
    snprintf(r.cyc_source, sizeof r.cyc_source, "estimate");

    /* "loop" costs 2 + size/8, "string" 40 + size/32 (the rep-stos shape of
     * the 2016 thread: a start-up cost, then more bytes per cycle).  At 256
     * bytes loop = 34 < string = 48; at 512 loop = 66 > string = 56.  So the
     * crossover is at 512. */
    static const uint64_t sizes[] = {64, 128, 256, 512, 1024, 4096};
    size_t n = sizeof sizes / sizeof sizes[0];
    r.cases = calloc(2 * n + 4, sizeof *r.cases);
    for (size_t i = 0; i < n; i++) {
        double s = (double)sizes[i];
        mk(&r.cases[r.ncases++], "memset", "loop", sizes[i], "warm", 2 + s / 8, 0.02);
        mk(&r.cases[r.ncases++], "memset", "string", sizes[i], "warm", 40 + s / 32, 0.02);
    }
    struct cb_crossover x[8];
    size_t nx = cb_crossovers(&r, x, 8);
    is_int(nx, 1, "one crossover between the planted cost lines");
    if (nx >= 1) {
        is_int(x[0].at, 512, "the winner changes at 512 bytes (2 + s/8 = 40 + s/32 at s = 405)");
        is_int(x[0].below, 256, "the last size the old winner held is 256");
        is_str(x[0].from, "loop", "from the loop");
        is_str(x[0].to, "string", "to the string instruction");
    }

    /* Two variants within noise of each other: the winner by median flips
     * from size to size, but no crossover may be claimed. */
    release(&r);
    memset(&r, 0, sizeof r);
    r.events = &ev;
    r.nevents = 1;
    r.cyc_event = 0;
    r.tsc_event = -1;
    r.cases = calloc(2 * n, sizeof *r.cases);
    for (size_t i = 0; i < n; i++) {
        double s = (double)sizes[i], wobble = (i % 2) ? 1.01 : 0.99;
        mk(&r.cases[r.ncases++], "copy", "a", sizes[i], "cold", s * wobble, 0.2);
        mk(&r.cases[r.ncases++], "copy", "b", sizes[i], "cold", s, 0.2);
    }
    is_int(cb_crossovers(&r, x, 8), 0, "a 1%% wobble inside 20%% noise is no crossover");

    /* The fusion table: fused 100, copy 30, csum 50 -> +25% against 80. */
    release(&r);
    memset(&r, 0, sizeof r);
    r.events = &ev;
    r.nevents = 1;
    r.cyc_event = 0;
    r.tsc_event = -1;
    r.cases = calloc(4, sizeof *r.cases);
    mk(&r.cases[r.ncases++], "csum_copy", "fused", 1500, "warm", 100, 0.01);
    mk(&r.cases[r.ncases++], "csum_copy", "copy-then-csum", 1500, "warm", 120, 0.01);
    mk(&r.cases[r.ncases++], "copy", "glibc", 1500, "warm", 30, 0.01);
    mk(&r.cases[r.ncases++], "csum", "avx2", 1500, "warm", 50, 0.01);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cb_report_fusion_text(&r, f);
    fclose(f);
    ok(buf && strstr(buf, "fused") && strstr(buf, "+25%"), "fusion: 100 against 30 + 50 is +25%%");
    ok(buf && !strstr(buf, "copy-then-csum "), "only the fastest csum_copy variant is listed");
    free(buf);
    release(&r);
    return tap_done();
}
