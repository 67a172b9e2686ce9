/* strbuf.h — a growable string, git's strbuf as the model, for messages and
 * SQL put together at run time.
 *
 * A fixed buffer (char err[512]) cut a long message or a long list of
 * suggestions without a word; a cb_sb grows instead.  buf is always a
 * NUL-terminated string, also before the first add (CB_SB_INIT).  When an
 * allocation fails the buffer keeps what it had and remembers it: adds then
 * do nothing, and cb_sb_error() says -ENOMEM, so a caller checks once, at
 * the end, rather than after every add.
 *
 * Errors travel as a struct cb_sb *err from the function that finds them to
 * the one that prints them.  The convention: a function that reports an
 * error SETS the message (cb_sb_setf: what was there is replaced, as
 * snprintf into the old fixed buffer did); one that adds context to a
 * message already there appends with cb_sb_addf.  err may be NULL when the
 * caller does not want the message: cb_sb_setf then does nothing.  The
 * caller owns the buffer and releases it (cb_sb_release). */
#ifndef CB_STRBUF_H
#define CB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct cb_sb {
    char *buf;
    size_t len;                 /* bytes in buf, not counting the NUL */
    size_t alloc;               /* 0: buf is the shared empty string */
    int oom;                    /* an allocation failed: what follows was dropped */
};

extern char cb_sb_empty[1];
#define CB_SB_INIT {cb_sb_empty, 0, 0, 0}

void cb_sb_init(struct cb_sb *sb);
/* Room for extra more bytes: 0, or -ENOMEM (and the buffer marked). */
int cb_sb_grow(struct cb_sb *sb, size_t extra);
void cb_sb_add(struct cb_sb *sb, const void *data, size_t n);
void cb_sb_adds(struct cb_sb *sb, const char *s);
void cb_sb_addc(struct cb_sb *sb, char c);
void cb_sb_addf(struct cb_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cb_sb_vaddf(struct cb_sb *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Replace the contents by the formatted message; sb may be NULL. */
void cb_sb_setf(struct cb_sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cb_sb_vsetf(struct cb_sb *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Items joined by sep: "a, b, c". */
void cb_sb_join(struct cb_sb *sb, const char *const *items, size_t n, const char *sep);
/* Empty again, keeping the memory (and forgetting a failed allocation). */
void cb_sb_reset(struct cb_sb *sb);
/* The string, now the caller's to free (NULL after a failed allocation);
 * the buffer is empty again. */
char *cb_sb_detach(struct cb_sb *sb);
void cb_sb_release(struct cb_sb *sb);
/* 0, or -ENOMEM when something was dropped. */
int cb_sb_error(const struct cb_sb *sb);

/* Copy into a caller's fixed buffer (the err, errlen of the older
 * interfaces): 0, or -ENOSPC when it had to be cut, in which case it ends
 * in "..." so that the reader sees it was. */
int cb_sb_copy(const struct cb_sb *sb, char *dst, size_t len);

#endif
