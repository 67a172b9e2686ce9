/* strbuf.c — a growable string (see strbuf.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

char cb_sb_empty[1];

void cb_sb_init(struct cb_sb *sb)
{
    *sb = (struct cb_sb)CB_SB_INIT;
}

int cb_sb_grow(struct cb_sb *sb, size_t extra)
{
    if (sb->oom)
        return -ENOMEM;
    if (extra >= (size_t)-1 / 2 - sb->len) {
        sb->oom = 1;
        return -ENOMEM;
    }
    size_t need = sb->len + extra + 1;
    if (need <= sb->alloc)
        return 0;
    size_t alloc = sb->alloc ? sb->alloc : 64;
    while (alloc < need)
        alloc *= 2;
    char *p = realloc(sb->alloc ? sb->buf : NULL, alloc);
    if (!p) {
        sb->oom = 1;
        return -ENOMEM;
    }
    if (!sb->alloc)
        p[0] = '\0';
    sb->buf = p;
    sb->alloc = alloc;
    return 0;
}

void cb_sb_add(struct cb_sb *sb, const void *data, size_t n)
{
    if (cb_sb_grow(sb, n) < 0)
        return;
    memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void cb_sb_adds(struct cb_sb *sb, const char *s)
{
    cb_sb_add(sb, s, strlen(s));
}

void cb_sb_addc(struct cb_sb *sb, char c)
{
    cb_sb_add(sb, &c, 1);
}

void cb_sb_vaddf(struct cb_sb *sb, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char probe[1];
    int n = vsnprintf(probe, 0, fmt, ap);
    if (n < 0 || cb_sb_grow(sb, (size_t)n) < 0) {
        if (n < 0)
            sb->oom = 1;   /* an encoding error: nothing sensible to add */
        va_end(again);
        return;
    }
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, again);
    va_end(again);
    sb->len += (size_t)n;
}

void cb_sb_addf(struct cb_sb *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cb_sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void cb_sb_vsetf(struct cb_sb *sb, const char *fmt, va_list ap)
{
    if (!sb)
        return;
    cb_sb_reset(sb);
    cb_sb_vaddf(sb, fmt, ap);
}

void cb_sb_setf(struct cb_sb *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cb_sb_vsetf(sb, fmt, ap);
    va_end(ap);
}

void cb_sb_join(struct cb_sb *sb, const char *const *items, size_t n, const char *sep)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            cb_sb_adds(sb, sep);
        cb_sb_adds(sb, items[i]);
    }
}

void cb_sb_reset(struct cb_sb *sb)
{
    sb->len = 0;
    sb->oom = 0;
    if (sb->alloc)
        sb->buf[0] = '\0';
}

char *cb_sb_detach(struct cb_sb *sb)
{
    char *s = sb->oom ? NULL : sb->alloc ? sb->buf : strdup("");
    if (sb->oom && sb->alloc)
        free(sb->buf);
    cb_sb_init(sb);
    return s;
}

void cb_sb_release(struct cb_sb *sb)
{
    if (sb->alloc)
        free(sb->buf);
    cb_sb_init(sb);
}

int cb_sb_error(const struct cb_sb *sb)
{
    return sb->oom ? -ENOMEM : 0;
}

int cb_sb_copy(const struct cb_sb *sb, char *dst, size_t len)
{
    if (len == 0)
        return -ENOSPC;
    if (sb->len < len) {
        memcpy(dst, sb->buf, sb->len + 1);
        return 0;
    }
    size_t keep = len > 4 ? len - 4 : 0;
    memcpy(dst, sb->buf, keep);
    snprintf(dst + keep, len - keep, "...");
    return -ENOSPC;
}
