/* race_report.h — a race's decisions as the files a build uses (JSON, a C
 * header), and a stored race's table.  The race itself is decided in
 * src/analysis/race_rounds.c; these only show it. */
#ifndef CB_RACE_REPORT_H
#define CB_RACE_REPORT_H

#include <stdio.h>

#include "analysis/race.h"

/* Emit the decisions.  host: the machine's fingerprint. */
int cb_race_emit_json(const struct cb_race *r, const struct cb_host *host, FILE *out);
int cb_race_emit_header(const struct cb_race *r, const struct cb_host *host, FILE *out);

/* "context: kernel, ..." for the header, the JSON and the table: which
 * context the race was decided in and the FPU charge it used. */
void cb_race_context_line(const struct cb_race *r, char *buf, size_t len);

/* The table of one stored race: per family and bucket the winner, decision,
 * margin with its CI, the runner-up, and the previous race's winner on the
 * same host when it differs.  0, or -ENOENT when there is no such race. */
int cb_race_print(struct cb_store *st, int64_t race_id, FILE *out);
/* For `cyclebudget report`: the latest complete race of each host (and
 * mode), each as cb_race_print's table.  Returns how many races it printed
 * (0 when the store has none, or predates races), or a negative errno. */
int cb_race_report_text(struct cb_store *st, FILE *out);

#endif
