/* merge.c — `merge SRC.db... --into DST.db`: the runs of other stores into
 * one, so that history and compare see every host (store/merge.h says what
 * is copied and how a run is known).  Every source is checked before DST is
 * opened, so a bad argument writes nothing, not even an empty DST; then each
 * source is merged in its own transaction, and a source whose run clashes
 * with DST's is left out whole while the others go in. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "store/merge.h"
#include "store/store.h"

struct merge_args {
    const char *into;
    int quiet;
    char **srcs;
    int nsrcs;
};

static int merge_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct merge_args *a = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR('i', "into", struct merge_args, into, "DST.db",
                   "the store to merge into (created when missing)"),
        CB_OPT_BOOL('q', "quiet", struct merge_args, quiet, "print only errors"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "merge",
        .synopsis =
            "usage: cyclebudget merge SRC.db... --into DST.db [-q]\n"
            "  Copy every run of each SRC that DST lacks (with its cases, samples, events,\n"
            "  races, host, build and commit; and the sources' acks) into DST, one\n"
            "  transaction per source.  Runs are known by their UUID: merging again adds\n"
            "  nothing, and a run already in DST with other content is an error (exit 1;\n"
            "  nothing of that source is written).  Sources are only read: an older one is\n"
            "  migrated in a temporary copy.  Aborted runs are copied as aborted; runs\n"
            "  still running in a source are left out.  DST is created when missing.\n",
        .options = options,
    };
    *a = (struct merge_args){0};
    int rc = cb_getopt(argc, argv, &parser, a, err);
    if (rc != 0)
        return rc;
    a->srcs = argv + optind;
    a->nsrcs = argc - optind;
    if (!a->into || !*a->into) {
        cb_sb_setf(err, "merge needs --into DST.db: the store to merge into (created when "
                 "missing); see 'cyclebudget merge --help'");
        return -EINVAL;
    }
    if (a->nsrcs == 0) {
        cb_sb_setf(err, "merge needs at least one SRC.db to merge from; see 'cyclebudget "
                 "merge --help'");
        return -EINVAL;
    }
    return 0;
}

/* DST must not be one of the sources: merging a store into itself would
 * read what it writes. */
static int same_as_a_source(const struct merge_args *a)
{
    struct stat d, s;
    if (stat(a->into, &d) != 0)
        return 0;
    for (int i = 0; i < a->nsrcs; i++)
        if (stat(a->srcs[i], &s) == 0 && s.st_dev == d.st_dev && s.st_ino == d.st_ino) {
            cb_error("merge: %s is both a source and --into: give another DST", a->srcs[i]);
            return 1;
        }
    return 0;
}

static int open_status(int rc)
{
    return cb_store_refused(rc) ? CB_EXIT_USAGE : 1;
}

static void say_merged(const char *src, const struct cb_merge_stats *s)
{
    printf("%s: %zu run%s added", src, s->runs_added, s->runs_added == 1 ? "" : "s");
    if (s->aborted_added)
        printf(" (%zu aborted, kept as aborted)", s->aborted_added);
    printf(", %zu already present", s->runs_present);
    if (s->runs_renamed)
        printf(" (%zu of them recorded before runs had UUIDs, known by start and content)",
               s->runs_renamed);
    if (s->runs_running)
        printf(", %zu still running left out (merge again when it has ended)", s->runs_running);
    printf("; %zu case%s, %zu sample row%s, %zu event%s, %zu race%s; new: %zu host%s, %zu build%s, "
           "%zu commit%s, %zu ack%s",
           s->cases_added, s->cases_added == 1 ? "" : "s", s->samples_added,
           s->samples_added == 1 ? "" : "s", s->events_added, s->events_added == 1 ? "" : "s",
           s->races_added, s->races_added == 1 ? "" : "s", s->hosts_added,
           s->hosts_added == 1 ? "" : "s", s->builds_added, s->builds_added == 1 ? "" : "s",
           s->commits_added, s->commits_added == 1 ? "" : "s", s->acks_added,
           s->acks_added == 1 ? "" : "s");
    if (s->acks_kept)
        printf(" (%zu ack%s from DST's, DST's kept)", s->acks_kept,
               s->acks_kept == 1 ? " differs" : "s differ");
    printf("\n");
}

static int merge_all(const struct merge_args *a, struct cb_store **srcs)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *dst;
    int rc = cb_store_open(a->into, CB_STORE_WRITE, 0, &dst, &err);
    if (rc < 0) {
        cb_error("merge: %s", err.buf);
        cb_sb_release(&err);
        return open_status(rc);
    }
    int status = 0;
    size_t added = 0;
    for (int i = 0; i < a->nsrcs; i++) {
        struct cb_merge_stats s;
        rc = cb_store_merge(dst, srcs[i], a->srcs[i], &s, &err);
        if (rc < 0) {
            cb_error("merge: %s", err.buf);
            status = 1;
            continue;
        }
        added += s.runs_added;
        if (!a->quiet)
            say_merged(a->srcs[i], &s);
    }
    if (!a->quiet)
        printf("%s: %zu run%s added in all%s\n", a->into, added, added == 1 ? "" : "s",
               status ? "; a source was refused (above) and nothing of it written" : "");
    cb_store_close(dst);
    cb_sb_release(&err);
    return status;
}

static int merge_body(void *ctx, struct cb_store *unused)
{
    (void)unused;
    struct merge_args *a = ctx;
    /* merge_parse refused none; said again for the compiler, which on
     * aarch64 took a negative count into calloc's size (a warning). */
    if (same_as_a_source(a) || a->nsrcs <= 0)
        return CB_EXIT_USAGE;
    struct cb_store **srcs = calloc((size_t)a->nsrcs, sizeof *srcs);
    if (!srcs) {
        cb_error("merge: out of memory");
        return 1;
    }
    int status = 0;
    for (int i = 0; i < a->nsrcs && !status; i++) {
        struct cb_sb err = CB_SB_INIT;
        int rc = cb_store_open(a->srcs[i], CB_STORE_SNAPSHOT, 0, &srcs[i], &err);
        if (rc < 0) {
            cb_error("merge: source %s", err.buf);
            status = open_status(rc);
        }
        cb_sb_release(&err);
    }
    if (!status)
        status = merge_all(a, srcs);
    for (int i = 0; i < a->nsrcs; i++)
        cb_store_close(srcs[i]);
    free(srcs);
    return status;
}

int cmd_merge(int argc, char **argv)
{
    static const struct cb_cmd cmd = {merge_parse, CB_EXIT_USAGE, NULL, 0, merge_body};
    struct merge_args a;
    return cb_cmd_main(&cmd, argc, argv, &a);
}
