/* sides.h — what "BASE" and "HEAD" mean: runs, their samples, their setting.
 *
 * compare, history, ack and bisect-check all name sets of runs the way a
 * user does (a run id, a tag, a commit, a comma list of those) and then need
 * each case's samples pooled over those runs, in one metric, plus the
 * environment each run was measured in.  This module turns those names into
 * rows of the store; it only reads, through the store's SQLite handle. */
#ifndef CB_SIDES_H
#define CB_SIDES_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#include "host/machine.h"
#include "store/store.h"

#define CB_CASE_KEY_MAX 160

/* "probe/variant/size/mode", the name users give to ack and history. */
void cb_case_key(char *buf, size_t len, const char *probe, const char *variant, uint64_t size,
                 const char *mode);

struct cb_side_case {
    char key[CB_CASE_KEY_MAX];
    char probe[32], variant[64], mode[8], unit[8];
    uint64_t size;
    double *v;                   /* per-op values of the metric, pooled over the side's runs */
    size_t n, cap;
    size_t *ends;                /* where each run's values end in v (cumulative) */
    double *smt;                 /* per value: the SMT meter beside its sample, NAN unknown */
    size_t nruns, capruns;
    /* The code every run of the side timed (cases.code_hash, codehash.h):
     * "" when unknown or when the side's runs timed different code. */
    char code_hash[17];
    int code_mixed;              /* a run had no hash, or another one */
    int code_addr;               /* the entry's address mod 4096 in the side's first run; -1 none */
    /* Per run (nruns): the run it came from (0 unknown), and whether the
     * store marks this case of that run as measured in a host state (kept
     * slowed, or the case's clock moved while it ran: flagged, and the
     * run's used), read through cb_side_run_flagged(): the verdict leaves
     * such a run out of a side (cmp_state_meter(), judge.h) and the floor
     * out of what it learns (floor.c).
     * bound: for a flagged run, how far that state can have moved the
     * run's figure (0.3: 30%; NAN unknown), from the store. */
    int64_t *run_id;
    unsigned char *flagged;
    double *bound;
};

/* Whether run r of case c was measured in a host state. */
static inline int cb_side_run_flagged(const struct cb_side_case *c, size_t r)
{
    return c->flagged && c->flagged[r];
}

struct cb_side {
    char spec[256];              /* as the user wrote it */
    int64_t *runs;
    size_t nruns;
    char (*commits)[64];         /* distinct full hashes of the runs' clean commits */
    size_t ncommits;
    struct cb_side_case *cases;
    size_t ncases;
};

/* Resolve spec into runs: comma-separated items, each "latest", a run id, a
 * tag (every run with it), or a commit (a hash prefix of 4+ hex digits, or
 * any revision git resolves in repo, NULL: the current directory; every run
 * of that commit, dirty trees excluded).  Only complete runs count unless
 * include_aborted.  -ENOENT/-EINVAL with a message when an item matches
 * nothing usable; other negative errnos for store failures. */
int cb_side_resolve(struct cb_store *st, const char *spec, int include_aborted, const char *repo,
                    struct cb_side *s, struct cb_sb *err);
int cb_side_add_run(struct cb_side *s, int64_t run_id);
void cb_side_free(struct cb_side *s);

/* The metric both sides can be compared in: "cycles" when every run of both
 * counted core cycles with the PMU; else "cycles-est" when every run has the
 * estimate; else "tsc" (TSC ticks).  The estimate beats raw TSC ticks here:
 * on this project's VM the core clock moved by up to 7% between consecutive
 * runs (TSC medians of one A/A series 605..647 ticks, each run's IQR 0.2%),
 * and the per-run core-clock estimate followed it (estimated cycles
 * 963..975), so TSC ticks turned clock changes into false alarms.
 * Runs counted under callgrind (run --sim) have none of those: when every
 * run is one, the metric is their instruction count, CB_SIDES_SIM_METRIC,
 * which repeats exactly (the estimated cycles move by a few simulated cache
 * misses between batches, as the harness's own accesses between them evict
 * a line or two). */
#define CB_SIDES_SIM_METRIC "Ir"
const char *cb_sides_metric(struct cb_store *st, const struct cb_side *a, const struct cb_side *b);
/* How many of the side's runs were counted under callgrind. */
size_t cb_side_simulated(struct cb_store *st, const struct cb_side *s);
/* How many of the side's runs counted the event part from source ("pmu"). */
size_t cb_side_counted(struct cb_store *st, const struct cb_side *s, const char *part,
                       const char *source);

/* Load every measured case of the side's runs in metric, pooling samples. */
int cb_side_load(struct cb_store *st, struct cb_side *s, const char *metric);
struct cb_side_case *cb_side_find(const struct cb_side *s, const char *key);
/* Add one run's values of a case (created when new), with the SMT meter
 * reading beside each (smt NULL: none measured). */
int cb_side_append(struct cb_side *s, const char *probe, const char *variant, uint64_t size,
                   const char *mode, const char *unit, const double *v, const double *smt, size_t n);

/* Record which run the case's latest appended run is (0 unknown) and
 * whether the store flags its state (clock_flagged, a host state). */
void cb_side_case_run(struct cb_side_case *c, int64_t run, int flagged, double bound);
/* Record that the case's latest appended run timed code hash (NULL or ""
 * unknown) at address addr mod 4096 (-1 unknown). */
void cb_side_case_code(struct cb_side_case *c, const char *hash, int addr);

/* A run's environment as "field=value" lines: the run_fingerprint view's,
 * then cb_fingerprint_lines() of runs.fingerprint.  Compare them with
 * cb_fingerprint_diff() (fingerprint.h). */
int cb_run_fingerprint(struct cb_store *st, int64_t run_id, char *buf, size_t len);
/* The fingerprint shared by all of a side's runs; 0, or -EXDEV with the
 * first difference ("kernel: A vs B") in why. */
int cb_side_fingerprint(struct cb_store *st, const struct cb_side *s, char *buf, size_t len,
                        struct cb_sb *why);

/* The machine a run ran on (machine.h): its id, hostname and CPU model. */
struct cb_machine {
    char id[CB_MACHINE_ID_LEN + 1];
    char hostname[128], model_name[128];
};
int cb_run_machine(struct cb_store *st, int64_t run_id, struct cb_machine *m);
/* The distinct machines of a side's runs, in the order of their first run
 * (*out malloc'd, the caller frees it). */
int cb_side_machines(struct cb_store *st, const struct cb_side *s, struct cb_machine **out,
                     size_t *n);
/* Keep only the side's runs on machines spec names (cb_machine_match: an id
 * prefix or a hostname glob): how many remain, or a negative errno. */
int cb_side_keep_host(struct cb_store *st, struct cb_side *s, const char *spec);
/* "alpha-lab [3fa9c2d1], beta-ci [0b7e55a0]": for messages. */
void cb_machines_list(const struct cb_machine *m, size_t n, char *buf, size_t len);

/* A commit of the store from a hash prefix or a git revision: the full hash.
 * -ENOENT / -EINVAL (ambiguous) with a message. */
int cb_commit_resolve(struct cb_store *st, const char *rev, const char *repo, char *hash,
                      size_t hashlen, struct cb_sb *err);

#endif
