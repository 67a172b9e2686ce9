/* report.c — load a run and summarise its cases (see report.h). */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cb_fmt_size(uint64_t size, const char *unit, char *buf, size_t len)
{
    if (unit && strcmp(unit, "B") != 0)
        snprintf(buf, len, "%" PRIu64 " %s", size, unit);
    else if (size >= (1u << 20) && size % (1u << 20) == 0)
        snprintf(buf, len, "%" PRIu64 " MiB", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, len, "%" PRIu64 " KiB", size >> 10);
    else
        snprintf(buf, len, "%" PRIu64 " B", size);
    return buf;
}

static int find_event(const struct cb_report *r, const char *part, int need_supported)
{
    for (size_t i = 0; i < r->nevents; i++)
        if (strcmp(r->events[i].part, part) == 0 && (!need_supported || r->events[i].supported))
            return (int)i;
    return -1;
}

static int summarize_event(struct cb_store *st, int64_t case_id, int64_t event_id,
                           struct cb_summary *s, int *scaled_any)
{
    double *v = NULL;
    int *sc = NULL;
    size_t n = 0;
    int rc = cb_store_case_values(st, case_id, event_id, &v, &sc, &n);
    if (rc < 0)
        return rc;
    if (n == 0) {
        memset(s, 0, sizeof *s);
        free(v);
        free(sc);
        return -ENODATA;
    }
    rc = cb_summarize(v, n, s);
    if (scaled_any)
        for (size_t i = 0; i < n; i++)
            *scaled_any |= sc[i];
    free(v);
    free(sc);
    return rc;
}

int cb_report_load(struct cb_store *st, int64_t run_id, struct cb_report *r)
{
    memset(r, 0, sizeof *r);
    int rc = cb_store_run_get(st, run_id, &r->run);
    if (rc < 0)
        return rc;
    if ((rc = cb_store_events(st, run_id, &r->events, &r->nevents)) < 0)
        return rc;
    struct cb_case_info *ci = NULL;
    if ((rc = cb_store_cases(st, run_id, &ci, &r->ncases)) < 0)
        return rc;
    r->cases = calloc(r->ncases ? r->ncases : 1, sizeof *r->cases);
    if (!r->cases) {
        free(ci);
        return -ENOMEM;
    }
    r->tsc_event = find_event(r, "tsc", 1);
    if ((r->cyc_event = find_event(r, "cycles", 1)) >= 0 &&
        strcmp(r->events[r->cyc_event].source, "pmu") == 0) {
        snprintf(r->cyc_source, sizeof r->cyc_source, "pmu");
        snprintf(r->cyc_label, sizeof r->cyc_label, "core cycles counted by the PMU (%.100s)",
                 r->events[r->cyc_event].pfm);
    } else if ((r->cyc_event = find_event(r, "cycles-est", 1)) >= 0) {
        snprintf(r->cyc_source, sizeof r->cyc_source, "estimate");
        snprintf(r->cyc_label, sizeof r->cyc_label,
                 "ESTIMATED core cycles: TSC ticks x %.3f (core clock %.2f GHz from a dependent-add "
                 "chain, spread %.1f%%; no PMU cycles)",
                 r->run.tsc_ghz > 0 ? r->run.core_ghz / r->run.tsc_ghz : NAN, r->run.core_ghz,
                 r->run.core_ghz_spread);
    } else {
        r->cyc_event = r->tsc_event;
        snprintf(r->cyc_source, sizeof r->cyc_source, "tsc");
        snprintf(r->cyc_label, sizeof r->cyc_label,
                 "TSC reference cycles at %.3f GHz (not core cycles: no PMU, no estimate)",
                 r->run.tsc_ghz);
    }
    r->core_ghz = r->run.core_ghz > 0 ? r->run.core_ghz : r->run.tsc_ghz;

    for (size_t k = 0; k < r->ncases; k++) {
        struct cb_report_case *c = &r->cases[k];
        c->info = ci[k];
        c->ev_median = malloc((r->nevents ? r->nevents : 1) * sizeof(double));
        if (!c->ev_median) {
            free(ci);
            return -ENOMEM;
        }
        for (size_t e = 0; e < r->nevents; e++)
            c->ev_median[e] = NAN;
        if (strcmp(c->info.verdict, "ok") != 0 || c->info.nsamples == 0)
            continue;
        for (size_t e = 0; e < r->nevents; e++) {
            struct cb_summary s;
            if (!r->events[e].supported)
                continue;
            if (summarize_event(st, c->info.id, r->events[e].id, &s, NULL) == 0)
                c->ev_median[e] = s.median;
        }
        if (r->cyc_event >= 0 &&
            summarize_event(st, c->info.id, r->events[r->cyc_event].id, &c->cyc, &c->scaled) == 0)
            c->measured = 1;
        if (r->tsc_event >= 0 &&
            summarize_event(st, c->info.id, r->events[r->tsc_event].id, &c->tsc, NULL) == 0 &&
            r->run.tsc_ghz > 0)
            c->ns_per_op = c->tsc.median / r->run.tsc_ghz;
        else
            c->ns_per_op = NAN;
    }
    free(ci);
    return 0;
}

void cb_report_free(struct cb_report *r)
{
    for (size_t k = 0; k < r->ncases; k++)
        free(r->cases[k].ev_median);
    free(r->cases);
    free(r->events);
    memset(r, 0, sizeof *r);
}
