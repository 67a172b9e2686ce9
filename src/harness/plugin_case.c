/* plugin_case.c — the collector's guards around a case that runs a
 * plugin's code: every size it times is a size verified, it is timed in a
 * child (plugin_timed.c), and what goes wrong there ends its own case as
 * BAD, with the reason, while the run goes on.  After every case the run
 * is on its CPU again, or says it cannot be.  And the case no variant of
 * this CPU can run: skipped, saying what it lacks.  A variant is verified
 * once per collector (cb_collector_verdict). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "harness/arrays.h"
#include "harness/collect.h"
#include "harness/plugin.h"

int cb_collector_case_bad(struct cb_collector *col, struct cb_case_row *row,
                          const struct cb_probe *p, const struct cb_variant *v, const char *why,
                          int64_t *case_id)
{
    /* The variant's verdict is the collector's: BAD from here on, so that
     * its later cases are not timed and the run's summary counts it. */
    struct cb_verdict *vd = (struct cb_verdict *)cb_collector_verdict(col, p, v);
    if (vd && vd->ok) {
        vd->ok = 0;
        snprintf(vd->detail, sizeof vd->detail, "%s", why);
    }
    if (!col->quiet)
        fprintf(stderr, "\ncyclebudget: BAD %s %s: %s (its cases are not timed)\n", p->name,
                v->name, why);
    row->verdict = "bad";
    row->detail = why;
    int rc = cb_store_case_add(col->st, col->run_id, row, NULL, 0, case_id);
    return rc < 0 ? rc : CB_CASE_BAD;
}

int cb_collector_lacking(struct cb_collector *col, const struct cb_variant *v,
                         struct cb_case_row *row, int64_t *case_id)
{
    char need[128], lack[128], detail[300];
    cb_cpu_feature_names(v->needs, need, sizeof need);
    cb_cpu_feature_names(v->needs & ~col->host.features, lack, sizeof lack);
    snprintf(detail, sizeof detail, "needs %s; this CPU lacks %s", need, lack);
    row->verdict = "skipped";
    row->detail = detail;
    col->nlacking++;
    int rc = cb_store_case_add(col->st, col->run_id, row, NULL, 0, case_id);
    return rc < 0 ? rc : CB_CASE_SKIPPED;
}

int cb_collector_size_bad(const struct cb_probe *p, const struct cb_variant *v, uint64_t size,
                          char *why, size_t len)
{
    struct cb_verdict vd;
    cb_plugin_verify_size(p, v, size, &vd);
    if (vd.ok)
        return 0;
    snprintf(why, len, "wrong at %llu B, a size this run times (its verification's lengths "
             "did not include it): %s", (unsigned long long)size, vd.detail);
    return 1;
}

int cb_collector_keep_cpu(struct cb_collector *col)
{
    cpu_set_t set;
    if (col->sim || (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1 &&
                     CPU_ISSET(col->pinned, &set) && sched_getcpu() == col->pinned))
        return 0;
    struct cb_sb err = CB_SB_INIT;
    int cpu, rc = cb_pin_cpu(col->pinned, &cpu, &err);
    if (rc == 0)
        fprintf(stderr, "\ncyclebudget: this process was moved off CPU %d during a case: "
                "pinned to it again\n", col->pinned);
    else
        fprintf(stderr, "\ncyclebudget: this process was moved off CPU %d, the run's, and "
                "cannot return to it (%s): the run ends here\n", col->pinned, err.buf);
    cb_sb_release(&err);
    return rc;
}

/* The run's measure (runstate.h: judged by the host's state, measured
 * again while slowed), as the timing child calls it. */
static int runstate_measure(void *ctx, struct cb_harness *h, struct cb_case *c,
                            struct cb_measurement *m)
{
    return cb_runstate_measure(ctx, h, c, m);
}

int cb_collector_time(struct cb_collector *col, int guarded, struct cb_case *c,
                      struct cb_measurement *m, char *why, size_t len)
{
    /* The child takes the run's state with it and sends it back: its
     * judgement of this case and the run's tally (plain data). */
    struct cb_timed_work w = {runstate_measure, &col->rs, sizeof col->rs};
    int rc = guarded ? cb_plugin_measure_in_child(&col->h, c, m, col->pinned, &w, why, len)
                     : cb_runstate_measure(&col->rs, &col->h, c, m);
    int pin = cb_collector_keep_cpu(col);
    if (pin < 0 || (guarded && rc == -EFAULT)) {
        cb_measurement_free(m);
        return pin < 0 ? -EPERM : 1;
    }
    return rc;
}

const struct cb_verdict *cb_collector_verdict(struct cb_collector *col, const struct cb_probe *p,
                                              const struct cb_variant *v)
{
    for (size_t k = 0; k < col->nvc; k++)
        if (col->vc[k].v == v)
            return &col->vc[k].verdict;
    if (cb_grow((void **)&col->vc, &col->capvc, col->nvc + 1, 32, sizeof *col->vc) < 0)
        return NULL;
    struct cb_verdict_cache *cv = &col->vc[col->nvc++];
    memset(cv, 0, sizeof *cv);
    cv->v = v;
    int rc = p->verify(v, &cv->verdict);
    if (rc == -EINTR) {   /* stopped, not judged: nothing is said or stored */
        col->nvc--;
        return NULL;
    }
    if (rc < 0) {
        cv->verdict.ok = 0;
        snprintf(cv->verdict.detail, sizeof cv->verdict.detail, "verification could not run: %s",
                 strerror(-rc));
    }
    if (!cv->verdict.ok && !col->quiet)
        fprintf(stderr, "\ncyclebudget: BAD %s %s: %s (not timed)\n", p->name, v->name,
                cv->verdict.detail);
    /* A plugin family without a reference check (plugin.c): timed, and
     * said to be unchecked, here and in the case's detail. */
    if (cv->verdict.ok && !cv->verdict.checked && cv->verdict.detail[0] && !col->quiet)
        fprintf(stderr, "\ncyclebudget: UNVERIFIED %s %s: %s\n", p->name, v->name,
                cv->verdict.detail);
    return &cv->verdict;
}
