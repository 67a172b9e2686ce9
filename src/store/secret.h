/* secret.h — passwords in PostgreSQL URLs kept out of everything stored or
 * shown.
 *
 * `--db postgresql://cb:secret@host/db` (or `?password=secret`) was stored
 * in runs.cmdline, shown by the JSON and HTML reports and echoed by error
 * messages.  Redacting each place that prints a URL would miss one, so the
 * password is taken out of the URL before anything sees it: main() strips
 * it from argv (in place, so that ps no longer shows it either) and from
 * CB_DB, and keeps it here beside the URL it came from; the PostgreSQL
 * backend gives it to libpq apart from the URL (cb_secret_for).  Every
 * other part of the program only ever has the URL without it.  What was
 * already stored by an older cyclebudget is stripped when read back
 * (cb_secret_strip over a cmdline). */
#ifndef CB_SECRET_H
#define CB_SECRET_H

struct cb_sb;

/* Add in to out with every postgres(ql):// URL in it without its password
 * (user:PASSWORD@ and the password= and sslpassword= parameters).  With
 * keep, each URL's password is kept for cb_secret_for.  The number of
 * URLs that had one. */
int cb_secret_strip(const char *in, struct cb_sb *out, int keep);

/* Strip every argument in place, keeping the passwords (main(), first). */
void cb_secret_args(int argc, char **argv);

/* The same for the environment variable name (CB_DB); a password found
 * there is also put in PGPASSWORD when that is unset, for child processes. */
void cb_secret_env(const char *name);

/* The password taken from url (as stripped), or NULL. */
const char *cb_secret_for(const char *url);

#endif
