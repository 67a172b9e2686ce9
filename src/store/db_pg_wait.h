/* db_pg_wait.h — every wait on a PostgreSQL server bounded and
 * interruptible.
 *
 * libpq's blocking calls wait in poll() with no end: a server stopped with
 * SIGSTOP held `run` for 80 s and more, with SIGINT and SIGTERM doing
 * nothing (the stop handler only raises a flag).  So the connection is
 * made with PQconnectStartParams/PQconnectPoll and each statement sent with
 * PQsendQuery(Params), and the waits between are poll() slices of 0.1 s
 * that end when the store's stop flag is raised (-EINTR) or the time is up
 * (-ETIMEDOUT): CB_PG_CONNECT_S to connect, CB_PG_TIMEOUT seconds (default
 * CB_PG_TIMEOUT_S) for a statement's answer.  A server-side
 * statement_timeout would not help: a stopped server enforces nothing.
 *
 * A refused connection is classed by the server's SQLSTATE (asked for with
 * verbose errors while connecting), not by matching libpq's words: see
 * cb_pg_connect. */
#ifndef CB_DB_PG_WAIT_H
#define CB_DB_PG_WAIT_H

#include <libpq-fe.h>

#include "util/strbuf.h"

#define CB_PG_CONNECT_S 10
#define CB_PG_TIMEOUT_S 120

/* The statement timeout: $CB_PG_TIMEOUT seconds, else CB_PG_TIMEOUT_S. */
int cb_pg_timeout_s(void);

/* Connect to url (a password kept apart from it, or NULL).  The connection,
 * or NULL with *rc and why set: -EACCES the credentials were refused (a
 * wrong or missing password, no such role: SQLSTATE class 28), -ENOENT no
 * such database (3D000), -EBUSY too many connections or starting up,
 * -ECONNREFUSED the server is not there, -ETIMEDOUT no answer in
 * CB_PG_CONNECT_S, -EINTR stopped by a signal. */
PGconn *cb_pg_connect(const char *url, const char *password, int *rc, struct cb_sb *why);

/* Send sql (with params: as PQexecParams, n values of types; without: as
 * PQexec, several statements allowed) and wait for every result.  The last
 * result, or the first that failed; NULL when it could not be sent (the
 * reason is libpq's PQerrorMessage) or the wait ended: then *lost is
 * -EINTR or -ETIMEDOUT and why says which (the connection is then unusable). */
PGresult *cb_pg_exec(PGconn *c, const char *sql, int params, int n, const Oid *types,
                     const char *const *vals, int *lost, struct cb_sb *why);

#endif
