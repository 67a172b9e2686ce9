/* history_text.c — why a history has no point, in words
 * (history_text.h). */
#include <stdio.h>

#include "report/history_text.h"
#include "store/lookup.h"
#include "store/store.h"

/* No commit to follow: say why, from what the store holds, rather than
 * "0 commits" and nothing more. */
void cb_history_say_why_empty(struct cb_store *st, const char *db, FILE *out)
{
    struct cb_store_run_counts n;
    if (cb_store_count_runs(st, &n) < 0)
        return;
    if (n.complete == 0)
        fprintf(out, "no complete run in %s yet: record some with 'cyclebudget run' at each commit\n",
                     db);
    else if (n.in_git == 0)
        fprintf(out, "none of the %lld runs in %s was measured in a git tree, and history follows "
                     "commits: run from your repository (or with --repo DIR)\n",
                     (long long)n.complete, db);
    else if (n.clean == 0)
        fprintf(out, "the %lld runs measured in a git tree were all of a dirty tree, whose numbers "
                     "belong to no commit: commit, then run\n", (long long)n.in_git);
    else
        fprintf(out, "no run of a clean commit matches (--since, --host, --sim or the timed/counted "
                     "kind leave out the %lld there are)\n", (long long)n.clean);
}
