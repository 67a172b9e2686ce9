/* runstate.c — the host's state through a run (see runstate.h). */
#define _GNU_SOURCE
#include "harness/runstate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void read_refs(const struct cb_runstate *rs, struct cb_refs *out)
{
    if (rs->be && rs->be->refs)
        rs->be->refs(rs->be->ctx, out);
    else
        cb_refs_measure(out);
}

/* A reading now, judged against the host's quiet figures. */
static void judge_now(const struct cb_runstate *rs, struct cb_state *s)
{
    struct cb_refs now;
    read_refs(rs, &now);
    cb_state_judge(&now, &rs->quiet_refs, s);
}

int cb_runstate_begin(struct cb_runstate *rs, struct cb_store *st, int64_t run_id,
                      const struct cb_backend *be, int tries, int quiet)
{
    memset(rs, 0, sizeof *rs);
    rs->st = st;
    rs->run_id = run_id;
    rs->be = be;
    rs->quiet = quiet;
    rs->tries = tries;
    rs->start = rs->run.s = (struct cb_state){.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    rs->run.slowed_s = NAN;
    rs->run.n = rs->run.slowed_cases = -1;
    cb_refs_clear(&rs->run.start);
    if (tries <= 0)
        return 0;
    read_refs(rs, &rs->run.start);
    if (!cb_refs_any(&rs->run.start))
        return 0;
    int rc = cb_store_run_refs_set(st, run_id, &rs->run.start);
    if (rc == 0)
        rc = cb_store_host_quiet(st, run_id, &rs->quiet_refs, &rs->run.n);
    if (rc < 0)
        return rc == -ENOENT ? 0 : rc;   /* a store before the columns: not judged */
    rs->on = 1;
    cb_state_judge(&rs->run.start, &rs->quiet_refs, &rs->start);
    rs->run.s = rs->start;
    rs->run.slowed_cases = 0;
    rs->run.slowed_s = 0;
    /* Stored now, so that a run cut short still says how it started. */
    return cb_store_run_state_set(st, run_id, &rs->run);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void pause_ms(double ms)
{
    struct timespec ts = {.tv_sec = (time_t)(ms / 1e3), .tv_nsec = (long)(fmod(ms, 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* What a state was judged against.  With one reading the "quiet figures"
 * are this run's own start: a state then says slower than the run began,
 * not slower than the host usually is. */
static void against_text(const struct cb_runstate *rs, char *buf, size_t len)
{
    if (rs->run.n <= 1)
        snprintf(buf, len, "against this run's own start reading: no earlier reading of this "
                 "host and CPU is stored");
    else
        snprintf(buf, len, "against this host's quiet figures from %d readings", rs->run.n);
}

static void say_again(const struct cb_runstate *rs, const struct cb_case *c,
                      const struct cb_state *s, int next)
{
    char what[64], against[128];
    if (rs->quiet)
        return;
    cb_state_text(s, what, sizeof what);
    against_text(rs, against, sizeof against);
    fprintf(stderr, "\ncyclebudget: %s/%s/%llu/%s measured with the host %s (%s): measuring it "
                    "again, try %d of %d\n",
            c->probe->name, c->variant->name, (unsigned long long)c->size, cb_mode_name(c->mode),
            what, against, next, rs->tries);
}

int cb_runstate_clock_again(double clock_s, double measured_s)
{
    double allowed = CB_CLOCK_AGAIN_SHARE * measured_s;
    return clock_s < (allowed > CB_CLOCK_AGAIN_MIN_S ? allowed : CB_CLOCK_AGAIN_MIN_S);
}

/* The try's cycles were converted at the run's clock, not the case's. */
static int clock_state(const struct cb_measurement *m)
{
    return m->clock.flagged && !m->clock.used_case;
}

/* Whether try k, whose references read quiet, is tried again for its
 * clock (runstate.h), and if so its time and its case go into the run's
 * tally.  The fake clock's tries are never limited by time, so that its
 * tests read the same on any machine.  Unlike a slowed try, each is not
 * announced: a run of the quick suite takes about 80, and its last line
 * counts them. */
static int clock_try_again(struct cb_runstate *rs, const struct cb_measurement *m, int k,
                           double took, int *clocked)
{
    if (!clock_state(m) || k >= rs->tries)
        return 0;
    if (rs->be == &cb_backend_real && !cb_runstate_clock_again(rs->clock_s, rs->measured_s))
        return 0;
    rs->clock_s += took;
    if (!*clocked) {
        *clocked = 1;
        rs->clock_cases++;
    }
    return 1;
}

int cb_runstate_measure(struct cb_runstate *rs, struct cb_harness *h, struct cb_case *c,
                        struct cb_measurement *m)
{
    struct cb_state *state = &rs->last;
    int *tries = &rs->last_tries;
    *state = (struct cb_state){.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    *tries = 1;
    rs->last_slowed = 0;
    if (!rs->on)
        return cb_harness_measure(h, c, m);
    int clocked = 0, rc;
    for (int k = 1;; k++) {
        struct cb_state before, after;
        judge_now(rs, &before);
        double t0 = now_s();
        rc = cb_harness_measure(h, c, m);
        double took = now_s() - t0;
        rs->measured_s += took;
        judge_now(rs, &after);
        *state = before;
        cb_state_worse(state, &after);
        *tries = k;
        int stop = h->stop && *h->stop;
        if (rc < 0)
            break;
        if (state->kind != CB_STATE_SLOWED_KIND) {
            if (stop || !clock_try_again(rs, m, k, took, &clocked))
                break;
            cb_measurement_free(m);
            continue;
        }
        rs->run.slowed_s += took;
        if (!rs->last_slowed) {
            rs->last_slowed = 1;
            rs->run.slowed_cases++;
        }
        if (k >= rs->tries || stop)
            break;
        say_again(rs, c, state, k + 1);
        cb_measurement_free(m);
        if (rs->be == &cb_backend_real)
            pause_ms(CB_STATE_PAUSE_MS * k);
    }
    if (clocked && rc >= 0 && !clock_state(m))
        rs->clock_agreed++;
    return rc;
}

int cb_runstate_case_done(struct cb_runstate *rs, int64_t case_id)
{
    const struct cb_state *state = &rs->last;
    int tries = rs->last_tries;
    if (!rs->on)
        return 0;
    if (rs->measured++ == 0)
        rs->run.s = *state;
    else
        cb_state_worse(&rs->run.s, state);
    if (state->kind == CB_STATE_SLOWED_KIND)
        rs->kept_slowed++;
    else if (rs->last_slowed)
        rs->remeasured_quiet++;
    return cb_store_case_state_set(rs->st, case_id, state, tries);
}

int cb_runstate_finish(struct cb_runstate *rs)
{
    if (!rs->on)
        return 0;
    int rc = cb_store_run_state_set(rs->st, rs->run_id, &rs->run);
    if (rs->quiet)
        return rc;
    char start[64], run[64], against[128];
    cb_state_text(&rs->start, start, sizeof start);
    cb_state_text(&rs->run.s, run, sizeof run);
    against_text(rs, against, sizeof against);
    if (!rs->run.slowed_cases)
        fprintf(stderr, "cyclebudget: host state: %s (start %s; %s)\n", run, start, against);
    else
        fprintf(stderr, "cyclebudget: host state: %s: %d of %d cases measured slowed (%.2f s), %d "
                        "of them quiet on a later try, %d kept slowed (start %s; %s)\n", run,
                rs->run.slowed_cases, rs->measured, rs->run.slowed_s, rs->remeasured_quiet,
                rs->kept_slowed, start, against);
    if (rs->clock_cases)
        fprintf(stderr, "cyclebudget: case clocks: %d of %d cases measured again for a clock off "
                        "the run's (%.2f s), %d of them kept with a clock that agreed\n",
                rs->clock_cases, rs->measured, rs->clock_s, rs->clock_agreed);
    return rc;
}
