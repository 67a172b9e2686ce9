/* lookup.h — the small questions commands and analyses ask the store about
 * runs, commits and acknowledgements, as functions, so that no SQL is
 * written outside src/store/ (the same "SELECT cpu FROM runs" was prepared
 * in two commands).  The walks hand each row to a callback: it returns 0 to
 * go on, or a positive value to stop, which the walk returns. */
#ifndef CB_STORE_LOOKUP_H
#define CB_STORE_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

struct cb_store;

/* The CPU run was pinned to, or -1 when the run or its CPU is unknown. */
int cb_store_run_cpu(struct cb_store *st, int64_t run);

struct cb_sb;
/* The command line run stored (runs.cmdline) and what identified its code
 * (runs.code_what, "" before schema 20), added to the two buffers.  0,
 * -ENOENT no such run, or -EIO. */
int cb_store_run_cmdline(struct cb_store *st, int64_t run, struct cb_sb *cmdline,
                         struct cb_sb *code_what);

/* The newest complete run tagged tag with an id above after; 0 when none. */
int64_t cb_store_newest_tagged(struct cb_store *st, const char *tag, int64_t after);

/* The ids of the newest complete runs, newest first: at most max of them
 * into ids, how many in *n.  0 or -EIO. */
int cb_store_newest_complete(struct cb_store *st, int64_t *ids, size_t max, size_t *n);

/* How the complete runs split, for saying why a history is empty. */
struct cb_store_run_counts {
    int64_t complete;       /* complete runs */
    int64_t in_git;         /* of them, measured in a git tree */
    int64_t clean;          /* of those, of a clean tree (what history follows) */
};
/* 0 or -EIO. */
int cb_store_count_runs(struct cb_store *st, struct cb_store_run_counts *out);

/* Every commit the store knows, oldest first (commit_order).  0, the
 * callback's stop value, or -EIO. */
int cb_store_each_commit(struct cb_store *st,
                         int (*fn)(const char *hash, const char *subject, void *ctx), void *ctx);

/* The complete, not emulated runs of a clean tree at commit hash, oldest
 * first: the counted ones (--sim, callgrind) when sim, else the timed ones.
 * 0, the callback's stop value, or -EIO. */
int cb_store_each_commit_run(struct cb_store *st, const char *hash, int sim,
                             int (*fn)(int64_t run, void *ctx), void *ctx);

/* Every distinct case (probe, variant, size, mode) in any run.  0, the
 * callback's stop value, or -EIO. */
int cb_store_each_case_key(struct cb_store *st,
                           int (*fn)(const char *probe, const char *variant, uint64_t size,
                                     const char *mode, void *ctx),
                           void *ctx);

/* One acknowledgement as stored. */
struct cb_store_ack {
    const char *glob, *commit, *created, *why;
};

/* The acknowledgements, oldest first, or newest first when newest_first.
 * 0, the callback's stop value, or -EIO. */
int cb_store_each_ack(struct cb_store *st, int newest_first,
                      int (*fn)(const struct cb_store_ack *a, void *ctx), void *ctx);

/* Record (or re-word) the acknowledgement of glob at commit: 0 or -EIO. */
int cb_store_ack_put(struct cb_store *st, const char *glob, const char *commit, const char *why);

/* The plugins run loaded, by hash, in hash order (none before schema 11).
 * 0, the callback's stop value, or a negative errno. */
int cb_store_each_run_plugin(struct cb_store *st, int64_t run,
                             int (*fn)(const char *sha256, void *ctx), void *ctx);

/* The newest complete runs of run's code (runs.code_id), host and clock,
 * run itself left out, at most max, newest first (none before schema 20).
 * 0, the callback's stop value, or a negative errno. */
int cb_store_each_same_bytes_run(struct cb_store *st, int64_t run, int64_t max,
                                 int (*fn)(int64_t id, void *ctx), void *ctx);

/* The newest complete runs of ref's host, ref among them, at most max,
 * newest first, with their code identity (NULL: recorded before schema 20's
 * code_id) and clock backend; from schema 24 on, the runs a slowed host
 * measured are left out.  0, the callback's stop value, or a negative errno. */
int cb_store_each_host_run(struct cb_store *st, int64_t ref, int64_t max,
                           int (*fn)(int64_t id, const char *code_id, const char *clock, void *ctx),
                           void *ctx);

/* The machine a run measured on, as its hosts row says. */
struct cb_store_host {
    const char *hostname, *vendor;
    int family, model, stepping;
    const char *model_name;
};
/* fn(the host of run): its value, -ENOENT when there is no such run, or a
 * negative errno. */
int cb_store_run_host(struct cb_store *st, int64_t run,
                      int (*fn)(const struct cb_store_host *h, void *ctx), void *ctx);

/* Each distinct case of run whose variant failed verification or was
 * skipped (cases.verdict other than 'ok'), in the order stored, with its
 * verdict.  0, the callback's stop value, or a negative errno. */
int cb_store_each_bad_case(struct cb_store *st, int64_t run,
                           int (*fn)(const char *probe, const char *variant, uint64_t size,
                                     const char *mode, const char *verdict, void *ctx),
                           void *ctx);

/* One stored sample, as a report reads it. */
struct cb_store_sample {
    int64_t case_id, event_id;
    uint64_t iters;
    double per_op;              /* (value - overhead) / iters */
    int scaled;                 /* multiplexed, scaled by enabled/running */
    double raw;                 /* the raw count, NAN when none */
    uint64_t enabled, running;
    const char *method;         /* how it was read, "" when unsaid */
    int damaged;                /* its value is text or its iters no integer */
};
/* Every sample of run with a value, per case, per event, in sample order.
 * 0, the callback's stop value, or -EIO. */
int cb_store_each_run_sample(struct cb_store *st, int64_t run,
                             int (*fn)(const struct cb_store_sample *s, void *ctx), void *ctx);

#endif
