/* state.c — the host's state in every report (runstate.h, refset.h).
 *
 * A run and each case were measured in a state of the host, judged against
 * the host's quiet figures: quiet, or slowed by a factor on one reference.
 * Every format shows it beside the figures, so that a figure the host
 * slowed is never read as the code's. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int cb_report_load_states(struct cb_store *st, struct cb_report *r)
{
    for (size_t k = 0; k < r->ncases; k++) {
        struct cb_report_case *c = &r->cases[k];
        int rc = cb_store_case_state(st, c->info.id, &c->state, &c->tries);
        if (rc < 0 && rc != -ENOENT)
            return rc;
    }
    return 0;
}

int cb_report_case_slowed(const struct cb_report_case *c)
{
    return c->measured && c->state.kind == CB_STATE_SLOWED_KIND;
}

const char *cb_report_case_marks(const struct cb_report_case *c)
{
    int shared = cb_report_case_shared(c), slowed = cb_report_case_slowed(c);
    return shared && slowed ? " shared slowed" : shared ? " shared" : slowed ? " slowed" : "";
}

void cb_report_state_line(const struct cb_run_info *u, char *buf, size_t len)
{
    const struct cb_run_state *h = &u->hs;
    char what[64];
    buf[0] = 0;
    if (h->s.kind == CB_STATE_UNJUDGED)
        return;
    cb_state_text(&h->s, what, sizeof what);
    int off = snprintf(buf, len, "%s against this host's quiet figures (the low quartile of %d "
                       "readings of CPU %d; slowed is %.2fx or more)", what, h->n, u->cpu,
                       CB_STATE_SLOWED);
    if (off > 0 && (size_t)off < len && h->slowed_cases > 0)
        snprintf(buf + off, len - (size_t)off, ": %d cases measured slowed (%.2f s), each measured "
                 "again up to its tries; rows marked 'slowed' were kept so", h->slowed_cases,
                 isnan(h->slowed_s) ? 0 : h->slowed_s);
}

/* "quiet" or "slowed" with its ratio and reference, as JSON members. */
static void state_members(FILE *out, const struct cb_state *s)
{
    fprintf(out, "\"state\": \"%s\", \"ratio\": ", cb_state_name(s));
    cb_json_num(out, s->ratio);
    if (s->ref >= 0)
        fprintf(out, ", \"ref\": \"%s\"", cb_ref_name(s->ref));
    else
        fputs(", \"ref\": null", out);
}

void cb_report_state_json_case(FILE *out, const struct cb_report_case *c)
{
    fputs(", \"host_state\": ", out);
    if (c->state.kind == CB_STATE_UNJUDGED) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    state_members(out, &c->state);
    fprintf(out, ", \"tries\": %d}", c->tries);
}

void cb_report_state_json_run(FILE *out, const struct cb_run_info *u)
{
    const struct cb_run_state *h = &u->hs;
    fputs(",\n  \"host_state\": ", out);
    if (h->s.kind == CB_STATE_UNJUDGED) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    state_members(out, &h->s);
    fprintf(out, ", \"quiet_readings\": %d, \"slowed_cases\": %d, \"slowed_s\": ", h->n,
            h->slowed_cases);
    cb_json_num(out, h->slowed_s);
    fputs(", \"start\": {", out);
    for (int i = 0; i < CB_NREFS; i++) {
        fprintf(out, "%s\"%s\": ", i ? ", " : "", cb_ref_name(i));
        cb_json_num(out, h->start.v[i]);
    }
    fputs("}}", out);
}

void cb_report_state_csv(FILE *out, const struct cb_report_case *c)
{
    const char *name = cb_state_name(&c->state);
    if (!name) {
        fputs(",,,", out);
        return;
    }
    fprintf(out, ",%s,%.4g,%s,", name, c->state.ratio, c->state.ref >= 0 ? cb_ref_name(c->state.ref) : "");
    if (c->tries > 0)
        fprintf(out, "%d", c->tries);
}

int cb_report_case_shared(const struct cb_report_case *c)
{
    return c->measured && c->info.contended_share > CB_SHARED_CASE_SHARE;
}

size_t cb_report_count_shared(const struct cb_report *r)
{
    size_t k = 0;
    for (size_t i = 0; i < r->ncases; i++)
        k += (size_t)cb_report_case_shared(&r->cases[i]);
    return k;
}
