/* verdict_junit.c — a verdict as JUnit XML (verdict_out.h), the test report CI
 * services read natively (GitLab's artifacts:reports:junit, Jenkins' junit
 * step, GitHub through a test-report action): one testcase per case, a
 * failure for each unacknowledged regression with its change and interval,
 * and each unsure case skipped with what would decide it: a green tick on a
 * case nobody could tell hid that the gate did not look. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/verdict_out.h"

/* XML text or attribute value: markup escaped, and what XML 1.0 cannot hold
 * at all (controls other than tab and line breaks, bytes that are not
 * UTF-8) as U+FFFD. */
static void xml_esc(FILE *f, const char *s)
{
    cb_html_esc(f, s);
}

static void pct(FILE *f, double x)
{
    if (isnan(x))
        fputs("n/a", f);
    else
        fprintf(f, "%+.2f%%", 100.0 * x);
}

/* The one line a CI shows for a case: medians, change, interval, p. */
static void row_text(FILE *f, const struct cmp_result *res, const struct cmp_row *r)
{
    fprintf(f, "base %.4g, head %.4g, change ", r->s.med_a, r->s.med_b);
    pct(f, r->s.change);
    if (!res->exact && (isnan(r->s.lo) || isnan(r->s.hi) || r->test == CMP_TEST_NOFLOOR)) {
        fputs(", " CMP_NO_INTERVAL, f);
    } else if (!res->exact) {
        fputs(", 95% CI [", f);
        pct(f, r->s.lo);
        fputs(", ", f);
        pct(f, r->s.hi);
        fprintf(f, "], p %.2g (adjusted %.2g)", r->s.p, r->p_adj);
    } else
        fputs(" (exact counts)", f);
    char words[160];
    cmp_verdict_text(r, words, sizeof words);
    fputs(": ", f);
    xml_esc(f, words);
}

static void testcase(FILE *f, const struct cmp_ctx *x, const struct cmp_result *res, const struct cmp_row *r)
{
    fputs("    <testcase classname=\"cyclebudget.", f);
    xml_esc(f, x->metric);
    fputs("\" name=\"", f);
    xml_esc(f, r->a->key);
    fputs("\" time=\"0\">\n", f);
    if (cmp_row_fails(r)) {
        fputs("      <failure type=\"regression\" message=\"regressed ", f);
        pct(f, r->s.change);
        if (!res->exact) {
            fputs(" [", f);
            pct(f, r->s.lo);
            fputs(", ", f);
            pct(f, r->s.hi);
            fputs("]", f);
        }
        fputs("\">", f);
        row_text(f, res, r);
        fputs("</failure>\n", f);
    } else if (r->v == CB_CMP_UNSURE) {
        char why[160];
        cmp_verdict_text(r, why, sizeof why);
        fputs("      <skipped message=\"", f);
        xml_esc(f, why);
        fputs("\">", f);
        row_text(f, res, r);
        fputs("</skipped>\n", f);
    }
    fputs("      <system-out>", f);
    row_text(f, res, r);
    if (r->why[0]) {
        fputs(r->acked ? "; acknowledged: " : "; ", f);
        xml_esc(f, r->why);
    }
    fputs("</system-out>\n    </testcase>\n", f);
}

void cmp_print_junit(const struct cmp_ctx *x, const struct cmp_result *res, FILE *f)
{
    int fail = 0;
    for (size_t i = 0; i < res->n; i++)
        fail += cmp_row_fails(&res->rows[i]);
    int skip = res->count[CB_CMP_UNSURE];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"cyclebudget compare\" tests=\"%zu\" failures=\"%d\" errors=\"0\">\n",
            res->n, fail);
    fprintf(f, "  <testsuite name=\"cyclebudget compare\" tests=\"%zu\" failures=\"%d\" errors=\"0\" "
               "skipped=\"%d\" time=\"0\">\n    <properties>\n",
            res->n, fail, skip);
    const char *k[] = {"base", "head", "metric"}, *v[] = {x->base_desc, x->head_desc, x->metric};
    for (int i = 0; i < 3; i++) {
        fprintf(f, "      <property name=\"%s\" value=\"", k[i]);
        xml_esc(f, v[i]);
        fputs("\"/>\n", f);
    }
    if (x->crosses) {
        fputs("      <property name=\"crosses-environments\" value=\"", f);
        xml_esc(f, x->crosses);
        fputs("\"/>\n", f);
    }
    fputs("    </properties>\n", f);
    for (size_t i = 0; i < res->n; i++)
        testcase(f, x, res, &res->rows[i]);
    fputs("  </testsuite>\n</testsuites>\n", f);
}

void cmp_print_no_verdict(enum cb_format fmt, int64_t run, const char *why, const char *line, FILE *f)
{
    if (fmt == CB_FMT_JSON) {
        fprintf(f, "{\"verdict\":null,\"emulated_run\":%lld,\"emulated\":", (long long)run);
        cb_json_str(f, why);
        fputs(",\"no_verdict\":", f);
        cb_json_str(f, line);
        fputs("}\n", f);
    } else if (fmt == CB_FMT_JUNIT) {
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cyclebudget compare\" "
              "tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">\n  <testsuite name=\""
              "cyclebudget compare\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" "
              "time=\"0\">\n    <testcase classname=\"cyclebudget\" name=\"emulated\" time=\"0\">"
              "\n      <skipped message=\"", f);
        cb_html_esc(f, line);
        fputs("\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n", f);
    } else {
        char clean[768];
        cb_text_clean(clean, sizeof clean, line);
        fprintf(f, "%s\n", clean);
    }
}
