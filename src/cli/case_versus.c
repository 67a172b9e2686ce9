/* case_versus.c — compare RUN:CASE RUN:CASE (see case_versus.h). */
#include "cli/case_versus.h"

#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "report/report.h"
#include "report/versus_text.h"

int cb_versus_is_case(const char *spec)
{
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec)
        return 0;
    int slashes = 0;
    for (const char *p = colon + 1; *p; p++)
        slashes += *p == '/';
    return slashes == 3;
}

/* RUN:KEY into its run (loaded into r) and the key. */
static int load_side(struct cb_store *st, const char *db, const char *spec, int include_aborted,
                     struct cb_report *r, const char **key)
{
    char run[128];
    struct cb_sb err = CB_SB_INIT;
    const char *colon = strchr(spec, ':');
    snprintf(run, sizeof run, "%.*s", (int)(colon - spec), spec);
    *key = colon + 1;
    int64_t id;
    if (cb_store_run_resolve_status(st, run, include_aborted, &id, &err) < 0) {
        cb_error("%s (in %s)", err.buf, spec);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    int rc = cb_report_load(st, id, r);
    if (rc < 0) {
        cb_error("cannot read run %lld from %s: %s", (long long)id, db, strerror(-rc));
        cb_sb_release(&err);
        return 1;
    }
    cb_sb_release(&err);
    return 0;
}

static int found(const struct cb_vs_side *s, const char *spec)
{
    if (s->n)
        return 1;
    cb_error("%s: no measured case by that name in the run (names look like "
               "csum/adc-1chain/1500/warm; 'cyclebudget report' lists them)", spec);
    return 0;
}

int cb_versus_cases(struct cb_store *st, const char *db, const char *a, const char *b,
                    int include_aborted)
{
    struct cb_report ra, rb;
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    const char *ka, *kb;
    int status = load_side(st, db, a, include_aborted, &ra, &ka);
    int same = 0;
    if (status == 0) {
        status = load_side(st, db, b, include_aborted, &rb, &kb);
        same = status == 0 && ra.run.id == rb.run.id;
    }
    struct cb_vs_side sa, sb;
    if (status == 0) {
        cb_vs_collect(&ra, ka, &sa);
        cb_vs_collect(same ? &ra : &rb, kb, &sb);
        status = found(&sa, a) && found(&sb, b) ? 0 : CB_EXIT_USAGE;
    }
    if (status == 0) {
        printf("run %lld against run %lld\n", (long long)ra.run.id, (long long)rb.run.id);
        for (int i = 0; i < 2 - same; i++) /* an emulated run times no machine (emulation.h) */
            if ((i ? &rb : &ra)->run.emulated[0])
                printf("EMULATED (%s): run %lld's " CB_REPORT_EMULATED_WHAT ": no verdict below is "
                       "one\n", (i ? &rb : &ra)->run.emulated, (long long)(i ? &rb : &ra)->run.id);
        cb_vs_heading(&ra, sa.c[0]->info.variant, sb.c[0]->info.variant, stdout);
        cb_vs_line(&sa, &sb, stdout);
        printf("  A = %s, B = %s%s\n", a, b,
               same ? "" : "; two runs: samples compared as two groups, not paired");
    }
    cb_report_free(&ra);
    cb_report_free(&rb);
    return status;
}
