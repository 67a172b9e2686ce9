/* fakeclock.c — the fake clock backend (see fakeclock.h). */
#include "harness/fakeclock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/meter.h"

/* splitmix64: one step of a well-mixed sequence from any seed. */
static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return (double)(mix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Sum of four uniforms, centred and scaled to unit variance: close enough
 * to normal for a stopping rule, and bounded (|x| < 3.5). */
static double gauss(uint64_t *s)
{
    double x = uniform(s) + uniform(s) + uniform(s) + uniform(s) - 2.0;
    return x * sqrt(3.0);
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

double cb_fake_cost(const struct cb_case *c)
{
    if (c->probe->nominal)
        return c->probe->nominal(c);
    size_t vi = c->variant ? (size_t)(c->variant - c->probe->variants) : 0;
    return (16.0 + (double)c->size / 8.0) * (1.0 + 0.25 * (double)vi);
}

/* The state is seeded per case, so a case's samples do not depend on
 * which cases ran before it. */
static void seed_for(struct cb_fake *f, const struct cb_case *c)
{
    uint64_t h = 0xcbf29ce484222325ull ^ f->seed;
    h = hash_str(h, c->probe->name);
    h = hash_str(h, c->variant ? c->variant->name : "");
    h = (h ^ (uint64_t)c->size) * 0x100000001b3ull;
    h = (h ^ (uint64_t)c->mode) * 0x100000001b3ull;
    if (h != f->case_key) {
        f->case_key = h;
        f->state = h;
        /* A stream of its own, so that drift=0 leaves every sample as it was. */
        uint64_t d = h ^ 0x6472696674ull;
        f->case_drift = 1.0 + f->drift * gauss(&d);
    }
}

static int fake_read(void *ctx, struct cb_counters *cs, struct cb_reading *r, int end)
{
    struct cb_fake *f = ctx;
    (void)end;
    double t = f->vclock;
    double ns = t / CB_FAKE_TSC_GHZ;
    for (int i = 0; i < cs->n; i++) {
        const struct cb_counter *k = &cs->c[i];
        r->value[i] = r->enabled[i] = r->running[i] = 0;
        r->method[i] = CB_READ_FAKE;
        if (!k->supported)
            continue;
        switch (k->method) {
        case CB_READ_RDTSC:
        case CB_READ_DERIVED:
            r->value[i] = (uint64_t)llround(t);
            break;
        case CB_READ_SYSCALL:
        case CB_READ_RDPMC: {
            /* A perf event counts the virtual clock's core cycles when it
             * is "cycles", its ns otherwise; multiplexed, only while on a
             * counter, as the kernel's counts are. */
            double v = strcmp(k->spec.part, "cycles") == 0 ? t * CB_FAKE_CORE_PER_TICK : ns;
            r->enabled[i] = (uint64_t)llround(ns);
            r->running[i] = (uint64_t)llround(ns * f->mux);
            r->value[i] = (uint64_t)llround(v * f->mux);
            break;
        }
        case CB_READ_FAKE:
        case CB_READ_SIM:
        case CB_READ_NONE:
            break;
        }
    }
    f->vclock += CB_FAKE_READ_TICKS;
    return 0;
}

/* Whether a state that lasts `until` reference readings (hostfor=,
 * clockfor=; 0 the whole run) is still on. */
static int still_on(const struct cb_fake *f, long until)
{
    return until == 0 || f->refs_taken < until;
}

static void fake_run(void *ctx, struct cb_case *c, uint64_t iters)
{
    struct cb_fake *f = ctx;
    seed_for(f, c);
    c->probe->run(c, iters);
    double cost = (double)iters * cb_fake_cost(c) / CB_FAKE_CORE_PER_TICK;
    f->busy = iters && f->contended > 0 && uniform(&f->state) < f->contended;
    double noise = 1.0 + f->noise * gauss(&f->state);
    if (noise < 0.5)
        noise = 0.5;
    /* ab's HEAD build, slowed by a planted factor: its verdicts are tested
     * on a change known in advance. */
    const char *ns = cb_probe_ns(c->probe);
    if (ns && strncmp(ns, "head", 4) == 0)   /* ab's HEAD build and its copies (ab.h) */
        cost *= f->head;
    cost *= f->scale;
    if (still_on(f, f->hostfor))
        cost *= f->host * f->hostmem;
    f->vclock += 40.0 + cost * noise * f->case_drift * (f->busy ? f->slow : 1.0);
}

static double fake_per_tick(void *ctx, int imul, int side)
{
    const struct cb_fake *f = ctx;
    (void)imul;
    if (!still_on(f, f->clockfor))
        return CB_FAKE_CORE_PER_TICK;
    return CB_FAKE_CORE_PER_TICK * (side ? f->after : f->before);
}

static double fake_meter(void *ctx)
{
    struct cb_fake *f = ctx;
    return f->busy ? 2.0 : 1.0 + 0.002 * uniform(&f->state);
}

/* The model's reference figures, ticks per operation: fixed, so that a
 * test knows the quiet figure and each reading's ratio to it exactly. */
static const double model_refs[CB_NREFS] = {1.0, 0.5, 64.0, 40.0, 400.0};

static void fake_refs(void *ctx, struct cb_refs *out)
{
    struct cb_fake *f = ctx;
    int now = still_on(f, f->hostfor);
    double host = now ? f->host : 1.0, mem = now ? f->hostmem : 1.0;
    for (int i = 0; i < CB_NREFS; i++) {
        /* A busy sibling barely slows the latency-bound chain and memory
         * loads; memory contention slows the memory loads alone. */
        double x = i == CB_REF_CHAIN ? 1.0 + (host - 1.0) / 6.0
                   : i == CB_REF_MEM ? (1.0 + (host - 1.0) / 6.0) * mem
                                     : host;
        out->v[i] = model_refs[i] * x;
    }
    f->refs_taken++;
}

static int parse_frac(const char *v, double lo, double hi, int lo_open, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !isfinite(d) || d > hi || d < lo || (lo_open && d == lo))
        return -EINVAL;
    *out = d;
    return 0;
}

static int parse_count(const char *v, long *out)
{
    char *end;
    *out = strtol(v, &end, 10);
    return end == v || *end || *out < 0 ? -EINVAL : 0;
}

int cb_fake_init(struct cb_fake *f, const char *spec, struct cb_backend *be, struct cb_sb *err)
{
    /* The model's defaults; every other field (the clock, the state) starts at zero. */
    *f = (struct cb_fake){.seed = 1, .noise = 0.005, .mux = 1.0, .slow = 1.5, .siblings = 2, .head = 1.0,
                          .scale = 1.0, .case_drift = 1.0, .before = 1.0, .after = 1.0, .host = 1.0,
                          .hostmem = 1.0};
    char buf[256];
    if (spec && strlen(spec) >= sizeof buf) {
        cb_sb_setf(err, "%s: too long (at most %zu characters)", CB_FAKE_ENV, sizeof buf - 1);
        return -EINVAL;
    }
    snprintf(buf, sizeof buf, "%s", spec ? spec : "");
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        const char *k = kv, *v = eq ? eq + 1 : "";
        int rc = -EINVAL;
        if (eq)
            *eq = 0;
        if (!eq) {
            rc = -EINVAL;
        } else if (strcmp(k, "seed") == 0) {
            char *end;
            unsigned long long s = strtoull(v, &end, 10);
            rc = end == v || *end || *v == '-' ? -EINVAL : 0;
            f->seed = s;
        } else if (strcmp(k, "noise") == 0) {
            rc = parse_frac(v, 0, 0.5, 0, &f->noise);
        } else if (strcmp(k, "mux") == 0) {
            rc = parse_frac(v, 0, 1, 1, &f->mux);
        } else if (strcmp(k, "contended") == 0) {
            rc = parse_frac(v, 0, 1, 0, &f->contended);
        } else if (strcmp(k, "drift") == 0) {
            rc = parse_frac(v, 0, 0.3, 0, &f->drift);
        } else if (strcmp(k, "slow") == 0) {
            rc = parse_frac(v, 1, 100, 0, &f->slow);
        } else if (strcmp(k, "before") == 0) {
            rc = parse_frac(v, 0.5, 2, 0, &f->before);
        } else if (strcmp(k, "after") == 0) {
            rc = parse_frac(v, 0.5, 2, 0, &f->after);
        } else if (strcmp(k, "head") == 0) {
            rc = parse_frac(v, 0.1, 10, 0, &f->head);
        } else if (strcmp(k, "scale") == 0) {
            rc = parse_frac(v, 0.1, 10, 0, &f->scale);
        } else if (strcmp(k, "host") == 0) {
            rc = parse_frac(v, 1, 10, 0, &f->host);
        } else if (strcmp(k, "hostmem") == 0) {
            rc = parse_frac(v, 1, 10, 0, &f->hostmem);
        } else if (strcmp(k, "hostfor") == 0) {
            rc = parse_count(v, &f->hostfor);
        } else if (strcmp(k, "clockfor") == 0) {
            rc = parse_count(v, &f->clockfor);
        } else if (strcmp(k, "meter") == 0) {
            int kind = cb_meter_kind_parse(v);
            rc = kind == CB_METER_SMT || kind == CB_METER_HOST || kind == CB_METER_NONE ? 0 : -EINVAL;
            f->siblings = kind == CB_METER_SMT ? 2 : 1;
            f->hypervisor = kind == CB_METER_HOST;
        }
        if (rc < 0) {
            cb_sb_setf(err,
                     "%s: '%s%s%s' is not understood: give comma-separated seed=N, noise=F (0..0.5), "
                     "mux=F (0..1], drift=F (0..0.3), contended=F (0..1), slow=X (1..100), head=X, scale=X (0.1..10), "
                     "before=X, after=X (0.5..2), clockfor=N, host=X (1..10), hostmem=X (1..10), hostfor=N, "
                     "meter=smt|host|none",
                     CB_FAKE_ENV, k, eq ? "=" : "", v);
            return -EINVAL;
        }
    }
    *be = (struct cb_backend){
        .name = "fake", .ctx = f, .read_ticks = CB_FAKE_READ_TICKS,
        .siblings = f->siblings, .hypervisor = f->hypervisor,
        .read = fake_read, .run = fake_run, .core_per_tick = fake_per_tick, .meter = fake_meter,
        .refs = fake_refs,
    };
    return 0;
}
