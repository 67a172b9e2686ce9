/* ack.c — `ack`: a regression somebody expected, with why.  An
 * acknowledged regression stays in compare and history, marked, but no
 * longer fails compare. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include "store/db.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "store/lookup.h"
#include "report/report.h"
#include "analysis/sides.h"
#include "store/store.h"

struct ack_args {
    const char *why, *db, *repo;
    int list;
    const char *glob, *rev;   /* CASE and COMMIT, unless --list */
};

/* cb_getopt's 0, 1, -EINVAL (err set) or -ENOENT. */
static int ack_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct ack_args *a = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR(0, "why", struct ack_args, why, "TEXT",
                   "why the change is expected, for whoever sees it next (required)"),
        CB_OPT_BOOL(0, "list", struct ack_args, list, "list the acknowledgements instead"),
        CB_OPT_STR(0, "db", struct ack_args, db, "PATH", "database (default ./" CB_DEFAULT_DB ")"),
        CB_OPT_STR(0, "repo", struct ack_args, repo, "DIR",
                   "git tree for resolving COMMIT (default .)"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "ack",
        .synopsis =
            "usage: cyclebudget ack CASE COMMIT --why TEXT [--db PATH] [--repo DIR]\n"
            "       cyclebudget ack --list [--db PATH]\n"
            "  CASE    a case name probe/variant/size/mode, or a glob (csum/*/1500/warm)\n"
            "  COMMIT  the commit that made the change: a hash prefix or a git revision\n",
        .options = options,
        .footer = "An acknowledged regression stays in compare and history, marked, but no longer\n"
                  "fails compare.\n",
    };
    *a = (struct ack_args){.db = cb_default_db()};
    int rc = cb_getopt(argc, argv, &parser, a, err);
    if (rc != 0 || a->list)
        return rc;
    if (argc - optind != 2) {
        cb_sb_setf(err, "ack needs a CASE and a COMMIT (got %d arguments); see 'cyclebudget ack --help'",
                 argc - optind);
        return -EINVAL;
    }
    if (!a->why || strspn(a->why, " \t\n") == strlen(a->why)) {
        cb_sb_setf(err, "ack needs --why \"...\": say why the change is expected, for whoever sees it next");
        return -EINVAL;
    }
    a->glob = argv[optind];
    a->rev = argv[optind + 1];
    return 0;
}

static int print_ack(const struct cb_store_ack *a, void *ctx)
{
    (void)ctx;
    /* The glob and the why are what a user typed: no control byte of theirs
     * reaches the terminal of whoever lists them. */
    struct cb_sb glob = CB_SB_INIT, why = CB_SB_INIT;
    cb_esc_add(&glob, a->glob, CB_ESC_CTRL);
    cb_esc_add(&why, a->why, CB_ESC_CTRL);
    printf("%-34s %.12s  %.19s  %s\n", glob.buf, a->commit, a->created, why.buf);
    cb_sb_release(&glob);
    cb_sb_release(&why);
    return 0;
}

/* 1 (stop) when the case matches the glob ctx. */
static int glob_hit(const char *probe, const char *variant, uint64_t size, const char *mode,
                    void *ctx)
{
    char key[CB_CASE_KEY_MAX];
    cb_case_key(key, sizeof key, probe, variant, size, mode);
    return fnmatch((const char *)ctx, key, 0) == 0;
}

/* A glob that matches nothing is a typo, not an acknowledgement: 1 when it
 * matches a case, 0 when not, -EIO. */
static int ack_glob_hits(struct cb_store *st, const char *glob)
{
    return cb_store_each_case_key(st, glob_hit, (void *)glob);
}

/* Check the case and the commit, then record it: an exit status. */
static int ack_record(struct cb_store *st, const struct ack_args *a)
{
    struct cb_db *h = cb_store_db(st);
    char hash[64];
    struct cb_sb err = CB_SB_INIT;
    int hits = ack_glob_hits(st, a->glob);
    if (hits == 0) {
        cb_error("case '%s' matches no case in %s (names look like csum/adc-1chain/1500/warm)", a->glob, a->db);
        return CB_EXIT_USAGE;
    }
    if (hits > 0 && cb_commit_resolve(st, a->rev, a->repo, hash, sizeof hash, &err) < 0) {
        cb_error("%s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    if (hits < 0 || cb_store_ack_put(st, a->glob, hash, a->why) < 0) {
        cb_error("cannot record the acknowledgement in %s: %s", a->db, cb_db_errmsg(h));
        cb_sb_release(&err);
        return 1;
    }
    fputs("acknowledged ", stdout);
    cb_text_puts(stdout, a->glob);
    printf(" at %.12s: ", hash);
    cb_text_puts(stdout, a->why);
    fputc('\n', stdout);
    cb_sb_release(&err);
    return 0;
}

static const char *ack_db(const void *ctx)
{
    return ((const struct ack_args *)ctx)->db;
}

static int ack_body(void *ctx, struct cb_store *st)
{
    struct ack_args *a = ctx;
    if (!a->list)
        return ack_record(st, a);
    if (cb_store_each_ack(st, 0, print_ack, NULL) == 0)
        return 0;
    cb_error("cannot record the acknowledgement in %s: %s", a->db, cb_db_errmsg(cb_store_db(st)));
    return 1;
}

int cmd_ack(int argc, char **argv)
{
    static const struct cb_cmd cmd = {ack_parse, CB_EXIT_USAGE, ack_db, CB_EXIT_USAGE, ack_body};
    struct ack_args a;
    return cb_cmd_main(&cmd, argc, argv, &a);
}
