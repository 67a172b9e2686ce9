/* db_pg_wait.c — every wait on a PostgreSQL server bounded and
 * interruptible; see db_pg_wait.h. */
#include "config.h"

#ifdef HAVE_LIBPQ

#include "store/db_pg_wait.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/db_internal.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int cb_pg_timeout_s(void)
{
    const char *e = getenv("CB_PG_TIMEOUT");
    char *end;
    long v = e && *e ? strtol(e, &end, 10) : 0;
    return e && *e && *end == '\0' && v > 0 && v <= 86400 ? (int)v : CB_PG_TIMEOUT_S;
}

/* Wait for ev on fd until deadline, in slices short enough that a stop
 * signal ends the wait within a tenth of a second. */
static int wait_fd(int fd, short ev, double deadline)
{
    for (;;) {
        if (cb_db_stopped())
            return -EINTR;
        double left = deadline - now_s();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = ev};
        int r = poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -errno;
    }
}

/* The URL's connect_timeout (libpq enforces it only when it blocks), else
 * CB_PG_CONNECT_S. */
static int connect_timeout(PGconn *c)
{
    int secs = CB_PG_CONNECT_S;
    PQconninfoOption *o = PQconninfo(c);
    for (PQconninfoOption *p = o; p && p->keyword; p++)
        if (!strcmp(p->keyword, "connect_timeout") && p->val && atoi(p->val) > 0)
            secs = atoi(p->val);
    PQconninfoFree(o);
    return secs;
}

static void said_wait(int e, int secs, const char *what, struct cb_sb *why)
{
    if (e == -EINTR)
        cb_sb_setf(why, "interrupted while waiting for the PostgreSQL server (%s)", what);
    else if (e == -ETIMEDOUT)
        cb_sb_setf(why, "no answer from the PostgreSQL server in %d s (%s): a stopped or overloaded "
                   "server? %s waits longer", secs, what,
                   strcmp(what, "connecting") ? "CB_PG_TIMEOUT=SEC" : "connect_timeout=SEC in the URL");
    else
        cb_sb_setf(why, "waiting for the PostgreSQL server (%s): %s", what, strerror(-e));
}

/* The SQLSTATE a verbose connection error carries ("FATAL:  28P01: ..."),
 * into st[6]; the message without it and without its LOCATION line into
 * shown. */
static void parse_error(const char *msg, char st[6], struct cb_sb *shown)
{
    st[0] = '\0';
    for (const char *p = msg; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, "LOCATION:", 9) != 0) {
            const char *f = strstr(p, ":  ");
            if (f && f < p + n && f + 9 <= p + n && f[8] == ':' && !st[0]) {
                int ok = 1;
                for (int i = 3; i < 8; i++)
                    ok &= isdigit((unsigned char)f[i]) || isupper((unsigned char)f[i]);
                if (ok) {
                    memcpy(st, f + 3, 5);
                    st[5] = '\0';
                    cb_sb_add(shown, p, (size_t)(f + 3 - p));
                    cb_sb_add(shown, f + 10, n - (size_t)(f + 10 - p));
                    cb_sb_addc(shown, ' ');
                    p += n + (nl ? 1 : 0);
                    continue;
                }
            }
            cb_sb_add(shown, p, n);
            cb_sb_addc(shown, ' ');
        }
        p += n + (nl ? 1 : 0);
    }
    while (shown->len && shown->buf[shown->len - 1] == ' ')
        shown->buf[--shown->len] = '\0';
}

/* A refused connection's class, from the server's SQLSTATE (or libpq's
 * own "no password supplied"): what the user must fix in --db is -EACCES
 * (credentials) or -ENOENT (no such database), both usage errors; a server
 * that is not there or does not answer, -ECONNREFUSED or -ETIMEDOUT. */
static int classify(PGconn *c, const char *st)
{
    if (!strncmp(st, "28", 2))
        return -EACCES;     /* 28P01 wrong password, 28000 no such role or not allowed */
    if (!strcmp(st, "3D000"))
        return -ENOENT;     /* the database does not exist */
    if (!strncmp(st, "53", 2) || !strncmp(st, "57P03", 5))
        return -EBUSY;      /* too many connections, starting up */
    if (PQconnectionNeedsPassword(c))
        return -EACCES;
    return -ECONNREFUSED;
}

PGconn *cb_pg_connect(const char *url, const char *password, int *rc, struct cb_sb *why)
{
    const char *keys[3] = {"dbname", password ? "password" : NULL, NULL};
    const char *vals[3] = {url, password, NULL};
    PGconn *c = PQconnectStartParams(keys, vals, 1);
    if (!c) {
        cb_sb_setf(why, "out of memory");
        *rc = -ENOMEM;
        return NULL;
    }
    PQsetErrorVerbosity(c, PQERRORS_VERBOSE);
    int secs = connect_timeout(c);
    double deadline = now_s() + secs;
    PostgresPollingStatusType ps = PQstatus(c) == CONNECTION_BAD ? PGRES_POLLING_FAILED
                                                                  : PGRES_POLLING_WRITING;
    while (ps != PGRES_POLLING_OK && ps != PGRES_POLLING_FAILED) {
        int e = wait_fd(PQsocket(c), ps == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
        if (e < 0) {
            said_wait(e, secs, "connecting", why);
            *rc = e;
            PQfinish(c);
            return NULL;
        }
        ps = PQconnectPoll(c);
    }
    if (ps == PGRES_POLLING_OK) {
        PQsetErrorVerbosity(c, PQERRORS_DEFAULT);
        *rc = 0;
        return c;
    }
    char st[6];
    struct cb_sb shown = CB_SB_INIT;
    parse_error(PQerrorMessage(c), st, &shown);
    cb_sb_setf(why, "%s", shown.len ? shown.buf : "the connection failed");
    cb_sb_release(&shown);
    *rc = classify(c, st);
    PQfinish(c);
    return NULL;
}

PGresult *cb_pg_exec(PGconn *c, const char *sql, int params, int n, const Oid *types,
                     const char *const *vals, int *lost, struct cb_sb *why)
{
    int ok = params ? PQsendQueryParams(c, sql, n, types, vals, NULL, NULL, 0) : PQsendQuery(c, sql);
    if (!ok)
        return NULL;
    int secs = cb_pg_timeout_s();
    double deadline = now_s() + secs;
    PGresult *keep = NULL;
    for (;;) {
        while (PQisBusy(c)) {
            int e = wait_fd(PQsocket(c), POLLIN, deadline);
            if (e < 0) {
                said_wait(e, secs, "a statement", why);
                *lost = e;
                PQclear(keep);
                return NULL;
            }
            if (!PQconsumeInput(c)) {
                PQclear(keep);
                return NULL;
            }
        }
        PGresult *r = PQgetResult(c);
        if (!r)
            break;
        if (keep && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
            PQclear(r);         /* the first error is the one to say */
        } else {
            PQclear(keep);
            keep = r;
        }
    }
    return keep;
}

#endif
