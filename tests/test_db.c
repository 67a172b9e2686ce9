/* test_db.c — db.h on both backends: the same checks against SQLite (always)
 * and PostgreSQL (when CB_TEST_PG_URL names a database; tests/db_pg.test
 * starts a throw-away cluster and sets it).  On PostgreSQL each group works
 * in its own schema, dropped and made again, so a rerun starts clean.
 *
 *   tests/test_db              the checks
 *   tests/test_db --backends   prints the backends this build has */
#include "store/db.h"
#include "store/store.h"
#include "tap.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/cb-test-db.XXXXXX";

/* ---- helpers ---------------------------------------------------------- */

/* The one value of a one-row query, as text into buf ("NULL" for NULL). */
static int one(struct cb_db *db, const char *sql, char *buf, size_t len)
{
    struct cb_db_stmt *s;
    int r = cb_db_prepare(db, sql, &s);
    if (r < 0) {
        snprintf(buf, len, "prepare: %s", cb_db_errmsg(db));
        return r;
    }
    r = cb_db_step(s);
    if (r == CB_DB_ROW) {
        const char *t = cb_db_column_text(s, 0);
        snprintf(buf, len, "%s", t ? t : "NULL");
        r = 0;
    } else {
        snprintf(buf, len, "step %d: %s", r, cb_db_errmsg(db));
        r = r < 0 ? r : -ENOENT;
    }
    cb_db_finalize(s);
    return r;
}

static int64_t one_int(struct cb_db *db, const char *sql)
{
    char buf[256];
    return one(db, sql, buf, sizeof buf) == 0 ? strtoll(buf, NULL, 10) : INT64_MIN;
}

static int exec_ok(struct cb_db *db, const char *sql)
{
    int r = cb_db_exec(db, sql);
    if (r < 0)
        printf("#   %s: %s\n", sql, cb_db_errmsg(db));
    return r;
}

/* A PostgreSQL connection whose tables go to schema (dropped and made
 * again first when fresh). */
static struct cb_db *pg_in(const char *url, const char *schema, int fresh)
{
    struct cb_db *db;
    char sql[256];
    struct cb_sb err = CB_SB_INIT;
    if (cb_db_open(url, 0, &db, &err) < 0) {
        printf("#   %s\n", err.buf);
        cb_sb_release(&err);
        return NULL;
    }
    if (fresh) {
        snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s",
                 schema, schema);
        if (exec_ok(db, sql) < 0)
            goto fail;
    }
    snprintf(sql, sizeof sql, "SET search_path TO %s", schema);
    if (exec_ok(db, sql) < 0)
        goto fail;
    cb_sb_release(&err);
    return db;
fail:
    cb_db_close(db);
    cb_sb_release(&err);
    return NULL;
}

static struct cb_db *sqlite_fresh(const char *name)
{
    char path[256];
    struct cb_sb err = CB_SB_INIT;
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    unlink(path);
    struct cb_db *db;
    if (cb_db_open(path, CB_DB_CREATE, &db, &err) < 0) {
        printf("#   %s\n", err.buf);
        cb_sb_release(&err);
        return NULL;
    }
    cb_sb_release(&err);
    return db;
}

/* ---- the placeholder rewriting (no database) -------------------------- */

static void check_rewrite(const char *in, const char *want, int want_n)
{
    int n = -2;
    char *out = cb_db_pg_placeholders(in, &n);
    is_str(out, want, "placeholders: %s", in);
    is_int(n, want_n, "  %d parameters", want_n);
    free(out);
}

static void test_placeholders(void)
{
    check_rewrite("SELECT ?, ?", "SELECT $1, $2", 2);
    check_rewrite("SELECT '?', ?", "SELECT '?', $1", 1);
    check_rewrite("SELECT 'it''s ?', \"a?b\", ? -- why?\n, /* ? */ ?",
                  "SELECT 'it''s ?', \"a?b\", $1 -- why?\n, /* ? */ $2", 2);
    check_rewrite("WHERE a=?3 AND b=? AND c=?1", "WHERE a=$3 AND b=$4 AND c=$1", 4);
    check_rewrite("x=?12 OR y=?12", "x=$12 OR y=$12", 12);
    check_rewrite("SELECT 1", "SELECT 1", 0);
    check_rewrite("SELECT 'unterminated ?", "SELECT 'unterminated ?", 0);
    int n = 0;
    char *out = cb_db_pg_placeholders("SELECT ?0", &n);
    ok(!out && n == -1, "placeholders: ?0 is refused");
    free(out);
    out = cb_db_pg_placeholders("SELECT ?70000", &n);
    ok(!out && n == -1, "placeholders: ?70000 is refused");
    free(out);
}

/* ---- the statement layer, on either backend --------------------------- */

static void test_values(struct cb_db *db, const char *be)
{
    exec_ok(db, "CREATE TABLE t (i bigint, r double precision, s text)");
    struct cb_db_stmt *s;

    /* '?' inside a literal stays text; the real ones are bound. */
    int r = cb_db_prepare(db, "SELECT '?' || ?, ? + 1", &s);
    ok(r == 0, "%s: prepare with '?' in a literal", be);
    if (r == 0) {
        cb_db_bind_text(s, 1, "x");
        cb_db_bind_int64(s, 2, 41);
        is_int(cb_db_step(s), CB_DB_ROW, "%s: it runs", be);
        is_str(cb_db_column_text(s, 0), "?x", "%s: '?' in the literal is untouched", be);
        is_int(cb_db_column_int64(s, 1), 42, "%s: the parameter after it is ?2", be);
        is_int(cb_db_column_type(s, 1), CB_DB_INTEGER, "%s: an integer", be);
        is_int(cb_db_step(s), CB_DB_DONE, "%s: one row", be);
        cb_db_finalize(s);
    }

    /* NULL in, NULL out: never 0. */
    r = cb_db_prepare(db, "INSERT INTO t (i, r, s) VALUES (?, ?, ?)", &s);
    ok(r == 0, "%s: prepare insert", be);
    if (r == 0) {
        cb_db_bind_null(s, 1);
        cb_db_bind_double(s, 2, NAN);
        cb_db_bind_text(s, 3, NULL);
        is_int(cb_db_step(s), CB_DB_DONE, "%s: insert NULLs", be);
        is_int(cb_db_changes(db), 1, "%s: one row changed", be);
        cb_db_finalize(s);
    }
    r = cb_db_prepare(db, "SELECT i, r, s, i IS NULL FROM t", &s);
    if (r == 0 && cb_db_step(s) == CB_DB_ROW) {
        for (int c = 0; c < 3; c++) {
            is_int(cb_db_column_type(s, c), CB_DB_NULL, "%s: column %d is NULL", be, c);
            ok(cb_db_column_text(s, c) == NULL, "%s: column %d's text is NULL", be, c);
        }
        is_int(cb_db_column_int64(s, 3), 1, "%s: the database sees NULL too (IS NULL)", be);
    } else {
        ok(0, "%s: read the NULLs back: %s", be, cb_db_errmsg(db));
    }
    cb_db_finalize(s);
    exec_ok(db, "DELETE FROM t");

    /* int64 extremes, doubles to the last bit, text with quotes and UTF-8. */
    static const int64_t ints[] = {INT64_MIN, INT64_MAX, -1, 0, 1, 4294967296LL};
    static const double dbls[] = {0.1, 1e-300, -2.5e300, 1.0 / 3.0, 4.9406564584124654e-324,
                                  DBL_MAX, -0.0, 123456789.123456789};
    static const char *const texts[] = {"it's \"quoted\"; -- not a comment ? /* nor this */",
                                        "Z\xc3\xbcrich \xe2\x80\x93 \xe6\x97\xa5\xe6\x9c\xac "
                                        "\xe2\x9c\x93", "", "back\\slash", "$1 ?1 :a @b"};
    int nrows = 8;
    r = cb_db_prepare(db, "INSERT INTO t (i, r, s) VALUES (?1, ?2, ?3)", &s);
    for (int k = 0; r == 0 && k < nrows; k++) {
        cb_db_bind_int64(s, 1, ints[k % 6]);
        cb_db_bind_double(s, 2, dbls[k]);
        cb_db_bind_text(s, 3, texts[k % 5]);
        if (cb_db_step(s) != CB_DB_DONE)
            printf("#   insert %d: %s\n", k, cb_db_errmsg(db));
        cb_db_reset(s);
    }
    cb_db_finalize(s);
    r = cb_db_prepare(db, "SELECT i, r, s FROM t WHERE r = ?", &s);
    int exact_i = 0, exact_d = 0, exact_s = 0, types = 0;
    for (int k = 0; r == 0 && k < nrows; k++) {
        cb_db_reset(s);
        cb_db_bind_double(s, 1, dbls[k]);
        if (cb_db_step(s) != CB_DB_ROW) {
            printf("#   row with r = %.17g not found: %s\n", dbls[k], cb_db_errmsg(db));
            continue;
        }
        double d = cb_db_column_double(s, 1);
        exact_i += cb_db_column_int64(s, 0) == ints[k % 6];
        exact_d += memcmp(&d, &dbls[k], sizeof d) == 0 || (d == 0 && dbls[k] == 0);
        const char *t = cb_db_column_text(s, 2);
        exact_s += t && strcmp(t, texts[k % 5]) == 0;
        types += cb_db_column_type(s, 0) == CB_DB_INTEGER &&
                 cb_db_column_type(s, 1) == CB_DB_FLOAT && cb_db_column_type(s, 2) == CB_DB_TEXT;
        if (!t || strcmp(t, texts[k % 5]))
            printf("#   text %d: got '%s'\n", k, t ? t : "(null)");
    }
    cb_db_finalize(s);
    is_int(exact_i, nrows, "%s: int64 extremes round-trip exactly", be);
    is_int(exact_d, nrows, "%s: doubles (0.1, 1e-300, subnormal, DBL_MAX) round-trip to the bit",
           be);
    is_int(exact_s, nrows, "%s: text with quotes, backslashes and UTF-8 round-trips", be);
    is_int(types, nrows, "%s: integer, float and text columns read as such", be);
    is_int(one_int(db, "SELECT COUNT(*) FROM t WHERE i = -9223372036854775807 - 1"), 2,
           "%s: the database itself sees INT64_MIN", be);
    exec_ok(db, "DROP TABLE t");
}

static void test_loops(struct cb_db *db, const char *be)
{
    exec_ok(db, "CREATE TABLE l (i bigint NOT NULL, h double precision, s text)");
    struct cb_db_stmt *s;
    int r = cb_db_prepare(db, "INSERT INTO l (i, h, s) VALUES (?, ?, ?)", &s);
    int done = 0;
    char buf[32];
    for (int k = 0; r == 0 && k < 100; k++) {
        cb_db_bind_int64(s, 1, k);
        cb_db_bind_double(s, 2, k * 0.5);
        snprintf(buf, sizeof buf, "row%d", k);
        cb_db_bind_text(s, 3, buf);
        done += cb_db_step(s) == CB_DB_DONE;
        cb_db_reset(s);
        cb_db_clear_bindings(s);
    }
    is_int(done, 100, "%s: one statement stepped, reset and rebound 100 times", be);
    /* Cleared bindings are NULL: i is NOT NULL, so this must fail. */
    r = r == 0 ? cb_db_step(s) : 0;
    ok(r == -EINVAL, "%s: after clear_bindings the parameters are NULL (NOT NULL refused: %d)",
       be, r);
    cb_db_finalize(s);
    is_int(one_int(db, "SELECT SUM(i) FROM l"), 4950, "%s: the 100 rows are there (sum 4950)", be);
    char got[64];
    one(db, "SELECT SUM(h) FROM l", got, sizeof got);
    is_near(strtod(got, NULL), 2475.0, 0, "%s: their doubles sum to 2475", be);

    r = cb_db_prepare(db, "SELECT i, s FROM l WHERE i >= ? ORDER BY i LIMIT 3", &s);
    int good = 0;
    for (int from = 10; r == 0 && from <= 90; from += 40) {
        cb_db_reset(s);
        cb_db_bind_int64(s, 1, from);
        int k = 0;
        while (cb_db_step(s) == CB_DB_ROW) {
            snprintf(buf, sizeof buf, "row%d", from + k);
            good += cb_db_column_int64(s, 0) == from + k &&
                    !strcmp(cb_db_column_text(s, 1), buf);
            k++;
        }
        good += k == 3;
    }
    is_int(good, 12, "%s: a query rebound 3 times gives 3 rows each, in order", be);
    ok(cb_db_column_count(s) == 2 && !strcmp(cb_db_column_name(s, 1), "s"),
       "%s: column count and names", be);
    cb_db_finalize(s);

    is_int(cb_db_exec(db, "UPDATE l SET s = 'x' WHERE i < 10"), 0, "%s: update", be);
    is_int(cb_db_changes(db), 10, "%s: 10 rows changed", be);
    exec_ok(db, "DROP TABLE l");
}

static void test_errors(struct cb_db *db, const char *be)
{
    struct cb_db_stmt *s;
    int r = cb_db_prepare(db, "SELEC 1", &s);
    if (r == 0) {           /* PostgreSQL: at the first step */
        r = cb_db_step(s);
        cb_db_finalize(s);
    }
    ok(r == -EINVAL, "%s: bad SQL fails with -EINVAL (%d)", be, r);
    ok(strstr(cb_db_errmsg(db), "syntax error") != NULL, "%s: and says why: %s", be,
       cb_db_errmsg(db));

    exec_ok(db, "CREATE TABLE u (k text PRIMARY KEY, n bigint CHECK (n >= 0))");
    is_int(cb_db_exec(db, "INSERT INTO u VALUES ('a', 1)"), 0, "%s: insert", be);
    r = cb_db_exec(db, "INSERT INTO u VALUES ('a', 2)");
    is_int(r, -EEXIST, "%s: a duplicate key is -EEXIST", be);
    ok(cb_db_errmsg(db)[0] != '\0', "%s: with a message: %s", be, cb_db_errmsg(db));
    r = cb_db_prepare(db, "INSERT INTO u VALUES (?, ?)", &s);
    if (r == 0) {
        cb_db_bind_text(s, 1, "b");
        cb_db_bind_int64(s, 2, -1);
        r = cb_db_step(s);
        is_int(cb_db_bind_int64(s, 3, 1) < 0, 1, "%s: binding ?3 of 2 fails", be);
        cb_db_finalize(s);
    }
    is_int(r, -EINVAL, "%s: a failed CHECK is -EINVAL", be);
    is_int(one_int(db, "SELECT COUNT(*) FROM u"), 1, "%s: neither failed insert wrote", be);
    exec_ok(db, "DROP TABLE u");
}

static void test_tx(struct cb_db *db, const char *be, struct cb_db *fresh)
{
    const char *ddl = cb_db_kind(db) == CB_DB_SQLITE
        ? "CREATE TABLE x (id INTEGER PRIMARY KEY, name text NOT NULL)"
        : "CREATE TABLE x (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
          " name text NOT NULL)";
    exec_ok(db, ddl);
    is_int(cb_db_begin(db), 0, "%s: begin", be);
    ok(cb_db_in_tx(db), "%s: in a transaction", be);
    is_int(cb_db_begin(db), -EINVAL, "%s: begin inside a transaction is refused", be);
    ok(cb_db_in_tx(db), "%s: and the transaction stays open", be);
    for (int k = 0; k < 5; k++)
        cb_db_exec(db, "INSERT INTO x (name) VALUES ('gone')");
    is_int(cb_db_rollback(db), 0, "%s: rollback", be);
    ok(!cb_db_in_tx(db), "%s: out of it", be);
    is_int(one_int(db, "SELECT COUNT(*) FROM x"), 0, "%s: rollback leaves nothing", be);

    /* Ids go on from what the rollback used on PostgreSQL (sequences are
     * not transactional): compare with what the table holds. */
    cb_db_exec(db, "INSERT INTO x (name) VALUES ('a')");
    int64_t a = cb_db_last_insert_id(db);
    cb_db_exec(db, "INSERT INTO x (name) VALUES ('b')");
    int64_t b = cb_db_last_insert_id(db);
    is_int(a, one_int(db, "SELECT id FROM x WHERE name = 'a'"), "%s: last insert id (a)", be);
    is_int(b, one_int(db, "SELECT id FROM x WHERE name = 'b'"), "%s: last insert id (b)", be);
    ok(b > a && a > 0, "%s: ids grow (%lld, %lld)", be, (long long)a, (long long)b);

    is_int(cb_db_begin(db), 0, "%s: begin", be);
    cb_db_exec(db, "INSERT INTO x (name) VALUES ('c')");
    int64_t c = cb_db_last_insert_id(db);
    int r = cb_db_exec(db, "INSERT INTO x (name) VALUES ('d')");
    is_int(r, 0, "%s: asking for the id left the transaction usable", be);
    is_int(cb_db_commit(db), 0, "%s: commit", be);
    is_int(c, one_int(db, "SELECT id FROM x WHERE name = 'c'"), "%s: last insert id in a "
           "transaction", be);
    is_int(one_int(db, "SELECT COUNT(*) FROM x"), 4, "%s: committed rows stay", be);

    /* A connection that inserted nothing: 0, and its transaction lives on. */
    if (fresh) {
        cb_db_begin(fresh);
        is_int(cb_db_last_insert_id(fresh), 0, "%s: no insert yet: id 0", be);
        char got[64];
        is_int(one(fresh, "SELECT 7", got, sizeof got), 0, "%s: and the transaction is "
               "still usable: %s", be, got);
        cb_db_rollback(fresh);
    }
    exec_ok(db, "DROP TABLE x");
}

static void test_backend(struct cb_db *db, const char *be, struct cb_db *fresh)
{
    test_values(db, be);
    test_loops(db, be);
    test_errors(db, be);
    test_tx(db, be, fresh);
}

/* ---- the schema ------------------------------------------------------- */

/* Type 7 quantile of sorted x[0..n), computed here as the reference. */
static double quantile(const double *x, int n, double q)
{
    double h = (n - 1) * q;
    int lo = (int)h;
    return lo + 1 < n ? x[lo] + (h - lo) * (x[lo + 1] - x[lo]) : x[lo];
}

/* One run with one case and six samples, through the real tables, then
 * read back through the views. */
static void test_schema_rows(struct cb_db *db, const char *be)
{
    int r = exec_ok(db,
        "INSERT INTO hosts (id, hostname, vendor, family, model, stepping, model_name,"
        " microcode, features, feature_mask, ncpus, llc_bytes, kernel, tsc_ghz, tsc_source, pmu)"
        " VALUES (1, 'h', 'GenuineIntel', 6, 85, 7, 'Xeon', '', 'avx2', 3, 2, 0, '6.1', 2.5,"
        " 'sysfs', 'perf');"
        "INSERT INTO builds (id, version, compiler, cflags) VALUES (1, '0.1', 'gcc', '-O2');"
        "INSERT INTO commits (id, hash, subject, author_date, dirty)"
        " VALUES (1, 'abc', 's', '', 0);"
        "INSERT INTO runs (id, host_id, build_id, commit_id, started, finished, status, cmdline,"
        " cpu, tsc_ghz, core_ghz, core_ghz_spread, core_ghz_source, pid, boot_id)"
        " VALUES (1, 1, 1, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:30.500Z',"
        " 'complete', 'x', 0, 2.5, 0, 0, '', 1, 'b');"
        "INSERT INTO events (id, run_id, name, part, pfm, encoding, source, read_method,"
        " supported, why) VALUES (1, 1, 'tsc', 'tsc', '', '', 'tsc', 'rdtsc', 1, ''),"
        " (2, 1, 'cycles', 'cycles', '', '', 'pmu', 'none', 0, 'no PMU');"
        "INSERT INTO cases (id, run_id, probe, variant, size, unit, op, mode, bytes_per_op,"
        " verdict, detail) VALUES (1, 1, 'csum', 'generic', 64, 'B', 'call', 'warm', 64,"
        " 'ok', '')");
    is_int(r, 0, "%s: a run's rows go into the migrated tables", be);
    /* 0018: an arm64 host's counter rate comes from CNTFRQ_EL0; the CHECK
     * still refuses a source nobody writes. */
    static const char arm_host[] =
        "INSERT INTO hosts (id, hostname, vendor, family, model, stepping, model_name,"
        " microcode, features, feature_mask, ncpus, llc_bytes, kernel, tsc_ghz, tsc_source, pmu)"
        " VALUES (%d, 'a', 'ARM', 8, 3340, 1, 'Neoverse N1', '', 'asimd', 1048576, 2, 0, '6.1',"
        " 0.025, '%s', 'arm_n1')";
    char sql[512];
    snprintf(sql, sizeof sql, arm_host, 2, "cntfrq");
    is_int(exec_ok(db, sql), 0, "%s: a host whose counter rate is CNTFRQ_EL0's ('cntfrq') is stored", be);
    snprintf(sql, sizeof sql, arm_host, 3, "guessed");
    ok(cb_db_exec(db, sql) < 0, "%s: a tsc_source outside the list is still refused", be);
    /* ... its counter is read from CNTVCT_EL0, and its ceilings are NEON,
     * dc zva and glibc loops. */
    is_int(exec_ok(db,
        "INSERT INTO events (id, run_id, name, part, pfm, encoding, source, read_method,"
        " supported, why) VALUES (9, 1, 'tsc-arm', 'tsc', '', '', 'tsc', 'cntvct', 1, '');"
        "INSERT INTO samples (case_id, event_id, seq, iters, value, overhead, enabled, running,"
        " scaled, method) VALUES (1, 9, 0, 1, 1, 0, 0, 0, 0, 'cntvct');"
        "INSERT INTO calibrations (id, host_id, fingerprint, source, tsc_ghz, core_method,"
        " l1_bytes, l2_bytes, l3_bytes, note) VALUES (9, 2, 'f', 'measured', 0.025, 'none',"
        " 65536, 1048576, 0, '');"
        "INSERT INTO ceilings (calibration_id, kind, level, isa, set_bytes, bytes_per_tick,"
        " trials) VALUES (9, 'load', 'L1', 'neon', 16384, 1, 1), (9, 'store', 'L1', 'neon-x4',"
        " 16384, 1, 1), (9, 'zva', 'L2', 'dczva', 16384, 1, 1), (9, 'memcpy', 'L1', 'glibc',"
        " 16384, 1, 1), (9, 'memset', 'L3', 'glibc', 16384, 1, 1)"), 0,
        "%s: an arm64 run's values are stored (read_method and method 'cntvct'; ceilings zva, memcpy,"
        " memset; isa neon, neon-x4, dczva, glibc)", be);
    ok(cb_db_exec(db, "INSERT INTO ceilings (calibration_id, kind, level, isa, set_bytes,"
                      " bytes_per_tick, trials) VALUES (9, 'load', 'L1', 'sve', 1, 1, 1)") < 0,
       "%s: a ceiling isa outside the list is still refused", be);
    /* 0018: arm64's core clock estimate by its dependent-mul chain. */
    is_int(exec_ok(db, "UPDATE runs SET core_est_method = 'mul-chain' WHERE id = 1"), 0,
           "%s: a run whose core clock is the mul chain's ('mul-chain') is stored", be);
    ok(cb_db_exec(db, "UPDATE runs SET core_est_method = 'guessed' WHERE id = 1") < 0,
       "%s: a core_est_method outside the list is still refused", be);
    exec_ok(db, "UPDATE runs SET core_est_method = NULL WHERE id = 1");
    exec_ok(db, "DELETE FROM ceilings; DELETE FROM calibrations;"
                " DELETE FROM samples WHERE event_id = 9; DELETE FROM events WHERE id = 9;"
                " DELETE FROM hosts WHERE id = 2");
    static const double v[] = {5, 1, 4, 2, 3, 10};
    struct cb_db_stmt *s;
    r = cb_db_prepare(db, "INSERT INTO samples (case_id, event_id, seq, iters, value,"
                      " overhead, enabled, running, scaled) VALUES (1, ?, ?, 2, ?, 0, 0, 0, 0)",
                      &s);
    int done = 0;
    for (int k = 0; r == 0 && k < 6; k++) {
        cb_db_reset(s);
        cb_db_bind_int64(s, 1, 1);
        cb_db_bind_int64(s, 2, k);
        cb_db_bind_double(s, 3, 2 * v[k]);
        done += cb_db_step(s) == CB_DB_DONE;
    }
    is_int(done, 6, "%s: six samples", be);
    /* The trigger: a value for the unsupported event is refused. */
    cb_db_reset(s);
    cb_db_bind_int64(s, 1, 2);
    cb_db_bind_int64(s, 2, 0);
    cb_db_bind_double(s, 3, 1.0);
    int e = r == 0 ? cb_db_step(s) : 0;
    ok(e == -EINVAL && strstr(cb_db_errmsg(db), "value for an unsupported event"),
       "%s: the samples trigger refuses a value for an unsupported event (%d: %s)", be, e,
       cb_db_errmsg(db));
    cb_db_finalize(s);

    double sorted[] = {1, 2, 3, 4, 5, 10};
    char got[64];
    r = cb_db_prepare(db, "SELECT n, median, p25, p75, min, max, n_scaled FROM case_summary"
                      " WHERE event = 'tsc'", &s);
    if (r == 0 && cb_db_step(s) == CB_DB_ROW) {
        is_int(cb_db_column_int64(s, 0), 6, "%s: case_summary: n", be);
        is_near(cb_db_column_double(s, 1), quantile(sorted, 6, 0.5), 1e-12, "%s: median", be);
        is_near(cb_db_column_double(s, 2), quantile(sorted, 6, 0.25), 1e-12, "%s: p25", be);
        is_near(cb_db_column_double(s, 3), quantile(sorted, 6, 0.75), 1e-12, "%s: p75", be);
        ok(cb_db_column_double(s, 4) == 1 && cb_db_column_double(s, 5) == 10, "%s: min, max",
           be);
        is_int(cb_db_column_type(s, 6), CB_DB_INTEGER, "%s: n_scaled is an integer", be);
    } else {
        ok(0, "%s: case_summary has the case: %s", be, cb_db_errmsg(db));
    }
    cb_db_finalize(s);
    one(db, "SELECT COALESCE(median, -1) FROM case_summary WHERE event = 'cycles'", got,
        sizeof got);
    is_str(got, "-1", "%s: the unsupported event's median is NULL, not 0", be);
    one(db, "SELECT seconds FROM runs_overview WHERE id = 1", got, sizeof got);
    is_near(strtod(got, NULL), 90.5, 1e-9, "%s: runs_overview: seconds from julianday()", be);
    one(db, "SELECT started FROM runs_overview WHERE id = 1", got, sizeof got);
    is_str(got, "2026-01-01T00:00:00.000Z", "%s: started as stored", be);
    /* The default start time, in the format the GLOB/regex checks. */
    r = exec_ok(db, "INSERT INTO runs (id, host_id, build_id, cmdline, cpu, tsc_ghz, core_ghz,"
                " core_ghz_spread, core_ghz_source, pid, boot_id)"
                " VALUES (2, 1, 1, 'y', 0, 2.5, 0, 0, '', 1, 'b')");
    one(db, "SELECT started FROM runs WHERE id = 2", got, sizeof got);
    ok(r == 0 && strlen(got) == 24 && got[10] == 'T' && got[19] == '.' && got[23] == 'Z',
       "%s: the default start time is ISO 8601 UTC with milliseconds: %s", be, got);
    one(db, "SELECT first_run FROM commit_order", got, sizeof got);
    is_str(got, "1", "%s: commit_order", be);
    /* What PostgreSQL defines so that the C code's SQL runs on both. */
    one(db, "SELECT group_concat(name, '+') FROM (SELECT name FROM events ORDER BY id) e", got,
        sizeof got);
    is_str(got, "tsc+cycles", "%s: group_concat(x, sep)", be);
    one(db, "SELECT group_concat(name) FROM (SELECT name FROM events ORDER BY id DESC) e", got,
        sizeof got);
    is_str(got, "cycles,tsc", "%s: group_concat(x)", be);
    one(db, "SELECT cb_now()", got, sizeof got);
    ok(strlen(got) == 24 && got[10] == 'T' && got[23] == 'Z' && strncmp(got, "20", 2) == 0,
       "%s: cb_now() is ISO 8601 UTC with milliseconds: %s", be, got);
    one(db, "SELECT julianday('2000-01-01T12:00:00Z')", got, sizeof got);
    is_near(strtod(got, NULL), 2451545.0, 1e-9, "%s: julianday() of J2000", be);
    one(db, "SELECT COALESCE(julianday(''), -1)", got, sizeof got);
    is_near(strtod(got, NULL), -1, 0, "%s: julianday('') is NULL", be);
}

/* "kind:table#pos column type notnull" for every column of every table and
 * view; views without their types, which SQLite does not declare. */
struct cols {
    char **v;
    int n;
};

static void cols_add(struct cols *c, const char *kind, const char *table, int pos,
                     const char *col, const char *type, int notnull)
{
    char buf[256];
    if (!strcmp(kind, "view"))
        snprintf(buf, sizeof buf, "view:%s#%d %s", table, pos, col);
    else
        snprintf(buf, sizeof buf, "table:%s#%d %s %s%s", table, pos, col, type,
                 notnull ? " NOT NULL" : "");
    c->v = realloc(c->v, (size_t)(c->n + 1) * sizeof *c->v);
    c->v[c->n++] = strdup(buf);
}

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void cols_free(struct cols *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->v[i]);
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

/* SQLite's declared types, in PostgreSQL's words. */
static const char *pg_type_of(const char *t)
{
    return !strcmp(t, "INTEGER") ? "bigint" : !strcmp(t, "REAL") ? "double precision"
         : !strcmp(t, "TEXT") ? "text" : t;
}

static int sqlite_cols(struct cb_db *db, struct cols *c)
{
    struct cb_db_stmt *s;
    int r = cb_db_prepare(db, "SELECT m.type, m.name, p.cid, p.name, p.type, p.\"notnull\", p.pk"
                          " FROM sqlite_master m, pragma_table_info(m.name) p"
                          " WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%'",
                          &s);
    while (r == 0 && cb_db_step(s) == CB_DB_ROW)
        cols_add(c, cb_db_column_text(s, 0), cb_db_column_text(s, 1),
                 (int)cb_db_column_int64(s, 2) + 1, cb_db_column_text(s, 3),
                 pg_type_of(cb_db_column_text(s, 4)),
                 cb_db_column_int64(s, 5) || cb_db_column_int64(s, 6));
    cb_db_finalize(s);
    return r;
}

static int pg_cols(struct cb_db *db, struct cols *c)
{
    struct cb_db_stmt *s;
    int r = cb_db_prepare(db,
        "SELECT CASE WHEN t.table_type = 'VIEW' THEN 'view' ELSE 'table' END, c.table_name,"
        " c.ordinal_position, c.column_name, c.data_type, c.is_nullable = 'NO'"
        " FROM information_schema.columns c JOIN information_schema.tables t"
        " ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
        " WHERE c.table_schema = current_schema() AND c.table_name <> 'schema_version'", &s);
    while (r == 0 && cb_db_step(s) == CB_DB_ROW)
        cols_add(c, cb_db_column_text(s, 0), cb_db_column_text(s, 1),
                 (int)cb_db_column_int64(s, 2), cb_db_column_text(s, 3),
                 cb_db_column_text(s, 4), (int)cb_db_column_int64(s, 5));
    cb_db_finalize(s);
    return r;
}

/* Each PostgreSQL migration leaves the same tables, views and columns as
 * its SQLite twin: both migrated one version at a time, compared after
 * each. */
static void test_schema_twins(struct cb_db *sq, struct cb_db *pg)
{
    size_t nsq, npg;
    const struct cb_migration *msq = cb_db_migrations(sq, &nsq);
    const struct cb_migration *mpg = cb_db_migrations(pg, &npg);
    int same = nsq == npg;
    for (size_t i = 0; same && i < nsq; i++)
        same = !strcmp(msq[i].name, mpg[i].name);
    ok(same, "every SQLite migration has a PostgreSQL twin of the same name (%zu, %zu): "
       "add db/pg/NNNN_name.sql", nsq, npg);
    size_t n = nsq < npg ? nsq : npg;
    for (size_t v = 1; v <= n; v++) {
        struct cb_sb err = CB_SB_INIT;
        int r1 = cb_db_migrate(sq, (int)v, &err);
        int r2 = r1 == 0 ? cb_db_migrate(pg, (int)v, &err) : 0;
        if (r1 < 0 || r2 < 0) {
            ok(0, "migrate both to %zu: %s", v, err.buf);
            continue;
        }
        struct cols a = {0}, b = {0};
        sqlite_cols(sq, &a);
        pg_cols(pg, &b);
        qsort(a.v, (size_t)a.n, sizeof *a.v, cmpstr);
        qsort(b.v, (size_t)b.n, sizeof *b.v, cmpstr);
        int diff = a.n != b.n, shown = 0;
        for (int i = 0, j = 0; (i < a.n || j < b.n) && shown < 6;) {
            int c = i >= a.n ? 1 : j >= b.n ? -1 : strcmp(a.v[i], b.v[j]);
            if (c)
                diff = 1, shown++;
            if (c < 0)
                printf("#   only in SQLite: %s\n", a.v[i++]);
            else if (c > 0)
                printf("#   only in PostgreSQL: %s\n", b.v[j++]);
            else
                i++, j++;
        }
        ok(!diff && a.n > 0, "%s: the same %d columns of tables and views on both backends",
           mpg[v - 1].name, a.n);
        cols_free(&a);
        cols_free(&b);
        cb_sb_release(&err);
    }
}

/* ---- PostgreSQL: migrations once, twice, and from 8 processes --------- */

static void test_pg_migrations(const char *url)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_db *db = pg_in(url, "cb_t_mig", 1);
    if (!db) {
        ok(0, "postgresql: connect for the migrations");
        return;
    }
    size_t n;
    cb_db_migrations(db, &n);
    is_int(cb_db_schema_version(db), 0, "postgresql: an empty schema is at version 0");
    int r = cb_db_migrate(db, 0, &err);
    ok(r == 0, "postgresql: the migrations apply to an empty database: %s", r ? err.buf : "ok");
    is_int(cb_db_schema_version(db), (int64_t)n, "postgresql: at version %zu", n);
    r = cb_db_migrate(db, 0, &err);
    ok(r == 0, "postgresql: migrating again is a no-op: %s", r ? err.buf : "ok");
    is_int(one_int(db, "SELECT COUNT(*) FROM schema_version"), (int64_t)n,
           "postgresql: one schema_version row per migration");
    test_schema_rows(db, "postgresql");
    cb_db_exec(db, "INSERT INTO schema_version (version, name) VALUES (999, 'future')");
    r = cb_db_migrate(db, 0, &err);
    ok(r == -EPROTO && strstr(err.buf, "newer"), "postgresql: a newer schema is refused: %s", err.buf);
    cb_db_close(db);
    cb_sb_release(&err);
}

enum { NPROC = 8, NROWS = 50 };

/* One collector: connect, migrate, 50 rows in 50 transactions.  Exits with
 * the number of things that failed. */
static int child(const char *url, int id)
{
    char sql[160];
    struct cb_sb err = CB_SB_INIT;
    int bad = 0;
    struct cb_db *db = pg_in(url, "cb_t_conc", 0);
    if (!db)
        return 100;
    if (cb_db_migrate(db, 0, &err) < 0) {
        printf("#   child %d: %s\n", id, err.buf);
        bad++;
    }
    for (int k = 0; k < NROWS; k++) {
        snprintf(sql, sizeof sql, "INSERT INTO builds (version, compiler, cflags)"
                 " VALUES ('child %d', 'cc', '%d')", id, k);
        int r = cb_db_begin(db);
        if (r == 0)
            r = cb_db_exec(db, sql);
        if (r == 0)
            r = cb_db_commit(db);
        if (r < 0) {
            printf("#   child %d row %d: %s\n", id, k, cb_db_errmsg(db));
            if (cb_db_in_tx(db))
                cb_db_rollback(db);
            bad++;
        }
    }
    cb_db_close(db);
    cb_sb_release(&err);
    return bad;
}

static void test_pg_concurrent(const char *url)
{
    struct cb_db *db = pg_in(url, "cb_t_conc", 1);
    if (!db) {
        ok(0, "postgresql: connect for the concurrent migrations");
        return;
    }
    fflush(stdout);
    pid_t pids[NPROC];
    for (int i = 0; i < NPROC; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            int bad = child(url, i);
            fflush(stdout);
            _exit(bad > 100 ? 100 : bad);   /* never close the parent's connection */
        }
    }
    int errors = 0, spawned = 0;
    for (int i = 0; i < NPROC; i++) {
        int st;
        if (pids[i] < 0 || waitpid(pids[i], &st, 0) < 0) {
            errors++;
            continue;
        }
        spawned++;
        errors += WIFEXITED(st) ? WEXITSTATUS(st) : 100;
    }
    size_t n;
    cb_db_migrations(db, &n);
    is_int(spawned, NPROC, "postgresql: %d collectors ran", NPROC);
    is_int(errors, 0, "postgresql: 8 processes open, migrate and insert at once: 0 errors");
    is_int(one_int(db, "SELECT COUNT(*) FROM builds"), NPROC * NROWS,
           "postgresql: all %d rows are there", NPROC * NROWS);
    is_int(one_int(db, "SELECT COUNT(*) FROM schema_version"), (int64_t)n,
           "postgresql: each migration applied once");
    is_int(cb_db_schema_version(db), (int64_t)n, "postgresql: at version %zu", n);
    cb_db_close(db);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--backends")) {
        printf("sqlite%s\n", cb_db_have_postgresql() ? " postgresql" : "");
        return 0;
    }
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_placeholders();

    struct cb_db *db = sqlite_fresh("basic.db"), *fresh = NULL;
    char path[300];
    struct cb_sb err = CB_SB_INIT;
    snprintf(path, sizeof path, "%s/basic.db", tmpdir);
    if (db)
        cb_db_open(path, 0, &fresh, &err);
    ok(db && fresh && cb_db_kind(db) == CB_DB_SQLITE, "sqlite: a path opens SQLite");
    if (db)
        test_backend(db, "sqlite", fresh);
    cb_db_close(fresh);
    cb_db_close(db);

    db = sqlite_fresh("schema.db");
    int r = db ? cb_db_migrate(db, 0, &err) : -1;
    ok(r == 0, "sqlite: the migrations apply: %s", r ? err.buf : "ok");
    is_int(db ? cb_db_schema_version(db) : -1, cb_store_schema_latest(), "sqlite: at the latest");
    if (db && r == 0)
        test_schema_rows(db, "sqlite");
    cb_db_close(db);

    /* The URL forms, and CB_DB when no target is given. */
    ok(cb_db_is_url("postgresql:///cb") && cb_db_is_url("postgres://u@h/cb") &&
       !cb_db_is_url("postgresql.db") && !cb_db_is_url("./postgres://x"),
       "postgresql:// and postgres:// are URLs; file names are not");
    setenv("CB_DB", path, 1);
    r = cb_db_open(NULL, 0, &db, &err);
    ok(r == 0 && cb_db_kind(db) == CB_DB_SQLITE, "no target: CB_DB is used");
    if (r == 0)
        cb_db_close(db);
    unsetenv("CB_DB");
    r = cb_db_open("", 0, &db, &err);
    ok(r == -EINVAL && strstr(err.buf, "CB_DB"), "no target and no CB_DB: %s", err.buf);

    if (!cb_db_have_postgresql()) {
        r = cb_db_open("postgresql:///cb", 0, &db, &err);
        ok(r == -EPROTONOSUPPORT && strstr(err.buf, "libpq-dev") && strstr(err.buf, "./configure"),
           "built without libpq: a URL says how to get PostgreSQL support: %s", err.buf);
    }
    const char *url = getenv("CB_TEST_PG_URL");
    if (!url || !*url) {
        printf("# PostgreSQL: CB_TEST_PG_URL is not set (tests/db_pg.test starts a server "
               "and sets it)\n");
    } else if (!cb_db_have_postgresql()) {
        printf("# PostgreSQL: this build has no libpq\n");
    } else {
        db = pg_in(url, "cb_t_basic", 1);
        fresh = pg_in(url, "cb_t_basic", 0);
        ok(db && fresh && cb_db_kind(db) == CB_DB_POSTGRESQL, "postgresql: the URL connects");
        if (db && fresh)
            test_backend(db, "postgresql", fresh);
        cb_db_close(fresh);
        cb_db_close(db);
        r = cb_db_open("postgresql:///no_such_db_cb?host=/nonexistent", 0, &db, &err);
        ok(r < 0 && strstr(err.buf, "cannot connect"), "postgresql: no server: %s", err.buf);

        test_pg_migrations(url);
        test_pg_concurrent(url);

        struct cb_db *sq = sqlite_fresh("twins.db");
        struct cb_db *pg = pg_in(url, "cb_t_twins", 1);
        if (sq && pg)
            test_schema_twins(sq, pg);
        else
            ok(0, "open both for the schema comparison");
        cb_db_close(sq);
        cb_db_close(pg);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    cb_sb_release(&err);
    return tap_done();
}
