/* parse.c — strict command-line value parsing (see parse.h). */
#include "cli/parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cb_parse_size(const char *s, uint64_t *out, struct cb_sb *err)
{
    if (!s || !*s) {
        cb_sb_setf(err, "empty size: give bytes like 64, 1500, 4K or 4M");
        return -EINVAL;
    }
    const char *p = s;
    if (!isdigit((unsigned char)*p)) {
        cb_sb_setf(err, "size '%s' is not a positive whole number of bytes (e.g. 64, 1500, 4K, 4M)", s);
        return -EINVAL;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE) {
        cb_sb_setf(err, "size '%s' is too large (at most 16G)", s);
        return -ERANGE;
    }
    uint64_t mult = 1;
    if (*end) {
        static const struct {
            const char *suffix;
            uint64_t mult;
        } units[] = {
            {"b", 1},          {"k", 1 << 10},         {"kb", 1 << 10},
            {"kib", 1 << 10},  {"m", 1 << 20},         {"mb", 1 << 20},
            {"mib", 1 << 20},  {"g", (uint64_t)1 << 30}, {"gb", (uint64_t)1 << 30},
            {"gib", (uint64_t)1 << 30},
        };
        size_t i;
        for (i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strcasecmp(end, units[i].suffix) == 0)
                break;
        if (i == sizeof units / sizeof units[0]) {
            cb_sb_setf(err, "size '%s' has an unknown unit '%s': use K, M or G (binary), e.g. 4K", s, end);
            return -EINVAL;
        }
        mult = units[i].mult;
    }
    if (v == 0) {
        cb_sb_setf(err, "size '%s' is zero: sizes must be at least 1 byte", s);
        return -EINVAL;
    }
    if (v > CB_SIZE_MAX_BYTES / mult) {
        cb_sb_setf(err, "size '%s' is too large (at most 16G)", s);
        return -ERANGE;
    }
    *out = v * mult;
    return 0;
}

int cb_parse_size_list(const char *s, uint64_t *out, size_t max, struct cb_sb *err)
{
    if (!s || !*s) {
        cb_sb_setf(err, "empty size list: give sizes like 64,1500,4K");
        return -EINVAL;
    }
    size_t n = 0;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char tok[64];
        if (len == 0) {
            cb_sb_setf(err, "size list '%s' has an empty entry", s);
            return -EINVAL;
        }
        if (len >= sizeof tok) {
            cb_sb_setf(err, "size '%.*s' is too long", (int)(len > 40 ? 40 : len), p);
            return -EINVAL;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (n == max) {
            cb_sb_setf(err, "too many sizes (at most %zu)", max);
            return -E2BIG;
        }
        int rc = cb_parse_size(tok, &out[n], err);
        if (rc < 0)
            return rc;
        n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return (int)n;
}

int cb_parse_long(const char *s, long min, long max, const char *what, long *out, struct cb_sb *err)
{
    if (!s || !*s) {
        cb_sb_setf(err, "%s: empty value: give a whole number from %ld to %ld", what, min, max);
        return -EINVAL;
    }
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s) {
        cb_sb_setf(err, "%s: '%s' is not a whole number (from %ld to %ld)", what, s, min, max);
        return -EINVAL;
    }
    if (errno == ERANGE || v < min || v > max) {
        cb_sb_setf(err, "%s: %s is out of range: give %ld to %ld", what, s, min, max);
        return -ERANGE;
    }
    *out = v;
    return 0;
}

int cb_parse_int(const char *s, int min, int max, const char *what, int *out, struct cb_sb *err)
{
    long v;
    int rc = cb_parse_long(s, min, max, what, &v, err);
    if (rc == 0)
        *out = (int)v;
    return rc;
}

int cb_parse_percent(const char *s, const char *what, double *out, struct cb_sb *err)
{
    size_t n = s ? strlen(s) : 0;
    if (n && s[n - 1] == '%')
        n--;
    /* Digits and a point only: strtod alone would take " 2", "1e1" or "0x2". */
    if (n == 0 || n > 32 || strspn(s, "0123456789.") != n)
        goto bad;
    char buf[40], *end;
    memcpy(buf, s, n);
    buf[n] = '\0';
    double v = strtod(buf, &end);
    if (*end || !isfinite(v) || v < 0 || v > 100)
        goto bad;
    *out = v / 100;
    return 0;
bad:
    cb_sb_setf(err, "%s '%s': give a percentage from 0 to 100, e.g. 2 or 2%%", what, s ? s : "");
    return -EINVAL;
}

int cb_parse_seconds(const char *s, const char *what, double *out, struct cb_sb *err)
{
    char *end;
    if (!s || !*s) {
        cb_sb_setf(err, "%s: empty value: give seconds, e.g. 0.5", what);
        return -EINVAL;
    }
    double v = strtod(s, &end);
    if (*end || end == s || !isfinite(v) || v <= 0 || v > 86400) {
        cb_sb_setf(err, "%s: '%s' is not a number of seconds between 0 and 86400 (e.g. 0.5)", what, s);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

int cb_parse_name_list(const char *s, const char *what, char ***names, char **storage, struct cb_sb *err)
{
    *names = NULL;
    *storage = NULL;
    if (!s || !*s) {
        cb_sb_setf(err, "%s: empty list: give one or more names separated by commas", what);
        return -EINVAL;
    }
    char *buf = strdup(s);
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    char **v = calloc(cap + 1, sizeof *v);
    if (!buf || !v) {
        free(buf);
        free(v);
        return -ENOMEM;
    }
    size_t n = 0;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!*p) {
            cb_sb_setf(err, "%s: list '%s' has an empty name", what, s);
            free(buf);
            free(v);
            return -EINVAL;
        }
        v[n++] = p;
        if (!comma)
            break;
        p = comma + 1;
    }
    v[n] = NULL;
    *names = v;
    *storage = buf;
    return (int)n;
}

size_t cb_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return la > lb ? la : lb;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int cb_parse_cold_bytes(const char *s, uint64_t *out, struct cb_sb *err)
{
    int rc = cb_parse_size(s, out, err);
    if (rc < 0)
        return rc;
    if (*out < (1u << 20)) {
        cb_sb_setf(err, "--cold-bytes %s is too small to be out of cache: give at least 1M", s);
        return -EINVAL;
    }
    return 0;
}
