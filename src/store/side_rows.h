/* side_rows.h — what a compared side asks the store (analysis/sides.c):
 * which runs a run id, a tag, "latest" or a commit names, a commit known by
 * a hash prefix, which figures a run counted, a run's cases with their code
 * and host state, and a run's fingerprint as stored. */
#ifndef CB_STORE_SIDE_ROWS_H
#define CB_STORE_SIDE_ROWS_H

#include <stddef.h>
#include <stdint.h>

struct cb_store;

/* The newest run (complete, or any when incl) into *id: 0, -ENOENT, -EIO. */
int cb_store_latest_run(struct cb_store *st, int incl, int64_t *id);
/* Run id's status ("complete", "aborted", ...) into status: 0, -ENOENT, -EIO. */
int cb_store_run_status(struct cb_store *st, int64_t id, char *status, size_t len);
/* The runs tagged tag (complete, or any when incl), oldest first.  0, the
 * callback's stop value, or -EIO. */
int cb_store_each_tagged_run(struct cb_store *st, const char *tag, int incl,
                             int (*fn)(int64_t id, void *ctx), void *ctx);
/* The runs of a clean tree at commit hash (complete, or any when incl),
 * oldest first.  0, the callback's stop value, or -EIO. */
int cb_store_each_clean_run_at(struct cb_store *st, const char *hash, int incl,
                               int (*fn)(int64_t id, void *ctx), void *ctx);

/* The stored commits whose hash starts with prefix (any case), in hash
 * order: the first two into first and second (64 bytes each); how many
 * (0, 1, or 2 for two or more), or -EIO. */
int cb_store_commit_prefix(struct cb_store *st, const char *prefix, char *first, char *second);
/* 1 when commit hash is stored, 0 when not, or -EIO. */
int cb_store_commit_known(struct cb_store *st, const char *hash);
/* The commit of run when its tree was clean, into hash: 1, 0 when none,
 * or -EIO. */
int cb_store_run_clean_commit(struct cb_store *st, int64_t run, char *hash, size_t len);

/* 1 when run counted part from source (a supported event), else 0. */
int cb_store_run_has_event(struct cb_store *st, int64_t run, const char *part, const char *source);

/* One measured case of a run, with its event of the metric. */
struct cb_store_side_case {
    int64_t case_id, event_id;
    char probe[32], variant[64], mode[8], unit[8];
    uint64_t size;
    char code[17];      /* the code's hash, "" unknown (before schema 21) */
    int addr;           /* its placement, -1 unknown */
    int flagged;        /* measured in a host state: slowed, or its clock moved */
    double bound;       /* flagged: how far that state can have moved its figure (0.3:
                           30%), NAN unknown; 0 when not flagged */
};
/* How far a host state can have moved a case's figure, as a fraction (0.3:
 * 30%), NAN when a part is unknown: a case the host slowed (slowed) by its
 * reading's ratio less one; a case converted at the run's clock because its
 * own disagreed (clock_run) by its clock's distance from the run's plus that
 * clock's noise, since the true clock lay within its brackets; both,
 * multiplied.  0 when neither. */
double cb_state_bound(int slowed, double ratio, int clock_run, double case_ghz, double run_ghz,
                      double spread_pct);

/* The verified head-side cases of run with a supported event of metric
 * ("cycles" from the PMU only), in case order, into a malloc'd *rows.
 * 0, -ENOMEM or -EIO. */
int cb_store_side_cases(struct cb_store *st, int64_t run, const char *metric,
                        struct cb_store_side_case **rows, size_t *n);

/* The fields of run's fingerprint in run_fingerprint order (vendor, family,
 * model, stepping, model name, microcode, kernel, pmu, compiler, cflags,
 * cpu, cycles source), then its recorded environment (NULL before schema
 * 7), handed to fn: fn's value, -ENOENT when there is none, or -EIO. */
int cb_store_run_fingerprint(struct cb_store *st, int64_t run,
                             int (*fn)(const char *const field[13], void *ctx), void *ctx);

#endif
