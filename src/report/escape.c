/* escape.c — outside text (tags, commit subjects, host names, notes) made
 * safe for each output: valid UTF-8 in every format, inert in HTML and
 * markdown, and no control character reaching a terminal.
 *
 * A tag is whatever bytes a user typed: `--tag $'\xff\xfe'` once made the
 * JSON, CSV and HTML reports invalid UTF-8 (Python's json.load refused
 * them), and a tag holding ESC [31m coloured the terminal of whoever read
 * the text report. */
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "util/strbuf.h"

size_t cb_utf8_len(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;  /* the second byte's range (RFC 3629) */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;   /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* U+0080..U+009F: C1 controls (0x9b is a CSI on many terminals). */
static int is_c1(const char *s, size_t n)
{
    return n == 2 && (unsigned char)s[0] == 0xc2 && (unsigned char)s[1] < 0xa0;
}

/* The one walk over outside text, for every plain-text form of it: each
 * valid UTF-8 sequence kept, except what `how` escapes; no fixed buffer,
 * so a long commit subject is never cut (two copies of this
 * walk wrote into buf[4096] and buf[2048]).  A control character is C0
 * (but tab), DEL or C1; it and a byte that is not UTF-8 are written as
 * \xNN, or a bad byte as U+FFFD with CB_ESC_FFFD; a line break as \n
 * unless CB_ESC_KEEP_NL. */
void cb_esc_add(struct cb_sb *out, const char *s, unsigned how)
{
    while (s && *s) {
        size_t n = cb_utf8_len(s);
        unsigned char c = (unsigned char)*s;
        if (n == 0 && (how & CB_ESC_FFFD)) {
            cb_sb_add(out, "\xef\xbf\xbd", 3);     /* U+FFFD for each bad byte */
            s++;
        } else if (c == '\n' && (how & CB_ESC_CTRL)) {
            if (how & CB_ESC_KEEP_NL)
                cb_sb_addc(out, '\n');
            else
                cb_sb_adds(out, "\\n");
            s++;
        } else if (n == 0 || ((how & CB_ESC_CTRL) && (is_c1(s, n) ||
                   (n == 1 && ((c < 0x20 && c != '\t') || c == 0x7f))))) {
            size_t k = n ? n : 1;   /* an invalid byte, or a control: its bytes */
            for (size_t i = 0; i < k; i++)
                cb_sb_addf(out, "\\x%02x", (unsigned char)s[i]);
            s += k;
        } else {
            cb_sb_add(out, s, n);
            s += n;
        }
    }
}

/* Into a caller's buffer (column labels that are cut to fit anyway). */
static void esc_copy(char *buf, size_t len, const char *s, unsigned how)
{
    struct cb_sb sb = CB_SB_INIT;
    cb_esc_add(&sb, s, how);
    if (len) {
        /* Cut at a sequence boundary: never half a character. */
        size_t o = 0;
        while (o < sb.len) {
            size_t n = cb_utf8_len(sb.buf + o);
            if (o + (n ? n : 1) >= len)
                break;
            o += n ? n : 1;
        }
        memcpy(buf, sb.buf, o);
        buf[o] = '\0';
    }
    cb_sb_release(&sb);
}

void cb_utf8_clean(char *buf, size_t len, const char *s)
{
    esc_copy(buf, len, s, CB_ESC_FFFD);
}

void cb_text_clean(char *buf, size_t len, const char *s)
{
    esc_copy(buf, len, s, CB_ESC_CTRL);
}

void cb_text_puts(FILE *out, const char *s)
{
    struct cb_sb sb = CB_SB_INIT;
    cb_esc_add(&sb, s, CB_ESC_CTRL);
    fwrite(sb.buf, 1, sb.len, out);
    cb_sb_release(&sb);
}

void cb_html_esc(FILE *out, const char *s)
{
    /* The characters markup gives a meaning, each with its entity. */
    static const char marked[] = "&<>\"'";
    static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
    while (s && *s) {
        size_t n = cb_utf8_len(s);
        const char *m = n == 1 ? strchr(marked, *s) : NULL;
        if (m)
            fputs(entity[m - marked], out);
        /* Control characters other than tab and newline, and bytes that are
         * not UTF-8, have no business in a page: U+FFFD. */
        else if (n == 0 || is_c1(s, n) || ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') ||
                 *s == 0x7f)
            fputs("&#xFFFD;", out);
        else
            fwrite(s, 1, n, out);
        s += n ? n : 1;
    }
}

void cb_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    unsigned char prev = 0;
    while (s && *s) {
        unsigned char ch = (unsigned char)*s;
        size_t n = cb_utf8_len(s);
        switch (ch) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            /* "</" is escaped too, so that JSON pasted into a <script> block
             * cannot close it; a byte that is not UTF-8 becomes U+FFFD. */
            if (n == 0)
                fputs("\\ufffd", out);
            else if (ch < 0x20 || ch == 0x7f)
                fprintf(out, "\\u%04x", ch);
            else if (ch == '/' && prev == '<')
                fputs("\\/", out);
            else
                fwrite(s, 1, n, out);
        }
        prev = ch;
        s += n ? n : 1;
    }
    fputc('"', out);
}

void cb_json_field(FILE *out, const char *lead, const char *s)
{
    fputs(lead, out);
    cb_json_str(out, s);
}

/* A code span nothing inside can close: a fence of one backtick more than
 * the longest run inside (CommonMark 6.1), padded with spaces when the text
 * starts or ends with one; in a table '|' escaped, since GFM splits cells on
 * it even inside code; line breaks and controls shown escaped. */
void cb_md_code(FILE *out, const char *s, int in_table)
{
    struct cb_sb sb = CB_SB_INIT;
    cb_esc_add(&sb, s, CB_ESC_CTRL);
    const char *buf = sb.buf;
    size_t run = 0, longest = 0;
    for (const char *p = buf; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t len = strlen(buf);
    int pad = len && (buf[0] == '`' || buf[len - 1] == '`' || buf[0] == ' ');
    for (size_t i = 0; i <= longest; i++)
        fputc('`', out);
    if (pad)
        fputc(' ', out);
    for (const char *p = buf; *p; p++) {
        if (*p == '|' && in_table)
            fputc('\\', out);
        fputc(*p, out);
    }
    if (pad)
        fputc(' ', out);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', out);
    cb_sb_release(&sb);
}

/* Plain markdown text: every ASCII punctuation markdown gives a meaning is
 * backslash-escaped (CommonMark 2.4), and '<' and '&' as entities, so that
 * no HTML, link, emphasis or table cell can start inside. */
void cb_md_text(FILE *out, const char *s)
{
    struct cb_sb sb = CB_SB_INIT;
    cb_esc_add(&sb, s, CB_ESC_CTRL);
    for (const char *p = sb.buf; *p; p++) {
        if (*p == '<')
            fputs("&lt;", out);
        else if (*p == '&')
            fputs("&amp;", out);
        else {
            if (strchr("\\`*_{}[]()#+-.!|>~", *p))
                fputc('\\', out);
            fputc(*p, out);
        }
    }
    cb_sb_release(&sb);
}
