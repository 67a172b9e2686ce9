/* verdict.h — the one verdict pipeline: BASE against HEAD, decided.
 *
 * compare and bisect-check give cb_verdict_judge() two resolved sides, the
 * options and the store; it checks that the sides may be compared (their
 * environments, an emulated run), picks the metric, loads the samples and
 * judges every case common to both (judge.h), and returns the rows with
 * their evidence (change and interval, the run's state, code identity,
 * placement) and one outcome.  report/verdict_out.h prints it in every
 * format; a command only maps the outcome to its exit status.  ab (and
 * bisect-check --against-plugin) hold their rounds in memory as two sides,
 * each round a run, and judge them with cb_verdict_again and
 * cmp_opts.paired: the same rows, states and outcome, tested on the
 * rounds' paired ratios. */
#ifndef CB_VERDICT_H
#define CB_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/judge.h"
#include "analysis/sides.h"
#include "store/store.h"
#include "util/strbuf.h"

struct cb_path_delta;

/* The header's evidence: what both sides are, what they were measured in
 * and on. */
struct cmp_ctx {
    const char *metric;
    const char *crosses;          /* NULL: same environment; else the difference */
    const char *cpu_note;         /* NULL, or that the sides pinned different CPUs of one class */
    char base_desc[512], head_desc[512];
    char cpu_buf[320];
    char record[1024];            /* no floor yet: what to record to get one (cmp_record_hint); "" */
    const struct cb_path_delta *paths;  /* the paths both sides stored (compare only); shown, not gated */
    size_t npaths;
};

enum cb_verdict_outcome {
    CB_VERDICT_PASS,              /* no unacknowledged regression, nothing unsure */
    CB_VERDICT_FAIL,              /* an unacknowledged regression */
    CB_VERDICT_UNSURE,            /* no regression, but a case could not be told */
    CB_VERDICT_NOTHING,           /* no case in common: why says which and why */
    CB_VERDICT_EMULATED,          /* a side holds an emulated run: no verdict, why says */
};

struct cmp_verdict {
    struct cmp_ctx x;
    struct cmp_result res;
    enum cb_verdict_outcome outcome;
    struct cb_sb why;             /* NOTHING, EMULATED: the reason in words */
    int64_t emulated_run;
    struct cb_sb crosses;         /* x.crosses points here */
};

void cb_verdict_init(struct cmp_verdict *v);
void cb_verdict_release(struct cmp_verdict *v);

/* Judge B against A: environments checked (-EXDEV with err when they
 * differ and not force), an emulated side said (outcome EMULATED, unless
 * o->want counts instructions), the metric picked into o (cmp_pick_metric),
 * both sides' samples loaded, every case judged, and the outcome set.
 * Returns 0 or a negative errno with err set. */
int cb_verdict_judge(struct cb_store *st, struct cb_side *A, struct cb_side *B, struct cmp_opts *o,
                     int force, struct cmp_verdict *v, struct cb_sb *err);
/* The rows judged again after new samples were appended to the sides
 * (compare --rerun, bisect-check's rounds): 0 or a negative errno. */
int cb_verdict_again(struct cb_store *st, const struct cb_side *A, const struct cb_side *B,
                     const struct cmp_opts *o, struct cmp_verdict *v);
/* The outcome of judged rows (cmp_row_fails, unsure). */
enum cb_verdict_outcome cb_verdict_outcome_of(const struct cmp_result *res);

/* A side's runs must come from one machine: with --host (host non-NULL),
 * keep those of the machines it names (-ENOENT when none is left); without,
 * -EXDEV when they come from several.  The message in err. */
int cmp_select_host(struct cb_store *st, struct cb_side *s, const char *host, struct cb_sb *err);
/* One line naming a side's runs and commits, for the header. */
void cmp_describe_side(struct cb_store *st, const struct cb_side *s, char *buf, size_t len);
/* With rows judged without a floor (CMP_TEST_NOFLOOR): the command that
 * records BASE's bytes again (its first run's command line, and LD_PRELOAD
 * and the CB_* variables it ran with), into buf; else "". */
#define CMP_FLOOR_RECORD 3        /* runs of it that make a floor (2 df, and the host's prior) */
void cmp_record_hint(struct cb_store *st, const struct cb_side *A, const struct cmp_result *res,
                     char *buf, size_t len);
/* Check the fingerprints: within each side and across.  Returns 0, or
 * -EXDEV with the message in err when refused. */
int cmp_check_env(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, int force,
                  struct cb_sb *crosses, struct cb_sb *err);
/* When the sides' runs were pinned to different CPUs (of one class, or
 * cmp_check_env would have refused): a note saying so; else "". */
void cmp_cpu_note(struct cb_store *st, const struct cb_side *A, const struct cb_side *B, char *buf,
                  size_t len);

#endif
