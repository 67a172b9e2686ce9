/* races.h — a race kept with its run (db/0004_race.sql: races,
 * race_results, race_entrants, race_cases) and read back for report and
 * the next race (analysis/race.h decides it, report/race_report.c shows it). */
#ifndef CB_STORE_RACES_H
#define CB_STORE_RACES_H

#include <stddef.h>
#include <stdint.h>

struct cb_store;

/* One race: how it was run.  Reals are NAN where NULL. */
struct cb_store_race {
    int64_t id, run_id;
    const char *mode, *metric, *context;
    double alpha, min_margin;
    int64_t rounds, reps, seed;
    double fpu_charge;          /* kernel context only */
    /* Read back only: the run's start and its host. */
    const char *started, *hostname, *model_name;
};

/* One bucket's decision.  max_size < 0: unbounded; names NULL where none. */
struct cb_store_race_result {
    const char *probe, *bucket, *decision;
    int64_t min_size, max_size, size;
    const char *winner, *winner_needs, *runner_up, *tied;
    double winner_median, runner_up_median, margin, margin_lo, margin_hi, p;
    /* Read back only: the previous race's winner there (NULL: none), and
     * the entrants judged BAD, comma-separated (NULL: none). */
    const char *prev_winner, *bad;
};

/* One entrant of a bucket, with the cases it ran and their rounds. */
struct cb_store_race_entrant {
    const char *variant, *verdict, *detail;
    int64_t n;
    double median, p, margin;
    int beaten;
    const int64_t *case_ids;
    const int *rounds;
    size_t ncases;
};

/* A race being written: one transaction from begin to commit. */
struct cb_store_race_writer;

/* Begin writing race (its id into race->id): 0, -EBUSY or -EIO. */
int cb_store_race_begin(struct cb_store *st, struct cb_store_race *race,
                        struct cb_store_race_writer **w);
/* A bucket's decision and its entrants: 0 or -EIO. */
int cb_store_race_add(struct cb_store_race_writer *w, const struct cb_store_race_result *res,
                      const struct cb_store_race_entrant *e, size_t ne);
/* Commit (ok) or roll back, and free w: 0, or -EIO saying why on stderr. */
int cb_store_race_end(struct cb_store_race_writer *w, int ok);

/* fn(race id): its value, -ENOENT when there is no such race, or -EIO. */
int cb_store_race_get(struct cb_store *st, int64_t id,
                      int (*fn)(const struct cb_store_race *race, void *ctx), void *ctx);
/* Each bucket's decision of race id, in the order stored.  0, the
 * callback's stop value, or -EIO. */
int cb_store_each_race_result(struct cb_store *st, int64_t id,
                              int (*fn)(const struct cb_store_race_result *res, void *ctx),
                              void *ctx);
/* The newest race of each host, mode and context of complete runs, by id
 * (none in a store from before races).  0, the callback's stop value, or -EIO. */
int cb_store_each_latest_race(struct cb_store *st, int (*fn)(int64_t id, void *ctx), void *ctx);

#endif
