/* termout.c — stdout and stderr as escaping streams; see termout.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "cli/termout.h"

struct term {
    int fd;
    int tty;            /* a terminal: CSI K (clear the line) and CR pass */
    int color;          /* and colour is on (not NO_COLOR): CSI m passes too */
    int err;            /* the errno of the first failed write */
    size_t ncarry;      /* an incomplete sequence kept for the next write */
    char carry[24];
};

static struct term out_term = {.fd = 1}, err_term = {.fd = 2};
static FILE *out_stream, *err_stream;

#define CSI_MAX 16

/* An allowed CSI at s (n bytes there): ESC [ digits and ';', then K, or m
 * with colour on.  Its length, 0 when it is not one, -1 when more bytes are
 * needed. */
static int csi_len(const struct term *t, const char *s, size_t n)
{
    if (n < 2)
        return -1;
    if (s[1] != '[')
        return 0;
    for (size_t i = 2; i < n && i < CSI_MAX; i++) {
        char c = s[i];
        if ((c == 'm' && t->color) || c == 'K')
            return (int)i + 1;
        if (!((c >= '0' && c <= '9') || c == ';'))
            return 0;
    }
    return n < CSI_MAX ? -1 : 0;
}

/* The UTF-8 sequence at s (n bytes there): its length, 0 for a byte that
 * begins none, -1 for the start of one cut by the end of the buffer. */
static int seq_len(const char *s, size_t n)
{
    char tmp[5] = {0};
    memcpy(tmp, s, n < 4 ? n : 4);
    size_t k = cb_utf8_len(tmp);
    if (k)
        return (int)k;
    unsigned char c = (unsigned char)s[0];
    size_t need = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    if (need <= n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((unsigned char)s[i] < 0x80 || (unsigned char)s[i] > 0xbf)
            return 0;
    return -1;
}

/* Escape s[0..n) into out as cb_esc_add does (line breaks kept); the bytes
 * used (the rest is a sequence cut short, unless final). */
static size_t walk(const struct term *t, const char *s, size_t n, int final, struct cb_sb *out)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        int k = c == 0x1b && t->tty ? csi_len(t, s + i, n - i) : seq_len(s + i, n - i);
        if (k < 0 && !final)
            break;
        if (c == 0x1b && t->tty && k > 0) {
            cb_sb_add(out, s + i, (size_t)k);
            i += (size_t)k;
            continue;
        }
        if (c == '\r' && i + 1 == n && !final && !t->tty)
            break;              /* CR LF (CSV's line end) or a bare CR: the next byte says */
        if (c == 0x1b || k < 0)
            k = 0;
        int cr_ok = c == '\r' && (t->tty || (i + 1 < n && s[i + 1] == '\n'));
        int ctrl = (k == 1 && ((c < 0x20 && c != '\t' && c != '\n' && !cr_ok) || c == 0x7f)) ||
                   (k == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0);
        if (k == 0 || ctrl) {
            size_t m = k ? (size_t)k : 1;
            for (size_t j = 0; j < m; j++)
                cb_sb_addf(out, "\\x%02x", (unsigned char)s[i + j]);
            i += m;
        } else {
            cb_sb_add(out, s + i, (size_t)k);
            i += (size_t)k;
        }
    }
    return i;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int emit(struct term *t, const char *buf, size_t size, int final)
{
    struct cb_sb in = CB_SB_INIT, out = CB_SB_INIT;
    cb_sb_add(&in, t->carry, t->ncarry);
    cb_sb_add(&in, buf, size);
    size_t used = walk(t, in.buf, in.len, final, &out);
    t->ncarry = in.len - used;
    memcpy(t->carry, in.buf + used, t->ncarry);
    int rc = cb_sb_error(&in) ? cb_sb_error(&in) : cb_sb_error(&out);
    if (rc == 0)
        rc = write_all(t->fd, out.buf, out.len);
    cb_sb_release(&in);
    cb_sb_release(&out);
    if (rc < 0 && !t->err)
        t->err = -rc;
    return rc;
}

static ssize_t term_write(void *cookie, const char *buf, size_t size)
{
    int rc = emit(cookie, buf, size, 0);
    if (rc < 0) {
        errno = -rc;
        return -1;
    }
    return (ssize_t)size;
}

static int term_close(void *cookie)
{
    struct term *t = cookie;
    return t->ncarry && emit(t, "", 0, 1) < 0 ? -1 : 0;
}

static FILE *term_open(struct term *t, int mode)
{
    t->tty = isatty(t->fd);
    t->color = t->tty && cb_report_want_color(t->fd);
    FILE *f = fopencookie(t, "w", (cookie_io_functions_t){.write = term_write, .close = term_close});
    if (f)
        setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
    return f;
}

void cb_term_init(void)
{
    FILE *o = term_open(&out_term, isatty(1) ? _IOLBF : _IOFBF);
    FILE *e = term_open(&err_term, _IONBF);
    if (o)
        stdout = out_stream = o;
    if (e)
        stderr = err_stream = e;
}

const char *cb_write_strerror(int e)
{
    switch (e) {
    case ENOSPC:
        return "no space left on the device: free some space there, or write elsewhere";
    case EFBIG:
        return "file too large: the file size limit (ulimit -f) or the filesystem's largest file "
               "was reached";
    case EDQUOT:
        return "disk quota exceeded: free some space, or write elsewhere";
    default:
        return strerror(e);
    }
}

int cb_term_errno(FILE *f)
{
    struct term *t = f && f == out_stream ? &out_term : f && f == err_stream ? &err_term : NULL;
    return t ? t->err : 0;
}

int cb_term_finish(int status)
{
    int bad = fflush(stdout) != 0 || ferror(stdout);
    if (out_stream && out_term.ncarry)
        bad |= emit(&out_term, "", 0, 1) < 0;
    if (bad) {
        int e = cb_term_errno(stdout) ? cb_term_errno(stdout) : EIO;
        cb_error("cannot write the output to standard output: %s", cb_write_strerror(e));
        if (status == 0)
            status = 1;
    }
    fflush(stderr);
    return status;
}
