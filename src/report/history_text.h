/* history_text.h — what history says in text besides its series: why a
 * history has no point. */
#ifndef CB_REPORT_HISTORY_TEXT_H
#define CB_REPORT_HISTORY_TEXT_H

#include <stdio.h>

struct cb_store;

/* A history with no point: say why to out, from what the store at db
 * holds (nothing when it cannot be read). */
void cb_history_say_why_empty(struct cb_store *st, const char *db, FILE *out);

#endif
