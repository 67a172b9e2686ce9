/* termout.h — the one path from this process to its standard output and
 * standard error.
 *
 * A tag, a label, a region name, a host name or a commit subject is
 * whatever bytes someone stored, and many printers show them: auditing
 * each printf for an escaper missed some (a path file's title, marker
 * region names).  So stdout and stderr are themselves streams that escape:
 * every byte written to them goes through the same walk as cb_esc_add
 * (control characters but tab, line break and CR LF, CSV's line end, and
 * bytes that are not UTF-8, as \xNN).  Only where the stream is a terminal do the
 * line-clearing sequences of the progress lines pass (CSI K, a carriage
 * return), and the colour ones of the text report (CSI ... m) where colour
 * is on too; whatever else an ESC begins is escaped there too.
 *
 * The streams remember the errno of a failed write, so that a full disk is
 * said as such, and cb_term_finish() is the one place where every command's
 * standard output is flushed and checked before the process exits. */
#ifndef CB_TERMOUT_H
#define CB_TERMOUT_H

#include <stdio.h>

/* Put the escaping streams in place of stdout and stderr (main(), first). */
void cb_term_init(void);

/* Flush standard output and standard error; a write that failed there is
 * said on stderr and turns a 0 status into 1.  The status to exit with. */
int cb_term_finish(int status);

/* strerror for a failed write, in words that say what to do for a full
 * disk (ENOSPC), a file size limit (EFBIG) or a quota. */
const char *cb_write_strerror(int e);

/* The errno of the first failed write to f, when f is one of these streams
 * (0 when none failed, or f is another stream). */
int cb_term_errno(FILE *f);

#endif
