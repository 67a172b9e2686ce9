/* test_refset.c — the reference set's names and the state judged from a
 * reading against the host's quiet figures, from figures made here; one
 * real reading checks that the memory reference is taken and reads slower
 * a load than the chain an operation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters/refset.h"
#include "tap.h"

/* The quiet figures of fakeclock.c's model: chain, vec, load, copy, mem. */
static void quiet_model(struct cb_refs *r)
{
    const double v[CB_NREFS] = {1.0, 0.5, 64.0, 40.0, 400.0};
    for (int i = 0; i < CB_NREFS; i++)
        r->v[i] = v[i];
}

int main(void)
{
    is_int(CB_NREFS, 5, "five references");
    is_str(cb_ref_name(CB_REF_MEM), "mem", "the memory reference is named mem");
    is_int(cb_ref_parse("mem"), CB_REF_MEM, "... and parsed back");
    is_int(cb_ref_parse("copy"), CB_REF_COPY, "copy still parses");
    is_int(cb_ref_parse("dram"), -1, "an unknown name: -1");
    is_str(cb_ref_name(CB_NREFS), "", "no name past the last");

    struct cb_refs quiet, now;
    struct cb_state s;
    quiet_model(&quiet);

    /* Memory contention alone: every L1 reference quiet, the memory loads 1.6x. */
    quiet_model(&now);
    now.v[CB_REF_MEM] = 640.0;
    cb_state_judge(&now, &quiet, &s);
    is_int(s.kind, CB_STATE_SLOWED_KIND, "the memory reference alone at 1.6x: slowed");
    is_int(s.ref, CB_REF_MEM, "... on mem");
    ok(fabs(s.ratio - 1.6) < 1e-12, "... by 1.60x (got %.4f)", s.ratio);
    char buf[64];
    cb_state_text(&s, buf, sizeof buf);
    is_str(buf, "slowed 1.60x (mem)", "its text names mem");
    is_str(cb_state_name(&s), "slowed", "the store's name");

    /* Just under the threshold on mem: quiet, the ratio kept. */
    now.v[CB_REF_MEM] = 400.0 * (CB_STATE_SLOWED - 0.01);
    cb_state_judge(&now, &quiet, &s);
    is_int(s.kind, CB_STATE_QUIET, "mem at 1.24x: quiet");
    is_int(s.ref, CB_REF_MEM, "... its largest ratio on mem");

    /* A busy sibling: vec 1.7x, mem 1.12x: vec is the reference named. */
    quiet_model(&now);
    now.v[CB_REF_VEC] = 0.85;
    now.v[CB_REF_MEM] = 448.0;
    cb_state_judge(&now, &quiet, &s);
    ok(s.kind == CB_STATE_SLOWED_KIND && s.ref == CB_REF_VEC, "vec 1.7x over mem 1.12x: slowed on vec");

    /* A quiet figure without mem (a store before the memory reference):
     * the others judge, mem is left out. */
    quiet_model(&now);
    now.v[CB_REF_MEM] = 4000.0;
    quiet.v[CB_REF_MEM] = NAN;
    cb_state_judge(&now, &quiet, &s);
    ok(s.kind == CB_STATE_QUIET && s.ref != CB_REF_MEM, "no quiet figure for mem: it does not judge");

    /* A reading without mem (a backend that takes none) against a full quiet figure. */
    quiet_model(&quiet);
    now.v[CB_REF_MEM] = NAN;
    cb_state_judge(&now, &quiet, &s);
    is_int(s.kind, CB_STATE_QUIET, "a reading without mem: judged on the others");

    /* The worse of two: a case quiet before and slowed on mem after. */
    struct cb_state acc = {.kind = CB_STATE_QUIET, .ratio = 1.05, .ref = CB_REF_VEC};
    struct cb_state after = {.kind = CB_STATE_SLOWED_KIND, .ratio = 1.6, .ref = CB_REF_MEM};
    cb_state_worse(&acc, &after);
    ok(acc.kind == CB_STATE_SLOWED_KIND && acc.ref == CB_REF_MEM, "the worse of quiet and slowed on mem");

    /* One real reading: every reference taken, a memory load slower than
     * a multiply-add of the chain. */
    struct cb_refs r;
    cb_refs_measure(&r);
    int all = 1;
    for (int i = 0; i < CB_NREFS; i++)
        all &= r.v[i] > 0;
    ok(all, "a reading takes all %d references", CB_NREFS);
    ok(r.v[CB_REF_MEM] > 4 * r.v[CB_REF_CHAIN], "a memory load (%.1f ticks) is slower than 4 chain steps (%.2f)",
       r.v[CB_REF_MEM], r.v[CB_REF_CHAIN]);
    return tap_done();
}
