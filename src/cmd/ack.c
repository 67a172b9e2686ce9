/* ack.c — `ack`: a regression somebody expected, with why.  An
 * acknowledged regression stays in compare and history, marked, but no
 * longer fails compare. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "sides.h"
#include "store.h"

static void ack_usage(FILE *out)
{
    fprintf(out,
            "usage: cyclebudget ack CASE COMMIT --why TEXT [--db PATH] [--repo DIR]\n"
            "       cyclebudget ack --list [--db PATH]\n"
            "  CASE    a case name probe/variant/size/mode, or a glob (csum/*/1500/warm)\n"
            "  COMMIT  the commit that made the change: a hash prefix or a git revision\n"
            "An acknowledged regression stays in compare and history, marked, but no longer\n"
            "fails compare.\n");
}

int cmd_ack(int argc, char **argv)
{
    static const struct option opts[] = {
        {"why", required_argument, 0, 'w'}, {"db", required_argument, 0, 'D'},
        {"repo", required_argument, 0, 'R'}, {"list", no_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},      {0, 0, 0, 0},
    };
    const char *why = NULL, *db = CB_DEFAULT_DB, *repo = NULL;
    int list = 0;
    char err[1024];
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'w': why = optarg; break;
        case 'D': db = optarg; break;
        case 'R': repo = optarg; break;
        case 'l': list = 1; break;
        case 'h': ack_usage(stdout); return 0;
        default: return cb_option_error("ack", argv);
        }
    }
    if (!list && argc - optind != 2) {
        snprintf(err, sizeof err, "ack needs a CASE and a COMMIT (got %d arguments); see 'cyclebudget ack --help'",
                 argc - optind);
        goto usage_err;
    }
    if (!list && (!why || strspn(why, " \t\n") == strlen(why))) {
        snprintf(err, sizeof err, "ack needs --why \"...\": say why the change is expected, for whoever sees it next");
        goto usage_err;
    }
    struct cb_store *st;
    if (cb_store_open(db, CB_STORE_READ, 0, &st, err, sizeof err) < 0)
        goto usage_err;
    sqlite3 *h = cb_store_sqlite(st);
    sqlite3_stmt *q;
    int status = 1;
    if (list) {
        if (sqlite3_prepare_v2(h, "SELECT case_glob, substr(commit_hash, 1, 12), created, why FROM acks ORDER BY id",
                               -1, &q, NULL) != SQLITE_OK)
            goto sqlfail;
        while (sqlite3_step(q) == SQLITE_ROW)
            printf("%-34s %s  %.19s  %s\n", sqlite3_column_text(q, 0), sqlite3_column_text(q, 1),
                   sqlite3_column_text(q, 2), sqlite3_column_text(q, 3));
        sqlite3_finalize(q);
        cb_store_close(st);
        return 0;
    }
    const char *glob = argv[optind];
    /* A glob that matches nothing is a typo, not an acknowledgement. */
    if (sqlite3_prepare_v2(h, "SELECT DISTINCT probe, variant, size, mode FROM cases", -1, &q, NULL) != SQLITE_OK)
        goto sqlfail;
    int hits = 0;
    while (!hits && sqlite3_step(q) == SQLITE_ROW) {
        char key[CB_CASE_KEY_MAX];
        cb_case_key(key, sizeof key, (const char *)sqlite3_column_text(q, 0),
                    (const char *)sqlite3_column_text(q, 1), (uint64_t)sqlite3_column_int64(q, 2),
                    (const char *)sqlite3_column_text(q, 3));
        hits = fnmatch(glob, key, 0) == 0;
    }
    sqlite3_finalize(q);
    if (!hits) {
        snprintf(err, sizeof err, "case '%s' matches no case in %s (names look like csum/adc-1chain/1500/warm)", glob, db);
        cb_store_close(st);
        goto usage_err;
    }
    char hash[64];
    if (cb_commit_resolve(st, argv[optind + 1], repo, hash, sizeof hash, err, sizeof err) < 0) {
        cb_store_close(st);
        goto usage_err;
    }
    if (sqlite3_prepare_v2(h, "INSERT INTO acks (case_glob, commit_hash, why) VALUES (?1, ?2, ?3) "
                              "ON CONFLICT (case_glob, commit_hash) DO UPDATE SET why = excluded.why, "
                              "created = excluded.created",
                           -1, &q, NULL) != SQLITE_OK)
        goto sqlfail;
    sqlite3_bind_text(q, 1, glob, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, why, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        goto sqlfail;
    printf("acknowledged %s at %.12s: %s\n", glob, hash, why);
    cb_store_close(st);
    return 0;
sqlfail:
    cb_die_msg("cannot record the acknowledgement in %s: %s", db, sqlite3_errmsg(h));
    cb_store_close(st);
    return status;
usage_err:
    cb_die_msg("%s", err);
    return CB_EXIT_USAGE;
}
