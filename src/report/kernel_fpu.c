/* kernel_fpu.c — a run's SIMD cases as the kernel would pay for them:
 * the case plus kernel_fpu_begin/end (fpu.h), at a first use in a
 * kernel entry and amortised over a batch of calls in one, and per family
 * and mode the smallest measured size at which a SIMD variant beats the
 * best scalar one, in user space and in the kernel. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probes/kflags/kflags.h"
#include "harness/probe.h"
#include "report/report.h"

int cb_report_case_vector(const struct cb_report_case *c)
{
    const struct cb_probe *p = cb_probe_find(c->info.probe);
    const struct cb_variant *v = p ? cb_variant_find(p, c->info.variant) : NULL;
    return v && (v->flags & CB_VARIANT_VECTOR);
}

/* Core cycles per TSC tick, as the cases' cycles are counted; 1 when the
 * run has no core clock (its "cycles" are then TSC ticks too). */
static double ratio(const struct cb_report *r)
{
    if (r->core_ghz > 0 && r->ceil.tsc_ghz > 0)
        return r->core_ghz / r->ceil.tsc_ghz;
    if (r->ceil.core_ghz > 0 && r->ceil.tsc_ghz > 0)
        return r->ceil.core_ghz / r->ceil.tsc_ghz;
    return 1.0;
}

static int have_fpu(const struct cb_report *r)
{
    return r->has_ceil && r->ceil.fpu.supported;
}

double cb_report_kernel_first(const struct cb_report *r, const struct cb_report_case *c)
{
    if (!c->measured || !have_fpu(r) || !cb_report_case_vector(c))
        return NAN;
    return c->cyc.median + cb_fpu_first(&r->ceil.fpu, ratio(r));
}

double cb_report_kernel_batched(const struct cb_report *r, const struct cb_report_case *c)
{
    if (!c->measured || !have_fpu(r) || !cb_report_case_vector(c))
        return NAN;
    return c->cyc.median + cb_fpu_batched(&r->ceil.fpu, ratio(r), r->fpu_batch);
}

/* The case of c's group whose variant is named v, measured; or NULL. */
static const struct cb_report_case *sibling(const struct cb_report *r, const struct cb_report_case *c,
                                            const char *v)
{
    for (size_t i = 0; i < r->ncases; i++) {
        const struct cb_report_case *s = &r->cases[i];
        if (s->measured && s->info.size == c->info.size && !strcmp(s->info.variant, v) &&
            !strcmp(s->info.probe, c->info.probe) && !strcmp(s->info.mode, c->info.mode))
            return s;
    }
    return NULL;
}

/* The hook for in-kernel figures: a case measured in
 * the kernel itself is what kernel context charges, as measured: an
 * in-kernel run's (r->ik, `kernel run`) cases already paid whatever the
 * kernel pays around them.  NAN: no such figure, so the user-space model
 * is charged.  Where a user-space run should take the figure of an
 * in-kernel run beside it (cb_inkernel_row maps a kernel case to its model
 * variants), this is the one place to look it up. */
static double in_kernel_measured(const struct cb_report *r, const struct cb_report_case *c)
{
    return r->ik && c->measured ? c->cyc.median : NAN;
}

double cb_report_context_cycles(const struct cb_report *r, const struct cb_report_case *c)
{
    if (!c->measured)
        return NAN;
    if (r->context != CB_CONTEXT_KERNEL)
        return c->cyc.median;
    double k = in_kernel_measured(r, c);
    if (isfinite(k))
        return k;
    /* The kernel is built with its own flags: where the +kflags build of a
     * variant was measured, it stands for the variant in the kernel. */
    char twin[80];
    if (!strstr(c->info.variant, "+kflags") &&
        (size_t)snprintf(twin, sizeof twin, "%s+kflags", c->info.variant) < sizeof twin &&
        sibling(r, c, twin))
        return NAN;
    if (!cb_report_case_vector(c))
        return c->cyc.median;
    if (!have_fpu(r))
        return NAN; /* never a SIMD cost without its save: unknown, not free */
    return r->kernel_batch > 0 ? c->cyc.median + cb_fpu_batched(&r->ceil.fpu, ratio(r), r->kernel_batch)
                               : cb_report_kernel_first(r, c);
}

const struct cb_report_case *cb_report_kernel_pick(const struct cb_report *r,
                                                   const struct cb_report_case *const *v, size_t n)
{
    const struct cb_report_case *best = NULL;
    double bc = INFINITY;
    for (size_t k = 0; k < n; k++) {
        double c = cb_report_context_cycles(r, v[k]);
        if (isfinite(c) && c < bc) {
            bc = c;
            best = v[k];
        }
    }
    return best;
}

void cb_report_context_line(const struct cb_report *r, char *buf, size_t len)
{
    if (r->context != CB_CONTEXT_KERNEL) {
        snprintf(buf, len, "user space: each variant as measured (--context kernel charges SIMD "
                 "variants the FPU save and takes the +kflags builds for the kernel's)");
        return;
    }
    if (!have_fpu(r)) {
        snprintf(buf, len, "kernel: no FPU save was measured with this run's calibration, so SIMD "
                 "variants have no in-kernel cost and are not picked; +kflags builds stand for "
                 "their variants");
        return;
    }
    double q = ratio(r);
    if (r->kernel_batch > 0)
        snprintf(buf, len, "kernel: SIMD variants + kernel_fpu_begin/end amortised over %d calls "
                 "(%.1f cycles each; %.1f at a first use); +kflags builds stand for their variants",
                 r->kernel_batch, cb_fpu_batched(&r->ceil.fpu, q, r->kernel_batch),
                 cb_fpu_first(&r->ceil.fpu, q));
    else
        snprintf(buf, len, "kernel: SIMD variants + kernel_fpu_begin/end at a first use in a "
                 "kernel entry (%.1f cycles; --fpu-batch N amortises it); +kflags builds stand for "
                 "their variants", cb_fpu_first(&r->ceil.fpu, q));
}

/* One family and mode: for each of the three views (0 user space, 1
 * kernel first use, 2 kernel batched) the smallest size at which the best
 * SIMD case is cheaper than the best scalar one of the same size; 0 when
 * none is, or when there is no SIMD or no scalar case to compare. */
struct crossover {
    const char *probe, *mode, *unit;
    uint64_t at[3], largest;
    int any_vec;
};

static double view(const struct cb_report *r, const struct cb_report_case *c, int k)
{
    return k == 0 ? c->cyc.median : k == 1 ? cb_report_kernel_first(r, c)
                                           : cb_report_kernel_batched(r, c);
}

static void crossover_of(const struct cb_report *r, struct crossover *x)
{
    for (size_t i = 0; i < r->ncases; i++) {
        const struct cb_report_case *s = &r->cases[i];
        if (!s->measured || strcmp(s->info.probe, x->probe) || strcmp(s->info.mode, x->mode))
            continue;
        uint64_t size = s->info.size;
        if (size > x->largest)
            x->largest = size;
        for (int k = 0; k < 3; k++) {
            double vec = INFINITY, sca = INFINITY;
            for (size_t j = 0; j < r->ncases; j++) {
                const struct cb_report_case *c = &r->cases[j];
                if (!c->measured || c->info.size != size || strcmp(c->info.probe, x->probe) ||
                    strcmp(c->info.mode, x->mode))
                    continue;
                int isvec = cb_report_case_vector(c);
                double v = isvec ? view(r, c, k) : c->cyc.median;
                if (isvec && v < vec)
                    vec = v;
                if (!isvec && v < sca)
                    sca = v;
            }
            x->any_vec |= isfinite(vec);
            if (isfinite(vec) && isfinite(sca) && vec < sca && (!x->at[k] || size < x->at[k]))
                x->at[k] = size;
        }
    }
}

/* The families and modes with a SIMD case, at most max of them. */
static size_t crossovers(const struct cb_report *r, struct crossover *xs, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const struct cb_report_case *c = &r->cases[i];
        if (!cb_report_case_vector(c))
            continue;
        size_t k = 0;
        while (k < n && (strcmp(xs[k].probe, c->info.probe) || strcmp(xs[k].mode, c->info.mode)))
            k++;
        if (k < n || n == max)
            continue;
        xs[n] = (struct crossover){.probe = c->info.probe, .mode = c->info.mode,
                                   .unit = c->info.unit};
        crossover_of(r, &xs[n++]);
    }
    return n;
}

static const char *at_text(const struct crossover *x, int k, char *buf, size_t len)
{
    char sz[32];
    if (x->at[k])
        return cb_fmt_size(x->at[k], x->unit, buf, len);
    snprintf(buf, len, "none to %s", cb_fmt_size(x->largest, x->unit, sz, sizeof sz));
    return buf;
}

/* The flags, a few per line under their label: the report keeps to 100
 * columns. */
static void flags_text(FILE *out, const char *flags)
{
    fprintf(out, "\n+kflags: the x86-64 kernel's code generation as user space allows it:\n ");
    size_t col = 1;
    const char *p = flags[0] ? flags : "no flags (not x86-64)";
    while (*p) {
        size_t n = strcspn(p, " ");
        if (col + 1 + n > 96) {
            fputs("\n ", out);
            col = 1;
        }
        fprintf(out, " %.*s", (int)n, p);
        col += 1 + n;
        p += n;
        p += strspn(p, " ");
    }
    fputc('\n', out);
}

static int any_kflags(const struct cb_report *r)
{
    for (size_t i = 0; i < r->ncases; i++)
        if (strstr(r->cases[i].info.variant, "+kflags"))
            return 1;
    return 0;
}

#define MAX_X 16

static void cases_text(const struct cb_report *r, FILE *out)
{
    char sz[32];
    fprintf(out, "  %-10s %9s %-5s %-18s %9s %11s %11s\n", "probe", "size", "mode", "variant",
            "user cyc", "kernel 1st", "kernel batch");
    for (size_t i = 0; i < r->ncases; i++) {
        const struct cb_report_case *c = &r->cases[i];
        if (!c->measured || !cb_report_case_vector(c))
            continue;
        fprintf(out, "  %-10.10s %9s %-5s %-18.18s %9.1f %11.1f %11.1f\n", c->info.probe,
                cb_fmt_size(c->info.size, c->info.unit, sz, sizeof sz), c->info.mode,
                c->info.variant, c->cyc.median, cb_report_kernel_first(r, c),
                cb_report_kernel_batched(r, c));
    }
}

void cb_report_kernel_text(const struct cb_report *r, FILE *out)
{
    if (any_kflags(r))
        flags_text(out, cb_kernel_cflags);
    struct crossover xs[MAX_X];
    size_t n = crossovers(r, xs, MAX_X);
    if (!n)
        return;
    const struct cb_fpu_cost *f = &r->ceil.fpu;
    if (!have_fpu(r)) {
        fprintf(out, "\nin the kernel: no kernel_fpu_begin/end figures stored with this run's "
                "calibration: run 'cyclebudget calibrate' and collect again\n");
        return;
    }
    double q = ratio(r);
    fprintf(out, "\nin the kernel, a SIMD variant runs between kernel_fpu_begin() and _end():\n"
            "  first use in a kernel entry %.0f cyc (%s and restore of %u B), later use %.0f cyc;\n"
            "  kernel 1st = cyc/op + first use; kernel batch = cyc/op + (first + %d x later) / %d,\n"
            "  a batch of %d calls in one entry (report --fpu-batch N); calibration %lld (%s)\n",
            cb_fpu_first(f, q), f->save_insn, f->state_bytes, f->later_ticks * q, r->fpu_batch - 1,
            r->fpu_batch, r->fpu_batch, (long long)r->cal_id, f->source);
    cases_text(r, out);
    fprintf(out, "crossover: the smallest measured size at which a SIMD variant beats the best "
            "scalar one\n  %-10s %-5s %-16s %-16s %s\n", "probe", "mode", "user space",
            "kernel 1st", "kernel batch");
    for (size_t i = 0; i < n; i++) {
        char a[48], b[48], c[48];
        fprintf(out, "  %-10s %-5s %-16s %-16s %s\n", xs[i].probe, xs[i].mode,
                at_text(&xs[i], 0, a, sizeof a), at_text(&xs[i], 1, b, sizeof b),
                at_text(&xs[i], 2, c, sizeof c));
    }
}

static void json_size(FILE *out, const char *k, uint64_t v)
{
    if (v)
        fprintf(out, ", \"%s\": %llu", k, (unsigned long long)v);
    else
        fprintf(out, ", \"%s\": null", k);
}

void cb_report_kernel_json(const struct cb_report *r, FILE *out)
{
    const struct cb_fpu_cost *f = &r->ceil.fpu;
    fputs(",\n  \"kernel\": {\"kflags_cflags\": ", out);
    cb_json_str(out, cb_kernel_cflags);
    fprintf(out, ", \"fpu_batch\": %d, \"fpu\": ", r->fpu_batch);
    if (!have_fpu(r)) {
        fputs("null", out);
    } else {
        double q = ratio(r);
        fprintf(out, "{\"source\": ");
        cb_json_str(out, f->source);
        fprintf(out, ", \"save_insn\": ");
        cb_json_str(out, f->save_insn);
        fprintf(out, ", \"state_bytes\": %u, \"xcr0\": %llu, \"first_ticks\": ", f->state_bytes,
                (unsigned long long)f->xcr0);
        cb_json_num(out, f->first_ticks);
        fputs(", \"later_ticks\": ", out);
        cb_json_num(out, f->later_ticks);
        fputs(", \"first_cycles\": ", out);
        cb_json_num(out, cb_fpu_first(f, q));
        fputs(", \"batched_cycles\": ", out);
        cb_json_num(out, cb_fpu_batched(f, q, r->fpu_batch));
        fputc('}', out);
    }
    fputs(",\n    \"cases\": [", out);
    int first = 1;
    for (size_t i = 0; i < r->ncases; i++) {
        const struct cb_report_case *c = &r->cases[i];
        if (!c->measured || !cb_report_case_vector(c))
            continue;
        fprintf(out, "%s{\"id\": %lld, \"probe\": ", first ? "\n      " : ",\n      ",
                (long long)c->info.id);
        first = 0;
        cb_json_str(out, c->info.probe);
        fputs(", \"variant\": ", out);
        cb_json_str(out, c->info.variant);
        fprintf(out, ", \"size\": %llu, \"mode\": ", (unsigned long long)c->info.size);
        cb_json_str(out, c->info.mode);
        fputs(", \"user_cycles\": ", out);
        cb_json_num(out, c->cyc.median);
        fputs(", \"kernel_first_cycles\": ", out);
        cb_json_num(out, cb_report_kernel_first(r, c));
        fputs(", \"kernel_batched_cycles\": ", out);
        cb_json_num(out, cb_report_kernel_batched(r, c));
        fputc('}', out);
    }
    fputs("],\n    \"crossovers\": [", out);
    struct crossover xs[MAX_X];
    size_t n = crossovers(r, xs, MAX_X);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s{\"probe\": ", i ? ",\n      " : "\n      ");
        cb_json_str(out, xs[i].probe);
        fputs(", \"mode\": ", out);
        cb_json_str(out, xs[i].mode);
        json_size(out, "user", xs[i].at[0]);
        json_size(out, "kernel_first", xs[i].at[1]);
        json_size(out, "kernel_batched", xs[i].at[2]);
        fprintf(out, ", \"largest_size\": %llu}", (unsigned long long)xs[i].largest);
    }
    fputs("]}", out);
}
