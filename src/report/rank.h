/* rank.h — which variant is faster, and when that is a finding.
 *
 * One ranking for every front end (the text report, run's closing summary,
 * crossovers): without a PMU, "cycles" are TSC time times an estimated core
 * clock, and the estimate moved a case by up to 40% between identical runs
 * while its time moved by 0.5% (avx512-vnni 27.2 cycles against
 * avx512 44.9 for 13.39 against 14.11 ns).  So where cycles are estimated,
 * variants are ranked on TSC time, as race does; PMU and simulated cycles
 * are ranked as counted.
 *
 * A variant is faster than another only beyond the noise: the exact rank
 * test (ranktest.h) at CB_RANK_ALPHA and medians CB_RANK_MARGIN apart.
 * Otherwise the two are tied, and no report names a winner between them.
 *
 * That test takes one run's samples for independent, and they are not:
 * two identical runs of `run -p csum -s 1500` named different winners.
 * So where the store holds CB_RANK_RUNS_MIN - 1 or more other
 * runs of the same bytes (peers.c), runs are the unit: a is faster than b
 * when, over the runs that measured both, the mean log ratio of their
 * medians is CB_RANK_MARGIN or more in a's favour and a paired t-test on
 * those log ratios gives p < CB_RANK_ALPHA, and a is faster in the
 * report's own run as well (so that no claim contradicts the table beside
 * it).
 *
 * A tie is a claim too: "tied within noise" says two variants cost about
 * the same.  A variant the test cannot separate from the first but more
 * than CB_RANK_TIE_SPAN slower is not tied (a 3x spread "tied" at 5
 * samples a side); it is "not separated", and the report says what would
 * decide it.  Pairing by run takes out what moves a whole run (the core clock,
 * the host's load). */
#ifndef CB_RANK_H
#define CB_RANK_H

#include "report/report.h"

#define CB_RANK_ALPHA 0.01
#define CB_RANK_TIE_SPAN 0.10    /* a tie spans at most 10% above its first's figure */
#define CB_RANK_MARGIN 0.02
#define CB_RANK_RUNS_MIN 3       /* runs (the report's own and its peers) for runs as the unit */
#define CB_RANK_PEERS_MAX 15     /* other runs of the same bytes read, the newest */

/* How many runs r's claims rest on: 1 (within the run) unless it has
 * CB_RANK_RUNS_MIN - 1 peers or more. */
size_t cb_rank_runs(const struct cb_report *r);

/* 1 when r ranks on TSC time rather than its cycle figure (estimated). */
int cb_rank_by_time(const struct cb_report *r);
/* The figure a measured case ranks by: its median TSC ticks or cycles per
 * op; and the samples behind it (NULL when there are none). */
double cb_rank_median(const struct cb_report *r, const struct cb_report_case *c);
/* The figure shown for that rank: ns per op where the run ranks on time,
 * else cycles per op. */
double cb_rank_shown(const struct cb_report *r, const struct cb_report_case *c);
const struct cb_report_series *cb_rank_series(const struct cb_report *r,
                                              const struct cb_report_case *c);
/* 1 when measured case a is faster than b beyond the noise. */
int cb_rank_faster(const struct cb_report *r, const struct cb_report_case *a,
                   const struct cb_report_case *b);
/* What the first of a group is to each other measured case it is not
 * faster than: tied (within the noise and within CB_RANK_TIE_SPAN of its
 * figure), or not separated (the test cannot tell them apart, yet they are
 * further apart than a tie may span: more samples or runs decide). */
enum { CB_RANK_TIED = 1, CB_RANK_UNSEPARATED = 2 };
/* 1 when c's rank figure is within CB_RANK_TIE_SPAN above first's. */
int cb_rank_within_span(const struct cb_report *r, const struct cb_report_case *first,
                        const struct cb_report_case *c);
/* Sort v (n cases of one group) measured first, fastest first by this
 * run's rank figure, then by name; set tied[k] (may be NULL) to
 * CB_RANK_TIED or CB_RANK_UNSEPARATED for each measured case the first is
 * not faster than, 0 for the others (tied[0] is CB_RANK_TIED when any other
 * is).  Returns how many cases the first is not faster than, itself
 * included: 1 for a clear winner, 0 when none is measured. */
size_t cb_rank_group(const struct cb_report *r, const struct cb_report_case **v, size_t n,
                     int *tied);

#endif
