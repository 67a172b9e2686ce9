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

#include "util/strbuf.h"

#include <stdio.h>

#include "analysis/budget.h"
#include "harness/stats.h"
#include "store/store.h"

/* One event's samples for one case, in sample order: per-op values
 * ((value - overhead) / iters) and each batch's iteration count. */
struct cb_report_series {
    size_t n;
    double *v;                   /* per operation, less the empty batch's overhead */
    uint64_t *iters;
    double *raw;                 /* the counter's own delta before scaling; NAN before migration 7 */
    uint64_t *enabled, *running; /* ns, 0 for pseudo-events */
    char (*method)[8];           /* how each sample was read: "rdpmc", "read", ...; "" unknown */
    int scaled;                  /* some sample was multiplexed and scaled */
};

struct cb_report_case {
    struct cb_case_info info;
    struct cb_report_series *ev; /* per event (r->nevents); n = 0 when not counted */
    int measured;                /* verdict ok and samples present */
    struct cb_summary cyc;       /* cycles per op, from r->cyc_source */
    struct cb_summary tsc;       /* TSC ticks per op */
    double ns_per_op;            /* median TSC ticks / TSC GHz */
    double *ev_median;           /* per event (r->nevents): median per op, NAN when not counted */
    int scaled;                  /* some sample of the cycles event was multiplexed and scaled */
    /* The case against the machine's ceilings (ceilings.h), in bytes per
     * TSC tick on both sides: its working set's level (-1: no ceilings or
     * not byte-oriented), the best load ceiling there and the case's share
     * of it; for families that store (cb_report_stores) the store ceiling
     * and share as well.  NAN, never 0, where unknown. */
    int ceil_level;
    double bpt;                  /* the case's bytes per TSC tick */
    double ceil_load, share_load;
    double ceil_store, share_store;
    /* Its rank figure (rank.h) in each other run of the same bytes
     * (cb_report_load_peers, r->npeers of them); NAN where not measured. */
    double *peer;
    struct cb_state state;       /* the host's state it was measured in (refset.h) */
    int tries;                   /* how many times it was measured; 0 unknown */
};

struct cb_report {
    struct cb_run_info run;
    struct cb_event_info *events;
    size_t nevents;
    struct cb_report_case *cases;
    size_t ncases;
    size_t npeers;               /* other runs of the same bytes beside it (peers.c) */
    int cyc_event;               /* index into events for cycles per op */
    int tsc_event;
    char cyc_source[16];         /* "pmu", "estimate", "tsc" */
    char cyc_label[256];         /* one line for people: what these cycles are */
    double core_ghz;             /* clock for budget conversions: the run's core clock (PMU
                                    or estimated), the TSC's without either, the one given
                                    with --ghz (clock_given); 0 for simulated cycles without
                                    --ghz: they have no time to convert at */
    int clock_given;             /* core_ghz came from the user (--ghz) */
    /* The calibration the run is judged against (0009_ceilings.sql). */
    int has_ceil;
    int64_t cal_id;
    int cal_reused;              /* 1 found stored by the run, 0 measured by it */
    char cal_taken[32];
    struct cb_ceilings ceil;
    /* Calls of a SIMD variant per kernel entry the in-kernel cost is
     * amortised over (kernel.c); CB_FPU_BATCH_DEFAULT unless report
     * --fpu-batch set it. */
    int fpu_batch;
    /* What every output charges a case against (budget.h, the one rule),
     * and where it runs: in kernel context a SIMD case costs its in-kernel
     * figure, at first use (kernel_batch 0) or amortised over kernel_batch
     * calls.  cb_report_load sets 10G/64B, user space. */
    struct cb_budget budget;
    enum cb_context context;
    int kernel_batch;
    /* An in-kernel run's side-by-side with its user-space models
     * (inkernel.c); NULL for a user-space run. */
    struct cb_inkernel *ik;
};

/* One in-kernel case beside one of its user-space models (inkernel.c). */
struct cb_inkernel_row {
    size_t kcase;                /* index into r->cases */
    char variant[48];            /* the model: a variant of the same probe */
    double kernel, model;        /* median TSC ticks per op; model NAN when no run measured it */
    double err_pct;              /* (model - kernel) / kernel, %; NAN */
    int64_t model_run;
    /* A bpf run's: the empty program's ticks per run, measured beside the
     * case and subtracted from it, and the kernel's own duration per run
     * less the empty's, ns.  NAN for the module's runs. */
    double empty, kns;
};
struct cb_inkernel {
    struct cb_inkernel_row *rows;
    size_t n;
    int64_t fpu_run;             /* the user-space run whose calibration gives the estimate */
    int has_fpu;
    struct cb_fpu_cost fpu;      /* that calibration's XSAVEC figures (fpu.h) */
};
/* Load r->ik when r is an in-kernel or a bpf run (runs.source); 0 or -ENOMEM. */
int cb_report_inkernel_load(struct cb_store *st, struct cb_report *r);
void cb_report_inkernel_free(struct cb_report *r);
/* The side-by-side section, text and HTML; nothing for a user-space run. */
void cb_report_inkernel_text(const struct cb_report *r, FILE *out);
void cb_report_inkernel_html(FILE *out, const struct cb_report *r);
/* JSON's ',"inkernel": {...}' member of such a run: the same rows. */
void cb_report_inkernel_json(FILE *out, const struct cb_report *r);

int cb_report_load(struct cb_store *st, int64_t run_id, struct cb_report *r);
void cb_report_free(struct cb_report *r);
/* The other runs of the same bytes (runs.code_id, host, clock, plugins),
 * the newest CB_RANK_PEERS_MAX: each case's rank figure in each, so that
 * claims rest on runs (rank.h).  cb_report_load calls it.  0 or a
 * negative errno. */
int cb_report_load_peers(struct cb_store *st, struct cb_report *r);

/* The event whose name or component is part among the supported ones, or -1. */
int cb_report_event(const struct cb_report *r, const char *part);
/* The working set of a warm case of probe moving bytes_per_op bytes: both
 * buffers for the copies, the one buffer otherwise. */
uint64_t cb_report_working_set(const char *probe, uint64_t bytes_per_op);
/* Families whose every byte is also stored (copy, memset, csum_copy): they
 * are judged against the store ceiling too. */
int cb_report_stores(const char *probe);
/* Fill c's ceiling fields from cs (NULL: none), pure: the level its working
 * set fits in (DRAM when cold), the best load and store ceilings there, and
 * the case's bytes per TSC tick as a share of each. */
void cb_report_case_ceilings(struct cb_report_case *c, const struct cb_ceilings *cs);
/* "% of the L1 load ceiling" and the like, for a text or page legend:
 * what the case's share is of (load, or store for the storing families). */
double cb_report_ceil_share(const struct cb_report_case *c);
/* Why c reads above its ceiling (ceil_over.c), set in buf and returned; NULL when it does
 * not (at most 100%, or no ceiling).  Every output flags such a case with
 * it: text ('!' and a line under the group), HTML (the cell's title),
 * CSV (ceiling_over), JSON (ceiling.over). */
const char *cb_report_ceil_over(const struct cb_report *r, const struct cb_report_case *c, 
                                struct cb_sb *buf);
/* One line on the calibration: "calibration 3 (reused, measured 2026-...):
 * L1 load 110.2 B/tick ..." or "none stored with this run". */
void cb_report_ceil_line(const struct cb_report *r, char *buf, size_t len);
/* Bytes per cycle of a measured case, NAN when not byte-oriented. */
double cb_report_bpc(const struct cb_report_case *c);
/* What the cycle figures are, in three or four words: "PMU core cycles",
 * "SIMULATED cycles", "ESTIMATED core cycles", "TSC reference cycles". */
const char *cb_report_cycles_what(const struct cb_report *r);
/* The run's fixed-rate counter by name: "CNTVCT" for an arm64 run (its rate
 * from CNTFRQ_EL0, or its features arm64's), else "TSC".  The store reads
 * the same on any machine, so the name comes from the run, not from the
 * architecture the report is printed on. */
const char *cb_report_counter(const struct cb_run_info *u);
/* "CNTVCT time" or "TSC time": what a run ranked by time ranks on. */
const char *cb_report_time_what(const struct cb_report *r);
/* Cycles per packet of the chosen frame (r->budget) at gbps on this run's
 * core clock (r->core_ghz); NAN where the report has no clock (simulated
 * cycles without --ghz). */
double cb_report_budget_cycles(const struct cb_report *r, double gbps);
/* What r->core_ghz is, for the label of a budget in cycles: "the run's
 * estimated core clock", "given with --ghz", ... */
const char *cb_report_budget_clock_what(const struct cb_report *r);
/* Convert budgets at ghz, given by the user (--ghz), instead of the run's. */
void cb_report_set_clock(struct cb_report *r, double ghz);
/* 10G, 64-byte frames: the budget a report is read against unless told. */
void cb_report_default_budget(struct cb_budget *b);
/* The frames c is charged to at the chosen frame (budget.h's rule). */
void cb_report_case_charge(const struct cb_report_case *c, unsigned frame, struct cb_charge *ch);
/* THE budget share of every output: c's ns per op (its context's cost,
 * cb_report_context_cycles, as time) over the wire time of the frames it
 * is charged to at b (TSC time: no clock needed, so the share does not
 * move with a clock estimate).  Simulated cycles, which have no time, are
 * shared against the budget in cycles at r->core_ghz: NAN without a clock.
 * NAN for a case not measured. */
double cb_report_share(const struct cb_report *r, const struct cb_report_case *c,
                       const struct cb_budget *b);
/* The budget in cycles at gbps of the frames c is charged to, at the
 * report's frame and clock (NAN without a clock): the line a chart draws. */
double cb_report_case_budget_cycles(const struct cb_report *r, const struct cb_report_case *c,
                                    double gbps);
/* The same at another link rate, at r->budget's frame. */
double cb_report_share_at(const struct cb_report *r, const struct cb_report_case *c, double gbps);
/* c's cycles per op in r->context: as measured in user space; in the
 * kernel, a SIMD case's in-kernel cost (first use or batched), NAN for a
 * case the kernel would not run (a variant whose +kflags build was
 * measured beside it stands for it) or whose cost there is unknown. */
double cb_report_context_cycles(const struct cb_report *r, const struct cb_report_case *c);
/* A case's cycle summary as the tables show it: as measured, or every
 * figure NAN and n 0 for a case that was not, so that no half-filled
 * summary reads as a measurement. */
struct cb_summary cb_report_shown_cyc(const struct cb_report_case *c);
/* A measured case with over CB_SHARED_CASE_SHARE of its samples taken with
 * the core's SMT sibling busy; and how many of a run's cases are. */
int cb_report_case_shared(const struct cb_report_case *c);
/* Each case's host state (state.c). */
int cb_report_load_states(struct cb_store *st, struct cb_report *r);
/* The host's state in JSON: a case's ", \"host_state\": {...}" (null
 * when not judged) and the run's ",\n  \"host_state\": {...}"; and a
 * case's CSV columns host_state, host_state_ratio, host_state_ref, tries. */
void cb_report_state_json_case(FILE *out, const struct cb_report_case *c);
void cb_report_state_json_run(FILE *out, const struct cb_run_info *u);
void cb_report_state_csv(FILE *out, const struct cb_report_case *c);
/* A measured case kept in a slowed state of the host (runstate.h). */
int cb_report_case_slowed(const struct cb_report_case *c);
/* The marks after a case's sample count: " shared", " slowed", both or "". */
const char *cb_report_case_marks(const struct cb_report_case *c);
/* The run's host state in words: "quiet (...)", "slowed 1.71x (vec): ...",
 * or "" for a run not judged. */
void cb_report_state_line(const struct cb_run_info *u, char *buf, size_t len);
size_t cb_report_count_shared(const struct cb_report *r);
/* What a shared case was measured with, by the run's meter kind: "this
 * core's SMT sibling busy (another tenant's load)", or for a guest that
 * shows no sibling "the host's core contended (...)". */
const char *cb_report_shared_what(const struct cb_run_info *u);
/* One line on the core clock: where it came from, the estimate's method and
 * spread, and the cross-check (the other estimator, or PMU/estimate). */
void cb_report_clock_line(const struct cb_run_info *u, char *buf, size_t len);
/* One line on the contention meter: its kind and baseline, and why; "" for
 * runs recorded before the meter had a baseline. */
void cb_report_meter_line(const struct cb_run_info *u, char *buf, size_t len);
/* The clock, meter and environment lines above in one go, for a front end
 * that shows them together under keys of its own: each line goes to emit
 * with its key (the meter's only when there is one); buf holds it. */
struct cb_run_lines {
    const char *clock, *meter, *env;
    void (*emit)(void *ctx, const char *key, const char *line);
    void *ctx;
    const char *state;           /* the host's state's key */
};
void cb_report_run_lines(const struct cb_run_info *u, const struct cb_run_lines *l, char *buf,
                         size_t len);
/* The run's recorded environment (fingerprint.h): 1 and fp filled, or 0
 * when the run has none (before migration 7) and fp all unknown. */
struct cb_fingerprint;
int cb_report_env(const struct cb_run_info *u, struct cb_fingerprint *fp);
/* It in words for the header, or "not recorded (...)". */
void cb_report_env_line(const struct cb_run_info *u, char *buf, size_t len);
/* 1 when the run's figures came from the fake clock (tests). */
int cb_report_is_fake(const struct cb_run_info *u);
/* An emulated run (emulation.h; u->emulated says why): every format says so
 * in these words, after "EMULATED (why): ". */
#define CB_REPORT_EMULATED_WHAT "figures are not timings of any machine"
#define CB_REPORT_EMULATED_MORE \
    "the CPU was emulated, so cycles and ns/op are the emulator's cost of running a " \
    "translation of the code; each variant's result was still verified, and compare draws no " \
    "verdict from this run"

/* Writers for outside text: HTML element/attribute text and JSON strings.
 * Everything that came from outside the binary (tags, commit subjects, host
 * names, command lines, variant names from plugins) goes through these. */
void cb_html_esc(FILE *out, const char *s);
/* escape.c: the length of the valid UTF-8 sequence at s (1-4), 0 when the
 * byte there starts none. */
size_t cb_utf8_len(const char *s);
/* The one UTF-8 walk of outside text (escape.c): s added to out, with
 * CB_ESC_CTRL control characters (C0 but tab, DEL, C1) and bad bytes as
 * \xNN, a line break as \n (kept with CB_ESC_KEEP_NL); with CB_ESC_FFFD
 * a bad byte as U+FFFD instead. */
struct cb_sb;
#define CB_ESC_FFFD 1u
#define CB_ESC_CTRL 2u
#define CB_ESC_KEEP_NL 4u
void cb_esc_add(struct cb_sb *out, const char *s, unsigned how);
/* s copied into buf: each byte that is not UTF-8 as U+FFFD (labels). */
void cb_utf8_clean(char *buf, size_t len, const char *s);
/* s copied for a terminal or a text file: control characters (C0, DEL, C1)
 * and bytes that are not UTF-8 written as \xNN, a line break as \n. */
void cb_text_clean(char *buf, size_t len, const char *s);
void cb_text_puts(FILE *out, const char *s);
/* Markdown: a code span nothing inside can close; plain text with no
 * markup left live. */
void cb_md_code(FILE *out, const char *s, int in_table);
void cb_md_text(FILE *out, const char *s);
void cb_json_str(FILE *out, const char *s);
/* lead (the key and what comes before the value, as JSON text), then s. */
void cb_json_field(FILE *out, const char *lead, const char *s);
/* A number for JSON: null for NaN and infinities; cb_json_num6 to six
 * significant digits, for verdicts and race results read by people too. */
void cb_json_num(FILE *out, double v);
void cb_json_num6(FILE *out, double v);

/* A group's size and mode, "1500 B<sep>warm", or "marked regions" for the
 * cases of region markers. */
const char *cb_report_where(const struct cb_case_info *g, const char *sep, char *buf, size_t len);
/* "1500 B", "4 KiB", "4 MiB" */
const char *cb_fmt_size(uint64_t size, const char *unit, char *buf, size_t len);

struct cb_text_opts {
    const struct cb_budget *budget;
    int color;                   /* ANSI colour: only for a terminal, never with NO_COLOR */
};
int cb_report_text(const struct cb_report *r, const struct cb_text_opts *o, FILE *out);

/* In the kernel (kernel.c): a SIMD variant (CB_VARIANT_VECTOR)
 * pays kernel_fpu_begin/end, measured with the run's calibration (fpu.h).
 * 1 when c's variant uses vector registers. */
int cb_report_case_vector(const struct cb_report_case *c);
/* c's cycles per op in the kernel: at a first use in a kernel entry, and
 * amortised over r->fpu_batch calls in one; NAN when not a measured SIMD
 * case or no FPU figures are stored. */
double cb_report_kernel_first(const struct cb_report *r, const struct cb_report_case *c);
double cb_report_kernel_batched(const struct cb_report *r, const struct cb_report_case *c);
/* The case of v (one group) the kernel would run: the lowest
 * cb_report_context_cycles in r->context (no tie test: the FPU charge is a
 * model's constant); NULL when none has a cost there. */
const struct cb_report_case *cb_report_kernel_pick(const struct cb_report *r,
                                                   const struct cb_report_case *const *v, size_t n);
/* One line on r->context: what a case costs there and what was charged. */
void cb_report_context_line(const struct cb_report *r, char *buf, size_t len);
/* The text section: the charge, each SIMD case's in-kernel cost, the
 * crossovers (user space, kernel first use, kernel batched), and the flags
 * of the +kflags variants. */
void cb_report_kernel_text(const struct cb_report *r, FILE *out);
/* The JSON members: ",\n  \"kernel\": {...}" for the run. */
void cb_report_kernel_json(const struct cb_report *r, FILE *out);
/* One line per probe, size and mode: the best variant and the runner-up. */
int cb_report_summary(const struct cb_report *r, const struct cb_text_opts *o, FILE *out);
/* NO_COLOR (set and non-empty) wins; otherwise colour only for a terminal. */
int cb_report_want_color(int fd);

/* The exports: every run given, in order.  Formats are documented in
 * docs/reports.md. */
/* A self-contained page from reports/report.html.in: its style and script
 * inline, title escaped, body written by body_fn.  0 or a negative errno. */
int cb_html_page(FILE *out, const char *title, void (*body_fn)(FILE *, void *), void *ctx);
int cb_report_html(const struct cb_report *runs, size_t nruns, const struct cb_budget *budget,
                   FILE *out);
int cb_report_csv(const struct cb_report *runs, size_t nruns, int samples, FILE *out);
int cb_report_json(const struct cb_report *runs, size_t nruns, FILE *out);
/* Google Benchmark's JSON (context + benchmarks), for compare.py and the
 * trackers that read it (gbench.c): each case a repetition per run (its
 * median) and aggregates over the pooled samples.  -EINVAL for a run with
 * no TSC times, which cb_report_gbench_ok says before anything is written. */
int cb_report_gbench(const struct cb_report *runs, size_t nruns, FILE *out);
int cb_report_gbench_ok(const struct cb_report *r, struct cb_sb *err);

#endif
