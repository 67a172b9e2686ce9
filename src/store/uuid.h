/* uuid.h — a run's name beyond its database: a random UUID (RFC 9562 v4).
 *
 * runs.id numbers rows of one file; two stores collected apart both have a
 * run 1.  The UUID is drawn when a run begins and travels with it through
 * `cyclebudget merge`, which tells a run it already holds by it. */
#ifndef CB_UUID_H
#define CB_UUID_H

#include <stddef.h>

#define CB_UUID_LEN 36   /* "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx", without the NUL */

/* A version 4 UUID from getrandom(2), canonical lower-case, into
 * buf[CB_UUID_LEN + 1]: 0, or a negative errno (no entropy available). */
int cb_uuid_v4(char *buf, size_t len);

/* 1 when s is a UUID in that canonical form (any version), else 0. */
int cb_uuid_valid(const char *s);

#endif
