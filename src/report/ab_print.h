/* ab_print.h — ab's rounds judged (analysis/ab.h), printed: the table and
 * the verdict as text, Markdown or JSON. */
#ifndef CB_REPORT_AB_PRINT_H
#define CB_REPORT_AB_PRINT_H

#include <stdio.h>

#include "analysis/ab.h"
#include "report/format.h"

/* The table and the verdict in fmt; where says the CPU, run and store. */
void cb_ab_print(const struct cb_ab *ab, enum cb_format fmt, const char *where, FILE *f);

#endif
