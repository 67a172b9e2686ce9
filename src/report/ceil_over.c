/* ceil_over.c — why a case reads above its ceiling.
 *
 * A share of a ceiling above 100% means the ceiling or the case is wrong,
 * or the two measure different things.  The DRAM ceiling is now read the
 * way a cold case reads memory (ceilings.c, time_walk), which removed the
 * cold csum cases' 114-309%; what can remain is named here, never left as
 * a bare figure: model ceilings (a test's), stores that skip the read-for-ownership the store
 * ceiling's plain stores pay, a cold set the host's reported last-level
 * cache may hold, a calibration taken at another time, or the ceiling's
 * own noise. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

/* Non-temporal stores (movnti, movntdq), and the string stores glibc uses
 * for large sizes, write whole lines without reading them first. */
static int no_rfo(const char *variant)
{
    return strncmp(variant, "nt", 2) == 0 || strstr(variant, "-nt") || strstr(variant, "stosb") ||
           strstr(variant, "movsb") || strcmp(variant, "glibc") == 0 || strstr(variant, "erms");
}

const char *cb_report_ceil_over(const struct cb_report *r, const struct cb_report_case *c,
                                struct cb_sb *buf)
{
    double s = cb_report_ceil_share(c);
    if (!(s > 1.0) || !r->has_ceil)
        return NULL;
    int store = cb_report_stores(c->info.probe);
    const struct cb_ceiling *ce = cb_ceil_best(&r->ceil, store ? "store" : "load", c->ceil_level);
    double spread = ce && isfinite(ce->spread_pct) ? ce->spread_pct : 0;
    if (strcmp(r->ceil.source, "model") == 0)
        cb_sb_setf(buf, "the ceilings are fixed model figures (CB_CEILINGS=model, for tests), "
                 "not this machine's");
    else if (store && no_rfo(c->info.variant))
        cb_sb_setf(buf, "its stores skip the read-for-ownership (non-temporal, or rep stosb/movsb "
                 "writing whole lines) that the store ceiling's plain stores pay");
    else if (c->ceil_level == CB_DRAM && r->ceil.note[0])
        cb_sb_setf(buf, "the cold set may partly sit in the last-level cache this host reports "
                 "(%s)", r->ceil.note);
    else if (100 * (s - 1) <= spread)
        cb_sb_setf(buf, "within the ceiling's own noise (its trials spread %.1f%%)", spread);
    else if (r->cal_reused)
        cb_sb_setf(buf, "the calibration (%lld, taken %s) was measured at another time, under "
                 "another load: 'run --recalibrate' measures it with the run",
                 (long long)r->cal_id, r->cal_taken[0] ? r->cal_taken : "at an unknown time");
    else
        cb_sb_setf(buf, "not explained: beyond the ceiling's spread (%.1f%%) in the run's own "
                 "calibration; please report it", spread);
    return buf->buf;
}
