/* store.h — every sample, with where it came from, in SQLite.
 *
 * The store knows runs, cases, events and samples; it knows nothing of
 * checksums or perf_event.  Schema and migrations are the numbered .sql files
 * in db/, embedded at build time (db_sql.c, generated) and applied in order
 * under PRAGMA user_version.  A database written by a newer cyclebudget is
 * refused and left untouched.  WAL mode and a busy timeout let collectors and
 * readers share a file; each case is written with all its samples in one
 * transaction, and a run is marked complete only after its last case. */
#ifndef CB_STORE_H
#define CB_STORE_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

#include "counters/ceilings.h"
#include "host/cpu.h"
#include "store/hoststate.h"

struct cb_store;

/* The migrations compiled in (db_sql.c). */
struct cb_migration {
    int version;          /* 1 for 0001_init.sql */
    const char *name;     /* "0001_init.sql" */
    const char *sql;
};
extern const struct cb_migration cb_migrations[];
extern const size_t cb_nmigrations;
/* The schema version this binary writes: the highest migration. */
int cb_store_schema_latest(void);

enum cb_store_mode {
    CB_STORE_READ,        /* must exist; an older schema is migrated forward when the
                             file is writable, else refused with -ESTALE */
    CB_STORE_WRITE,       /* created when missing; migrated forward when older */
    CB_STORE_SNAPSHOT,    /* must exist; opened read-only and copied into a private
                             temporary database, which is migrated and is what the
                             handle reads and writes: the file is never written
                             (merge's sources) */
};

/* Open path.  On failure returns a negative errno and writes one line for
 * the user into err, saying what was wrong and what to do:
 *   -EISDIR     the path is a directory
 *   -EACCES     cannot be read or written
 *   -ENOENT     CB_STORE_READ and no such file
 *   -EINVAL     not an SQLite database (or corrupt: integrity problems)
 *   -EPROTO     written by a newer cyclebudget (schema N > ours M)
 * The file is not modified by a failed open.
 * upto_version (tests only; 0 = latest): migrate no further than this. */
int cb_store_open(const char *path, enum cb_store_mode mode, int upto_version,
                  struct cb_store **out, struct cb_sb *err);
void cb_store_close(struct cb_store *st);
/* The open database (db.h), for modules with their own queries (compare,
 * history, race).  They use their own prepared statements and leave the
 * handle's settings alone; their SQL must run on both backends (HACKING.md,
 * "Two SQL dialects"). */
struct cb_db *cb_store_db(struct cb_store *st);
/* SQLite's PRAGMA user_version, PostgreSQL's schema_version table. */
int cb_store_schema_version(struct cb_store *st);
/* The schema this open upgraded the file from (a migration wrote it), or
 * 0: a reading command says so rather than upgrade a store silently. */
int cb_store_upgraded_from(const struct cb_store *st);
/* cb_store_open's rc says the file named is not a store this binary may
 * use (missing, a directory, not SQLite, another program's, a newer schema,
 * read-only and old, unreadable, damaged: -EBADMSG): 1, the usage class
 * every command exits 2 for (docs/reliability.md); else 0 (a full disk, a
 * busy or failing disk: the work failed). */
int cb_store_refused(int rc);

/* strerror(-rc) for a store read's failure, with -EBADMSG (damage a read
 * met: a sample of a missing event, a value that is not a number) said as
 * such and what to do. */
const char *cb_store_strerror(int rc);

/* What a run knows about where it ran and what it measured. */
struct cb_run_meta {
    const struct cb_host *host;
    double tsc_ghz;
    const char *tsc_source;      /* "sysfs", "cpuid", "hypervisor", "calibrated" */
    double core_ghz;             /* measured (pmu) or estimated core clock; 0 unknown */
    double core_ghz_spread;      /* % */
    const char *core_ghz_source; /* "pmu", "estimate", or "" */
    const char *pmu;             /* libpfm4's view: "amd64_fam19h_zen4", "perf" */
    const char *version;         /* cyclebudget PACKAGE_VERSION */
    const char *compiler;        /* "gcc 12.2.0" */
    const char *cflags;
    const char *commit;          /* measured tree's hash, or "" when none */
    const char *subject;         /* commit subject, or "" */
    const char *commit_date;     /* author date ISO 8601, or "" */
    int dirty;                   /* 1 uncommitted changes, 0 clean, -1 unknown */
    const char *cmdline;
    const char *tag;             /* may be NULL */
    int cpu;                     /* the CPU the thread was pinned to */
    const char *clock_backend;   /* "perf_event", "fake" or "callgrind"; NULL: "perf_event" */
    const char *core_est_method; /* "add-chain", "imul-chain", "none"; NULL: not estimated */
    double core_est_ghz, core_est_spread, core_est_add_ghz, core_est_imul_ghz;
    const char *meter_kind;      /* "smt", "host", "none", "unstable"; NULL: unknown */
    double meter_baseline, meter_spread;  /* raw; NAN unknown */
    const char *meter_why;
    const char *fingerprint;     /* cb_fingerprint_format(); NULL: none */
    const char *sim_model;       /* run --sim: the simulated machine (0008_sim.sql); NULL: timed */
    const char *emulated;        /* why the CPU is emulated (0017_emulated.sql); NULL: native */
    const char *source;          /* "in-kernel" (0019), "bpf" (0025); NULL: user space */
    const char *code_id, *code_what;  /* the measured bytes (0020_code_id.sql, codeid.h); NULL: unknown */
};

struct cb_event_row {
    const char *name;            /* as asked: "prefetch-drops" */
    const char *part;            /* the component: "LOAD_HIT_PRE:SW_PF", or = name */
    const char *pfm;             /* libpfm4 string, "" for pseudo-events */
    const char *encoding;        /* "type=0 config=0x0", "" when unresolved */
    const char *source;          /* "pmu", "software", "tsc", "estimate" */
    const char *read_method;     /* "read", "rdpmc", "rdtsc", "derived", "none" */
    int supported;               /* 0: unsupported, values are NULL */
    const char *why;             /* reason when unsupported, else "" */
};

struct cb_case_row {
    const char *probe, *variant;
    uint64_t size;
    const char *unit;            /* "B", "obj" */
    const char *op;              /* "call", "packet", "object" */
    const char *mode;            /* "warm", "cold" */
    uint64_t bytes_per_op;       /* 0 when not byte-oriented */
    const char *verdict;         /* "ok", "bad", "skipped" */
    const char *detail;          /* first differing input for bad; why skipped; "" */
    int metered;                 /* 1: the two figures below were measured (else NULL) */
    double contention;           /* median SMT contention meter (tsc.h) beside the samples */
    double contended_share;      /* share of samples taken on a shared core */
    const char *cpu_pair;        /* a cross-CPU case's two CPUs (cpupair.h); NULL or "": none */
    const char *side;            /* "base" or "head" in an ab run (0013); NULL elsewhere */
    /* The estimated core clock the case was converted at (0014_case_clock.sql):
     * clock_ghz <= 0 or NAN when none was estimated (NULL). */
    double clock_ghz, clock_spread_pct;
    const char *clock_used;      /* "case" or "run"; NULL with no clock */
    int clock_flagged;
    /* The measured code's identity and where it sat (0021_case_code.sql,
     * codehash.h): 16 hex digits, NULL or "" unknown; address mod 4096, -1 none. */
    const char *code_hash;
    int code_addr;
};

struct cb_sample_row {
    int seq;                     /* 0.. within the case */
    uint64_t iters;              /* operations in the batch */
    int64_t event_id;
    double value;                /* raw delta over the batch; NAN -> NULL (unsupported) */
    double overhead;             /* the empty-batch value subtracted in views; NAN -> NULL */
    uint64_t enabled, running;   /* ns, 0 for pseudo-events */
    int scaled;                  /* 1 when multiplexed and scaled */
    double smt;                  /* contention meter beside the sample, relative to the run's
                                    baseline (meter.h); <= 0 or NAN: not measured -> NULL */
    int round;                   /* the round of the case it was taken in (harness.h), 0.. */
    double raw;                  /* the counter's own delta, before scaling; NAN -> NULL */
    const char *method;          /* how this figure was read ("rdpmc", "read", ...); NULL */
};

/* Insert host/build/commit rows as needed and a run with status 'running',
 * named by a fresh UUID (uuid.h). */
int cb_store_run_begin(struct cb_store *st, const struct cb_run_meta *m, int64_t *run_id);
int cb_store_event_add(struct cb_store *st, int64_t run_id, const struct cb_event_row *e,
                       int64_t *event_id);
/* The case and all its samples in one transaction (retried when busy). */
int cb_store_case_add(struct cb_store *st, int64_t run_id, const struct cb_case_row *c,
                      const struct cb_sample_row *s, size_t ns, int64_t *case_id);
/* A plugin the run loaded (run --plugin): its absolute path, the sha256 of
 * the file, its name and what it added ("csum/mine,..."); side "base" or
 * "head" for ab's two builds, NULL otherwise. */
int cb_store_run_plugin_add(struct cb_store *st, int64_t run_id, const char *path,
                            const char *sha256, const char *name, const char *variants,
                            const char *side);
/* status: "complete" or "aborted"; sets the end time. */
int cb_store_run_finish(struct cb_store *st, int64_t run_id, const char *status);

/* The TSC rate (GHz) that the newest run of this host and boot calibrated,
 * for cb_tsc_ghz_adopt().  -ENOENT when there is none. */
int cb_store_boot_tsc(struct cb_store *st, double *ghz);

/* Read every page of an SQLite store for damage (PRAGMA integrity_check:
 * b-trees, free list and index contents), whatever the open did: what
 * `cyclebudget check` runs.  0 sound; -EINVAL damaged, with err saying so
 * and what to do; -EOPNOTSUPP on PostgreSQL (the server checks its pages);
 * another negative errno when it could not check.  *pages: the file's. */
int cb_store_integrity(struct cb_store *st, const char *path, long long *pages, struct cb_sb *err);

/* Mark runs left 'running' by a process that no longer exists on this host
 * as 'aborted'.  Called by cb_store_open in write mode.  Returns how many. */
int cb_store_reap_aborted(struct cb_store *st);

/* Reading, for reports. */
struct cb_run_info {
    int64_t id;
    char status[16], started[32], finished[32];
    char cmdline[1024], tag[128];
    int cpu;
    char commit[64], subject[256], commit_date[40];
    int dirty;
    char hostname[128], vendor[16], model_name[128], microcode[32], kernel[128];
    int family, model, stepping, ncpus;
    char features[256];
    double tsc_ghz; char tsc_source[16];
    double core_ghz, core_ghz_spread; char core_ghz_source[16];
    char pmu[64];
    char version[32], compiler[64], cflags[256];
    char clock_backend[16];      /* "" before migration 7 */
    char core_est_method[16];    /* "" unknown */
    double core_est_ghz, core_est_spread, core_est_add_ghz, core_est_imul_ghz; /* NAN unknown */
    char meter_kind[16];         /* "" unknown (before migration 7: the meter was read against 1.0) */
    double meter_baseline, meter_spread;  /* NAN unknown */
    char meter_why[480];
    char fingerprint[1024];      /* "" none */
    char sim_model[256];         /* "" for a timed run */
    char uuid[40];               /* the run's name in every store (uuid.h, 0009_uuid.sql) */
    char plugins[1024];          /* run --plugin: "PATH (sha256 0123...): csum/mine; ...", or "" */
    char emulated[256];          /* why the CPU was emulated (emulation.h); "" native */
    char source[16];             /* "in-kernel" (kernel run), "bpf" (bpf run); "" user space */
    struct cb_run_state hs;      /* the host's state it was measured in (hoststate.h) */
};

struct cb_event_info {
    int64_t id;
    char name[64], part[64], pfm[256], encoding[96], source[16], read_method[16], why[256];
    int supported;
};

struct cb_case_info {
    int64_t id;
    char probe[32], variant[64], unit[8], op[16], mode[8], verdict[16], detail[256];
    uint64_t size, bytes_per_op;
    int nsamples;                /* sample batches (distinct seq) */
    double contention;           /* median SMT meter reading; NAN when not measured */
    double contended_share;      /* share of samples on a shared core; NAN when not measured */
    double clock_ghz;            /* the case's own core clock; NAN when none (0012) */
    double clock_spread_pct;     /* its noise, %; NAN when none */
    char clock_used[8];          /* "case", "run", "" when none */
    int clock_flagged;           /* 1: the case's clock disagreed with the run's */
    char cpu_pair[64];           /* "cpu 0 -> cpu 1 (cores of one socket)"; "" one-CPU case */
    char code_hash[17];          /* the timed code's hash (codehash.h, 0021); "" unknown */
    int code_addr;               /* its entry's address mod 4096; -1 unknown */
};
/* A case counts as measured on a shared core when over half its samples
 * were (the median sample then carries the neighbour's load). */
#define CB_SHARED_CASE_SHARE 0.5

/* spec: "latest" (newest complete run), a run id, or a tag (newest complete
 * run with it).  -ENOENT with a message in err when nothing matches. */
int cb_store_run_resolve(struct cb_store *st, const char *spec, int64_t *run_id,
                         struct cb_sb *err);
/* The same, and with include_aborted set "latest" and a tag may also name an
 * aborted run (report --include-aborted); a run still running never. */
int cb_store_run_resolve_status(struct cb_store *st, const char *spec, int include_aborted,
                                int64_t *run_id, struct cb_sb *err);
int cb_store_run_get(struct cb_store *st, int64_t run_id, struct cb_run_info *out);
/* The first of runs[0..n) measured on an emulated CPU: 1 with its id and
 * why (either may be NULL), 0 when none was, or a negative errno.  compare
 * and bisect-check draw no verdict from such a run (emulation.h). */
int cb_store_runs_emulated(struct cb_store *st, const int64_t *runs, size_t n, int64_t *which,
                           struct cb_sb *why);
/* Arrays allocated with malloc; the caller frees them.  Ordered by id. */
int cb_store_events(struct cb_store *st, int64_t run_id, struct cb_event_info **out, size_t *n);
int cb_store_cases(struct cb_store *st, int64_t run_id, struct cb_case_info **out, size_t *n);
/* Per-operation values of one event for one case: (value - overhead) / iters,
 * in sample order; samples with NULL value are skipped.  Also the scaled
 * flag per value when scaled != NULL, and the SMT meter reading beside it
 * (NAN when not measured) when smt != NULL. */
int cb_store_case_values(struct cb_store *st, int64_t case_id, int64_t event_id,
                         double **values, int **scaled, double **smt, size_t *n);

/* Calibrations of the machine's ceilings (ceilings.h, 0009_ceilings.sql),
 * keyed to a host (m->host with m's TSC rate, its source and PMU: the
 * hosts row a run of it would have) and fp, the environment's timing lines
 * (cb_fingerprint_lines).  add stores cs, with its time stamp, as a new
 * calibration; find gives the newest of that host and fp whose source
 * (ceilings.h: "measured" or "model") is source, so that a measurement is
 * never judged against made-up figures (-ENOENT none);
 * get reads one back, with when it was taken (may be NULL). */
int cb_store_calibration_add(struct cb_store *st, const struct cb_run_meta *m, const char *fp,
                             const struct cb_ceilings *cs, int64_t *id);
int cb_store_calibration_find(struct cb_store *st, const struct cb_run_meta *m, const char *fp,
                              const char *source, int64_t *id);
int cb_store_calibration_get(struct cb_store *st, int64_t id, struct cb_ceilings *cs, char *taken,
                             size_t takenlen);
/* Link a run to the calibration it is judged against; reused 1 when it
 * was found stored, 0 when the run measured it.  And read the link back:
 * -ENOENT when the run has none. */
int cb_store_run_calibration_set(struct cb_store *st, int64_t run_id, int64_t cal_id, int reused);
int cb_store_run_calibration(struct cb_store *st, int64_t run_id, int64_t *cal_id, int *reused);

#endif
