/* inkernel_rows.c — the figures of in-kernel runs and of the models beside them (inkernel.h). */
#define _GNU_SOURCE
#include "store/inkernel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "store/store.h"
#include "util/sort.h"

/* The median per op of one event of a case (its name: "tsc", "cycles");
 * NAN with *n = 0 when none was stored. */
static int case_median(struct cb_store *st, int64_t case_id, const char *event, double *med,
                       size_t *n)
{
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT (s.value - COALESCE(s.overhead, 0.0)) / CAST(s.iters AS DOUBLE PRECISION)"
                           " FROM samples s JOIN events e ON e.id = s.event_id"
                           " WHERE s.case_id = ?1 AND e.name = ?2 AND s.value IS NOT NULL", &s);
    if (rc < 0)
        return rc;
    cb_db_bind_int64(s, 1, case_id);
    cb_db_bind_text(s, 2, event);
    double *v = NULL;
    size_t k = 0, cap = 0;
    while ((rc = cb_db_step(s)) == CB_DB_ROW) {
        if (k == cap) {
            double *g = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            if (!g) {
                rc = -ENOMEM;
                break;
            }
            v = g;
        }
        v[k++] = cb_db_column_double(s, 0);
    }
    cb_db_finalize(s);
    *n = k;
    *med = NAN;
    if (rc == CB_DB_DONE && k) {
        cb_sort_doubles(v, (size_t)k);
        *med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
    }
    free(v);
    return rc == CB_DB_DONE ? 0 : rc < 0 ? rc : -EIO;
}

/* The case found by sql (its first row: case id, run id, TSC GHz), with
 * its medians. */
static int figure_of(struct cb_store *st, const char *sql, int64_t run_id, const char *probe,
                     const char *variant, uint64_t size, const char *mode, struct cb_kfigure *f)
{
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(cb_store_db(st), sql, &s);
    if (rc < 0)
        return rc;
    cb_db_bind_int64(s, 1, run_id);
    cb_db_bind_text(s, 2, probe);
    cb_db_bind_text(s, 3, variant);
    cb_db_bind_int64(s, 4, (int64_t)size);
    cb_db_bind_text(s, 5, mode);
    memset(f, 0, sizeof *f);
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW) {
        f->case_id = cb_db_column_int64(s, 0);
        f->run_id = cb_db_column_int64(s, 1);
        f->tsc_ghz = cb_db_column_double(s, 2);
    }
    cb_db_finalize(s);
    if (rc != CB_DB_ROW)
        return rc == CB_DB_DONE ? -ENOENT : rc < 0 ? rc : -EIO;
    size_t nc;
    if ((rc = case_median(st, f->case_id, "tsc", &f->ticks, &f->n)) < 0 ||
        (rc = case_median(st, f->case_id, "cycles", &f->cycles, &nc)) < 0)
        return rc;
    return f->n ? 0 : -ENOENT;
}

#define CASE_MATCH                                                                               \
    " c.probe = ?2 AND c.variant = ?3 AND c.size = ?4 AND c.mode = ?5 AND c.verdict = 'ok'"     \
    " AND c.side IS NULL"

int cb_store_inkernel_figure(struct cb_store *st, int64_t run_id, const char *probe,
                             const char *variant, uint64_t size, const char *mode,
                             struct cb_kfigure *f)
{
    struct cb_run_info *u = malloc(sizeof *u);
    if (!u)
        return -ENOMEM;
    int rc = cb_store_run_get(st, run_id, u);
    int ik = rc == 0 && (strcmp(u->source, "in-kernel") == 0 || strcmp(u->source, "bpf") == 0);
    free(u);
    if (rc < 0)
        return rc;
    if (!ik)
        return -EINVAL;
    return figure_of(st, "SELECT c.id, r.id, r.tsc_ghz FROM cases c JOIN runs r ON r.id = c.run_id"
                         " WHERE r.id = ?1 AND" CASE_MATCH,
                     run_id, probe, variant, size, mode, f);
}

int cb_store_model_figure(struct cb_store *st, int64_t run_id, const char *probe,
                          const char *variant, uint64_t size, const char *mode,
                          struct cb_kfigure *f)
{
    return figure_of(st,
                     "SELECT c.id, r.id, r.tsc_ghz FROM cases c JOIN runs r ON r.id = c.run_id"
                     " WHERE r.status = 'complete' AND r.source IS NULL AND r.sim_model IS NULL"
                     " AND" CASE_MATCH
                     " AND EXISTS (SELECT 1 FROM samples s WHERE s.case_id = c.id)"
                     " ORDER BY CASE WHEN r.host_id = (SELECT host_id FROM runs WHERE id = ?1)"
                     " THEN 0 ELSE 1 END, r.id DESC LIMIT 1",
                     run_id, probe, variant, size, mode, f);
}

int cb_store_inkernel_latest(struct cb_store *st, int64_t host_of, int64_t *run_id)
{
    struct cb_db_stmt *s;
    int rc = cb_db_prepare(cb_store_db(st),
                           "SELECT id FROM runs WHERE status = 'complete' AND source = 'in-kernel'"
                           " AND (?1 <= 0 OR host_id = (SELECT host_id FROM runs WHERE id = ?1))"
                           " ORDER BY id DESC LIMIT 1", &s);
    if (rc < 0)
        return rc;
    cb_db_bind_int64(s, 1, host_of);
    rc = cb_db_step(s);
    if (rc == CB_DB_ROW)
        *run_id = cb_db_column_int64(s, 0);
    cb_db_finalize(s);
    return rc == CB_DB_ROW ? 0 : rc == CB_DB_DONE ? -ENOENT : rc < 0 ? rc : -EIO;
}
