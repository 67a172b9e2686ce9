/* simclock.c — the callgrind backend (see simclock.h). */
#include "harness/simclock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/callgrind.h"
#include "config.h"

#ifdef HAVE_VALGRIND_CALLGRIND_H
#include <valgrind/callgrind.h>
#endif

int cb_sim_requested(void)
{
    const char *v = getenv(CB_SIM_ENV);
    return v && *v;
}

#ifdef HAVE_VALGRIND_CALLGRIND_H
/* The counts of one batch, from the dump its end wrote; the file is removed
 * once read, so that a long run leaves no pile of them. */
static void read_dump(struct cb_sim *s, struct cb_counters *cs, struct cb_reading *r,
                      const char *name)
{
    char path[1100];
    struct cb_sb err = CB_SB_INIT;
    struct cb_cg_dump d;
    snprintf(path, sizeof path, "%s.%u", s->out, s->dumps);
    int rc = cb_cg_parse_file(path, &d, &err);
    const char *req = rc == 0 ? cb_cg_request(&d) : NULL;
    if (rc == 0 && (!req || strcmp(req, name) != 0)) {
        cb_sb_setf(&err, "%s is dump '%s', expected '%s'", path, req ? req : d.trigger, name);
        rc = -EINVAL;
    }
    if (rc < 0) {
        if (!s->failed)
            snprintf(s->why, sizeof s->why, "cannot read callgrind's dump: %s", err.buf);
        s->failed = 1;
    }
    cb_sb_release(&err);
    if (rc < 0)
        return;
    unlink(path);
    for (int i = 0; i < cs->n; i++) {
        int e = s->event_of[i];
        if (e >= 0) {
            r->value[i] = d.ev[e];
        } else {
            double est = cb_cg_estimated_cycles(&d);
            r->value[i] = isnan(est) ? 0 : (uint64_t)llround(est);
        }
    }
}

static int sim_read(void *ctx, struct cb_counters *cs, struct cb_reading *r, int end)
{
    struct cb_sim *s = ctx;
    for (int i = 0; i < cs->n; i++) {
        r->value[i] = r->enabled[i] = r->running[i] = 0;
        r->method[i] = CB_READ_SIM;
    }
    if (!end) {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
        return 0;
    }
    CALLGRIND_TOGGLE_COLLECT;
    char name[32];
    snprintf(name, sizeof name, "cb-batch-%u", ++s->dumps);
    CALLGRIND_DUMP_STATS_AT(name);
    read_dump(s, cs, r, name);
    return s->failed ? -EIO : 0;
}
#endif

static void sim_run(void *ctx, struct cb_case *c, uint64_t iters)
{
    (void)ctx;
    c->probe->run(c, iters);
}

static double sim_per_tick(void *ctx, int imul, int side)
{
    (void)ctx, (void)imul, (void)side;
    return 0;
}

/* No contention to meter: the simulator's counts do not see the host. */
static double sim_meter(void *ctx)
{
    (void)ctx;
    return 1.0;
}

int cb_sim_init(struct cb_sim *s, struct cb_backend *be, struct cb_sb *err)
{
    memset(s, 0, sizeof *s);
#ifndef HAVE_VALGRIND_CALLGRIND_H
    (void)be;
    cb_sb_setf(err, "this cyclebudget was built without valgrind's headers, so it cannot "
                          "count under callgrind: apt-get install valgrind, then ./configure && make");
    return -ENOTSUP;
#else
    if (!RUNNING_ON_VALGRIND) {
        cb_sb_setf(err, "%s is set, but this process does not run under valgrind: "
                              "use 'cyclebudget run --sim', which starts it there", CB_SIM_ENV);
        return -EINVAL;
    }
    snprintf(s->out, sizeof s->out, "%s", getenv(CB_SIM_ENV));
    const char *model = getenv(CB_SIM_MODEL_ENV);
    snprintf(s->model, sizeof s->model, "%s", model && *model ? model : "valgrind's default");
    const char *ghz = getenv(CB_SIM_GHZ_ENV);
    s->ghz = ghz ? strtod(ghz, NULL) : 0;
    if (!(s->ghz > 0 && s->ghz < 100))
        s->ghz = 0;
    const char *cold = getenv(CB_SIM_COLD_ENV);
    s->cold_bytes = cold ? (size_t)strtoull(cold, NULL, 10) : 0;
    *be = (struct cb_backend){
        .name = "callgrind", .ctx = s, .read_ticks = 1, .siblings = 1, .hypervisor = 0,
        .read = sim_read, .run = sim_run, .core_per_tick = sim_per_tick, .meter = sim_meter,
        .batch_iters = CB_SIM_BATCH, .primary = "Ir",
    };
    return 0;
#endif
}

void cb_sim_counters(struct cb_sim *s, struct cb_counters *cs)
{
    static const enum cb_cg_event ev[] = {
        CB_CG_IR, CB_CG_DR, CB_CG_DW, CB_CG_I1MR, CB_CG_D1MR, CB_CG_D1MW, CB_CG_ILMR,
        CB_CG_DLMR, CB_CG_DLMW, CB_CG_BC, CB_CG_BCM, CB_CG_BI, CB_CG_BIM,
    };
    memset(cs, 0, sizeof *cs);
    cs->leader = -1;
    cs->tsc_ghz = s->ghz;
    int n = 0;
    for (size_t i = 0; i <= sizeof ev / sizeof ev[0]; i++, n++) {
        struct cb_counter *k = &cs->c[n];
        const char *name = i < sizeof ev / sizeof ev[0] ? cb_cg_event_name(ev[i]) : CB_SIM_CYCLES;
        s->event_of[n] = i < sizeof ev / sizeof ev[0] ? (int)ev[i] : -1;
        snprintf(k->spec.name, sizeof k->spec.name, "%s", name);
        snprintf(k->spec.part, sizeof k->spec.part, "%s", name);
        snprintf(k->spec.pfm, sizeof k->spec.pfm, "callgrind:%s", name);
        snprintf(k->spec.encoding, sizeof k->spec.encoding, "%s",
                 i < sizeof ev / sizeof ev[0] ? "" : "L1 hits + 5 x LL hits + 35 x RAM hits");
        k->spec.source = CB_SRC_SIMULATED;
        k->supported = 1;
        k->method = CB_READ_SIM;
        k->fd = -1;
    }
    cs->n = n;
    snprintf(cs->notice, sizeof cs->notice,
             "counting under callgrind (%s): every figure of this run is a simulated count, not a "
             "timing", s->model);
}
