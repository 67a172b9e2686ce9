/* rerun.c — compare --rerun and the measuring bisect-check shares with it
 * (rerun.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include "store/db.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/probe.h"
#include "store/lookup.h"
#include "store/side_rows.h"
#include "cli/rerun.h"
#include "cli/shell.h"

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* Measure one case of a side's key in col; its per-op metric values are
 * appended to side.  Returns 0, 1 when the case cannot be measured here, or
 * a negative errno (-EINTR on a signal). */
int cmp_measure_into(struct cb_collector *col, const struct cb_side_case *k, const char *metric,
                     struct cb_side *side)
{
    const struct cb_probe *p = cb_probe_find(k->probe);
    const struct cb_variant *v = p ? cb_variant_find(p, k->variant) : NULL;
    int mode = cb_mode_parse(k->mode);
    if (!v || mode < 0)
        return 1;
    struct cb_measurement m;
    int rc = cb_collector_case(col, p, v, k->size, (enum cb_mode)mode, cb_stop_flag(), NULL, &m);
    if (rc < 0)
        return rc;
    if (rc != CB_CASE_MEASURED)
        return 1;
    int idx = cb_counters_find(&col->cs, metric);
    rc = 1;
    if (idx >= 0 && m.n) {
        double *vals = malloc(m.n * sizeof *vals), *smt = malloc(m.n * sizeof *smt);
        size_t n = 0;
        for (size_t s = 0; vals && smt && s < m.n; s++) {
            double x = cb_measurement_per_op(&m, s, idx);
            if (isfinite(x)) {
                smt[n] = m.smt[s];
                vals[n++] = x;
            }
        }
        rc = vals && smt ? cb_side_append(side, k->probe, k->variant, k->size, k->mode, k->unit, vals,
                                          smt, n)
                         : -ENOMEM;
        int clock_run = m.clock.flagged && !m.clock.used_case,
            slowed = col->rs.last.kind == CB_STATE_SLOWED_KIND;
        if (rc == 0)
            cb_side_case_run(cb_side_find(side, k->key), col->run_id, clock_run || slowed,
                             cb_state_bound(slowed, col->rs.last.ratio, clock_run, m.clock.ghz,
                                            m.clock.run_ghz, m.clock.spread_pct));
        free(vals);
        free(smt);
    }
    cb_measurement_free(&m);
    return rc;
}

/* --rerun: measure the undecided cases again with this binary, both sides
 * in turn (ABBA order, so a drift in the machine hits both alike), each into
 * a new stored run, until every case is decided or the time cap. */
int cmp_rerun(struct cb_store *st, struct cb_side *A, struct cb_side *B, const struct cmp_common *c,
              double cap_s, const char *cmdline, struct cmp_verdict *v, struct cb_sb *err)
{
    struct cb_harness_opts h;
    cb_harness_defaults(&h);
    const struct cmp_rerun_plan plan = {{"rerun-base", "rerun-head"}, 3, cmdline, &h};
    return cmp_rerun_sides(st, A, B, c, cap_s, &plan, v, err);
}

int cmp_rerun_sides(struct cb_store *st, struct cb_side *A, struct cb_side *B,
                    const struct cmp_common *c, double cap_s, const struct cmp_rerun_plan *plan,
                    struct cmp_verdict *v, struct cb_sb *err)
{
    const char *metric = v->x.metric;
    struct cmp_result *res = &v->res;
    struct cb_collector cols[2];
    int usage = 0;
    for (int s = 0; s < 2; s++) {
        struct cb_collect_opts co = {
            .db = c->db, .events = NULL, .tag = plan->tags[s], .repo = c->repo,
            .cmdline = plan->cmdline, .cpu = cb_store_run_cpu(st, A->runs[0]), .quiet = 1,
            .harness = *plan->h,
        };
        int rc = plan->mask & (1 << s) ? cb_collector_open(&cols[s], &co, err, &usage) : 0;
        if (rc < 0) {
            if (s && (plan->mask & 1))
                cb_collector_finish(&cols[0], "aborted");
            return rc;
        }
    }
    cb_catch_stop_signals(0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct cb_side *sides[2] = {A, B};
    int rc = 0, round = 0;
    for (;;) {
        char keys[256][CB_CASE_KEY_MAX];
        size_t nk = 0;
        for (size_t i = 0; i < res->n && nk < 256; i++)
            if (res->rows[i].v == CB_CMP_UNSURE)
                snprintf(keys[nk++], CB_CASE_KEY_MAX, "%s", res->rows[i].a->key);
        double el = seconds_since(&t0);
        if (nk == 0 || el >= cap_s || *cb_stop_flag())
            break;
        fprintf(stderr, "cyclebudget: rerun round %d: %zu undecided case%s (%.0f s of %.0f s)\n",
                round + 1, nk, nk > 1 ? "s" : "", el, cap_s);
        for (size_t i = 0; i < nk && rc >= 0; i++) {
            for (int k = 0; k < 2 && rc >= 0; k++) {
                int s = (int)((round + i + (size_t)k) % 2);
                if (!(plan->mask & (1 << s)))
                    continue;
                struct cb_side_case key = *cb_side_find(sides[s], keys[i]);
                rc = cmp_measure_into(&cols[s], &key, metric, sides[s]);
            }
        }
        if (rc < 0)
            break;
        round++;
        if ((rc = cb_verdict_again(st, A, B, &c->o, v)) < 0)
            break;
    }
    const char *status = rc < 0 ? "aborted" : "complete";
    for (int s = 0; s < 2; s++) {
        if (!(plan->mask & (1 << s)))
            continue;
        if (rc >= 0 && round > 0)
            cb_side_add_run(sides[s], cols[s].run_id);   /* so the output names them */
        cb_collector_finish(&cols[s], status);
    }
    if (rc >= 0 && round > 0) {
        cmp_describe_side(st, A, v->x.base_desc, sizeof v->x.base_desc);
        cmp_describe_side(st, B, v->x.head_desc, sizeof v->x.head_desc);
    }
    if (rc == -EINTR || *cb_stop_flag()) {
        cb_sb_setf(err, "interrupted: the rerun runs were marked aborted");
        return -EINTR;
    }
    if (rc < 0)
        cb_sb_setf(err, "rerun failed: %s", strerror(-rc));
    return rc;
}

/* Append run's values of every case to side, as one more run. */
static int take_run(struct cb_store *st, int64_t run, const char *metric, struct cb_side *side)
{
    struct cb_side one;
    memset(&one, 0, sizeof one);
    int rc = cb_side_add_run(&one, run);
    if (rc == 0)
        rc = cb_side_load(st, &one, metric);
    for (size_t i = 0; rc >= 0 && i < one.ncases; i++) {
        const struct cb_side_case *k = &one.cases[i];
        if (!k->n)
            continue;
        rc = cb_side_append(side, k->probe, k->variant, k->size, k->mode, k->unit, k->v, k->smt,
                            k->n);
        struct cb_side_case *c = rc < 0 ? NULL : cb_side_find(side, k->key);
        if (c) {
            cb_side_case_code(c, k->code_hash, k->code_addr);
            cb_side_case_run(c, run, k->flagged[0], k->bound[0]);
        }
    }
    if (rc >= 0)
        rc = cb_side_add_run(side, run);
    cb_side_free(&one);
    return rc;
}

/* The undecided cases, comma-separated, into out: their count. */
static size_t undecided(const struct cmp_result *res, struct cb_sb *out)
{
    size_t nk = 0;
    for (size_t i = 0; i < res->n; i++)
        if (res->rows[i].v == CB_CMP_UNSURE)
            cb_sb_addf(out, "%s%s", nk++ ? "," : "", res->rows[i].a->key);
    return nk;
}

/* Side s's command, recording one run of the cases in list into the store,
 * and that run taken into side: 0, -EINTR, -ECHILD with err saying which
 * side's command failed and how, or another negative errno. */
static int exec_side(struct cb_store *st, const char *exec, int s, const char *list,
                     const struct cmp_common *c, int cpu, const char *metric, struct cb_side *side,
                     struct cb_sb *err)
{
    static const char *const tags[2] = {"rerun-base", "rerun-head"};
    char cpubuf[16];
    snprintf(cpubuf, sizeof cpubuf, "%d", cpu);
    const char *args[] = {"--cases", list, "--tag", tags[s], "--db", c->db, "-q", "--cpu", cpubuf};
    char *cmd = cb_shell_join(exec, args, cpu >= 0 ? 9 : 7);
    if (!cmd)
        return -ENOMEM;
    int64_t before = cb_store_newest_tagged(st, tags[s], 0);
    int status = cb_shell_run(cmd);
    free(cmd);
    int64_t run = status == 0 ? cb_store_newest_tagged(st, tags[s], before) : 0;
    if (status == 0 && run != 0)
        return take_run(st, run, metric, side);
    if (*cb_stop_flag() || status == 130)
        return -EINTR;
    const char *name = s ? "head" : "base";
    char what[64];
    if (status < 0)
        snprintf(what, sizeof what, "could not start (%s)", strerror(-status));
    else if (status)
        snprintf(what, sizeof what, "exited with status %d", status);
    else
        snprintf(what, sizeof what, "stored no complete run tagged %s", tags[s]);
    cb_sb_setf(err, "rerun: the %s command %s: %.400s; it must record a run (compare appends "
             "--cases, --tag, --db, -q), e.g. --%s-exec 'path/to/cyclebudget run'", name, what, exec,
             name);
    return -ECHILD;
}

/* --rerun with --base-exec/--head-exec: each round records one new run per
 * side of the undecided cases, by running the user's command for that side
 * (BASE's binary, HEAD's binary) as a process of its own.  A process, not
 * this one: on a VM a process draws its own host state (docs/measuring.md, "Rounds"),
 * and only more processes average over those states; and only the user's
 * binaries hold the two sides' code.  ABBA order, as above. */
int cmp_rerun_exec(struct cb_store *st, struct cb_side *A, struct cb_side *B,
                   const struct cmp_common *c, double cap_s, const char *const exec[2],
                   struct cmp_verdict *v, struct cb_sb *err)
{
    const char *metric = v->x.metric;
    struct cmp_result *res = &v->res;
    struct cb_sb *crosses = &v->crosses;
    struct cb_side *sides[2] = {A, B};
    int cpu = cb_store_run_cpu(st, A->runs[0]);
    cb_catch_stop_signals(0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    for (int round = 0;; round++) {
        struct cb_sb list = CB_SB_INIT;
        size_t nk = undecided(res, &list);
        double el = seconds_since(&t0);
        if (nk == 0 || el >= cap_s || *cb_stop_flag() || cb_sb_error(&list) < 0) {
            rc = cb_sb_error(&list);
            cb_sb_release(&list);
            break;
        }
        fprintf(stderr, "cyclebudget: rerun round %d: %zu undecided case%s (%.0f s of %.0f s)\n",
                round + 1, nk, nk > 1 ? "s" : "", el, cap_s);
        for (int k = 0; k < 2 && rc >= 0 && !*cb_stop_flag(); k++) {
            int s = (round + k) % 2;
            rc = exec_side(st, exec[s], s, list.buf, c, cpu, metric, sides[s], err);
        }
        cb_sb_release(&list);
        if (rc < 0 || *cb_stop_flag())
            break;
        /* A side's command that measures in another environment (another
         * build's flags, CPU) is refused after its first run, not after the
         * whole time cap.  The last check's crosses is what compare prints. */
        rc = cmp_check_env(st, A, B, c->force, crosses, err);
        v->x.crosses = crosses->len ? crosses->buf : NULL;
        if (rc < 0) {
            if (rc != -EXDEV)
                cb_sb_setf(err, "rerun: cannot read the new runs' environment: %s", strerror(-rc));
            return rc;
        }
        if ((rc = cb_verdict_again(st, A, B, &c->o, v)) < 0)
            break;
    }
    if (rc == -EINTR || *cb_stop_flag()) {
        cb_sb_setf(err, "interrupted: the runs recorded so far stay in %s", c->db);
        return -EINTR;
    }
    if (rc < 0 && rc != -ECHILD)
        cb_sb_setf(err, "rerun failed: %s", strerror(-rc));
    return rc;
}

