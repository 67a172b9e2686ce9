/* ab.h — the paired A/B protocol for two builds of one plugin: what `ab`
 * and `bisect-check --against-plugin` share.
 *
 * Both builds are loaded into this process, each into a registry namespace
 * of its own ("base", "head": their variants are named alike), and every
 * case is timed on both, one after the other, round by round: ABBA order
 * (the first side of a case alternates with the round and with the case),
 * an idle pause between rounds, all on the collector's one pinned CPU.  A
 * drift of the machine then hits both sides of a round alike, and the
 * round's ratio head/base is the unit of the test (paired.h), with Holm's
 * correction over the cases.  One run holds it all, each case stored once
 * per round and side, with its side (0013_ab_sides.sql).  The rounds are
 * kept as two sides, each round one run of its side, and judged by the one
 * verdict pipeline (analysis/verdict.h, paired rounds): the run's state,
 * the code identity and the verdict words are compare's. */
#ifndef CB_ANALYSIS_AB_H
#define CB_ANALYSIS_AB_H

#include <signal.h>
#include <stdint.h>

#include "analysis/compare.h"
#include "analysis/paired.h"
#include "analysis/sides.h"
#include "harness/codehash.h"
#include "harness/collect.h"
#include "harness/plugin.h"
#include "store/store.h"
#include "util/strbuf.h"

#define CB_AB_MAX_CASES 256
#define CB_AB_MAX_FAMILIES 32
#define CB_AB_MAX_SIZES 32
#define CB_AB_DEFAULT_ROUNDS 12
/* Each build is loaded this many times (copies of its file, each mapped at
 * other addresses), and each round times one copy of each side: ab's
 * verdict is then beyond what the code's place does.  With the
 * copies, the stack moves by a multiple of 64 bytes from round to round. */
#define CB_AB_COPIES 3
/* And the warm buffers sit 0 to this many - 1 pages into their mapping,
 * from round to round: 64 KiB, the span of an L2's set index above the
 * page (workset.h). */
#define CB_AB_BUF_PAGES 16
/* A side's figure in a round: this quantile of its samples' ticks per op. */
#define CB_AB_ROUND_QUANTILE 0.1

extern const char *const cb_ab_side_name[2];   /* "base", "head" */
/* The registry namespaces of each side's copies ("base", "base.1", ...). */
extern const char *const cb_ab_copy_ns[2][CB_AB_COPIES];

struct cb_ab_case {
    const struct cb_probe *p[2];      /* the first copy of each side's build */
    const struct cb_variant *v[2];
    const struct cb_probe *pc[2][CB_AB_COPIES];   /* every copy's */
    const struct cb_variant *vc[2][CB_AB_COPIES];
    char code[2][CB_CODE_HASH_LEN + 1];   /* each side's code hash (codehash.h); "" unknown */
    uint64_t size;
    enum cb_mode mode;
    char key[CB_CASE_KEY_MAX];        /* probe/variant/size/mode, as compare names cases */
    double *val[2];                   /* per round: CB_AB_ROUND_QUANTILE of TSC ticks per op */
    size_t n, cap;                    /* rounds with both sides measured */
    int bad[2];                       /* BAD on that side: not compared */
    int skipped;                      /* this CPU cannot run it */
    char why[256];
    /* The pipeline's row (cb_ab_judge): the paired estimate, Holm's p, the
     * verdict, the rounds that would decide it, and whether a side had too
     * few quiet rounds (a host state: never a change). */
    struct cb_paired st;
    double p_adj;
    enum cb_cmp_verdict verdict;
    size_t more_rounds;
    int host_state;
};

/* The cases asked for: -p, -V, -s and -m parsed (cli/ab_select.h). */
struct cb_ab_want {
    const char *probes;               /* -p as typed, for messages; NULL: the families the
                                         plugins add variants to */
    char fams[CB_AB_MAX_FAMILIES][64];  /* -p's families, each known to a build */
    int nfams;
    uint64_t sizes[CB_AB_MAX_SIZES];  /* -s; none: each family's own */
    int nsizes;
    enum cb_mode modes[2];            /* -m, warm,cold by default */
    int nmodes;
    char **variants;                  /* -V's globs, NULL-terminated; NULL: the plugins' own */
    int nvariants;
};

struct cb_ab_opts {
    int rounds;                       /* at least this many rounds (raised for Holm) */
    int max_rounds;                   /* undecided cases get more rounds, up to this */
    double alpha, threshold, level;
    double pause_ms;                  /* the idle pause between rounds */
    int copies;                       /* copies of each build, 1..CB_AB_COPIES */
    double max_seconds;               /* > 0: undecided cases get rounds until this much
                                         measuring time is spent (bisect-check), past max_rounds */
    int quiet;
};

struct cb_ab {
    struct cb_ab_opts o;
    struct cb_plugin_info info[2];
    struct cb_ab_case *cases;
    size_t n;
    char added[1024], removed[1024];  /* "csum/x,csum/y": variants only one side has */
    int ncopies;                      /* copies loaded of each build */
    int rounds;                       /* the rounds planned (after raising for Holm) */
    int rounds_done;
    double seconds;                   /* measuring took */
    int64_t run_id;                   /* the run measuring it (cb_ab_measure) */
    volatile sig_atomic_t *stop;      /* raised: measuring ends with -EINTR */
    struct cb_side side[2];           /* base, head: each round a run of the side, with
                                         every sample and its meter reading */
};

/* Load BASE and HEAD into their namespaces (each first tried in a child, as
 * run --plugin does).  0, or a negative errno with err saying what was
 * wrong: every failure is the user's (exit 2), and nothing is written. */
int cb_ab_load(struct cb_ab *ab, const char *base, const char *head, struct cb_sb *err);
/* The cases to compare (both sides have the variant), and what only one
 * side has, from w and ab->o.  0, or -EINVAL/-ENOENT with err set. */
int cb_ab_plan(struct cb_ab *ab, const struct cb_ab_want *w, struct cb_sb *err);
/* Store the two plugins with col's run, then time every case round by
 * round, judging after the planned rounds and giving the undecided cases
 * more, up to max_rounds.  0, -EINTR when stop is raised, or a negative
 * errno from the store. */
int cb_ab_measure(struct cb_ab *ab, struct cb_collector *col, volatile sig_atomic_t *stop);
/* Open a collecting session with co, cb_ab_measure, and end the run
 * (complete, or aborted on a failure or when stop is raised).  0 with the
 * run and its pinned CPU; -EINTR, or another negative errno, with err set. */
int cb_ab_run(struct cb_ab *ab, const struct cb_collect_opts *co, volatile sig_atomic_t *stop,
              int64_t *run, int *cpu, struct cb_sb *err);
/* Every case's verdict from its rounds: the sides judged by the verdict
 * pipeline (cb_verdict_again, paired rounds, Holm over the compared cases),
 * its rows copied into the cases.  st: the store of ab's run. */
int cb_ab_judge(struct cb_ab *ab, struct cb_store *st);
/* Counts: cases changed (regressed or improved), regressed, unsure, BAD on
 * one side only (a change too: HEAD broke or fixed a variant). */
void cb_ab_counts(const struct cb_ab *ab, int *changed, int *regressed, int *unsure, int *bad);
/* How many cases were compared (timed on both sides, neither BAD nor
 * skipped); with none, the cases that could not be, named in why ("csum/x
 * BAD in both builds: ..."), for a message: no verdict from nothing. */
size_t cb_ab_compared(const struct cb_ab *ab, struct cb_sb *why);
/* ab's exit status: 1 a change (a case changed, or BAD on one side only),
 * 0 none, 2 when no case could be compared (no verdict from nothing). */
int cb_ab_exit(const struct cb_ab *ab);
/* 1 when every case's code hashes alike on both sides (codehash.h): the
 * builds time the same code, whatever its place; 0 otherwise or unknown. */
int cb_ab_same_code(struct cb_ab *ab);
void cb_ab_free(struct cb_ab *ab);
/* The defaults: CB_AB_DEFAULT_ROUNDS rounds (up to three times that), alpha 0.01,
 * a 2% threshold over the 95% interval, a 20 ms pause between rounds,
 * CB_AB_COPIES copies of each build. */
void cb_ab_defaults(struct cb_ab_opts *o);

#endif
