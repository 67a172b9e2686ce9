/* secret.c — passwords in PostgreSQL URLs kept out of everything stored or
 * shown; see secret.h. */
#include "store/secret.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

struct secret {
    char *url;          /* the URL as the program now has it, no password */
    char *password;     /* percent-decoded */
};

static struct secret *secrets;
static size_t nsecrets;

static const char *next_url(const char *s)
{
    const char *a = strstr(s, "postgresql://"), *b = strstr(s, "postgres://");
    return !a ? b : !b ? a : a < b ? a : b;
}

static int hexval(char c)
{
    return isdigit((unsigned char)c) ? c - '0' : isxdigit((unsigned char)c) ? (tolower(c) - 'a' + 10) : -1;
}

static void add_decoded(struct cb_sb *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < n && (h = hexval(s[i + 1])) >= 0 && (l = hexval(s[i + 2])) >= 0) {
            cb_sb_addc(out, (char)(h * 16 + l));
            i += 2;
        } else {
            cb_sb_addc(out, s[i]);
        }
    }
}

static int is_secret_param(const char *p, size_t n)
{
    return (n > 9 && strncmp(p, "password=", 9) == 0) ||
           (n > 12 && strncmp(p, "sslpassword=", 12) == 0);
}

/* One URL at u, up to end, into out without its password; the password
 * (decoded) into pw, when it had one.  A password with a raw '@' is
 * userinfo up to the last '@' of the authority, so no tail of it is left
 * for the host (libpq splits at the first, and its message would show
 * the rest as a host name). */
static int strip_one(const char *u, const char *end, struct cb_sb *out, struct cb_sb *pw)
{
    int removed = 0;
    const char *p = strstr(u, "://") + 3;
    const char *auth_end = p;
    while (auth_end < end && *auth_end != '/' && *auth_end != '?')
        auth_end++;
    const char *at = NULL;
    for (const char *q = p; q < auth_end; q++)
        if (*q == '@')
            at = q;
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (colon) {
        cb_sb_add(out, u, (size_t)(colon - u));
        cb_sb_reset(pw);
        add_decoded(pw, colon + 1, (size_t)(at - colon - 1));
        u = at;
        removed = 1;
    }
    const char *query = memchr(auth_end, '?', (size_t)(end - auth_end));
    if (!query) {
        cb_sb_add(out, u, (size_t)(end - u));
        return removed;
    }
    cb_sb_add(out, u, (size_t)(query - u));
    int first = 1;
    for (const char *q = query + 1; q < end;) {
        const char *amp = memchr(q, '&', (size_t)(end - q));
        const char *e = amp ? amp : end;
        if (is_secret_param(q, (size_t)(e - q))) {
            const char *eq = memchr(q, '=', (size_t)(e - q));
            cb_sb_reset(pw);
            add_decoded(pw, eq + 1, (size_t)(e - eq - 1));
            removed = 1;
        } else if (e > q) {
            cb_sb_addc(out, first ? '?' : '&');
            cb_sb_add(out, q, (size_t)(e - q));
            first = 0;
        }
        q = amp ? amp + 1 : end;
    }
    return removed;
}

static void remember(const char *url, size_t n, const char *password)
{
    struct secret *s = realloc(secrets, (nsecrets + 1) * sizeof *s);
    if (!s)
        return;
    secrets = s;
    s[nsecrets].url = strndup(url, n);
    s[nsecrets].password = strdup(password);
    if (s[nsecrets].url && s[nsecrets].password)
        nsecrets++;
}

int cb_secret_strip(const char *in, struct cb_sb *out, int keep)
{
    int found = 0;
    while (in && *in) {
        const char *u = next_url(in);
        if (!u) {
            cb_sb_adds(out, in);
            break;
        }
        cb_sb_add(out, in, (size_t)(u - in));
        const char *end = u;
        while (*end && !isspace((unsigned char)*end) && *end != '\'' && *end != '"')
            end++;
        struct cb_sb pw = CB_SB_INIT;
        size_t at = out->len;
        if (strip_one(u, end, out, &pw)) {
            found++;
            if (keep)
                remember(out->buf + at, out->len - at, pw.buf);
        }
        cb_sb_release(&pw);
        in = end;
    }
    return found;
}

void cb_secret_args(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!next_url(argv[i]))
            continue;
        struct cb_sb out = CB_SB_INIT;
        size_t n = strlen(argv[i]);
        if (cb_secret_strip(argv[i], &out, 1) && !cb_sb_error(&out) && out.len <= n) {
            /* In place, so that ps and /proc/PID/cmdline no longer show it. */
            memcpy(argv[i], out.buf, out.len);
            memset(argv[i] + out.len, 0, n - out.len);
        }
        cb_sb_release(&out);
    }
}

void cb_secret_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !next_url(v))
        return;
    struct cb_sb out = CB_SB_INIT;
    if (cb_secret_strip(v, &out, 1) && !cb_sb_error(&out)) {
        /* A child cyclebudget (a rerun) still connects: through libpq's
         * own variable, which nothing prints. */
        if (nsecrets && !getenv("PGPASSWORD"))
            setenv("PGPASSWORD", secrets[nsecrets - 1].password, 1);
        setenv(name, out.buf, 1);
    }
    cb_sb_release(&out);
}

const char *cb_secret_for(const char *url)
{
    for (size_t i = nsecrets; i-- > 0;)
        if (strcmp(secrets[i].url, url) == 0)
            return secrets[i].password;
    return NULL;
}
