/* gitinfo.h — which commit of the user's code a run measured.
 *
 * Regression tracking is only as good as this: a run must say which tree it
 * measured and whether that tree had uncommitted changes. */
#ifndef CB_GITINFO_H
#define CB_GITINFO_H

#include "util/strbuf.h"

#include <stddef.h>

struct cb_gitinfo {
    char commit[64];       /* full hash, or the --commit text when git cannot resolve it */
    char subject[256];
    char date[40];         /* author date, ISO 8601 */
    int dirty;             /* 1 dirty, 0 clean, -1 unknown */
};

/* Describe rev (NULL: HEAD) in the git tree at dir (NULL: the current
 * directory).  Returns 0; -ENOENT when dir is not in a git tree or git is
 * missing (info zeroed, dirty -1); -EINVAL when rev does not resolve there;
 * -ETIMEDOUT when git did not answer in CB_GIT_TIMEOUT seconds (default 60)
 * and was killed, -EINTR when SIGINT/SIGTERM cut the wait short. */
int cb_gitinfo_read(const char *dir, const char *rev, struct cb_gitinfo *info);
/* rc from cb_gitinfo_read says the wait for git was cut short (-ETIMEDOUT,
 * -EINTR): 1, with what happened and what to do in err (when not NULL). */
int cb_gitinfo_cut(int rc, const char *dir, struct cb_sb *err);

#endif
