/* test_caseclock.c — the rule that chooses the clock a case's estimated
 * cycles are converted at (caseclock.h), on brackets worked out by hand,
 * one bracket read through the fake clock's backend, and the allowance
 * for measuring a case again for its clock (runstate.h). */
#include <math.h>
#include <string.h>

#include "harness/caseclock.h"
#include "harness/fakeclock.h"
#include "harness/runstate.h"
#include "tap.h"

static struct cb_clock_side side(double ghz, double noise)
{
    return (struct cb_clock_side){.ghz = ghz, .noise_pct = noise};
}

int main(void)
{
    struct cb_case_clock k;
    struct cb_clock_side b, a;

    /* Agree: 3.01 and 3.03 around a run at 3.00; noise = max(0.2, 0.3,
     * |3.01 - 3.03| / 3.02 = 0.66%) = 0.66%, the case is 0.67% off... */
    b = side(3.01, 0.2), a = side(3.03, 0.3);
    is_int(cb_case_clock_choose(3.0, &b, &a, &k), 0, "a clock is chosen");
    is_near(k.ghz, 3.02, 1e-12, "the case's clock is the brackets' mean");
    is_near(k.spread_pct, 0.02 / 3.02 * 100, 1e-9, "its noise is the brackets' disagreement here");
    ok(!k.used_case && k.flagged, "0.67%% off with 0.66%% of noise: the run's clock, flagged");
    is_near(k.used_ghz, 3.0, 0, "and the cycles are at the run's 3.00 GHz");

    /* ... while one bracket's own range of 1% makes 0.67% agreement. */
    b = side(3.01, 1.0);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(k.used_case && !k.flagged, "within a bracket's 1%% range: the case's clock, not flagged");
    is_near(k.used_ghz, 3.02, 1e-12, "the cycles are at the case's 3.02 GHz");
    is_near(k.spread_pct, 1.0, 0, "its spread is that range");

    /* The noise floor: two identical brackets still have 0.5%. */
    b = side(3.012, 0), a = side(3.012, 0);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(k.used_case && !k.flagged, "0.4%% off, brackets identical: within the 0.5%% floor");
    is_near(k.spread_pct, CB_CLOCK_NOISE_FLOOR, 0, "the spread is the floor");

    /* Disagree, one side only: the run's clock, flagged. */
    b = side(3.0, 0.2), a = side(2.5, 0.2);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(!k.used_case && k.flagged, "one bracket at 2.5 GHz: not confirmed, the run's clock, flagged");
    is_near(k.used_ghz, 3.0, 0, "at 3.00 GHz");
    is_near(k.ghz, 2.75, 1e-12, "the case's own clock is kept to be shown");

    /* A change confirmed on both sides: the case's clock, flagged. */
    b = side(2.70, 0.3), a = side(2.72, 0.3);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(k.used_case && k.flagged, "both brackets 10%% low and agreeing: the case's clock, flagged");
    is_near(k.used_ghz, 2.71, 1e-12, "at 2.71 GHz");

    /* Both low but far apart from each other: not a confirmation. */
    b = side(2.5, 0.3), a = side(2.9, 0.3);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(!k.used_case && k.flagged, "both low but 15%% apart: the run's clock, flagged");

    /* Within the noise but over CB_CLOCK_AGREE_MAX: never "agrees". */
    b = side(3.15, 8.0), a = side(3.15, 8.0);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(k.flagged, "5%% off with 8%% of noise is not agreement (%s)", k.used_case ? "case" : "run");
    ok(!k.used_case, "and a noisy side is no confirmation: the run's clock");

    /* One bracket only (a run stopped mid-case): judged on it. */
    b = side(3.0, 0.1), a = side(0, NAN);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(k.used_case && !k.flagged, "one bracket that agrees: the case's clock");
    b = side(0, NAN);
    cb_case_clock_choose(3.0, &b, &a, &k);
    ok(!k.used_case && k.flagged && k.ghz == 0, "no bracket: the run's clock, flagged, no own clock");
    is_int(cb_case_clock_choose(0, &b, &a, &k), -22, "no run clock is -EINVAL");

    /* Through the fake clock's backend: its model ratio x before/after. */
    struct cb_fake f;
    struct cb_backend be;
    struct cb_sb err = CB_SB_INIT;
    is_int(cb_fake_init(&f, "before=1.1", &be, &err), 0, "fake clock with before=1.1");
    struct cb_clock_side s0, s1;
    cb_case_clock_side(&be, 0, 0, CB_FAKE_TSC_GHZ, &s0);
    cb_case_clock_side(&be, 0, 1, CB_FAKE_TSC_GHZ, &s1);
    is_near(s0.ghz, CB_FAKE_TSC_GHZ * CB_FAKE_CORE_PER_TICK * 1.1, 1e-9, "the bracket before reads 1.1x");
    is_near(s1.ghz, CB_FAKE_TSC_GHZ * CB_FAKE_CORE_PER_TICK, 1e-9, "the one after the model's clock");
    is_near(s0.noise_pct, 0, 0, "identical estimates have no range");
    /* The call comes first: the order in which ok()'s arguments are read
     * is unspecified, and the message prints err.buf. */
    int refused = cb_fake_init(&f, "after=3", &be, &err) < 0;
    ok(refused && strstr(err.buf, "after=X"), "after=3 is refused, naming the key's range (%s)",
       err.buf);
    /* clockfor=3: before=/after= until the third reference reading. */
    is_int(cb_fake_init(&f, "after=1.2,clockfor=3", &be, &err), 0, "fake clock with clockfor=3");
    for (int i = 0; i < 3; i++) {
        cb_case_clock_side(&be, 0, 1, CB_FAKE_TSC_GHZ, &s1);
        is_near(s1.ghz / (CB_FAKE_TSC_GHZ * CB_FAKE_CORE_PER_TICK), i < 2 ? 1.2 : 1.0, 1e-9,
                "with %ld readings taken the bracket after reads %sx", f.refs_taken,
                i < 2 ? "1.2" : "1.0");
        struct cb_refs r;
        be.refs(be.ctx, &r);
        if (i == 0)
            be.refs(be.ctx, &r);
    }

    /* The tries for clocks: 20% of the run's measuring, at least 1 s. */
    ok(cb_runstate_clock_again(0, 0.05), "a run's first case gets its try (0 of the 1 s floor)");
    ok(cb_runstate_clock_again(0.99, 2.0), "0.99 s of a 1 s floor: one more");
    ok(!cb_runstate_clock_again(1.0, 2.0), "the floor spent: none");
    ok(cb_runstate_clock_again(9.9, 50.0), "9.9 s of 20%% of 50 s: one more");
    ok(!cb_runstate_clock_again(10.0, 50.0), "10 s of 20%% of 50 s: none");
    cb_sb_release(&err);
    return tap_done();
}
