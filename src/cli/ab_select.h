/* ab_select.h — the cases `ab` and `bisect-check --against-plugin` time:
 * -p, -V, -s and -m (struct cb_select) parsed and planned over the two
 * loaded builds (analysis/ab.h). */
#ifndef CB_CLI_AB_SELECT_H
#define CB_CLI_AB_SELECT_H

#include "analysis/ab.h"
#include "cli/options.h"
#include "util/strbuf.h"

/* Parse sel (a probe must be known to a build) and plan ab's cases from
 * it: 0, or a negative errno with err saying what was wrong. */
int cb_ab_plan_select(struct cb_ab *ab, const struct cb_select *sel, struct cb_sb *err);

#endif
