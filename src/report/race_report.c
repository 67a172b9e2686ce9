/* race_report.c — a race shown: the decisions as JSON and as a C header
 * to compile against, and a stored race's table for `race` and `report`
 * (see race_report.h). */
#include "report/race_report.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/races.h"

#include "config.h"

/* ------------------------------------------------------------------- emit */

/* "avx2+adx" as a JSON array of names. */
static void json_features(FILE *out, unsigned mask)
{
    char names[128];
    cb_cpu_feature_names(mask, names, sizeof names);
    fputc('[', out);
    int first = 1;
    for (char *tok = strtok(names, "+"); tok; tok = strtok(NULL, "+")) {
        fputs(first ? "" : ", ", out);
        cb_json_str(out, tok);
        first = 0;
    }
    fputc(']', out);
}

/* One bucket's result: its sizes, the decision, winner and runner-up with
 * the margin, and every entrant (the closing "]}" is the caller's). */
static void json_cell(FILE *out, const struct cb_race *r, const struct cb_race_cell *c, size_t bi)
{
    const struct cb_race_entrant *w = c->winner >= 0 ? &c->e[c->winner] : NULL;
    const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
    fprintf(out, "%s\n      {\"bucket\": ", bi ? "," : "");
    cb_json_str(out, c->bucket.name);
    fprintf(out, ", \"min_size\": %llu, \"max_size\": ",
            (unsigned long long)cb_race_bucket_min(&c->bucket));
    if (c->bucket.hi == CB_RACE_UNBOUNDED)
        fputs("null", out);
    else
        fprintf(out, "%llu", (unsigned long long)c->bucket.hi);
    fprintf(out, ", \"size\": %llu, \"decision\": \"%s\",\n       \"winner\": ",
            (unsigned long long)c->bucket.size, cb_race_decision_name(c->decision));
    if (w)
        cb_json_str(out, w->v->name);
    else
        fputs("null", out);
    fputs(", \"winner_needs\": ", out);
    json_features(out, w ? w->v->needs : 0);
    fputs(", \"winner_median\": ", out);
    cb_json_num6(out, w ? w->median : NAN);
    fputs(",\n       \"runner_up\": ", out);
    if (u)
        cb_json_str(out, u->v->name);
    else
        fputs("null", out);
    fputs(", \"runner_up_median\": ", out);
    cb_json_num6(out, u ? u->median : NAN);
    fputs(", \"margin\": ", out);
    cb_json_num6(out, c->margin);
    fputs(", \"margin_ci\": ", out);
    if (isnan(c->margin_lo) || isnan(c->margin_hi)) {
        fputs("null", out);
    } else {
        fputc('[', out);
        cb_json_num6(out, c->margin_lo);
        fputs(", ", out);
        cb_json_num6(out, c->margin_hi);
        fputc(']', out);
    }
    fputs(", \"p_value\": ", out);
    cb_json_num6(out, c->p);
    fputs(", \"winner_budget_share\": ", out);
    cb_json_num6(out, cb_race_budget_share(&r->o, c));
    fputs(",\n       \"entrants\": [", out);
    for (size_t i = 0; i < c->ne; i++) {
        const struct cb_race_entrant *e = &c->e[i];
        fprintf(out, "%s{\"variant\": ", i ? ", " : "");
        cb_json_str(out, e->v->name);
        fprintf(out, ", \"verdict\": \"%s\", \"n\": %zu, \"median\": ", cb_race_verdict_name(e->verdict),
                e->verdict == CB_RACE_OK ? e->n : 0);
        cb_json_num6(out, e->median);
        fprintf(out, ", \"beaten\": %s", e->beaten ? "true" : "false");
        if (e->detail[0]) {
            cb_json_field(out, ", \"detail\": ", e->detail);
        }
        fputc('}', out);
    }
}

static void kv_charge(FILE *out, const struct cb_race *r)
{
    fputs(",\n  \"fpu_charge\": ", out);
    cb_json_num6(out, r->o.context == CB_CONTEXT_KERNEL ? cb_race_kernel_charge(&r->o) : NAN);
}

int cb_race_emit_json(const struct cb_race *r, const struct cb_host *h, FILE *out)
{
    fprintf(out, "{\n  \"generator\": \"cyclebudget %s\",\n", PACKAGE_VERSION);
    fprintf(out, "  \"race\": %lld,\n  \"run\": %lld,\n", (long long)r->race_id,
            (long long)r->run_id);
    cb_json_field(out, "  \"host\": {\"hostname\": ", h->hostname);
    cb_json_field(out, ", \"vendor\": ", h->vendor);
    fprintf(out, ", \"family\": %d, \"model\": %d, \"stepping\": %d, \"model_name\": ", h->family,
            h->model, h->stepping);
    cb_json_str(out, h->model_name);
    cb_json_field(out, ", \"microcode\": ", h->microcode);
    fputs(", \"features\": ", out);
    json_features(out, h->features);
    cb_json_field(out, ", \"kernel\": ", h->kernel);
    fprintf(out, ", \"ncpus\": %d, \"llc_bytes\": %zu},\n", h->ncpus, h->llc_bytes);
    char ctx[512];
    cb_race_context_line(r, ctx, sizeof ctx);
    cb_json_field(out, "  \"context\": ", r->o.context == CB_CONTEXT_KERNEL ? "kernel" : "user");
    cb_json_field(out, ",\n  \"context_what\": ", ctx);
    kv_charge(out, r);
    fprintf(out, ",\n  \"mode\": \"%s\",\n  \"metric\": ", cb_mode_name(r->o.mode));
    cb_json_str(out, r->metric);
    fprintf(out, ",\n  \"alpha\": %.6g,\n  \"min_margin\": %.6g,\n  \"rounds\": %d,\n  \"reps\": %d,\n"
                 "  \"seed\": %llu,\n  \"families\": [",
            r->o.alpha, r->o.min_margin, r->o.rounds, r->reps, (unsigned long long)r->o.seed);
    for (size_t pi = 0; pi < r->o.nprobes; pi++) {
        const struct cb_probe *p = r->o.probes[pi];
        fprintf(out, "%s\n    {\"probe\": ", pi ? "," : "");
        cb_json_str(out, p->name);
        cb_json_field(out, ", \"unit\": ", p->unit);
        fputs(", \"buckets\": [", out);
        for (size_t bi = 0; bi < r->o.nbuckets; bi++) {
            json_cell(out, r, &r->cells[pi * r->o.nbuckets + bi], bi);
            fputs("]}", out);
        }
        fputs("\n    ]}", out);
    }
    fputs("\n  ]\n}\n", out);
    return ferror(out) ? -EIO : 0;
}

/* "kmem-cache" -> "kmem_cache" (lower) or "KMEM_CACHE" (upper): a C identifier. */
static void ident(const char *name, int upper, char *buf, size_t len)
{
    size_t k = 0;
    for (; *name && k + 1 < len; name++) {
        unsigned char ch = (unsigned char)*name;
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        char out = alnum ? (char)ch : '_';
        if (upper && out >= 'a' && out <= 'z')
            out = (char)(out - 'a' + 'A');
        if (!upper && out >= 'A' && out <= 'Z')
            out = (char)(out - 'A' + 'a');
        buf[k++] = out;
    }
    buf[k] = '\0';
}

static void fmt_margin(const struct cb_race_cell *c, char *buf, size_t len)
{
    if (isnan(c->margin))
        snprintf(buf, len, "-");
    else if (isnan(c->margin_lo))
        snprintf(buf, len, "%+.1f%%", c->margin * 100);
    else
        snprintf(buf, len, "%+.1f%% [%+.1f, %+.1f]", c->margin * 100, c->margin_lo * 100,
                 c->margin_hi * 100);
}

void cb_race_context_line(const struct cb_race *r, char *buf, size_t len)
{
    if (r->o.context != CB_CONTEXT_KERNEL) {
        snprintf(buf, len, "context: user space (each variant as measured)");
        return;
    }
    double q = cb_race_kernel_charge(&r->o);
    if (!isfinite(q))
        snprintf(buf, len, "context: kernel; no FPU save was measured (no calibration, or no "
                 "XSAVE), so SIMD variants sat out; +kflags builds stood for their variants");
    else if (r->o.fpu_batch > 1)
        snprintf(buf, len, "context: kernel; SIMD variants charged kernel_fpu_begin/end amortised "
                 "over %d calls: %.1f %s per call (%s of %u bytes); +kflags builds stood for "
                 "their variants", r->o.fpu_batch, q, r->metric, r->o.fpu.save_insn,
                 r->o.fpu.state_bytes);
    else
        snprintf(buf, len, "context: kernel; SIMD variants charged kernel_fpu_begin/end at a first "
                 "use: %.1f %s per call (%s of %u bytes); +kflags builds stood for their variants",
                 q, r->metric, r->o.fpu.save_insn, r->o.fpu.state_bytes);
}

/* The header's comment (how the race was run and decided) and the entry type. */
static void header_preamble(const struct cb_race *r, const struct cb_host *h, FILE *out)
{
    char ctx[512];
    cb_race_context_line(r, ctx, sizeof ctx);
    fprintf(out,
            "/* cyclebudget race: which variant to use for which size, measured on one machine.\n"
            " *\n"
            " * Generated by cyclebudget %s: race %lld (run %lld).\n"
            " * Host: %s, %s (%s family %d model %d stepping %d, microcode %s),\n"
            " *       kernel %s.\n"
            " * Mode %s; ranked by %s per operation; %d rounds x %d samples per variant,\n"
            " * in a shuffled order each round (seed %llu).  A winner is confident when it\n"
            " * beats every other variant by the Mann-Whitney test at alpha %g and by a\n"
            " * margin whose CI's lower bound is at least %g%%; otherwise the variants it\n"
            " * did not beat are tied, and the one needing the fewest CPU features (then\n"
            " * the family's reference, then the earlier in its table) is chosen.\n"
            " * A margin is how much more the runner-up costs than the winner, with its\n"
            " * CI; negative: the runner-up was faster by median, but not confidently.\n"
            " *\n"
            " * Each table is valid only where the CPU has the features named in its\n"
            " * CB_RACE_<FAMILY>_REQUIRES ('+'-separated, as 'cyclebudget list' names\n"
            " * them), and is this machine's answer: race again on another.\n"
            " *\n"
            " * %s\n"
            " */\n"
            "#ifndef CB_RACE_GENERATED_H\n#define CB_RACE_GENERATED_H\n\n"
            "#include <stddef.h>\n#include <stdint.h>\n\n"
            "#ifndef CB_RACE_ENTRY_DEFINED\n#define CB_RACE_ENTRY_DEFINED\n"
            "struct cb_race_entry {\n"
            "    size_t max_size;       /* sizes up to this one (inclusive) use variant */\n"
            "    const char *variant;   /* the variant's name in cyclebudget's family */\n"
            "    const char *needs;     /* the CPU features it needs, \"\" for none */\n"
            "};\n"
            "#if defined(__GNUC__)\n#define CB_RACE_UNUSED __attribute__((unused))\n#else\n"
            "#define CB_RACE_UNUSED\n#endif\n#endif\n",
            PACKAGE_VERSION, (long long)r->race_id, (long long)r->run_id, h->hostname,
            h->model_name, h->vendor, h->family, h->model, h->stepping,
            h->microcode[0] ? h->microcode : "unknown", h->kernel, cb_mode_name(r->o.mode),
            r->metric, r->o.rounds, r->reps, (unsigned long long)r->o.seed, r->o.alpha,
            r->o.min_margin * 100, ctx);
}

/* The bucket after bi with a winner, or nbuckets: adjacent buckets with
 * the same winner share one entry, so the table holds only the
 * thresholds where the choice changes. */
static size_t next_decided(const struct cb_race *r, const struct cb_race_cell *cells, size_t bi)
{
    size_t nb = bi + 1;
    while (nb < r->o.nbuckets && cells[nb].winner < 0)
        nb++;
    return nb;
}

static int ends_run(const struct cb_race *r, const struct cb_race_cell *cells, size_t bi)
{
    size_t nb = next_decided(r, cells, bi);
    const struct cb_race_cell *c = &cells[bi];
    return nb == r->o.nbuckets || cells[nb].e[cells[nb].winner].v != c->e[c->winner].v;
}

/* One bucket's line: its entry when it ends a run of the same winner
 * (the last one open-ended), with the decision and margin beside it. */
static void header_entry(const struct cb_race *r, const struct cb_race_cell *cells, size_t bi,
                         size_t *emitted, size_t nent, FILE *out)
{
    const struct cb_race_cell *c = &cells[bi];
    const struct cb_variant *v = c->e[c->winner].v;
    char m[96], vn[128], entry[256], req[128];
    fmt_margin(c, m, sizeof m);
    snprintf(vn, sizeof vn, "\"%s\",", v->name);
    if (ends_run(r, cells, bi)) {
        char sz[32];
        if (++*emitted == nent)
            snprintf(sz, sizeof sz, "SIZE_MAX");
        else
            snprintf(sz, sizeof sz, "%llu", (unsigned long long)c->bucket.hi);
        snprintf(entry, sizeof entry, "    {%s, %s \"%s\"},", sz, vn,
                 cb_cpu_feature_names(v->needs, req, sizeof req));
    } else {
        snprintf(entry, sizeof entry, "    /* (continues below) */");
    }
    const struct cb_race_entrant *u = c->runner_up >= 0 ? &c->e[c->runner_up] : NULL;
    fprintf(out, "%-44s /* %s @%llu: %s", entry, c->bucket.name,
            (unsigned long long)c->bucket.size, cb_race_decision_name(c->decision));
    if (u)
        fprintf(out, ", %s vs %s", m, u->v->name);
    fputs(" */\n", out);
}

/* One family's table and its pick() function, or a note that it has none. */
static void header_family(const struct cb_race *r, size_t pi, FILE *out)
{
    const struct cb_probe *p = r->o.probes[pi];
    const struct cb_race_cell *cells = &r->cells[pi * r->o.nbuckets];
    char lo[64], up[64], req[128];
    ident(p->name, 0, lo, sizeof lo);
    ident(p->name, 1, up, sizeof up);
    unsigned needs = 0;
    size_t nent = 0, emitted = 0;
    for (size_t bi = 0; bi < r->o.nbuckets; bi++)
        if (cells[bi].winner >= 0) {
            needs |= cells[bi].e[cells[bi].winner].v->needs;
            nent += (size_t)ends_run(r, cells, bi);
        }
    fprintf(out, "\n/* %s: %s */\n", p->name, p->desc ? p->desc : "");
    if (nent == 0) {
        fprintf(out, "/* no variant of %s could be measured here: no table */\n", p->name);
        return;
    }
    fprintf(out, "#define CB_RACE_%s_REQUIRES \"%s\"\n", up, cb_cpu_feature_names(needs, req, sizeof req));
    fprintf(out, "#define CB_RACE_%s_COUNT %zu\n", up, nent);
    fprintf(out, "static const struct cb_race_entry cb_race_%s[CB_RACE_%s_COUNT] CB_RACE_UNUSED = {\n",
            lo, up);
    for (size_t bi = 0; bi < r->o.nbuckets; bi++)
        if (cells[bi].winner >= 0)
            header_entry(r, cells, bi, &emitted, nent, out);
    fputs("};\n", out);
    fprintf(out,
            "static inline CB_RACE_UNUSED const char *cb_race_%s_pick(size_t len)\n{\n"
            "    for (size_t i = 0; i + 1 < CB_RACE_%s_COUNT; i++)\n"
            "        if (len <= cb_race_%s[i].max_size)\n"
            "            return cb_race_%s[i].variant;\n"
            "    return cb_race_%s[CB_RACE_%s_COUNT - 1].variant;\n}\n",
            lo, up, lo, lo, lo, up);
}

int cb_race_emit_header(const struct cb_race *r, const struct cb_host *h, FILE *out)
{
    header_preamble(r, h, out);
    for (size_t pi = 0; pi < r->o.nprobes; pi++)
        header_family(r, pi, out);
    fputs("\n#endif\n", out);
    return ferror(out) ? -EIO : 0;
}

/* ----------------------------------------------------------------- report */

static int print_head(const struct cb_store_race *ra, void *ctx)
{
    FILE *out = ctx;
    fprintf(out,
            "race %lld (run %lld, %s) on %s, %s\n"
            "  %s, ranked by %s per op, %d rounds x %d samples, alpha %g, min margin %g%%\n",
            (long long)ra->id, (long long)ra->run_id, ra->started, ra->hostname, ra->model_name,
            ra->mode, ra->metric, (int)ra->rounds, (int)ra->reps, ra->alpha, ra->min_margin * 100);
    /* Its medians include the charge: say so beside them. */
    if (strcmp(ra->context, "kernel") == 0) {
        if (isnan(ra->fpu_charge))
            fprintf(out, "  kernel context: no FPU save measured, so the SIMD variants sat out\n");
        else
            fprintf(out, "  kernel context: each SIMD entrant charged %.1f %s per call for "
                    "kernel_fpu_begin/end (included in its figures)\n", ra->fpu_charge, ra->metric);
    }
    return 0;
}

static int print_result(const struct cb_store_race_result *rr, void *ctx)
{
    FILE *out = ctx;
    char range[48], margin[64], before[96];
    if (rr->max_size < 0)
        snprintf(range, sizeof range, "%lld..", (long long)rr->min_size);
    else
        snprintf(range, sizeof range, "%lld..%lld", (long long)rr->min_size, (long long)rr->max_size);
    double m = rr->margin, lo = rr->margin_lo, hi = rr->margin_hi;
    if (isnan(m))
        snprintf(margin, sizeof margin, "-");
    else
        snprintf(margin, sizeof margin, "%+.1f [%+.1f, %+.1f]", m * 100, lo * 100, hi * 100);
    const char *win = rr->winner ? rr->winner : "";
    if (!rr->prev_winner)
        snprintf(before, sizeof before, "-");
    else if (strcmp(rr->prev_winner, win) == 0)
        snprintf(before, sizeof before, "same");
    else
        snprintf(before, sizeof before, "was %s", rr->prev_winner);
    fprintf(out, "  %-10s %-10s %-14s %-14s %-10s %-26s %-14s %s", rr->probe, rr->bucket, range,
            win[0] ? win : "-", rr->decision, margin, rr->runner_up ? rr->runner_up : "-", before);
    if (rr->bad)
        fprintf(out, "  (BAD, excluded: %s)", rr->bad);
    fputc('\n', out);
    return 0;
}

int cb_race_print(struct cb_store *st, int64_t race_id, FILE *out)
{
    int rc = cb_store_race_get(st, race_id, print_head, out);
    if (rc < 0)
        return rc;
    fprintf(out, "  %-10s %-10s %-14s %-14s %-10s %-26s %-14s %s\n", "family", "bucket", "sizes",
            "winner", "decision", "margin [CI], %", "runner-up", "before");
    return cb_store_each_race_result(st, race_id, print_result, out) < 0 ? -EIO : 0;
}

/* The races shown so far, and the store they are read from. */
struct shown {
    struct cb_store *st;
    FILE *out;
    int n;
};

static int print_one(int64_t id, void *ctx)
{
    struct shown *s = ctx;
    if (s->n)
        fputc('\n', s->out);
    int rc = cb_race_print(s->st, id, s->out);
    if (rc < 0)
        return rc;
    s->n++;
    return 0;
}

int cb_race_report_text(struct cb_store *st, FILE *out)
{
    struct shown s = {st, out, 0};
    int rc = cb_store_each_latest_race(st, print_one, &s);
    return rc < 0 ? rc : s.n;
}
