/* case_versus.h — compare RUN:CASE RUN:CASE: one case against another, from the
 * same run or two (versus_text.h prints it). */
#ifndef CB_CMD_CASE_VERSUS_H
#define CB_CMD_CASE_VERSUS_H

#include "store/store.h"

/* 1 when spec looks like RUN:probe/variant/size/mode. */
int cb_versus_is_case(const char *spec);
/* Both cases found, loaded and compared on standard output: 0, or the exit
 * status with the message said (2: a run or case that is not there). */
int cb_versus_cases(struct cb_store *st, const char *db, const char *a, const char *b,
                    int include_aborted);

#endif
