/* session.c — the options, families, signals and ending that run and race
 * share (see session.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/parse.h"
#include "harness/probe.h"
#include "cli/session.h"
#include "harness/workset.h"

void cb_session_init(struct cb_session *s, const char *events, int (*work)(void *, struct cb_collector *),
                     int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    s->work = work;
    s->co.db = cb_default_db();
    s->co.events = events;
    s->co.cpu = CB_CPU_DEFAULT;
    cb_harness_defaults(&s->co.harness);
    cb_sb_init(&s->cmdline);
    cb_quote_cmdline(argc, argv, &s->cmdline);
    s->co.cmdline = s->cmdline.buf;
}

/* A tag that reads as a run id or as 'latest' could never be selected by
 * it: report, compare and history take those words for what they mean. */
static int session_tag(struct cb_session *s, const char *arg, struct cb_sb *err)
{
    /* "" was silently no tag; every other option refuses an empty value. */
    if (!*arg || strspn(arg, " \t\n") == strlen(arg)) {
        cb_sb_setf(err, "--tag '%s': give a label (e.g. --tag v1.2), or leave --tag out", arg);
        return -EINVAL;
    }
    if (strcmp(arg, "latest") == 0 || strspn(arg, "0123456789") == strlen(arg)) {
        cb_sb_setf(err, "--tag '%s' reads as %s, so no command could select the run by it; "
                 "give another (e.g. 'v%s')", arg,
                 *arg == 'l' ? "the newest run" : "a run id", *arg == 'l' ? "1.2-latest" : arg);
        return -EINVAL;
    }
    s->co.tag = arg;
    return 0;
}

enum { OPT_CPU = CB_SESSION_OPT_FIRST, OPT_COLD, OPT_TAG };

/* The shared options that parse a value: 0 taken, 1 not one of them,
 * -EINVAL with err set. */
static int session_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct cb_session *s = ctx;
    uint64_t u64;
    switch (id) {
    case OPT_TAG: return session_tag(s, arg, err);
    case OPT_CPU: return cb_parse_int(arg, 0, 65535, "--cpu", &s->co.cpu, err);
    case OPT_COLD:
        if (cb_parse_cold_bytes(arg, &u64, err) < 0)
            return -EINVAL;
        s->co.harness.cold_bytes = u64;
        return 0;
    default:
        return 1;
    }
}

static const struct cb_option session_table[] = {
    CB_OPT_STR(0, "db", struct cb_session, co.db, "PATH",
               "database (default: ./" CB_DEFAULT_DB ", or $CB_DB when set; ab: "
               "$XDG_DATA_HOME/cyclebudget/" CB_DEFAULT_DB ", or $CB_DB, out of the measured tree)"),
    CB_OPT_CALL(OPT_TAG, "tag", "TAG", "label the run, for report and compare (not digits only, nor "
                "'latest': those select runs by id and the newest)"),
    CB_OPT_STR('e', "events", struct cb_session, co.events, "LIST",
               "events: aliases or libpfm4 names (default: " CB_DEFAULT_EVENTS "; race: cycles, "
               "besides the one it ranks)"),
    CB_OPT_CALL(OPT_CPU, "cpu", "N", "pin to CPU N (default: the last CPU this process may use, "
                "of its fastest core type: the same for every run)"),
    CB_OPT_CALL(OPT_COLD, "cold-bytes", "SIZE",
                "cold-mode working set (default: 2x LLC, 64M..128M); race: also the streaming "
                "bucket's size"),
    CB_OPT_BOOL('q', "quiet", struct cb_session, co.quiet, "no progress, and no summary or table"),
    CB_OPT_END,
};

const struct cb_opt_group cb_session_options = {session_table, session_option};

void cb_session_release(struct cb_session *s)
{
    cb_sb_release(&s->cmdline);
}

int cb_session_no_operands(int argc, char **argv, const char *cmd, struct cb_sb *err)
{
    if (optind >= argc)
        return 0;
    cb_sb_setf(err, "unexpected argument '%s' (options only; see 'cyclebudget %s --help')",
             argv[optind], cmd);
    return -EINVAL;
}

int cb_session_probes(const char *arg, const struct cb_probe **out, struct cb_sb *err)
{
    char **names = NULL, *store = NULL;
    int n = cb_parse_name_list(arg, "--probes", &names, &store, err);
    if (n > CB_SESSION_MAX_PROBES) {
        cb_sb_setf(err, "--probes: too many names");
        n = -EINVAL;
    }
    for (int i = 0; i < n; i++) {
        if ((out[i] = cb_probe_find(names[i])))
            continue;
        struct cb_sb near = CB_SB_INIT;
        cb_suggest_probes(names[i], &near);
        cb_sb_setf(err, "unknown probe '%s': did you mean %s? ('cyclebudget list probes' shows all)",
                 names[i], near.buf);
        cb_sb_release(&near);
        n = -ENOENT;
        break;
    }
    free(names);
    free(store);
    return n;
}

int cb_session_variants(const char *arg, const struct cb_probe *const *probes, int np,
                        int testonly, const char *families, char ***globs, char **store,
                        struct cb_sb *err)
{
    if (cb_parse_name_list(arg, "--variants", globs, store, err) < 0)
        return -EINVAL;
    for (char **g = *globs; *g; g++) {
        int hit = 0;
        for (int i = 0; i < np && !hit; i++)
            for (size_t j = 0; j < probes[i]->nvariants && !hit; j++)
                hit = (testonly || !(probes[i]->variants[j].flags & CB_VARIANT_TESTONLY)) &&
                      fnmatch(*g, probes[i]->variants[j].name, 0) == 0;
        if (hit)
            continue;
        struct cb_sb near = CB_SB_INIT;
        cb_suggest_variants(np == 1 ? probes[0] : NULL, *g, &near);
        cb_sb_setf(err, "no variant of %s matches '%s': did you mean %s? ('cyclebudget list "
                 "variants')", families, *g, near.buf);
        cb_sb_release(&near);
        return -ENOENT;
    }
    return 0;
}

static int session_open(struct cb_session *s, struct cb_collector *col)
{
    struct cb_sb err = CB_SB_INIT;
    int usage = 0;
    int rc = cb_collector_open(col, &s->co, &err, &usage);
    if (rc != 0)
        cb_error("%s", err.buf);
    cb_sb_release(&err);
    if (rc == 0)
        return 0;
    return rc == -EINTR ? 130 : usage ? CB_EXIT_USAGE : 1;   /* 130: as a run a signal ends */
}

/* The cases whose setup failed, said with what to do: a cold case's
 * working set that this process may not allocate (ulimit -v) by name. */
static void say_failed(const struct cb_collector *col, const char *what, int64_t run_id)
{
    size_t total = col->nmeasured + col->nfailed;
    char hint[400];
    if (col->first_fail == ENOMEM) {
        size_t cold = col->h.o.cold_bytes ? col->h.o.cold_bytes : cb_workset_cold_bytes();
        snprintf(hint, sizeof hint, "a cold case walks a working set of %zu MiB (--cold-bytes), "
                 "and buffers this process may not allocate: raise its memory limit (ulimit -v) "
                 "or give a smaller --cold-bytes (at least twice the last-level cache)",
                 cold >> 20);
    } else {
        snprintf(hint, sizeof hint, "'cyclebudget report %lld' gives each case's reason",
                 (long long)run_id);
    }
    cb_error("%zu of %zu cases %s skipped, not measured, because their setup failed (the "
             "first, %s): %s", col->nfailed, total, col->nfailed == 1 ? "was" : "were",
             col->first_failed, hint);
    if (!col->nmeasured)
        cb_error("nothing was measured: %s %lld holds no figure", what, (long long)run_id);
}

int cb_session_finish(struct cb_collector *col, int interrupted, const char *what,
                      const char *note)
{
    int64_t run_id = col->run_id;
    if (interrupted || *cb_stop_flag()) {
        cb_collector_finish(col, "aborted");
        cb_error("interrupted: %s %lld marked aborted (%s)", what, (long long)run_id, note);
        return 130;
    }
    /* Asked before finishing, which frees the verdicts. */
    char first[400];
    size_t verified, bad = cb_collector_bad(col, &verified, first, sizeof first);
    int rc = cb_collector_finish(col, "complete");
    if (rc < 0) {
        cb_error("cannot mark run %lld complete: %s", (long long)run_id, strerror(-rc));
        return 1;
    }
    /* Nothing measured because every variant computed wrong results is a
     * failure, said even under -q: exit 0 there read as a good run. */
    if (verified > 0 && bad == verified) {
        cb_error("every variant asked for was BAD (wrong results, so none was timed): %zu of %zu; "
                   "the first, %s; %s %lld holds no measurement", bad, verified, first, what,
                   (long long)run_id);
        return 1;
    }
    /* Cases whose setup failed (memory, a second CPU) are said, and a run
     * that measured nothing at all is a failure: "(nothing measured)" in a
     * table and exit 0 read as a good run. */
    int none = !col->nmeasured && (verified || col->nlacking);
    if (col->nfailed && (!col->quiet || none))
        say_failed(col, what, run_id);
    else if (none)
        cb_error("nothing was measured: every case asked for was skipped or BAD; 'cyclebudget "
                 "report %lld' gives each case's reason", (long long)run_id);
    return none ? 1 : 0;
}

int cb_session_abort(struct cb_collector *col, int rc, const char *what, const char *db)
{
    int64_t run_id = col->run_id;
    int fin = cb_collector_finish(col, "aborted");
    const char *end = fin == 0 ? "marked aborted"
                      : "could not be marked aborted (the next writer to open it marks it so)";
    struct rlimit fs;
    if (rc == -ENOSPC)
        cb_error("disk full: cannot store %s in %s (its filesystem has no space left): free "
                 "some space there, or give --db a file on another filesystem, and run again; "
                 "run %lld %s", what, db, (long long)run_id, end);
    else if ((rc == -EFBIG || rc == -EIO) && getrlimit(RLIMIT_FSIZE, &fs) == 0 &&
             fs.rlim_cur != RLIM_INFINITY)
        /* SQLite says a write past ulimit -f (EFBIG) as a disk I/O error. */
        cb_error("cannot store %s in %s: %s, and this process may write files of at most "
                 "%llu KiB (ulimit -f): raise the limit (ulimit -f unlimited), or give --db a "
                 "smaller store, and run again; run %lld %s", what, db, strerror(-rc),
                 (unsigned long long)(fs.rlim_cur / 1024), (long long)run_id, end);
    else
        cb_error("cannot store %s in %s: %s; run %lld %s", what, db, strerror(-rc),
                 (long long)run_id, end);
    return 1;
}

int cb_session_checked(int parsed, int (*check)(void *plan), void *plan)
{
    if (parsed == 0 && check(plan) < 0)
        parsed = -EINVAL;
    return parsed;
}

int cb_session_body(void *plan, struct cb_store *unused)
{
    struct cb_session *s = plan;
    struct cb_collector col;
    (void)unused;
    cb_catch_stop_signals(1);
    int rc = session_open(s, &col);
    return rc != 0 ? rc : s->work(plan, &col);
}
