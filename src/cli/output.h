/* output.h — where every `-o FILE` writes (report, race --emit, compare,
 * history).
 *
 * A regular file (or a new name) is written beside itself and renamed into
 * place when whole, so a failure never leaves half a file.  Anything else is
 * not ours to replace: a report run as root with `-o /dev/null` once turned
 * the system's /dev/null into a regular file.  So a character device, a FIFO
 * or a Unix socket is written straight to; a symlink is followed and the file
 * it names is written (the link stays); a directory or a block device is
 * refused.  A FIFO no process reads is refused rather than waited on. */
#ifndef CB_OUTPUT_H
#define CB_OUTPUT_H

#include <stdio.h>

#include "util/strbuf.h"

struct out_cookie;

struct cb_output {
    FILE *f;            /* write here */
    struct out_cookie *ck; /* what f writes through (NULL for stdout) */
    char *tmp;          /* the temporary file beside the target, or NULL */
    char *target;       /* what tmp is renamed to */
    const char *shown;  /* the name the user typed, for messages */
};

/* Whether path may be written at all, asked in a command's parse step so
 * that a refusal exits 2 before anything is written (`report -o
 * s.db --db s.db` replaced the store with a report, exit 0).  Refused: a
 * directory, a name whose directory does not exist, and anything that
 * resolves to store (the --db of the command; a postgresql:// URL has no
 * file), its -wal or its -shm, by name after following symlinks and by
 * st_dev/st_ino.  0, or a negative errno with the message added to err. */
int cb_output_guard(const char *path, const char *store, struct cb_sb *err);

/* cb_output_guard for a parse step: -EINVAL (a usage error) with the
 * message in err, or 0. */
int cb_output_check(const char *path, const char *store, struct cb_sb *err);

/* Open path ("-" or NULL: stdout) for writing, after cb_output_guard (again:
 * the names may have changed since).  0, or a negative errno with a message
 * for the user in err. */
int cb_output_open(struct cb_output *o, const char *path, const char *store, struct cb_sb *err);

/* Finish: ok nonzero and every write good -> the file is put in place; else
 * the temporary file is removed.  0, or a negative errno: err says why when
 * a write failed (with the errno of the write: a full disk, a file size
 * limit), or when ok and the rename failed; !ok alone leaves err as it is
 * (the caller has said its own failure). */
int cb_output_close(struct cb_output *o, int ok, struct cb_sb *err);

/* For a stop signal's handler (async-signal-safe): remove the temporary
 * file an output is being written to, if any. */
void cb_output_abandon(void);

/* Every command's stop signals before it says otherwise (main()): SIGINT,
 * SIGTERM and SIGHUP remove the -o file being written and exit 130; SIGXFSZ
 * is ignored, so that a write past ulimit -f fails with EFBIG and is said. */
void cb_catch_quit_signals(void);

#endif
