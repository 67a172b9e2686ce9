/* test_fakeclock.c — the harness on the fake clock: samples, stopping
 * rules, multiplex scaling and the contention meter checked against the
 * model they were made from, on any host, loaded or not. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters.h"
#include "counters/events.h"
#include "harness/fakeclock.h"
#include "harness/harness.h"
#include "counters/meter.h"
#include "probes/synthetic.h"
#include "tap.h"

int main(void)
{
    /* The fake clock: bad specs are refused with the key named. */
    struct cb_fake f;
    struct cb_backend be;
    struct cb_sb err = CB_SB_INIT;
    is_int(cb_fake_init(&f, "seed=7,noise=0,mux=0.5", &be, &err), 0, "a fake clock spec");
    ok(!strcmp(be.name, "fake") && be.read_ticks == CB_FAKE_READ_TICKS, "the fake backend");
    is_int(cb_fake_init(&f, "mux=0", &be, &err), -EINVAL, "mux=0 is refused");
    ok(strstr(err.buf, "mux=0") != NULL, "naming what was wrong: %s", err.buf);
    is_int(cb_fake_init(&f, "speed=2", &be, &err), -EINVAL, "an unknown key is refused");
    is_int(cb_fake_init(&f, "noise=0.9", &be, &err), -EINVAL, "noise over 0.5 is refused");

    /* Through the harness: a 1000-add synthetic chain with no noise costs
     * exactly 1000 cycles per call, in every sample; task-clock, on a
     * counter half the time, is stored scaled and raw consistently. */
    unsetenv(CB_SYNTH_ENV);
    cb_fake_init(&f, "seed=7,noise=0,mux=0.5", &be, &err);
    cb_events_init();
    struct cb_event_spec spec[2];
    size_t nspec = 0;
    cb_events_resolve("task-clock", spec, 2, &nspec);
    struct cb_counters cs;
    is_int(cb_counters_open(&cs, spec, (int)nspec, CB_FAKE_TSC_GHZ, CB_FAKE_TSC_GHZ * CB_FAKE_CORE_PER_TICK), 0,
           "counters open (task-clock, tsc, cycles-est)");
    struct cb_harness_opts o;
    cb_harness_defaults(&o);
    o.reps = 20;
    o.backend = &be;
    struct cb_harness h;
    is_int(cb_harness_init(&h, &cs, &o), 0, "harness on the fake clock");
    const struct cb_probe *p = cb_probe_find("synthetic");
    struct cb_case c = {.probe = p, .variant = &p->variants[0], .size = 1000, .mode = CB_MODE_WARM};
    struct cb_measurement mm;
    is_int(cb_harness_measure(&h, &c, &mm), 0, "a case measured");
    is_int(mm.n, 20, "20 samples");
    int est = cb_counters_find(&cs, "cycles-est"), tc = cb_counters_find(&cs, "task-clock");
    int all_exact = 1, all_mux = 1;
    for (size_t k = 0; k < mm.n; k++) {
        double per = cb_measurement_per_op(&mm, k, est);
        all_exact &= fabs(per - 1000.0) < 0.05; /* the clock ticks in whole ticks */
        if (tc >= 0 && cs.c[tc].supported) {
            const struct cb_delta *d = &mm.d[k];
            all_mux &= d->scaled[tc] == 1 &&
                       fabs(d->raw[tc] * (double)d->enabled[tc] / (double)d->running[tc] - d->value[tc]) < 1e-6 &&
                       fabs(d->raw[tc] / d->value[tc] - 0.5) < 0.01 && d->method[tc] == CB_READ_FAKE;
        }
    }
    ok(all_exact, "every sample: 1000 cycles per call (%.6f in the first)", cb_measurement_per_op(&mm, 0, est));
    if (tc >= 0 && cs.c[tc].supported)
        ok(all_mux, "task-clock: scaled, raw x enabled / running = value, raw = half of it, read by the fake");
    else
        ok(1, "# SKIP task-clock does not open here");
    ok(isnan(mm.contended_share) || mm.contended_share == 0, "no sample flagged on a quiet fake core");
    cb_measurement_free(&mm);

    /* Half the samples on a busy core, 1.5x slow: the meter flags them. */
    cb_fake_init(&f, "seed=9,noise=0,contended=0.5,slow=1.5", &be, &err);
    is_int(cb_harness_init(&h, &cs, &o), 0, "harness on a fake clock with a busy sibling");
    is_int(cb_harness_measure(&h, &c, &mm), 0, "a case measured");
    size_t slow = 0, flagged_slow = 0;
    for (size_t k = 0; k < mm.n; k++) {
        int is_slow = cb_measurement_per_op(&mm, k, est) > 1200;
        slow += is_slow;
        flagged_slow += is_slow && mm.smt[k] > CB_METER_SHIFT;
    }
    ok(slow > 3 && slow < 17, "some samples (%zu of 20) were slow", slow);
    is_int(flagged_slow, slow, "every slow sample is flagged");
    ok(mm.contended_share > 0.1, "contended share %.2f", mm.contended_share);
    cb_measurement_free(&mm);

    /* The adaptive stopping rule.  No noise: the median's interval is zero
     * wide at the first check, so it stops on the CI with the minimum
     * number of samples.  20% noise: the interval never narrows to 1%, so
     * it runs to the time cap, which is counted on the fake clock too. */
    struct cb_harness_opts ad;
    cb_harness_defaults(&ad);
    ad.backend = &be;
    ad.min_samples = 10;
    ad.case_seconds = 0.01;
    cb_fake_init(&f, "seed=3,noise=0", &be, &err);
    is_int(cb_harness_init(&h, &cs, &ad), 0, "adaptive, no noise");
    is_int(cb_harness_measure(&h, &c, &mm), 0, "measured");
    is_int(mm.why, CB_STOP_CI, "stopped on the CI");
    is_int(mm.n, 10, "with the minimum of 10 samples");
    cb_measurement_free(&mm);
    cb_fake_init(&f, "seed=3,noise=0.2", &be, &err);
    is_int(cb_harness_init(&h, &cs, &ad), 0, "adaptive, 20%% noise");
    is_int(cb_harness_measure(&h, &c, &mm), 0, "measured");
    is_int(mm.why, CB_STOP_TIME, "stopped at the time cap (%.2f%% CI)", mm.ci_pct);
    ok(mm.ci_pct > 1.0, "its CI still wider than the 1%% target");
    /* The cap is 0.01 s of batches at the fake 2 GHz, each batch as long
     * as the sizing chose (its iterations x 1000 cycles a call). */
    double batch_ticks = (double)mm.iters[0] * 1000.0 / CB_FAKE_CORE_PER_TICK;
    double want = ad.case_seconds * CB_FAKE_TSC_GHZ * 1e9 / batch_ticks;
    ok(fabs((double)mm.n - want) <= want * 0.25 + 1,
       "about case_seconds of fake batches: %zu samples, model says %.0f", mm.n, want);
    size_t n1 = mm.n;
    cb_measurement_free(&mm);
    cb_fake_init(&f, "seed=3,noise=0.2", &be, &err);
    cb_harness_init(&h, &cs, &ad);
    cb_harness_measure(&h, &c, &mm);
    is_int(mm.n, n1, "the same seed gives the same number of samples");
    cb_measurement_free(&mm);
    cb_counters_close(&cs);


    cb_sb_release(&err);
    return tap_done();
}
