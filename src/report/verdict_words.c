/* verdict_words.c — one case's verdict in words (verdict_out.h), as the
 * text, Markdown and JUnit outputs all say it: "unsure: 4 more runs a side
 * needed", "unchanged: < 0.3%". */
#include <math.h>
#include <stdio.h>

#include "analysis/floor.h"
#include "report/verdict_out.h"

/* What would decide an unsure row: "4 more runs a side needed". */
static void more_runs_text(const struct cmp_row *r, char *buf, size_t len)
{
    size_t n = r->more_runs ? r->more_runs : 1;
    if (n >= CB_FLOOR_RUNS_CAP)
        snprintf(buf, len, "%d+ more runs a side needed", CB_FLOOR_RUNS_CAP);
    else
        snprintf(buf, len, "%zu more %srun%s a side needed", n, r->host_state ? "quiet " : "",
                 n == 1 ? "" : "s");
}

/* "unsure: 4 more runs a side needed": what would decide it. */
void cmp_verdict_text(const struct cmp_row *r, char *buf, size_t len)
{
    char more[64];
    more_runs_text(r, more, sizeof more);
    if (r->v == CB_CMP_UNSURE && r->host_state)
        snprintf(buf, len, "unsure (host state): %s", more);
    else if (r->v == CB_CMP_UNSURE && r->test == CMP_TEST_NOFLOOR)
        snprintf(buf, len, "unsure: no noise floor yet: %s", more);
    else if (r->v == CB_CMP_UNSURE)
        snprintf(buf, len, "unsure: %s", more);
    else if (r->same_code)
        snprintf(buf, len, "unchanged (same code%s)", r->host_state ? "; its change is the host state's" : "");
    else if (r->test == CMP_TEST_NOFLOOR)
        snprintf(buf, len, "%s within the run (no floor)", cb_cmp_verdict_name(r->v));
    else if (r->v == CB_CMP_UNCHANGED && isfinite(r->seen))
        snprintf(buf, len, "unchanged: < %.*f%%", r->seen < 0.001 ? 2 : 1,
                 r->seen < 0.001 ? ceil(r->seen * 1e4) / 100 : ceil(r->seen * 1e3) / 10);
    else
        snprintf(buf, len, "%s%s", cb_cmp_verdict_name(r->v),
                 r->acked ? " (acknowledged)" : r->placement ? " (placement)" : "");
}
