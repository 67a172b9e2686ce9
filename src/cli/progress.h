/* progress.h — the one-line progress of run and race on a terminal: which
 * case of how many, the time spent and an estimate of the time left. */
#ifndef CB_PROGRESS_H
#define CB_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

/* The monotonic clock now, in seconds: the start to pass to cb_progress. */
double cb_progress_now(void);

/* "\r\033[K[done/total 0:12, ~1:05 left] LABEL" to out: done counts the
 * case now starting, so the estimate is the mean time of the done-1 cases
 * finished times the cases still to go ("estimating" before the first
 * ends).  The line is cut to 100 columns so that it never wraps. */
void cb_progress(FILE *out, size_t done, size_t total, double t0, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* "1:05" or "1:02:05" into buf. */
const char *cb_progress_hms(double s, char *buf, size_t len);

#endif
