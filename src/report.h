/* report.h — what a run means, read back from the store.
 *
 * Reports only read the store, so a report can be made for any past run, on
 * another machine, from a copied database.  This module turns samples into
 * per-case summaries and decides, once and visibly, where "cycles" come
 * from: PMU core cycles when they were counted, else the TSC-based estimate,
 * else raw TSC reference cycles.  Front ends (text, later HTML/CSV/JSON)
 * only format what is here. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdio.h>

#include "budget.h"
#include "stats.h"
#include "store.h"

struct cb_report_case {
    struct cb_case_info info;
    int measured;                /* verdict ok and samples present */
    struct cb_summary cyc;       /* cycles per op, from r->cyc_source */
    struct cb_summary tsc;       /* TSC ticks per op */
    double ns_per_op;            /* median TSC ticks / TSC GHz */
    double *ev_median;           /* per event (r->nevents): median per op, NAN when not counted */
    int scaled;                  /* some sample of the cycles event was multiplexed and scaled */
};

struct cb_report {
    struct cb_run_info run;
    struct cb_event_info *events;
    size_t nevents;
    struct cb_report_case *cases;
    size_t ncases;
    int cyc_event;               /* index into events for cycles per op */
    int tsc_event;
    char cyc_source[16];         /* "pmu", "estimate", "tsc" */
    char cyc_label[160];         /* one line for people: what these cycles are */
    double core_ghz;             /* clock for budget conversions */
};

int cb_report_load(struct cb_store *st, int64_t run_id, struct cb_report *r);
void cb_report_free(struct cb_report *r);

/* "1500 B", "4 KiB", "4 MiB" */
const char *cb_fmt_size(uint64_t size, const char *unit, char *buf, size_t len);

struct cb_text_opts {
    const struct cb_budget *budget;
    int color;                   /* ANSI colour: only for a terminal, never with NO_COLOR */
};
int cb_report_text(const struct cb_report *r, const struct cb_text_opts *o, FILE *out);
/* One line per probe, size and mode: the best variant and the runner-up. */
int cb_report_summary(const struct cb_report *r, const struct cb_text_opts *o, FILE *out);

#endif
