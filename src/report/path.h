/* path.h — one packet's path composed from measured cases.
 *
 * The 2016 TXDP thread accounts for a 64-byte packet's 201 cycles (10G
 * at 3 GHz) step by step: the RX descriptor, the skb alloc from the slab,
 * the skb head clear, the checksum, the copy to user, the free.  A path is
 * that list as a file (docs/budget.md; rx and fwd ship in reports/paths/,
 * compiled in): each step names a family, the variants it may take (the
 * best of them, or one by name, a plugin's too), a size (a number, or S:
 * the packet's bytes) and a mode.  Composing it against a run takes each
 * step's case, sums the costs with their uncertainty, and sets the total
 * beside the budget of the frames one packet of S bytes is charged to
 * (budget.h's rule), at 10, 25, 40 and 100G. */
#ifndef CB_PATH_H
#define CB_PATH_H

#include <stdint.h>
#include <stdio.h>

#include "report/report.h"
#include "util/strbuf.h"

#define CB_PATH_MAX_STEPS 16
#define CB_PATH_NLINKS 4      /* 10, 25, 40, 100G */

struct cb_path_step {
    char label[32], family[32], variants[128], mode[8];
    uint64_t size;            /* 0: the packet's size S */
    double count;             /* times per packet (default 1) */
};

struct cb_path {
    char name[64], title[160];
    struct cb_path_step steps[CB_PATH_MAX_STEPS];
    size_t nsteps;
};

/* A shipped path by name ("rx", "fwd"), or else a path file: a regular
 * file of text under 16 KiB, opened without blocking.  0, or -EINVAL /
 * -ENOENT with what was wrong (the file, line and field) in err. */
int cb_path_parse(const char *text, const char *where, struct cb_path *p, struct cb_sb *err);
int cb_path_load(const char *spec, struct cb_path *p, struct cb_sb *err);
/* The names of the shipped paths, NULL-terminated: every reports/paths/
 * NAME.path compiled in, at most CB_PATH_MAX_SHIPPED. */
#define CB_PATH_MAX_SHIPPED 8
const char *const *cb_path_shipped(void);

struct cb_path_part {
    const struct cb_path_step *step;
    const struct cb_report_case *c;   /* NULL: not measured in the run */
    uint64_t size;
    double cyc, lo, hi;       /* cycles per packet (count included) and the median's 95% CI */
    double ns;                /* its time per packet */
};

struct cb_path_result {
    struct cb_path_part parts[CB_PATH_MAX_STEPS];
    size_t nparts, missing;
    uint64_t size;
    struct cb_charge charge;  /* the frames one packet of size bytes is charged to */
    double cyc, lo, hi, ns;   /* the sum; interval: half-widths added in quadrature */
};

/* Compose p for packets of size bytes from r's cases, in r->context (a
 * step's best variant there: the rank's first in user space, the kernel's
 * pick in the kernel).  Never fails: steps not measured are counted in
 * missing and left out of the sum. */
void cb_path_compose(const struct cb_report *r, const struct cb_path *p, uint64_t size,
                     struct cb_path_result *res);
/* The budget of res's frames at gbps in cycles at r's clock (NAN without). */
double cb_path_budget_cycles(const struct cb_report *r, const struct cb_path_result *res, double gbps);
extern const double cb_path_links[CB_PATH_NLINKS];

/* The text: a row per step (case, variant, cycles, interval, share of the
 * budget b), the total, and per link rate the budget, the headroom and the
 * steps that break it. */
void cb_path_text(const struct cb_report *r, const struct cb_path *p, const struct cb_path_result *res,
                  const struct cb_budget *b, FILE *out);
/* "10G's budget for 1 frame of 1518 B": the budget a share of res is of. */
const char *cb_path_frame_text(const struct cb_path_result *res, double gbps, char *buf, size_t len);
/* run's line under its summary: the total in cycles and its share of the
 * budget at gbps of the frames it is charged to, named with that budget in
 * cycles; with a step missing, no total, how many are missing.  A blank
 * line before it when first. */
void cb_path_summary_line(const struct cb_report *r, const struct cb_path *p,
                          const struct cb_path_result *res, double gbps, int first, FILE *out);
/* 1 when spec names a shipped path ("rx", "fwd"): cb_path_load reads that,
 * never a file of the name (./rx is the file). */
int cb_path_is_shipped(const char *spec);
/* Keep res with r's run (path_results: a later composition of the same
 * path, size and context replaces it).  0, -EBUSY, or -EIO. */
int cb_path_store(struct cb_store *st, const struct cb_report *r, const struct cb_path *p,
                  const struct cb_path_result *res);
/* Each complete run's stored result of path at size in ctx, oldest first:
 * how many (0: none, said), or -EIO. */
int cb_path_history(struct cb_store *st, const char *path, uint64_t size, enum cb_context ctx, FILE *out);
/* A path both sides of a compare stored (path_results, path_versus.c):
 * each side's median total over its runs, the change, the steps whose
 * variant differs ("csum adc-1chain->avx2"), and the cases its steps took
 * on either side (a shipped path's; none for a user's own file), whose
 * verdicts are the path's (reading, which the caller fills in). */
struct cb_path_delta {
    char key[96];             /* "rx/1500/user": path, size, context */
    double a, b, pct;         /* cycles per packet, and the change in % */
    int a_runs, b_runs, missing, known;
    char changed[192];
    char cases[2 * CB_PATH_MAX_STEPS][96];
    size_t ncases;
    char reading[160];
};
/* Every path, size and context stored by runs of both sides, by key: 0
 * (*out malloc'd, n of them, maybe none), -EIO or -ENOMEM. */
int cb_path_versus(struct cb_store *st, const int64_t *a_runs, size_t na, const int64_t *b_runs, size_t nb,
                   struct cb_path_delta **out, size_t *n);
enum { CB_PATHV_TEXT, CB_PATHV_MARKDOWN, CB_PATHV_JSON };
/* compare's section: text or a markdown table (nothing when n is 0), or
 * JSON's ',"paths":[...]' member. */
void cb_path_versus_print(const struct cb_path_delta *d, size_t n, int style, FILE *f);
/* The HTML report's section: each shipped path at 1500 bytes as a stacked
 * bar, a segment per step, with the budget at 10, 25, 40 and 100G. */
void cb_path_html_view(FILE *out, const struct cb_report *r);

#endif
