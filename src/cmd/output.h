/* output.h — where every `-o FILE` writes (report, race --emit, compare,
 * history).
 *
 * A regular file (or a new name) is written beside itself and renamed into
 * place when whole, so a failure never leaves half a file.  Anything else is
 * not ours to replace: a report run as root with `-o /dev/null` once turned
 * the system's /dev/null into a regular file.  So a character device, a FIFO
 * or a Unix socket is written straight to; a symlink is followed and the file
 * it names is written (the link stays); a directory or a block device is
 * refused. */
#ifndef CB_OUTPUT_H
#define CB_OUTPUT_H

#include <stdio.h>

struct cb_output {
    FILE *f;            /* write here */
    char *tmp;          /* the temporary file beside the target, or NULL */
    char *target;       /* what tmp is renamed to */
    const char *shown;  /* the name the user typed, for messages */
};

/* Open path ("-" or NULL: stdout) for writing.  0, or a negative errno with
 * a message for the user in err. */
int cb_output_open(struct cb_output *o, const char *path, char *err, size_t errlen);

/* Finish: ok nonzero and every write good -> the file is put in place; else
 * the temporary file is removed.  0, or a negative errno with err set. */
int cb_output_close(struct cb_output *o, int ok, char *err, size_t errlen);

#endif
