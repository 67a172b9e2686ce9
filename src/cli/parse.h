/* parse.h — strict parsing of what users type on the command line.
 *
 * Every parser rejects the whole input on the first bad token and says which
 * token and why: a benchmark that silently ran "4Q" as 4 bytes would store
 * a run nobody asked for. */
#ifndef CB_PARSE_H
#define CB_PARSE_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#define CB_SIZE_MAX_BYTES ((uint64_t)1 << 34)   /* 16 GiB: beyond any sane buffer */

/* "64", "4K", "4KiB", "1M", "1MiB", "2G" (binary multiples).  Rejects 0,
 * negatives, fractions, overflow, trailing junk.  0 or -EINVAL/-ERANGE with
 * a message. */
int cb_parse_size(const char *s, uint64_t *out, struct cb_sb *err);
/* Comma-separated sizes; returns the count (>= 1) or a negative errno. */
int cb_parse_size_list(const char *s, uint64_t *out, size_t max, struct cb_sb *err);
/* --cold-bytes: a size of at least 1 MiB, since less is not out of cache. */
int cb_parse_cold_bytes(const char *s, uint64_t *out, struct cb_sb *err);
/* A decimal integer in [min, max]; what names the option in messages. */
int cb_parse_long(const char *s, long min, long max, const char *what, long *out, struct cb_sb *err);
/* The same, into an int. */
int cb_parse_int(const char *s, int min, int max, const char *what, int *out, struct cb_sb *err);
/* "2" or "2%" as 0.02: digits and a point only, from 0 to 100. */
int cb_parse_percent(const char *s, const char *what, double *out, struct cb_sb *err);
/* A positive finite decimal number ("0.5", "2"); what names the option. */
int cb_parse_seconds(const char *s, const char *what, double *out, struct cb_sb *err);
/* Comma-separated names into a NULL-terminated array of pointers into a
 * strdup'd buffer (*storage, to free).  Rejects empty lists and empty
 * names.  Returns the count or a negative errno. */
int cb_parse_name_list(const char *s, const char *what, char ***names, char **storage, struct cb_sb *err);
/* Levenshtein distance, for "did you mean" suggestions. */
size_t cb_edit_distance(const char *a, const char *b);

#endif
