/* session.h — what run and race share: the options that open a collecting
 * session, the families named by -p, the stop signals, and how the run ends.
 *
 * Both commands check everything typed before the store is opened, and both
 * end a run the same way (aborted on a signal, complete otherwise), so one
 * copy of each keeps their messages and exit codes from drifting apart. */
#ifndef CB_SESSION_H
#define CB_SESSION_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>

#include "cmd.h"
#include "collect.h"

/* getopt values of the shared long options; a command's own start at
 * CB_SESSION_OPT_OWN. */
enum {
    CB_SESSION_OPT_DB = 1000,
    CB_SESSION_OPT_TAG,
    CB_SESSION_OPT_CPU,
    CB_SESSION_OPT_COLD,
    CB_SESSION_OPT_OWN,
};

#define CB_SESSION_LONGOPTS                                                                        \
    {"db", required_argument, 0, CB_SESSION_OPT_DB},                                               \
    {"tag", required_argument, 0, CB_SESSION_OPT_TAG},                                             \
    {"events", required_argument, 0, 'e'},                                                         \
    {"cpu", required_argument, 0, CB_SESSION_OPT_CPU},                                             \
    {"cold-bytes", required_argument, 0, CB_SESSION_OPT_COLD},                                     \
    {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}

/* The shared options that only store what was typed, for a plan of type
 * whose struct cb_session is the member s. */
#define CB_SESSION_FIELDS(type)                                                                    \
    CB_OPT_STR(CB_SESSION_OPT_DB, type, s.co.db), CB_OPT_STR(CB_SESSION_OPT_TAG, type, s.co.tag),   \
    CB_OPT_STR('e', type, s.co.events), CB_OPT_BOOL('q', type, s.co.quiet)

#define CB_SESSION_MAX_PROBES 32

/* The first member of a command's plan, so that the plan is its context. */
struct cb_session {
    struct cb_collect_opts co;   /* db, events, tag, cpu, quiet, harness */
    char cmdline[2048];          /* as typed, stored with the run */
    /* The command's work in the open session, given its plan: an exit status. */
    int (*work)(void *plan, struct cb_collector *col);
};

/* Defaults (db CB_DEFAULT_DB, the given events), the quoted command line,
 * and the work to do. */
void cb_session_init(struct cb_session *s, const char *events, int (*work)(void *, struct cb_collector *),
                     int argc, char **argv);

/* One of the shared options that need parsing (--cpu, --cold-bytes): 0 when
 * ch is one (applied), 1 when it is not, -EINVAL with err set when its
 * value is bad (cb_cmd_parser's convention). */
int cb_session_option(struct cb_session *s, int ch, const char *arg, char *err, size_t errlen);

/* Options only: -EINVAL naming the first operand, if any. */
int cb_session_no_operands(int argc, char **argv, const char *cmd, char *err, size_t errlen);

/* -p's names as families, at most CB_SESSION_MAX_PROBES; the count, or
 * -EINVAL/-ENOENT with err saying what was wrong and what to type. */
int cb_session_probes(const char *arg, const struct cb_probe **out, char *err, size_t errlen);

/* After the options: check the plan, so that a typo is said before the
 * store is opened for writing.  The parse step's result as cb_cmd takes
 * it, with the plan's message copied into err. */
int cb_session_checked(int parsed, int (*check)(void *plan), void *plan, const char *plan_err,
                       char *err, size_t errlen);

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
