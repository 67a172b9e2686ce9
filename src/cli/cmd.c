/* cmd.c — what every subcommand shares: one-line messages, unknown options,
 * and "did you mean" suggestions (see cmd.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "store/db.h"
#include "cli/parse.h"
#include "harness/probe.h"
#include "report/report.h"
#include "store/store.h"
#include "util/strbuf.h"

const char *cb_default_db(void)
{
    const char *env = getenv("CB_DB");
    return env && *env ? env : CB_DEFAULT_DB;
}

/* mkdir -p of an absolute path, cut at each '/' in place and mended: what
 * is already there is fine, and what cannot be made the store's open says. */
static void make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    mkdir(path, 0777);
}

const char *cb_paired_db(struct cb_sb *sb)
{
    const char *env = getenv("CB_DB"), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (env && *env)
        return env;
    cb_sb_reset(sb);
    if (xdg && xdg[0] == '/')
        cb_sb_addf(sb, "%s/cyclebudget", xdg);
    else if (home && home[0] == '/')
        cb_sb_addf(sb, "%s/.local/share/cyclebudget", home);
    else
        return CB_DEFAULT_DB;
    make_dirs(sb->buf);
    cb_sb_adds(sb, "/" CB_DEFAULT_DB);
    return cb_sb_error(sb) ? CB_DEFAULT_DB : sb->buf;
}

void cb_error(const char *fmt, ...)
{
    /* Messages echo what was typed (a tag, a case, a --why): its control
     * bytes and bad UTF-8 are shown escaped, never sent to the terminal. */
    struct cb_sb msg = CB_SB_INIT, shown = CB_SB_INIT;
    va_list ap;
    va_start(ap, fmt);
    cb_sb_vaddf(&msg, fmt, ap);
    va_end(ap);
    cb_esc_add(&shown, msg.buf, CB_ESC_CTRL | CB_ESC_KEEP_NL);
    fprintf(stderr, "cyclebudget: %s\n", shown.buf);
    cb_sb_release(&msg);
    cb_sb_release(&shown);
}

int cb_option_error(const char *cmd, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    /* Within a group (-ab, -10G) getopt has not moved optind past the
     * word yet, so argv[optind - 1] is the word before it: the command's
     * name once.  The letter getopt stopped at is the one to name. */
    if (optopt && optopt < 256 && strncmp(arg, "--", 2) != 0)
        cb_error("%s: option -%c is unknown or needs a value; see 'cyclebudget %s --help'", cmd,
                   optopt, cmd);
    else
        cb_error("%s: option '%s' is unknown or needs a value; see 'cyclebudget %s --help'", cmd,
                   arg, cmd);
    return CB_EXIT_USAGE;
}

void cb_suggest_nearest(const char *bad, const char *const *names, size_t n, struct cb_sb *out)
{
    size_t best = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = cb_edit_distance(bad, names[i]);
        if (d < best)
            best = d;
    }
    size_t said = 0;
    for (size_t i = 0; i < n; i++)
        if (cb_edit_distance(bad, names[i]) <= best + 1) {
            cb_sb_addf(out, "%s%s", said ? ", " : "", names[i]);
            said++;
        }
}

void cb_suggest_probes(const char *bad, struct cb_sb *out)
{
    const char **names = malloc(cb_probe_count() * sizeof *names);
    if (!names)
        return;
    for (size_t i = 0; i < cb_probe_count(); i++)
        names[i] = cb_probe_at(i)->name;
    cb_suggest_nearest(bad, names, cb_probe_count(), out);
    free(names);
}

/* The variant names of one probe, or all, each once (several families share
 * avx2, glibc): a count, names malloc'd into *out. */
static size_t variant_names(const struct cb_probe *only, const char ***out)
{
    size_t cap = 0, n = 0;
    for (size_t i = 0; i < cb_probe_count(); i++)
        cap += cb_probe_at(i)->nvariants;
    const char **names = *out = malloc((cap ? cap : 1) * sizeof *names);
    if (!names)
        return 0;
    for (size_t i = 0; i < cb_probe_count(); i++) {
        const struct cb_probe *p = cb_probe_at(i);
        if (only && p != only)
            continue;
        for (size_t j = 0; j < p->nvariants; j++) {
            const char *v = p->variants[j].name;
            size_t k = 0;
            while (k < n && strcmp(names[k], v) != 0)
                k++;
            if (k == n && !(p->variants[j].flags & CB_VARIANT_TESTONLY))
                names[n++] = v;
        }
    }
    return n;
}

void cb_suggest_variants(const struct cb_probe *only, const char *bad, struct cb_sb *out)
{
    const char **names;
    size_t n = variant_names(only, &names);
    cb_suggest_nearest(bad, names, n, out);
    free(names);
}

int cb_parsed(int rc, struct cb_sb *err, int usage_status)
{
    if (rc == -EINVAL)
        cb_error("%s", err->buf);
    cb_sb_release(err);
    if (rc == 0)
        return CB_GO_ON;
    if (rc == 1)
        return 0;
    return usage_status;
}

void cb_quote_cmdline(int argc, char **argv, struct cb_sb *out)
{
    cb_sb_adds(out, "cyclebudget");
    for (int i = 0; i < argc; i++)
        cb_sb_addf(out, " %s", argv[i]);
}

int cb_open_store_read(const char *db, struct cb_store **st, int fail_status)
{
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_store_open(db, CB_STORE_READ, 0, st, &err);
    /* A reading command upgrades an older store it can write (the old
     * binary then refuses it): not silently. */
    if (rc == 0 && cb_store_upgraded_from(*st))
        fprintf(stderr, "cyclebudget: note: upgraded %s from schema %d to %d to read it; older "
                "cyclebudget binaries now refuse it\n", db, cb_store_upgraded_from(*st),
                cb_store_schema_latest());
    if (rc == 0)
        return 0;
    cb_error("%s", err.buf);
    cb_sb_release(&err);
    return cb_store_refused(rc) ? CB_EXIT_USAGE : fail_status;
}

int cb_cmd_main(const struct cb_cmd *c, int argc, char **argv, void *ctx)
{
    struct cb_sb err = CB_SB_INIT;
    int rc = cb_parsed(c->parse(argc, argv, ctx, &err), &err, c->usage_status);
    if (rc != CB_GO_ON)
        return rc;
    if (!c->db)
        return c->body(ctx, NULL);
    struct cb_store *st;
    if ((rc = cb_open_store_read(c->db(ctx), &st, c->open_fail_status)) != 0)
        return rc;
    rc = c->body(ctx, st);
    cb_store_close(st);
    return rc;
}

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    stop_flag = sig;
}

void cb_catch_stop_signals(int second_kills)
{
    struct sigaction sa = {.sa_handler = on_stop_signal, .sa_flags = second_kills ? SA_RESETHAND : 0};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    cb_db_set_stop_flag(&stop_flag);
}

volatile sig_atomic_t *cb_stop_flag(void)
{
    return &stop_flag;
}
