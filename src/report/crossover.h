/* crossover.h — what a run's cases say together.
 *
 * One case answers "what does this cost"; the questions the seed threads
 * asked need several: where does the winner change with size (the 2016
 * thread found rep stos winning from about 512 bytes), and is fusing the
 * checksum into the copy worth it against copy alone plus csum alone (the
 * 2002 thread).  These read only a loaded report. */
#ifndef CB_REPORT_CROSSOVER_H
#define CB_REPORT_CROSSOVER_H

#include <stdio.h>

#include "report/report.h"

/* A crossover: at size `at` the winner became `to` (it was `from` at the
 * size before, `below`). */
struct cb_crossover {
    const char *probe, *mode;
    uint64_t below, at;
    const char *from, *to;
};

/* The crossovers of r, in probe/mode/size order: up to max written to out,
 * the total returned. */
size_t cb_crossovers(const struct cb_report *r, struct cb_crossover *out, size_t max);

/* Bytes per cycle by variant and size for each byte-oriented probe and mode
 * (the 2016 table), then the crossover sizes. */
int cb_report_crossover_text(const struct cb_report *r, FILE *out);

/* csum_copy against copy alone and csum alone at the same size and mode. */
int cb_report_fusion_text(const struct cb_report *r, FILE *out);

/* Per packet (rx_prefetch): cycles, packets per second on this core, the
 * budget share, and cache misses and ineffective prefetches per packet
 * where they were counted; where not, the reason. */
int cb_report_packet_text(const struct cb_report *r, const struct cb_budget *b, FILE *out);

/* The names of v's cases tied with the first (tied[k] CB_RANK_TIED, rank.h)
 * after col columns already written, wrapped under 100, and a newline. */
void cb_report_tied_names(const struct cb_report_case *const *v, const int *tied, size_t n, int col,
                          FILE *out);

/* After lead and the first's name, each case of v not separated from it
 * (tied[k] CB_RANK_UNSEPARATED) with its figure as a multiple of the
 * first's, and what would decide them; nothing when there is none. */
void cb_report_unseparated(const struct cb_report *r, const struct cb_report_case *const *v,
                           const int *tied, size_t n, const char *lead, FILE *out);
/* What decides a claim the test cannot make in r: more samples or runs. */
const char *cb_report_decides(const struct cb_report *r, char *buf, size_t len);

#endif
