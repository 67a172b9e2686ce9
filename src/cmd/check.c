/* check.c — `check [--db PATH]`: read every page of a store for damage.
 *
 * Opening a store no longer reads it whole (store/integrity.c says when it
 * does: after a collector ended uncleanly, before a migration, on a merge
 * source), so that a command costs the same on a year of runs as on one.
 * This is the full check on demand: PRAGMA integrity_check (b-trees, free
 * list and every index's contents), for a nightly job or after a disk
 * error.  Exit 0 sound, 1 damaged (or not checkable), 2 usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "store/store.h"

struct check_args {
    const char *db;
    int quiet;
};

static int check_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct check_args *a = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR(0, "db", struct check_args, db, "PATH",
                   "the store (default: $CB_DB, else ./" CB_DEFAULT_DB ")"),
        CB_OPT_BOOL('q', "quiet", struct check_args, quiet, "print only errors"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "check",
        .synopsis =
            "usage: cyclebudget check [--db PATH] [-q]\n"
            "  Read every page of the store for damage (SQLite's integrity_check: every\n"
            "  table, free list and index): exit 0 when it is sound, 1 when it is damaged\n"
            "  (the message says what to do).  Opening a store reads it whole only after a\n"
            "  collector ended uncleanly, before a migration, and for a merge source.\n",
        .options = options,
    };
    *a = (struct check_args){.db = cb_default_db()};
    int rc = cb_getopt(argc, argv, &parser, a, err);
    if (rc == 0 && optind < argc) {
        cb_sb_setf(err, "check takes no operand ('%s'): name the store with --db",
                 argv[optind]);
        return -EINVAL;
    }
    return rc;
}

/* Opened here rather than by cb_cmd_main: a store that its open already
 * finds damaged is this command's answer (1), not a usage error (2). */
static int check_body(void *ctx, struct cb_store *unused)
{
    (void)unused;
    const struct check_args *a = ctx;
    struct cb_sb err = CB_SB_INIT;
    long long pages;
    struct timespec t0, t1;
    struct cb_store *st;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = cb_store_open(a->db, CB_STORE_READ, 0, &st, &err);
    if (rc < 0) {
        cb_error("check: %s", err.buf);
        /* Damage is what check looks for: its finding, 1.  Anything else
         * that is not a store exits 2, as for every other command. */
        cb_sb_release(&err);
        return rc == -EBADMSG ? 1 : cb_store_refused(rc) ? CB_EXIT_USAGE : 1;
    }
    rc = cb_store_integrity(st, a->db, &pages, &err);
    cb_store_close(st);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == -EOPNOTSUPP) {
        if (!a->quiet)
            printf("%s\n", err.buf);
        cb_sb_release(&err);
        return 0;
    }
    if (rc < 0) {
        cb_error("check: %s", err.buf);
        cb_sb_release(&err);
        return 1;
    }
    if (!a->quiet)
        printf("%s: sound (%lld pages read in %.2f s)\n", a->db, pages,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    cb_sb_release(&err);
    return 0;
}

int cmd_check(int argc, char **argv)
{
    static const struct cb_cmd cmd = {check_parse, CB_EXIT_USAGE, NULL, 1, check_body};
    struct check_args a;
    return cb_cmd_main(&cmd, argc, argv, &a);
}
