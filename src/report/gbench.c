/* gbench.c — Google Benchmark's JSON, as its tools/compare.py and the
 * trackers that ingest that format read it.
 *
 * compare.py pairs the entries of one name between two files in order and
 * takes OVERALL_GEOMEAN over every non-aggregate entry of each file.  One
 * entry per sample (10 to 360 per case, a different count in each run)
 * weighted each case by its sample count there: a change of +6% on every
 * per-case median read -0.29.  So each case has one "iteration" entry per
 * run, its median (a repetition, as Google Benchmark's --benchmark_
 * repetitions makes), and mean/median/stddev aggregates over the pooled
 * samples of every run.  The runs of a tag or a commit are exported
 * together, each a repetition.  Times are ns from the TSC; cycles per op
 * are a user counter. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/fingerprint.h"
#include "report/report.h"
#include "util/sort.h"

static void str_member(FILE *out, const char *k, const char *v)
{
    fprintf(out, ", \"%s\": ", k);
    cb_json_str(out, v);
}

static void num_member(FILE *out, const char *k, double v)
{
    fprintf(out, ", \"%s\": ", k);
    cb_json_num(out, v);
}

/* One entry of a case; agg NULL for an iteration (a repetition). */
struct gb_entry {
    const char *name, *run_name, *agg;
    size_t family, reps, rep_index;
    uint64_t iters, bytes;
    double ns, cycles;
};

static void gb_entry(FILE *out, int *first, const struct gb_entry *e)
{
    fputs(*first ? "\n    {" : ",\n    {", out);
    *first = 0;
    cb_json_field(out, "\"name\": ", e->name);
    fprintf(out, ", \"family_index\": %zu, \"per_family_instance_index\": 0", e->family);
    str_member(out, "run_name", e->run_name);
    str_member(out, "run_type", e->agg ? "aggregate" : "iteration");
    fprintf(out, ", \"repetitions\": %zu", e->reps);
    if (!e->agg)
        fprintf(out, ", \"repetition_index\": %zu", e->rep_index);
    fputs(", \"threads\": 1", out);
    if (e->agg) {
        str_member(out, "aggregate_name", e->agg);
        str_member(out, "aggregate_unit", "time");
    }
    fprintf(out, ", \"iterations\": %" PRIu64, e->iters);
    num_member(out, "real_time", e->ns);
    num_member(out, "cpu_time", e->ns);
    str_member(out, "time_unit", "ns");
    if (e->bytes > 0)
        num_member(out, "bytes_per_second", e->ns > 0 ? (double)e->bytes / (e->ns * 1e-9) : NAN);
    num_member(out, "cycles_per_op", e->cycles);
    fputc('}', out);
}

/* mean, median and sample standard deviation of v (sorted here). */
static void stats3(double *v, size_t n, double out[3])
{
    double s = 0, q = 0;
    cb_sort_doubles(v, (size_t)n);
    for (size_t i = 0; i < n; i++)
        s += v[i];
    out[0] = n ? s / (double)n : NAN;
    out[1] = n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    for (size_t i = 0; i < n; i++)
        q += (v[i] - out[0]) * (v[i] - out[0]);
    out[2] = n > 1 ? sqrt(q / (double)(n - 1)) : 0.0;
}

static int same_case(const struct cb_case_info *a, const struct cb_case_info *b)
{
    return !strcmp(a->probe, b->probe) && !strcmp(a->variant, b->variant) && a->size == b->size &&
           !strcmp(a->mode, b->mode);
}

/* The measured case of run r that is the same case as c, or NULL. */
static const struct cb_report_case *find_case(const struct cb_report *r, const struct cb_case_info *c)
{
    for (size_t k = 0; k < r->ncases; k++)
        if (r->cases[k].measured && r->tsc_event >= 0 && same_case(&r->cases[k].info, c) &&
            r->cases[k].ev[r->tsc_event].n > 0)
            return &r->cases[k];
    return NULL;
}

int cb_report_gbench_ok(const struct cb_report *r, struct cb_sb *err)
{
    if (r->tsc_event >= 0 && r->run.tsc_ghz > 0)
        return 0;
    cb_sb_setf(err, "run %" PRId64 " has no TSC times%s; Google Benchmark's format holds times "
             "only: export it with --format json or csv", r->run.id,
             r->run.sim_model[0] ? " (counted under callgrind, run --sim: instructions and cache "
                                   "misses, no clock)" : "");
    return -EINVAL;
}

/* One case over every run that measured it: a repetition per run (its
 * medians), then mean/median/stddev over the pooled samples.  0 or -ENOMEM. */
static int gb_case(FILE *out, int *first, const struct cb_report *runs, size_t nruns,
                   const struct cb_case_info *ci, size_t family)
{
    char name[256], agg[300];
    snprintf(name, sizeof name, "%s/%s/%" PRIu64 "/%s", ci->probe, ci->variant, ci->size, ci->mode);
    size_t reps = 0, total = 0;
    for (size_t i = 0; i < nruns; i++) {
        const struct cb_report_case *c = find_case(&runs[i], ci);
        if (c) {
            reps++;
            total += c->ev[runs[i].tsc_event].n;
        }
    }
    double *ns = malloc((total + 1) * sizeof *ns), *cyc = malloc((total + 1) * sizeof *cyc);
    if (!ns || !cyc) {
        free(ns);
        free(cyc);
        return -ENOMEM;
    }
    size_t n = 0, rep = 0;
    for (size_t i = 0; i < nruns; i++) {
        const struct cb_report *r = &runs[i];
        const struct cb_report_case *c = find_case(r, ci);
        if (!c)
            continue;
        const struct cb_report_series *t = &c->ev[r->tsc_event], *y = &c->ev[r->cyc_event];
        uint64_t iters = 0;
        for (size_t j = 0; j < t->n; j++) {
            iters += t->iters[j];
            ns[n] = t->v[j] / r->run.tsc_ghz;
            cyc[n++] = j < y->n ? y->v[j] : NAN;
        }
        struct gb_entry e = {name, name, NULL, family, reps, rep++, iters, ci->bytes_per_op,
                             c->tsc.median / r->run.tsc_ghz, c->cyc.median};
        gb_entry(out, first, &e);
    }
    double st[3], cst[3];
    stats3(ns, n, st);
    stats3(cyc, n, cst);
    static const char *const aggs[] = {"mean", "median", "stddev"};
    for (int a = 0; a < 3; a++) {
        snprintf(agg, sizeof agg, "%s_%s", name, aggs[a]);
        struct gb_entry e = {agg, name, aggs[a], family, reps, 0, n, a < 2 ? ci->bytes_per_op : 0,
                             st[a], cst[a]};
        gb_entry(out, first, &e);
    }
    free(ns);
    free(cyc);
    return 0;
}

static void gb_context(FILE *out, const struct cb_report *runs, size_t nruns)
{
    const struct cb_report *r = &runs[nruns - 1];
    const struct cb_run_info *u = &r->run;
    fputs("{\n  \"context\": {", out);
    cb_json_field(out, "\"date\": ", u->started);
    str_member(out, "host_name", u->hostname);
    str_member(out, "executable", "cyclebudget");
    /* Google Benchmark's own rule: scaling is enabled when the governor is
     * not "performance", and reported false where it cannot be read (a guest
     * without cpufreq).  cyclebudget_cpu_scaling keeps "unknown" apart. */
    struct cb_fingerprint fp;
    cb_report_env(u, &fp);
    int sc = cb_fingerprint_scaling(&fp);
    fprintf(out, ", \"num_cpus\": %d, \"mhz_per_cpu\": %.0f, \"cpu_scaling_enabled\": %s",
            u->ncpus, u->tsc_ghz * 1000.0, sc == 1 ? "true" : "false");
    str_member(out, "cyclebudget_cpu_scaling", sc < 0 ? "unknown" : sc ? "yes" : "no");
    str_member(out, "cyclebudget_governor", fp.governor);
    fputs(", \"caches\": [], \"load_avg\": [], \"library_build_type\": \"release\"", out);
    fprintf(out, ", \"cyclebudget_run\": %" PRId64 ", \"cyclebudget_runs\": [", u->id);
    for (size_t i = 0; i < nruns; i++)
        fprintf(out, "%s%" PRId64, i ? ", " : "", runs[i].run.id);
    fputc(']', out);
    str_member(out, "cyclebudget_cycles_source", r->cyc_source);
    str_member(out, "cyclebudget_cycles", r->cyc_label);
    str_member(out, "cyclebudget_commit", u->commit);
    /* Pooled runs: one emulated run makes the pool no timing of a machine. */
    fputs(", \"cyclebudget_emulated\": ", out);
    size_t e = 0;
    while (e < nruns && !runs[e].run.emulated[0])
        e++;
    if (e < nruns)
        cb_json_str(out, runs[e].run.emulated);
    else
        fputs("null", out);
    fputs("},\n  \"benchmarks\": [", out);
}

int cb_report_gbench(const struct cb_report *runs, size_t nruns, FILE *out)
{
    for (size_t i = 0; i < nruns; i++)
        if (cb_report_gbench_ok(&runs[i], NULL) < 0)
            return -EINVAL;
    if (nruns == 0)
        return -EINVAL;
    gb_context(out, runs, nruns);
    int first = 1, rc = 0;
    size_t family = 0;
    /* Each case once, in the order the runs first have it. */
    for (size_t i = 0; i < nruns && rc == 0; i++)
        for (size_t k = 0; k < runs[i].ncases && rc == 0; k++) {
            const struct cb_case_info *ci = &runs[i].cases[k].info;
            int seen = find_case(&runs[i], ci) != &runs[i].cases[k];
            for (size_t h = 0; h < i && !seen; h++)
                seen = find_case(&runs[h], ci) != NULL;
            if (!seen && (rc = gb_case(out, &first, runs, nruns, ci, family)) == 0)
                family++;
        }
    fputs("\n  ]\n}\n", out);
    return rc < 0 ? rc : ferror(out) ? -EIO : 0;
}
