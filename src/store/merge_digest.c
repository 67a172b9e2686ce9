/* merge_digest.c — a run's content as one 64-bit digest (merge.h): how merge
 * tells the same run from a changed copy of it.  The store's own ids are
 * left out, since every store numbers its rows itself. */
#include "store/merge.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"

/* FNV-1a, 64 bits: it tells a changed copy from the same one, which is all
 * merge asks of it (it is no defence against a forger). */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static void fnv(unsigned long long *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * FNV_PRIME;
}

/* Which columns of s to leave out: bit i set for column i named in skip. */
static uint64_t skip_mask(struct cb_db_stmt *s, const char *const *skip)
{
    uint64_t mask = 0;
    for (int i = 0; i < cb_db_column_count(s) && i < 64; i++)
        for (const char *const *k = skip; *k; k++)
            if (strcmp(cb_db_column_name(s, i), *k) == 0)
                mask |= (uint64_t)1 << i;
    return mask;
}

/* A row's columns but the skipped ones (the ids of this store), each with
 * its type, so that NULL, 0, 0.0 and '' all differ. */
static void hash_row(unsigned long long *h, struct cb_db_stmt *s, uint64_t skip)
{
    for (int i = 0; i < cb_db_column_count(s); i++) {
        if (i < 64 && (skip >> i & 1))
            continue;
        unsigned char type = (unsigned char)cb_db_column_type(s, i);
        fnv(h, &type, 1);
        if (type == CB_DB_INTEGER) {
            int64_t v = cb_db_column_int64(s, i);
            fnv(h, &v, sizeof v);
        } else if (type == CB_DB_FLOAT) {
            double v = cb_db_column_double(s, i);
            fnv(h, &v, sizeof v);
        } else if (type != CB_DB_NULL) {
            const char *p = cb_db_column_text(s, i);
            int64_t n = (int64_t)strlen(p ? p : "");
            fnv(h, &n, sizeof n);
            fnv(h, p, (size_t)n);
        }
    }
    fnv(h, "\n", 1);
}

/* Every row of s (reset, ?1 = id) into h; each row's first column into
 * ids when given. */
static int hash_stmt(struct cb_db_stmt *s, int64_t id, const char *const *skip, unsigned long long *h,
                     int64_t **ids, size_t *nids)
{
    cb_db_reset(s);
    cb_db_bind_int64(s, 1, id);
    uint64_t mask = 0;
    int rc, r = 0, first = 1;
    size_t cap = 0;
    while (r == 0 && (rc = cb_db_step(s)) == CB_DB_ROW) {
        /* After the first step: PostgreSQL names the columns only then. */
        if (first)
            mask = skip_mask(s, skip);
        first = 0;
        hash_row(h, s, mask);
        if (!ids)
            continue;
        if (*nids == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *n = realloc(*ids, cap * sizeof *n);
            if (!n) {
                r = -ENOMEM;
                break;
            }
            *ids = n;
        }
        (*ids)[(*nids)++] = cb_db_column_int64(s, 0);
    }
    if (r == 0 && rc != CB_DB_DONE)
        r = -EIO;
    cb_db_reset(s);
    return r;
}

static int hash_rows(struct cb_db *db, const char *sql, int64_t id, const char *const *skip,
                     unsigned long long *h, int64_t **ids, size_t *nids)
{
    struct cb_db_stmt *s;
    if (cb_db_prepare(db, sql, &s) != CB_DB_OK)
        return -EIO;
    int r = hash_stmt(s, id, skip, h, ids, nids);
    cb_db_finalize(s);
    return r;
}

int cb_store_run_digest(struct cb_store *st, long long run_id, unsigned long long *digest)
{
    /* The UUID is the run's name, not its content: a store older than
     * 0009_uuid.sql names its runs when it is migrated (merge.h). */
    static const char *const run_skip[] = {"id", "uuid", "host_id", "build_id", "commit_id",
                                           "calibration_id", NULL};
    static const char *const own_skip[] = {"id", "run_id", NULL};
    static const char *const sample_skip[] = {"case_id", "event_id", NULL};
    unsigned long long h = FNV_OFFSET;
    int64_t *cases = NULL;
    size_t ncases = 0;
    static const char *const none[] = {NULL};
    int r = hash_rows(st->db, "SELECT * FROM runs WHERE id = ?1", run_id, run_skip, &h, NULL, NULL);
    /* Where it ran, what measured, what was measured: by content, as
     * merge matches those rows. */
    if (r == 0)
        r = hash_rows(st->db, "SELECT h.hostname, h.vendor, h.family, h.model, h.stepping,"
                      " h.model_name, h.microcode, h.kernel, h.pmu, b.version, b.compiler, b.cflags,"
                      " cm.hash, cm.dirty, ca.taken, ca.fingerprint, ca.source"
                      " FROM runs r JOIN hosts h ON h.id = r.host_id"
                      " JOIN builds b ON b.id = r.build_id LEFT JOIN commits cm ON cm.id = r.commit_id"
                      " LEFT JOIN calibrations ca ON ca.id = r.calibration_id"
                      " WHERE r.id = ?1", run_id, none, &h, NULL, NULL);
    if (r == 0)
        r = hash_rows(st->db, "SELECT * FROM events WHERE run_id = ?1 ORDER BY id", run_id,
                      own_skip, &h, NULL, NULL);
    /* Which build of which plugin measured its own variants. */
    if (r == 0)
        r = hash_rows(st->db, "SELECT * FROM run_plugins WHERE run_id = ?1 ORDER BY id", run_id,
                      own_skip, &h, NULL, NULL);
    if (r == 0)
        r = hash_rows(st->db, "SELECT * FROM cases WHERE run_id = ?1 ORDER BY id", run_id,
                      own_skip, &h, &cases, &ncases);
    /* Each case's samples after it, their event named rather than numbered. */
    struct cb_db_stmt *q = NULL;
    if (r == 0 && cb_db_prepare(st->db, "SELECT e.name AS event_name, e.part AS event_part,"
                                     " s.* FROM samples s JOIN events e ON e.id = s.event_id"
                                     " WHERE s.case_id = ?1 ORDER BY e.id, s.seq", &q) != CB_DB_OK)
        r = -EIO;
    for (size_t i = 0; r == 0 && i < ncases; i++) {
        fnv(&h, "case", 4);
        r = hash_stmt(q, cases[i], sample_skip, &h, NULL, NULL);
    }
    cb_db_finalize(q);
    free(cases);
    *digest = h;
    return r;
}
