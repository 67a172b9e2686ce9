/* inkernel.c — an in-kernel run beside its user-space models.
 *
 * For a run of `kernel run` (runs.source 'in-kernel'), each case is set
 * beside the user-space variants that model it, taken from the newest
 * complete user-space run of the same host that measured them (else of any
 * host, said so): the model's error is (model - kernel) / kernel, so
 * "+3%" means the model reads 3% more than the kernel's own function.
 * Both sides are medians of TSC ticks per op less the empty batch: the
 * same unit without a clock estimate.  The FPU cases are set beside the
 * XSAVEC estimate of the calibration linked to that user-space run
 * (fpu.h): the kernel's first use (XSAVES + the reset, timed in the
 * kernel; the XRSTOR happens on the way out, after the timing) against
 * the estimate's save + later use, and its later use against the
 * estimate's. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/inkernel.h"
#include "harness/probe.h"
#include "report/report.h"
#include "store/store.h"

#define MODELS_MAX 3

/* The kernel twin of an in-kernel case: the probe record of its family
 * (probe.h's struct cb_kernel_twin) whose function names the case's
 * variant, exactly or, for a bulk function, as the prefix of its count; a
 * bpf run's helper stands for the kernel function it calls. */
static const struct cb_kernel_twin *twin_of(const struct cb_report_case *c)
{
    const char *variant = c->info.variant;
    const struct cb_probe *p = cb_probe_find(c->info.probe);
    for (size_t i = 0; p && i < p->nkernel; i++) {
        const struct cb_kernel_twin *t = &p->kernel[i];
        size_t n = strlen(t->func);
        if (t->counts ? strncmp(variant, t->func, n) == 0 : strcmp(variant, t->func) == 0)
            return t;
        if (t->bpf_helper && strcmp(variant, t->bpf_helper) == 0)
            return t;
    }
    return NULL;
}

static int is_bpf(const struct cb_report *r)
{
    return strcmp(r->run.source, "bpf") == 0;
}

/* A bpf run's empty program measured beside case k: the case bpf_empty
 * "for-PROBE" (or "for-PROBE+live") of the same size.  NULL when k is one
 * itself. */
static const struct cb_report_case *empty_of(const struct cb_report *r, size_t k)
{
    const struct cb_report_case *c = &r->cases[k];
    size_t n = strlen(c->info.variant);
    int live = n > 5 && strcmp(c->info.variant + n - 5, "+live") == 0;
    char want[48];
    if (!is_bpf(r) || strcmp(c->info.probe, "bpf_empty") == 0)
        return NULL;
    snprintf(want, sizeof want, "for-%s%s", c->info.probe, live ? "+live" : "");
    for (size_t i = 0; i < r->ncases; i++) {
        const struct cb_report_case *e = &r->cases[i];
        if (e->measured && strcmp(e->info.probe, "bpf_empty") == 0 &&
            e->info.size == c->info.size && strcmp(e->info.variant, want) == 0)
            return e;
    }
    return NULL;
}

/* The kernel's own duration per run of case k less its empty's, ns. */
static double kernel_ns(const struct cb_report *r, size_t k, const struct cb_report_case *e)
{
    for (size_t i = 0; e && i < r->nevents; i++)
        if (strcmp(r->events[i].name, "bpf_duration") == 0)
            return r->cases[k].ev_median[i];  /* the empty's subtracted as overhead */
    return NAN;
}

static int push(struct cb_inkernel *ik, const struct cb_inkernel_row *row)
{
    struct cb_inkernel_row *g = realloc(ik->rows, (ik->n + 1) * sizeof *g);
    if (!g)
        return -ENOMEM;
    ik->rows = g;
    ik->rows[ik->n++] = *row;
    return 0;
}

/* One kernel case's rows: one per model, found or not. */
static int case_rows(struct cb_store *st, const struct cb_report *r, struct cb_inkernel *ik,
                     size_t k)
{
    const struct cb_report_case *c = &r->cases[k];
    const struct cb_kernel_twin *km = twin_of(c);
    const struct cb_report_case *e = empty_of(r, k);
    if (!c->measured || strcmp(c->info.probe, "fpu") == 0 || (is_bpf(r) && !e))
        return 0;
    double empty = e ? e->tsc.median : NAN, kns = kernel_ns(r, k, e);
    if (!km) {   /* measured, with no user-space model beside it (an XDP program) */
        struct cb_inkernel_row row = {.kcase = k, .kernel = c->tsc.median, .model = NAN,
                                      .err_pct = NAN, .empty = empty, .kns = kns};
        return push(ik, &row);
    }
    const char *models[MODELS_MAX] = {0};
    if (km->models_for)
        km->models_for(r->run.compiler + (strncmp(r->run.compiler, "linux ", 6) == 0 ? 6 : 0),
                       models);
    else
        memcpy(models, km->models, sizeof models);
    for (int i = 0; i < MODELS_MAX && models[i]; i++) {
        struct cb_inkernel_row row = {.kcase = k, .kernel = c->tsc.median, .model = NAN,
                                      .err_pct = NAN, .empty = empty, .kns = kns};
        if (strcmp(models[i], "bulk-*") == 0)
            snprintf(row.variant, sizeof row.variant, "bulk-%s",
                     c->info.variant + strlen(km->func));
        else
            snprintf(row.variant, sizeof row.variant, "%s", models[i]);
        struct cb_kfigure f;
        if (cb_store_model_figure(st, r->run.id, c->info.probe, row.variant, c->info.size,
                                  c->info.mode, &f) == 0) {
            row.model = f.ticks;
            row.model_run = f.run_id;
            row.err_pct = row.kernel > 0 ? (row.model - row.kernel) / row.kernel * 100.0 : NAN;
            if (!ik->fpu_run)
                ik->fpu_run = f.run_id;
        }
        if (push(ik, &row) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* The XSAVEC estimate: the calibration of a user-space run of this host. */
static void fpu_estimate(struct cb_store *st, struct cb_inkernel *ik)
{
    int64_t cal;
    int reused;
    struct cb_ceilings *cs = malloc(sizeof *cs);
    if (!cs)
        return;
    if (ik->fpu_run && cb_store_run_calibration(st, ik->fpu_run, &cal, &reused) == 0 &&
        cb_store_calibration_get(st, cal, cs, NULL, 0) == 0 && cs->fpu.supported) {
        ik->fpu = cs->fpu;
        ik->has_fpu = 1;
    }
    free(cs);
}

int cb_report_inkernel_load(struct cb_store *st, struct cb_report *r)
{
    if (strcmp(r->run.source, "in-kernel") != 0 && !is_bpf(r))
        return 0;
    struct cb_inkernel *ik = calloc(1, sizeof *ik);
    if (!ik)
        return -ENOMEM;
    r->ik = ik;
    for (size_t k = 0; k < r->ncases; k++)
        if (case_rows(st, r, ik, k) < 0)
            return -ENOMEM;
    fpu_estimate(st, ik);
    return 0;
}

void cb_report_inkernel_free(struct cb_report *r)
{
    if (r->ik)
        free(r->ik->rows);
    free(r->ik);
    r->ik = NULL;
}

/* The fpu case of r named by its suffix ("-first", "-batch"), or NULL. */
static const struct cb_report_case *fpu_case(const struct cb_report *r, const char *suffix)
{
    for (size_t k = 0; k < r->ncases; k++) {
        const struct cb_report_case *c = &r->cases[k];
        size_t n = strlen(c->info.variant), s = strlen(suffix);
        if (strcmp(c->info.probe, "fpu") == 0 && c->measured && n > s &&
            strcmp(c->info.variant + n - s, suffix) == 0)
            return c;
    }
    return NULL;
}

/* A difference of two medians at or below 0 says only that the program
 * took no longer than the empty one: its cost is below what the
 * subtraction resolves in this run, not a negative cost. */
static void ticks_text(double v, char *buf, size_t len)
{
    if (v <= 0)
        snprintf(buf, len, "<=empty");
    else
        snprintf(buf, len, "%.1f", v);
}

static int any_unresolved(const struct cb_inkernel *ik)
{
    for (size_t i = 0; i < ik->n; i++)
        if (ik->rows[i].kernel <= 0)
            return 1;
    return 0;
}

static void err_text(double e, char *buf, size_t len)
{
    if (isnan(e))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.0f%%", e);
}

static void fpu_text(const struct cb_report *r, FILE *out)
{
    const struct cb_report_case *first = fpu_case(r, "-first"), *batch = fpu_case(r, "-batch");
    const struct cb_inkernel *ik = r->ik;
    char e[32];
    if (!first && !batch)
        return;
    fprintf(out, "\nFPU in the kernel (TSC ticks):\n");
    if (!ik->has_fpu)
        fprintf(out, "  no XSAVEC estimate to compare with: no user-space run of this host has a "
                     "calibration (cyclebudget run, or calibrate --ceilings)\n");
    if (first) {
        double est = ik->has_fpu ? ik->fpu.save_ticks + ik->fpu.later_ticks : NAN;
        err_text(first->tsc.median > 0 ? (est - first->tsc.median) / first->tsc.median * 100 : NAN,
                 e, sizeof e);
        fprintf(out, "  first use: %s %.0f in the kernel; the %s estimate%s (save %.0f + reset %.0f) "
                     "%.0f in user space: %s\n", first->info.variant, first->tsc.median,
                ik->has_fpu ? ik->fpu.save_insn : "XSAVEC",
                strcmp(ik->fpu.source, "model") == 0 ? " (the model's fixed figures, not measured)" : "",
                ik->fpu.save_ticks, ik->fpu.later_ticks, est, e);
        if (ik->has_fpu)
            fprintf(out, "    (+ the restore on the way out to user space, outside the kernel's "
                         "timing: %.0f estimated; the estimate's whole first use is %.0f)\n",
                    ik->fpu.restore_ticks, ik->fpu.first_ticks);
    }
    const struct cb_report_case *exitc = fpu_case(r, "-first+exit");
    if (exitc) {
        double est = ik->has_fpu ? ik->fpu.first_ticks : NAN;
        err_text(exitc->tsc.median > 0 ? (est - exitc->tsc.median) / exitc->tsc.median * 100 : NAN,
                 e, sizeof e);
        fprintf(out, "  first use with the exit: %s %.0f (from user space, the empty syscall's cost "
                     "subtracted); the estimate's whole first use (save + restore + reset) %.0f: %s\n",
                exitc->info.variant, exitc->tsc.median, est, e);
    }
    if (batch) {
        double est = ik->has_fpu ? ik->fpu.later_ticks : NAN;
        err_text(batch->tsc.median > 0 ? (est - batch->tsc.median) / batch->tsc.median * 100 : NAN,
                 e, sizeof e);
        fprintf(out, "  later use in one entry: %s %.0f in the kernel; the estimate's later use %.0f "
                     "in user space: %s\n", batch->info.variant, batch->tsc.median, est, e);
    }
}

/* A bpf run's two columns: the empty program's ticks and the kernel's ns. */
static void bpf_cols(const struct cb_report *r, const struct cb_inkernel_row *row, FILE *out)
{
    if (!is_bpf(r))
        return;
    char k[32];
    if (isnan(row->kns))
        snprintf(k, sizeof k, "-");
    else
        snprintf(k, sizeof k, "%.1f", row->kns);
    fprintf(out, " %8.1f %8s", row->empty, k);
}

void cb_report_inkernel_text(const struct cb_report *r, FILE *out)
{
    const struct cb_inkernel *ik = r->ik;
    if (!ik)
        return;
    if (is_bpf(r))
        fprintf(out, "\nin the kernel through BPF_PROG_TEST_RUN (%s, %s) beside the user-space "
                     "models, TSC ticks per run (medians) less the empty program's, measured "
                     "beside each case ('empty'); 'kernel ns' is the kernel's own duration less "
                     "the empty's; error = (model - kernel) / kernel:\n", r->run.compiler,
                r->run.version);
    else
        fprintf(out, "\nin the kernel (%s, module %.16s) beside its user-space models, TSC ticks "
                     "per op (medians); error = (model - kernel) / kernel:\n", r->run.compiler,
                r->run.version + (strncmp(r->run.version, "cb_kmod ", 8) == 0 ? 8 : 0));
    if (r->run.emulated[0])
        fprintf(out, "  EMULATED: both sides are an emulator's cost, not timings; no verdict\n");
    fprintf(out, "  %-9s %8s %-4s  %-28s %10s", "probe", "size", "mode", "in the kernel", "ticks");
    if (is_bpf(r))
        fprintf(out, " %8s %8s", "empty", "kern ns");
    fprintf(out, "  %-20s %10s %6s  %s\n", "user-space model", "ticks", "error", "(run)");
    for (size_t i = 0; i < ik->n; i++) {
        const struct cb_inkernel_row *row = &ik->rows[i];
        const struct cb_report_case *c = &r->cases[row->kcase];
        char e[32], t[32];
        err_text(row->err_pct, e, sizeof e);
        ticks_text(row->kernel, t, sizeof t);
        fprintf(out, "  %-9s %8" PRIu64 " %-4s  %-28s %10s", c->info.probe, c->info.size,
                c->info.mode, c->info.variant, t);
        bpf_cols(r, row, out);
        if (isnan(row->model))
            fprintf(out, "  %-20s %10s %6s  (%s)\n", row->variant[0] ? row->variant : "-", "-", e,
                    row->variant[0] ? "no user-space run measured it" : "no user-space model of it");
        else
            fprintf(out, "  %-20s %10.1f %6s  (run %" PRId64 ")\n", row->variant, row->model, e,
                    row->model_run);
    }
    if (any_unresolved(ik))
        fprintf(out, "  <=empty: the program took no longer than the empty program measured beside\n"
                     "  it; its cost is below what the subtraction resolves in this run (no error)\n");
    fpu_text(r, out);
}

static void html_bpf_cols(const struct cb_report *r, const struct cb_inkernel_row *row, FILE *out)
{
    if (!is_bpf(r))
        return;
    fprintf(out, "<td class=\"num\">%.1f</td><td class=\"num\">", row->empty);
    if (isnan(row->kns))
        fputs("-", out);
    else
        fprintf(out, "%.1f", row->kns);
    fputs("</td>", out);
}

void cb_report_inkernel_html(FILE *out, const struct cb_report *r)
{
    const struct cb_inkernel *ik = r->ik;
    if (!ik)
        return;
    fputs("<section class=\"inkernel\"><h2>In the kernel, beside the user-space models</h2><p>", out);
    cb_html_esc(out, r->run.compiler);
    fputs(is_bpf(r) ? " through BPF_PROG_TEST_RUN: TSC ticks per run (medians) less the empty "
                      "program's, measured beside each case (<i>empty</i>, subtracted); "
                      "<i>kernel ns</i> is the kernel's own duration less the empty's"
                    : ": TSC ticks per op (medians, the empty batch subtracted)", out);
    fputs("; error = (model &minus; kernel) / kernel.</p><div class=\"tablewrap\"><table "
          "class=\"sortable inkernel\"><thead><tr><th>probe</th><th class=\"num\">size</th>"
          "<th>mode</th><th>in the kernel</th><th class=\"num\">ticks</th>", out);
    if (is_bpf(r))
        fputs("<th class=\"num\">empty</th><th class=\"num\">kernel ns</th>", out);
    fputs("<th>user-space model</th><th class=\"num\">ticks</th><th class=\"num\">error</th>"
          "<th class=\"num\">run</th></tr></thead><tbody>", out);
    for (size_t i = 0; i < ik->n; i++) {
        const struct cb_inkernel_row *row = &ik->rows[i];
        const struct cb_report_case *c = &r->cases[row->kcase];
        char e[32], t[32];
        err_text(row->err_pct, e, sizeof e);
        ticks_text(row->kernel, t, sizeof t);
        fputs("<tr><td>", out);
        cb_html_esc(out, c->info.probe);
        if (!row->variant[0]) {
            fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td><td>%s</td><td>", c->info.size,
                    c->info.mode);
            cb_html_esc(out, c->info.variant);
            fputs("</td><td class=\"num\">", out);
            cb_html_esc(out, t);
            fputs("</td>", out);
            html_bpf_cols(r, row, out);
            fputs("<td>no user-space model</td><td class=\"num\">-</td><td class=\"num\">-</td>"
                  "<td class=\"num\">-</td></tr>", out);
            continue;
        }
        fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td><td>%s</td><td>", c->info.size,
                c->info.mode);
        cb_html_esc(out, c->info.variant);
        fputs("</td><td class=\"num\">", out);
        cb_html_esc(out, t);
        fputs("</td>", out);
        html_bpf_cols(r, row, out);
        fputs("<td>", out);
        cb_html_esc(out, row->variant);
        if (isnan(row->model))
            fputs("</td><td class=\"num\">-</td><td class=\"num\">-</td><td class=\"num\">none</td></tr>", out);
        else
            fprintf(out, "</td><td class=\"num\">%.1f</td><td class=\"num\">%s</td>"
                         "<td class=\"num\">%" PRId64 "</td></tr>", row->model, e, row->model_run);
    }
    fputs("</tbody></table></div>", out);
    if (any_unresolved(ik))
        fputs("<p><i>&lt;=empty</i>: the program took no longer than the empty program measured "
              "beside it; its cost is below what the subtraction resolves in this run.</p>", out);
    const struct cb_report_case *first = fpu_case(r, "-first"), *batch = fpu_case(r, "-batch");
    const struct cb_report_case *exitc = fpu_case(r, "-first+exit");
    if (first || batch) {
        fputs("<p>FPU: ", out);
        if (first)
            fprintf(out, "first use %.0f ticks in the kernel", first->tsc.median);
        if (exitc)
            fprintf(out, " (%.0f with the restore on the exit, timed from user space)",
                    exitc->tsc.median);
        if (batch)
            fprintf(out, "%slater use %.0f", first ? ", " : "", batch->tsc.median);
        if (ik->has_fpu)
            fprintf(out, "; the %s estimate: save %.0f + reset %.0f, later use %.0f, restore on "
                         "exit %.0f", ik->fpu.save_insn, ik->fpu.save_ticks, ik->fpu.later_ticks,
                    ik->fpu.later_ticks, ik->fpu.restore_ticks);
        else
            fputs("; no XSAVEC estimate (no calibrated user-space run of this host)", out);
        fputs(".</p>", out);
    }
    fputs("</section>", out);
}

/* JSON's "inkernel" member of an in-kernel run: the same rows as the text
 * and HTML tables (null where a side has no figure), and the FPU figures
 * beside their XSAVEC estimate.  Nothing for another run. */
void cb_report_inkernel_json(FILE *out, const struct cb_report *r)
{
    const struct cb_inkernel *ik = r->ik;
    if (!ik)
        return;
    fputs(",\n  \"inkernel\": {\"unit\": \"tsc ticks per op (medians, the empty batch subtracted)\","
          " \"error\": \"(model - kernel) / kernel, %\", ", out);
    if (is_bpf(r))
        fputs("\"through\": \"BPF_PROG_TEST_RUN\", \"empty\": \"the empty program's ticks per run, "
              "measured beside each case and subtracted from kernel_ticks\", \"kernel_ns\": \"the "
              "kernel's own duration per run less the empty's\", ", out);
    fputs("\"rows\": [", out);
    for (size_t i = 0; i < ik->n; i++) {
        const struct cb_inkernel_row *row = &ik->rows[i];
        const struct cb_report_case *c = &r->cases[row->kcase];
        fputs(i ? ",\n    {\"probe\": " : "\n    {\"probe\": ", out);
        cb_json_str(out, c->info.probe);
        fprintf(out, ", \"size\": %" PRIu64 ", \"mode\": ", c->info.size);
        cb_json_str(out, c->info.mode);
        fputs(", \"kernel_function\": ", out);
        cb_json_str(out, c->info.variant);
        fputs(", \"kernel_ticks\": ", out);
        cb_json_num(out, row->kernel);
        fputs(", \"model\": ", out);
        if (row->variant[0])
            cb_json_str(out, row->variant);
        else
            fputs("null", out);
        fputs(", \"model_ticks\": ", out);
        cb_json_num(out, row->model);
        fputs(", \"error_pct\": ", out);
        cb_json_num(out, row->err_pct);
        if (is_bpf(r)) {
            fputs(", \"empty_ticks\": ", out);
            cb_json_num(out, row->empty);
            fputs(", \"kernel_ns\": ", out);
            cb_json_num(out, row->kns);
        }
        fputs(", \"model_run\": ", out);
        if (isnan(row->model))
            fputs("null}", out);
        else
            fprintf(out, "%" PRId64 "}", row->model_run);
    }
    const struct cb_report_case *first = fpu_case(r, "-first"), *batch = fpu_case(r, "-batch");
    fputs("],\n   \"fpu\": {\"first_use_ticks\": ", out);
    cb_json_num(out, first ? first->tsc.median : NAN);
    fputs(", \"later_use_ticks\": ", out);
    cb_json_num(out, batch ? batch->tsc.median : NAN);
    fputs(", \"estimate\": ", out);
    if (ik->has_fpu) {
        fputs("{\"insn\": ", out);
        cb_json_str(out, ik->fpu.save_insn);
        fputs(", \"save_ticks\": ", out);
        cb_json_num(out, ik->fpu.save_ticks);
        fputs(", \"later_ticks\": ", out);
        cb_json_num(out, ik->fpu.later_ticks);
        fputs(", \"restore_ticks\": ", out);
        cb_json_num(out, ik->fpu.restore_ticks);
        fputs("}", out);
    } else {
        fputs("null", out);
    }
    fputs("}}", out);
}
