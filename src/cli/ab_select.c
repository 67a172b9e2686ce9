/* ab_select.c — ab's -p, -V, -s and -m parsed, then its cases planned
 * (ab_select.h).  Each refusal is checked in the order the options are
 * read: -p's names, then -s, -m and -V. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/ab_select.h"
#include "cli/parse.h"
#include "harness/probe.h"

/* -p: each name a family one of the builds has. */
static int want_families(const struct cb_select *sel, struct cb_ab_want *w, struct cb_sb *err)
{
    char **names = NULL, *store = NULL;
    int n = cb_parse_name_list(sel->probes, "--probes", &names, &store, err), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!cb_probe_find_ns("base", names[i]) && !cb_probe_find_ns("head", names[i])) {
            cb_sb_setf(err, "unknown probe '%s': neither build has it, and it is not a "
                       "built-in family ('cyclebudget list probes --plugin BASE.so')", names[i]);
            rc = -ENOENT;
        } else if (w->nfams < CB_AB_MAX_FAMILIES) {
            snprintf(w->fams[w->nfams++], sizeof w->fams[0], "%s", names[i]);
        }
    }
    free(names);
    free(store);
    w->probes = sel->probes;
    return n < 0 ? n : rc;
}

/* -s and -m: the sizes (none: each family's) and modes every case is
 * timed at. */
static int want_grid(const struct cb_select *sel, struct cb_ab_want *w, struct cb_sb *err)
{
    if (sel->sizes &&
        (w->nsizes = cb_parse_size_list(sel->sizes, w->sizes, CB_AB_MAX_SIZES, err)) < 0)
        return w->nsizes;
    char **names = NULL, *store = NULL;
    int n = cb_parse_name_list(sel->modes ? sel->modes : "warm,cold", "--mode", &names, &store, err);
    int rc = n < 0 ? n : 0;
    for (int i = 0; i < n && rc == 0; i++) {
        int m = cb_mode_parse(names[i]);
        if (m < 0 || i >= 2) {
            cb_sb_setf(err, "--mode '%s': give warm, cold or warm,cold", sel->modes);
            rc = -EINVAL;
        } else {
            w->modes[w->nmodes++] = (enum cb_mode)m;
        }
    }
    free(names);
    free(store);
    return rc;
}

int cb_ab_plan_select(struct cb_ab *ab, const struct cb_select *sel, struct cb_sb *err)
{
    struct cb_ab_want w = {0};
    char *vstore = NULL;
    int rc = sel->probes ? want_families(sel, &w, err) : 0;
    if (rc == 0)
        rc = want_grid(sel, &w, err);
    if (rc == 0 && sel->variants &&
        (w.nvariants = cb_parse_name_list(sel->variants, "--variants", &w.variants, &vstore, err)) < 0)
        rc = w.nvariants;
    if (rc == 0)
        rc = cb_ab_plan(ab, &w, err);
    free(w.variants);
    free(vstore);
    return rc;
}
