/* verdict_out.h — a verdict (analysis/verdict.h) printed: text, markdown
 * for a pull request, JSON (verdict_text.c), and JUnit XML for a CI's test
 * report (verdict_junit.c, the one JUnit writer).  Every unsure row says
 * what would decide it, in every format. */
#ifndef CB_VERDICT_OUT_H
#define CB_VERDICT_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/judge.h"
#include "analysis/verdict.h"
#include "report/format.h"

struct cb_path_delta;


/* The verdict in fmt, with the exit status it ends in (JSON says it). */
void cmp_print_result(const struct cmp_ctx *x, const struct cmp_opts *o, enum cb_format fmt,
                      const struct cmp_result *res, int exit_status, FILE *f);
/* Each path's verdict (its reading) from its steps' cases' rows. */
void cmp_path_verdicts(const struct cmp_result *res, struct cb_path_delta *d, size_t n);
/* JUnit XML: one testcase per case, a failure for each unacknowledged
 * regression, an unsure case skipped with what would decide it. */
void cmp_print_junit(const struct cmp_ctx *x, const struct cmp_result *res, FILE *f);
/* "no verdict" (an emulated run) as fmt asks: for JUnit a suite of one
 * skipped test, so that a CI's report shows it rather than a green tick. */
void cmp_print_no_verdict(enum cb_format fmt, int64_t run, const char *why, const char *line, FILE *f);
/* A row's verdict in words: "regressed", "unchanged: < 2.4%", "unsure: 4
 * more runs a side needed", "unsure (host state): ...". */
void cmp_verdict_text(const struct cmp_row *r, char *buf, size_t len);

#endif
