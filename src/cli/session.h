/* session.h — what run and race share: the options that open a collecting
 * session, the families named by -p, the stop signals, and how the run ends.
 *
 * Both commands check everything typed before the store is opened, and both
 * end a run the same way (aborted on a signal, complete otherwise), so one
 * copy of each keeps their messages and exit codes from drifting apart. */
#ifndef CB_SESSION_H
#define CB_SESSION_H

#include "util/strbuf.h"

#include <getopt.h>
#include <signal.h>
#include <stddef.h>

#include "cli/cmd.h"
#include "harness/collect.h"

/* The options run and race share (cli/options.h's groups), relative to
 * struct cb_session: --db, --tag, -e, --cpu, --cold-bytes, -q.  Their ids
 * are from CB_SESSION_OPT_FIRST; a command's own start at CB_OPT_LONG_ONLY. */
#define CB_SESSION_OPT_FIRST (CB_OPT_LONG_ONLY + 100)
extern const struct cb_opt_group cb_session_options;

#define CB_SESSION_MAX_PROBES 32

/* The first member of a command's plan, so that the plan is its context. */
struct cb_session {
    struct cb_collect_opts co;   /* db, events, tag, cpu, quiet, harness */
    struct cb_sb cmdline;        /* as typed, stored with the run; cb_session_release */
    /* The command's work in the open session, given its plan: an exit status. */
    int (*work)(void *plan, struct cb_collector *col);
};

/* Defaults (db CB_DEFAULT_DB, the given events), the quoted command line,
 * and the work to do. */
void cb_session_init(struct cb_session *s, const char *events, int (*work)(void *, struct cb_collector *),
                     int argc, char **argv);

/* What cb_session_init took. */
void cb_session_release(struct cb_session *s);

/* Options only: -EINVAL naming the first operand, if any. */
int cb_session_no_operands(int argc, char **argv, const char *cmd, struct cb_sb *err);

/* -p's names as families, at most CB_SESSION_MAX_PROBES; the count, or
 * -EINVAL/-ENOENT with err saying what was wrong and what to type. */
int cb_session_probes(const char *arg, const struct cb_probe **out, struct cb_sb *err);

/* -V's globs (arg), each of which must match a variant of the np families
 * (a test-only one only when testonly): 0, or -EINVAL/-ENOENT with err
 * naming the glob that matches none, the nearest names and the families
 * (as families says them).  The globs go to *globs, strdup'd into *store. */
int cb_session_variants(const char *arg, const struct cb_probe *const *probes, int np,
                        int testonly, const char *families, char ***globs, char **store,
                        struct cb_sb *err);

/* After the options: check the plan, so that a typo is said before the
 * store is opened for writing.  The parse step's result as cb_cmd takes
 * it; the plan's checks set their message in the parse step's err, which
 * the plan points to. */
int cb_session_checked(int parsed, int (*check)(void *plan), void *plan);

/* cb_cmd's body for run and race: catch the stop signals, open the
 * session, and do its work (plan starts with its struct cb_session).  The
 * exit status of either. */
int cb_session_body(void *plan, struct cb_store *unused);

/* End the run: aborted when interrupted (130; "interrupted: WHAT N marked
 * aborted (NOTE)"), else complete (0), or 1 when it cannot be marked. */
/* The store failed with rc while storing what: end the run aborted and say
 * so (a full disk by name, with what to do), and whether the end was
 * stored.  Returns 1, the exit status. */
int cb_session_abort(struct cb_collector *col, int rc, const char *what, const char *db);
int cb_session_finish(struct cb_collector *col, int interrupted, const char *what,
                      const char *note);

#endif
