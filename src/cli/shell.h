/* shell.h — run a command line the user wrote, with arguments we add.
 *
 * compare --rerun --base-exec/--head-exec records new runs with the user's
 * own binaries (BASE's build and HEAD's), which only the user can name: a
 * path, perhaps with environment variables or a wrapper.  That text goes to
 * /bin/sh as the user wrote it, like `git bisect run sh -c ...`; the
 * arguments cyclebudget appends (case names, a database path) are each
 * single-quoted, so no name or path is ever read as shell syntax. */
#ifndef CB_SHELL_H
#define CB_SHELL_H

#include <stddef.h>

/* prefix, then each of args as one single-quoted word, space-separated, in
 * a new string (free it); NULL when out of memory. */
char *cb_shell_join(const char *prefix, const char *const *args, size_t nargs);

/* Run cmd with /bin/sh -c, standard output sent to standard error (ours is
 * the report).  Returns its exit status (0..255), 128 + the signal that
 * killed it, or a negative errno when it could not be started. */
int cb_shell_run(const char *cmd);

#endif
