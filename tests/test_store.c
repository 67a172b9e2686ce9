/* test_store.c — the SQLite store: round trip, migrations, refusals, reaping,
 * run resolution and concurrent writers.
 *
 * References are computed here independently of store.c: per-op values by
 * plain arithmetic, medians and quartiles by sorting in C, what is in the
 * file by asking SQLite directly, and "untouched" by comparing whole files. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
#include "store/hoststate.h"
#include "tap.h"
#include "store/uuid.h"

static char tmpdir[64];

static void path_in(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static struct cb_host test_host(void)
{
    struct cb_host h;
    memset(&h, 0, sizeof h);
    snprintf(h.vendor, sizeof h.vendor, "AuthenticAMD");
    h.family = 25;
    h.model = 17;
    h.stepping = 1;
    snprintf(h.model_name, sizeof h.model_name, "AMD EPYC 9654 96-Core Processor");
    snprintf(h.microcode, sizeof h.microcode, "0xa101144");
    h.features = CB_CPU_AVX2 | CB_CPU_ADX;
    h.ncpus = 2;
    snprintf(h.kernel, sizeof h.kernel, "6.1.0-18-amd64 #1 SMP");
    gethostname(h.hostname, sizeof h.hostname);
    h.llc_bytes = 32u << 20;
    return h;
}

static struct cb_run_meta test_meta(const struct cb_host *h, const char *tag)
{
    struct cb_run_meta m = {
        .host = h, .tsc_ghz = 2.3999871, .tsc_source = "calibrated",
        .core_ghz = 3.1, .core_ghz_spread = 0.7, .core_ghz_source = "estimate",
        .pmu = "perf", .version = "0.1.0", .compiler = "gcc 12.2.0",
        .cflags = "-O2 -g", .commit = "0123456789abcdef0123456789abcdef01234567",
        .subject = "csum: two adc chains", .commit_date = "2024-05-01T10:00:00+02:00",
        .dirty = 1, .cmdline = "cyclebudget run csum --sizes 64,1500", .tag = tag, .cpu = 1,
        .clock_backend = "perf_event", .core_est_method = "imul-chain", .core_est_ghz = 3.1,
        .core_est_spread = 0.7, .core_est_add_ghz = 6.2, .core_est_imul_ghz = 3.1,
        .meter_kind = "host", .meter_baseline = 1.48, .meter_spread = 1.25,
        .meter_why = "baseline on CPU 1: median 1.480", .fingerprint = "governor=;smt_active=0;",
    };
    return m;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Hyndman & Fan type 7 on sorted x[0..n-1], the definition 0002_views.sql
 * documents; written here from the definition, not from the SQL. */
static double quantile(const double *x, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)h;   /* h >= 0: truncation is floor */
    if (lo + 1 >= n)
        return x[n - 1];
    return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *len = 0;
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

static int same_file(const char *path, const unsigned char *before, size_t blen)
{
    size_t alen;
    unsigned char *after = slurp(path, &alen);
    int same = after && alen == blen && memcmp(after, before, blen) == 0;
    free(after);
    return same;
}

static long long sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    long long v = -999;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return v;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            v = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    } else {
        printf("# sql_int: %s: %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return v;
}

static int sql_exec(const char *path, const char *sql, int no_ckpt)
{
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return -1;
    if (no_ckpt)
        sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* ---- round trip --------------------------------------------------------- */

#define NB1 7   /* batches in case 1: odd, so the median is the middle one */
#define NB2 6   /* case 2: even, the mean of the two middle ones */

struct batch { int seq; uint64_t iters; double value, overhead; };

static void make_batches(struct batch *b, int n, unsigned seed)
{
    unsigned x = seed;
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        b[i].seq = i;
        b[i].iters = 1000 + (x >> 20) % 500;
        b[i].value = (double)(b[i].iters * 40 + (x >> 8) % 3000) + 0.25;
        b[i].overhead = (i % 3 == 2) ? NAN : 100.0 + i;   /* some without overhead */
    }
}

static void test_round_trip(void)
{
    char path[128];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "rt.db");
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, "baseline");
    struct cb_store *st;

    int r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    is_int(r, 0, "round trip: open write creates the database (%s)", err.buf);
    if (r) {
        cb_sb_release(&err);
        return;
    }
    is_int(cb_store_schema_version(st), (long long)cb_nmigrations,
           "new database is at the highest migration");

    int64_t run, ev_cyc, ev_task;
    is_int(cb_store_run_begin(st, &m, &run), 0, "run_begin");
    struct cb_event_row cyc = {"cycles", "cycles", "perf::CYCLES", "", "pmu", "none", 0,
                               "cycles: perf_event_open: No such file or directory"};
    struct cb_event_row task = {"task-clock", "", "perf::PERF_COUNT_SW_TASK_CLOCK",
                                "type=1 config=0x1", "software", "read", 1, ""};
    is_int(cb_store_event_add(st, run, &cyc, &ev_cyc), 0, "event_add unsupported cycles");
    is_int(cb_store_event_add(st, run, &task, &ev_task), 0, "event_add task-clock");

    struct batch b1[NB1], b2[NB2];
    make_batches(b1, NB1, 7);
    make_batches(b2, NB2, 99);
    b2[3].value = NAN;        /* a supported event that lost one reading */

    struct cb_case_row c1 = {"csum", "adc-2chain", 1500, "B", "packet", "warm", 1500, "ok", "", 1, 1.5, 0.25, NULL, NULL, 0, 0, NULL, 0, NULL, -1};
    struct cb_case_row c2 = {"csum", "generic", 64, "B", "packet", "cold", 64, "bad",
                             "len 3 offset 1: got 0x1234 want 0x4321", 0, 0, 0, NULL, NULL, 0, 0,
                             NULL, 0, NULL, -1};
    struct cb_sample_row s[2 * NB1];
    int64_t case1, case2;

    /* Written in reverse seq order: the store must give them back in seq order. */
    int k = 0;
    for (int i = NB1 - 1; i >= 0; i--) {
        s[k++] = (struct cb_sample_row){b1[i].seq, b1[i].iters, ev_task, b1[i].value,
                                        b1[i].overhead, 5000 + i, 5000 + i, i == 4, 1.0 + 0.25 * i,
                                        i % 3, b1[i].value / 2, "read"};
        s[k++] = (struct cb_sample_row){b1[i].seq, b1[i].iters, ev_cyc, NAN, NAN, 0, 0, 0, NAN,
                                        i % 3, NAN, NULL};
    }
    is_int(cb_store_case_add(st, run, &c1, s, k, &case1), 0, "case_add case 1 (%d samples)", k);
    k = 0;
    for (int i = NB2 - 1; i >= 0; i--) {
        s[k++] = (struct cb_sample_row){b2[i].seq, b2[i].iters, ev_task, b2[i].value,
                                        b2[i].overhead, 7000, 6000, 1, 0, 0, NAN, NULL};
        s[k++] = (struct cb_sample_row){b2[i].seq, b2[i].iters, ev_cyc, NAN, NAN, 0, 0, 0, NAN, 0,
                                        NAN, NULL};
    }
    is_int(cb_store_case_add(st, run, &c2, s, k, &case2), 0, "case_add case 2");
    is_int(sql_int(path, "SELECT SUM(round = seq % 3) FROM samples WHERE case_id = 1"), 2 * NB1,
           "every sample row keeps its round");
    is_int(sql_int(path, "SELECT COUNT(*) FROM samples WHERE case_id = 1 AND value IS NOT NULL"
                         " AND raw * 2 = value AND method = 'read'"), NB1,
           "a sample keeps its raw count beside the scaled value, and how it was read");
    is_int(sql_int(path, "SELECT COUNT(*) FROM samples WHERE case_id = 1 AND value IS NULL"
                         " AND raw IS NULL AND method IS NULL"), NB1,
           "an unsupported event's sample has no raw count and no method (NULL, not 0)");
    is_int(sql_int(path, "SELECT contention * 100 + contended_share * 4 FROM cases WHERE variant = 'adc-2chain'"),
           151, "a metered case stores its contention meter and contended share");
    is_int(sql_int(path, "SELECT COUNT(*) FROM cases WHERE variant = 'generic' AND contention IS NULL"
                         " AND contended_share IS NULL"), 1, "an unmetered case stores NULL, not 0");

    /* A value for an unsupported event is refused, and the whole case with it. */
    struct cb_sample_row badrow = {0, 10, ev_cyc, 123.0, NAN, 0, 0, 0, NAN, 0, NAN, NULL};
    struct cb_case_row c3 = {"csum", "x", 1, "B", "packet", "warm", 1, "ok", "", 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, NULL, -1};
    int64_t case3 = 0;
    ok(cb_store_case_add(st, run, &c3, &badrow, 1, &case3) < 0,
       "a value for an unsupported event is refused");
    is_int(sql_int(path, "SELECT COUNT(*) FROM cases WHERE variant = 'x'"), 0,
           "the refused case left no row (one transaction)");

    ok(sql_int(path, "SELECT COUNT(*) FROM runs WHERE status = 'running' AND finished IS NULL") == 1,
       "the run is 'running' until finished");
    is_int(cb_store_run_finish(st, run, "complete"), 0, "run_finish complete");
    cb_store_close(st);

    r = cb_store_open(path, CB_STORE_READ, 0, &st, &err);
    is_int(r, 0, "reopen read (%s)", err.buf);
    if (r) {
        cb_sb_release(&err);
        return;
    }
    int64_t got;
    is_int(cb_store_run_resolve(st, "latest", &got, &err), 0, "resolve latest");
    is_int(got, run, "latest is our run");

    struct cb_run_info ri;
    is_int(cb_store_run_get(st, run, &ri), 0, "run_get");
    is_str(ri.status, "complete", "status");
    is_str(ri.clock_backend, "perf_event", "clock backend");
    is_str(ri.core_est_method, "imul-chain", "core estimate's method");
    ok(ri.core_est_ghz == 3.1 && ri.core_est_spread == 0.7 && ri.core_est_add_ghz == 6.2 &&
       ri.core_est_imul_ghz == 3.1, "the estimate, its spread and both estimators' figures");
    is_str(ri.meter_kind, "host", "meter kind");
    ok(ri.meter_baseline == 1.48 && ri.meter_spread == 1.25, "meter baseline and its spread");
    is_str(ri.meter_why, "baseline on CPU 1: median 1.480", "meter's reasoning");
    is_str(ri.fingerprint, "governor=;smt_active=0;", "fingerprint");
    ok(strlen(ri.started) >= 20 && ri.started[4] == '-' && ri.started[10] == 'T' &&
       ri.started[strlen(ri.started) - 1] == 'Z', "started is ISO-8601 UTC (%s)", ri.started);
    ok(strcmp(ri.finished, ri.started) >= 0 && ri.finished[10] == 'T',
       "finished (%s) is at or after started", ri.finished);
    is_str(ri.cmdline, m.cmdline, "cmdline");
    is_str(ri.tag, "baseline", "tag");
    is_int(ri.cpu, 1, "cpu");
    is_str(ri.commit, m.commit, "commit");
    is_str(ri.subject, m.subject, "subject");
    is_str(ri.commit_date, m.commit_date, "commit date");
    is_int(ri.dirty, 1, "dirty");
    is_str(ri.hostname, h.hostname, "hostname");
    is_str(ri.vendor, "AuthenticAMD", "vendor");
    is_str(ri.model_name, h.model_name, "model name");
    is_str(ri.microcode, "0xa101144", "microcode");
    is_str(ri.kernel, h.kernel, "kernel");
    is_int(ri.family, 25, "family");
    is_int(ri.model, 17, "model");
    is_int(ri.stepping, 1, "stepping");
    is_int(ri.ncpus, 2, "ncpus");
    is_str(ri.features, "avx2+adx", "features as names");
    is_near(ri.tsc_ghz, 2.3999871, 1e-12, "tsc GHz of the run is exact");
    is_str(ri.tsc_source, "calibrated", "tsc source");
    is_near(ri.core_ghz, 3.1, 1e-12, "core GHz");
    is_near(ri.core_ghz_spread, 0.7, 1e-12, "core GHz spread");
    is_str(ri.core_ghz_source, "estimate", "core GHz source");
    is_str(ri.pmu, "perf", "pmu");
    is_str(ri.version, "0.1.0", "version");
    is_str(ri.compiler, "gcc 12.2.0", "compiler");
    is_str(ri.cflags, "-O2 -g", "cflags");

    struct cb_event_info *ev;
    size_t nev;
    is_int(cb_store_events(st, run, &ev, &nev), 0, "events");
    is_int(nev, 2, "two events");
    if (nev == 2) {
        is_int(ev[0].id, ev_cyc, "event order by id");
        is_str(ev[0].name, "cycles", "event name");
        is_str(ev[0].pfm, "perf::CYCLES", "event pfm");
        is_str(ev[0].source, "pmu", "event source");
        is_str(ev[0].read_method, "none", "event read method");
        is_int(ev[0].supported, 0, "cycles unsupported");
        is_str(ev[0].why, cyc.why, "why");
        is_str(ev[1].name, "task-clock", "event 2 name");
        is_str(ev[1].part, "task-clock", "an empty part becomes the name");
        is_str(ev[1].encoding, "type=1 config=0x1", "encoding");
        is_int(ev[1].supported, 1, "task-clock supported");
    }
    free(ev);

    struct cb_case_info *ca;
    size_t nca;
    is_int(cb_store_cases(st, run, &ca, &nca), 0, "cases");
    is_int(nca, 2, "two cases");
    if (nca == 2) {
        is_str(ca[0].probe, "csum", "probe");
        is_str(ca[0].variant, "adc-2chain", "variant");
        is_uint(ca[0].size, 1500, "size");
        is_str(ca[0].unit, "B", "unit");
        is_str(ca[0].op, "packet", "op");
        is_str(ca[0].mode, "warm", "mode");
        is_uint(ca[0].bytes_per_op, 1500, "bytes per op");
        is_str(ca[0].verdict, "ok", "verdict");
        is_int(ca[0].nsamples, NB1, "nsamples case 1");
        is_str(ca[1].mode, "cold", "mode 2");
        is_str(ca[1].verdict, "bad", "verdict 2");
        is_str(ca[1].detail, c2.detail, "detail");
        is_int(ca[1].nsamples, NB2, "nsamples case 2");
    }
    free(ca);

    /* case_values against (value - overhead) / iters computed here. */
    const struct batch *bs[2] = {b1, b2};
    const int nbs[2] = {NB1, NB2};
    const int64_t cids[2] = {case1, case2};
    for (int c = 0; c < 2; c++) {
        double want[NB1], sorted[NB1];
        size_t nw = 0;
        for (int i = 0; i < nbs[c]; i++) {
            if (isnan(bs[c][i].value))
                continue;
            double oh = isnan(bs[c][i].overhead) ? 0 : bs[c][i].overhead;
            want[nw++] = (bs[c][i].value - oh) / (double)bs[c][i].iters;
        }
        double *v;
        int *sc;
        size_t nv;
        double *sm;
        is_int(cb_store_case_values(st, cids[c], ev_task, &v, &sc, &sm, &nv), 0, "case_values %d", c);
        /* The meter: case 1 stored 1.0 + 0.25 * seq on every value, case 2
         * stored 0 (not measured), which reads back as NAN. */
        int smt_ok = 1;
        for (size_t i = 0, j = 0; i < (size_t)nbs[c] && j < nv; i++) {
            if (isnan(bs[c][i].value))
                continue;
            smt_ok &= c == 0 ? sm[j] == 1.0 + 0.25 * bs[c][i].seq : isnan(sm[j]);
            j++;
        }
        ok(smt_ok, "case %d: the SMT meter reading comes back with each value", c);
        free(sm);
        is_int(nv, nw, "case %d: NULL values skipped (%zu values)", c, nw);
        int same = nv == nw;
        for (size_t i = 0; same && i < nv; i++)
            same = fabs(v[i] - want[i]) <= 1e-12 * fabs(want[i]);
        ok(same, "case %d: values equal (value - overhead) / iters in seq order", c);
        if (c == 0 && nv == NB1)
            ok(sc[4] == 1 && sc[3] == 0, "scaled flag per value");
        free(v);
        free(sc);
        is_int(cb_store_case_values(st, cids[c], ev_cyc, &v, NULL, NULL, &nv), 0, "unsupported values");
        is_int(nv, 0, "case %d: unsupported event has no values", c);
        free(v);

        /* case_summary's median, quartiles, min, max against sorting here. */
        memcpy(sorted, want, nw * sizeof *want);
        qsort(sorted, nw, sizeof *sorted, cmp_double);
        double med = nw % 2 ? sorted[nw / 2] : (sorted[nw / 2 - 1] + sorted[nw / 2]) / 2;
        sqlite3 *db;
        sqlite3_stmt *q;
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
        int prc = sqlite3_prepare_v2(db,
            "SELECT n, median, min, max, p25, p75, spread_pct FROM case_summary"
            " WHERE case_id = ?1 AND event_id = ?2", -1, &q, NULL);
        ok(prc == SQLITE_OK, "case_summary can be queried (%s)", sqlite3_errmsg(db));
        if (prc == SQLITE_OK) {
            sqlite3_bind_int64(q, 1, cids[c]);
            sqlite3_bind_int64(q, 2, ev_task);
            is_int(sqlite3_step(q), SQLITE_ROW, "case %d has a summary row", c);
            is_int(sqlite3_column_int(q, 0), nw, "summary n");
            is_near(sqlite3_column_double(q, 1), med, 1e-9 * fabs(med), "summary median (%g)", med);
            is_near(sqlite3_column_double(q, 2), sorted[0], 1e-9, "summary min");
            is_near(sqlite3_column_double(q, 3), sorted[nw - 1], 1e-9, "summary max");
            double p25 = quantile(sorted, nw, 0.25), p75 = quantile(sorted, nw, 0.75);
            is_near(sqlite3_column_double(q, 4), p25, 1e-9, "summary p25");
            is_near(sqlite3_column_double(q, 5), p75, 1e-9, "summary p75");
            is_near(sqlite3_column_double(q, 6), 100 * (p75 - p25) / fabs(med), 1e-9,
                    "summary spread_pct = IQR / median");
            sqlite3_reset(q);
            sqlite3_bind_int64(q, 1, cids[c]);
            sqlite3_bind_int64(q, 2, ev_cyc);
            is_int(sqlite3_step(q), SQLITE_ROW, "unsupported event has a summary row");
            is_int(sqlite3_column_int(q, 0), 0, "with n = 0");
            is_int(sqlite3_column_type(q, 1), SQLITE_NULL, "and a NULL median");
            sqlite3_finalize(q);
        }
        sqlite3_close(db);
    }
    cb_store_close(st);

    /* Straight from SQL: not measured is NULL, never 0. */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM samples WHERE event_id = %lld AND value IS NULL",
             (long long)ev_cyc);
    is_int(sql_int(path, sql), NB1 + NB2, "every unsupported sample is NULL");
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM samples WHERE event_id = %lld AND value IS NOT NULL",
             (long long)ev_cyc);
    is_int(sql_int(path, sql), 0, "no unsupported sample holds a number (not 0)");
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM samples WHERE case_id = %lld AND event_id = %lld"
             " AND seq = 3 AND value IS NULL", (long long)case2, (long long)ev_task);
    is_int(sql_int(path, sql), 1, "a NAN value is stored as NULL");
    is_int(sql_int(path, "SELECT COUNT(*) FROM samples WHERE overhead IS NULL AND event_id IN"
                         " (SELECT id FROM events WHERE name = 'task-clock')"),
           (NB1 + 1) / 3 + (NB2 + 1) / 3, "a NAN overhead is stored as NULL");
    is_int(sql_int(path, "SELECT COUNT(*) FROM case_summary"), 4, "case_summary: 2 cases x 2 events");

    /* Deduplication: the same host, build and commit reuse their rows; a
     * microcode update is a new host. */
    r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    is_int(r, 0, "reopen write");
    if (r) {
        cb_sb_release(&err);
        return;
    }
    int64_t run2, run3;
    m.tsc_ghz = 2.3999902;    /* calibration jitter below 1 MHz */
    is_int(cb_store_run_begin(st, &m, &run2), 0, "second run, same host");
    struct cb_host h2 = h;
    snprintf(h2.microcode, sizeof h2.microcode, "0xa101148");
    struct cb_run_meta m2 = test_meta(&h2, NULL);
    is_int(cb_store_run_begin(st, &m2, &run3), 0, "third run, new microcode");
    cb_store_close(st);
    is_int(sql_int(path, "SELECT COUNT(*) FROM hosts"), 2, "hosts deduplicated (2 distinct)");
    is_int(sql_int(path, "SELECT COUNT(*) FROM builds"), 1, "builds deduplicated");
    is_int(sql_int(path, "SELECT COUNT(*) FROM commits"), 1, "commits deduplicated");
    is_int(sql_int(path, "SELECT COUNT(DISTINCT host_id) FROM runs WHERE id IN (1, 2)"), 1,
           "runs 1 and 2 share a host row");
    cb_sb_release(&err);
}

/* ---- the TSC rate calibrated earlier in this boot ----------------------- */

static void test_boot_tsc(void)
{
    char path[512];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "boot.db");
    struct cb_store *st;
    if (cb_store_open(path, CB_STORE_WRITE, 0, &st, &err) != 0) {
        ok(0, "open boot.db: %s", err.buf);
        cb_sb_release(&err);
        return;
    }
    double g = -1;
    is_int(cb_store_boot_tsc(st, &g), -ENOENT, "no runs: no rate to reuse");
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, NULL);
    int64_t run;
    m.tsc_source = "sysfs";
    m.tsc_ghz = 2.4;
    cb_store_run_begin(st, &m, &run);
    is_int(cb_store_boot_tsc(st, &g), -ENOENT, "a rate the kernel reported is not a calibration");
    m.tsc_source = "calibrated";
    m.tsc_ghz = 2.0960140951993;
    cb_store_run_begin(st, &m, &run);
    is_int(cb_store_boot_tsc(st, &g), 0, "a calibrated run of this boot");
    ok(g == 2.0960140951993, "its exact rate comes back (%.13f)", g);
    m.tsc_ghz = 2.0961;
    int64_t newest;
    cb_store_run_begin(st, &m, &newest);
    cb_store_boot_tsc(st, &g);
    ok(g == 2.0961, "the newest calibration wins (%.4f)", g);
    cb_store_close(st);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE runs SET boot_id = 'another-boot' WHERE id >= %lld",
             (long long)run);
    sql_exec(path, sql, 0);
    if (cb_store_open(path, CB_STORE_WRITE, 0, &st, &err) != 0) {
        cb_sb_release(&err);
        return;
    }
    is_int(cb_store_boot_tsc(st, &g), -ENOENT, "a calibration from another boot is not reused");
    cb_store_close(st);
    cb_sb_release(&err);
}

/* ---- an emulated run (0017_emulated.sql) -------------------------------- */

static void test_emulated(void)
{
    char path[512];
    struct cb_sb why = CB_SB_INIT;
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "emul.db");
    struct cb_store *st;
    if (cb_store_open(path, CB_STORE_WRITE, 0, &st, &err) != 0) {
        ok(0, "open emul.db: %s", err.buf);
        cb_sb_release(&err);
        return;
    }
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, NULL);
    int64_t native, emul, which = 0, runs[2];
    is_int(cb_store_run_begin(st, &m, &native), 0, "emulated: a native run begins");
    m.emulated = "CB_EMULATED=qemu-test";
    is_int(cb_store_run_begin(st, &m, &emul), 0, "emulated: an emulated run begins");
    struct cb_run_info *u = calloc(1, sizeof *u);
    if (!u) {
        cb_sb_release(&err);
        return;
    }
    cb_store_run_get(st, native, u);
    is_str(u->emulated, "", "emulated: a native run reads back \"\"");
    cb_store_run_get(st, emul, u);
    is_str(u->emulated, "CB_EMULATED=qemu-test", "emulated: the reason reads back");
    runs[0] = native;
    runs[1] = emul;
    is_int(cb_store_runs_emulated(st, runs, 1, &which, &why), 0,
           "emulated: the native run alone holds none");
    is_int(cb_store_runs_emulated(st, runs, 2, &which, &why), 1,
           "emulated: the pair holds one");
    ok(which == emul && strcmp(why.buf, "CB_EMULATED=qemu-test") == 0, "emulated: which (%lld) and why.buf (%s)",
       (long long)which, why.buf);
    free(u);
    cb_store_close(st);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT (SELECT emulated IS NULL FROM runs WHERE id = %lld) * 10 + "
             "(SELECT count(*) FROM runs WHERE emulated = 'CB_EMULATED=qemu-test')", (long long)native);
    is_int(sql_int(path, sql), 11, "emulated: stored as NULL (native) and as the reason");
    ok(sql_exec(path, "UPDATE runs SET emulated = '' WHERE id = 1", 0) != 0,
       "emulated: an empty reason is refused by the CHECK (NULL means native)");
    cb_sb_release(&err);
    cb_sb_release(&why);
}

/* ---- 0026: the memory reference in a store of schema 25 ------------------ */

static void test_memref_migration(void)
{
    char path[512];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "memref.db");
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, "before-mem");
    struct cb_store *st;
    if (cb_store_open(path, CB_STORE_WRITE, 25, &st, &err) != 0) {
        ok(0, "memref: open at schema 25: %s", err.buf);
        cb_sb_release(&err);
        return;
    }
    is_int(cb_store_schema_version(st), 25, "memref: a store of schema 25");
    int64_t run;
    cb_store_run_begin(st, &m, &run);
    struct cb_refs r = {{1.0, 0.5, 64.0, 40.0, 400.0}};
    is_int(cb_store_run_refs_set(st, run, &r), 0, "memref: schema 25 keeps the four L1 references");
    cb_store_close(st);
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO cases (run_id, probe, variant, size, unit, op, mode, bytes_per_op, verdict,"
             " detail, state, state_ratio, state_ref, tries) VALUES (%lld, 'csum', 'avx2', 1500, 'B',"
             " 'packet', 'warm', 1500, 'ok', '', 'slowed', 1.7, 'copy', 3)", (long long)run);
    is_int(sql_exec(path, sql, 0), 0, "memref: schema 25: a case slowed on copy");
    long long cs = sql_int(path, "SELECT max(id) FROM cases");
    ok(sql_exec(path, "UPDATE cases SET state_ref = 'mem'", 0) != 0,
       "memref: schema 25 refuses state_ref 'mem'");

    if (cb_store_open(path, CB_STORE_WRITE, 0, &st, &err) != 0) {
        ok(0, "memref: reopen: %s", err.buf);
        cb_sb_release(&err);
        return;
    }
    is_int(cb_store_schema_version(st), cb_store_schema_latest(), "memref: migrated to the latest");
    struct cb_run_state rs;
    is_int(cb_store_run_state(st, run, &rs), 0, "memref: the old run's state reads");
    ok(rs.start.v[CB_REF_COPY] == 40.0 && isnan(rs.start.v[CB_REF_MEM]),
       "memref: its references kept, mem NULL (copy %.1f, mem %.1f)", rs.start.v[CB_REF_COPY],
       rs.start.v[CB_REF_MEM]);
    struct cb_state s;
    int tries;
    is_int(cb_store_case_state(st, cs, &s, &tries), 0, "memref: the old case's state reads");
    ok(s.kind == CB_STATE_SLOWED_KIND && s.ref == CB_REF_COPY && tries == 3,
       "memref: slowed on copy, 3 tries, as written");
    struct cb_refs quiet;
    int n;
    is_int(cb_store_host_quiet(st, run, &quiet, &n), 0, "memref: quiet figures from the old reading");
    ok(quiet.v[CB_REF_VEC] == 0.5 && isnan(quiet.v[CB_REF_MEM]), "memref: vec 0.5, no mem figure yet");
    is_int(cb_store_run_refs_set(st, run, &r), 0, "memref: the run's reading again, mem with it");
    is_int(cb_store_host_quiet(st, run, &quiet, &n), 0, "memref: quiet figures again");
    ok(quiet.v[CB_REF_MEM] == 400.0, "memref: mem's quiet figure 400 (got %.1f)", quiet.v[CB_REF_MEM]);
    s = (struct cb_state){.kind = CB_STATE_SLOWED_KIND, .ratio = 1.6, .ref = CB_REF_MEM};
    is_int(cb_store_case_state_set(st, cs, &s, 2), 0, "memref: a case slowed on mem is written");
    cb_store_close(st);
    is_int(sql_int(path, "SELECT state_ref = 'mem' AND tries = 2 FROM cases WHERE id = (SELECT max(id) FROM cases)"),
           1, "memref: stored as 'mem'");
    ok(sql_exec(path, "UPDATE cases SET state_ref = 'dram'", 0) != 0,
       "memref: the widened CHECK still refuses a name it does not list");
    ok(sql_exec(path, "UPDATE runs SET state = 'slowed', state_ratio = 1.6, state_ref = 'mem'", 0) == 0,
       "memref: runs.state_ref takes 'mem' too");
    is_int(sql_int(path, "SELECT count(*) FROM pragma_table_info('calibrations')"
                         " WHERE name IN ('ref_mem', 'meter_baseline')"),
           2, "memref: calibrations have ref_mem and meter_baseline");
    is_int(sql_int(path, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'"), 0,
           "memref: the rewritten schema passes integrity_check");
    cb_sb_release(&err);
}

/* ---- migration ---------------------------------------------------------- */

static void test_migration(void)
{
    char path[128];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "mig.db");
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, "old");
    struct cb_store *st;
    int latest = cb_store_schema_latest();

    int r = cb_store_open(path, CB_STORE_WRITE, 1, &st, &err);
    is_int(r, 0, "migration: open at schema %d (%s)", 1, err.buf);
    if (r) {
        cb_sb_release(&err);
        return;
    }
    is_int(cb_store_schema_version(st), 1, "stopped at the previous version");
    int64_t run, ev, cs, run2;
    cb_store_run_begin(st, &m, &run);
    cb_store_run_begin(st, &m, &run2);
    struct cb_event_row e = {"tsc", "tsc", "", "", "tsc", "rdtsc", 1, ""};
    cb_store_event_add(st, run, &e, &ev);
    /* The case and its samples as a version-1 writer wrote them: this
     * library's INSERT names columns added later (0005's contention). */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO cases (run_id, probe, variant, size, unit, op, mode, bytes_per_op, verdict,"
             " detail) VALUES (%lld, 'memset', 'erms', 256, 'B', 'call', 'warm', 256, 'ok', '');"
             "INSERT INTO samples (case_id, event_id, seq, iters, value, overhead, enabled, running,"
             " scaled) SELECT max(id), %lld, 0, 100, 5000, 40, 0, 0, 0 FROM cases"
             " UNION ALL SELECT max(id), %lld, 1, 100, 5200, 40, 0, 0, 0 FROM cases"
             " UNION ALL SELECT max(id), %lld, 2, 200, 9000, 40, 0, 0, 0 FROM cases;",
             (long long)run, (long long)ev, (long long)ev, (long long)ev);
    is_int(sql_exec(path, sql, 0), 0, "old schema: case written");
    cs = sql_int(path, "SELECT max(id) FROM cases");
    is_int(cb_store_run_finish(st, run, "complete"), 0, "old schema: run finished");
    cb_store_close(st);
    is_int(sql_int(path, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'view'"), 0,
           "previous version has no views");

    r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    is_int(r, 0, "reopen at latest (%s)", err.buf);
    if (r) {
        cb_sb_release(&err);
        return;
    }
    is_int(cb_store_schema_version(st), latest, "migrated to the latest version");
    struct cb_run_info ri;
    is_int(cb_store_run_get(st, run, &ri), 0, "old run readable");
    is_str(ri.tag, "old", "old run's tag intact");
    is_str(ri.status, "complete", "old run's status intact");
    /* 0009_uuid.sql: every old run got a UUID v4 of its own, in SQL. */
    ok(cb_uuid_valid(ri.uuid) && ri.uuid[14] == '4' && strchr("89ab", ri.uuid[19]),
       "old run got a version 4 UUID in the migration ('%s')", ri.uuid);
    struct cb_run_info ri2;
    is_int(cb_store_run_get(st, run2, &ri2), 0, "second old run readable");
    ok(cb_uuid_valid(ri2.uuid) && strcmp(ri.uuid, ri2.uuid) != 0,
       "the second old run's UUID differs ('%s')", ri2.uuid);
    int64_t run3;
    struct cb_run_info ri3;
    is_int(cb_store_run_begin(st, &m, &run3), 0, "a new run begins after the migration");
    cb_store_run_get(st, run3, &ri3);
    ok(cb_uuid_valid(ri3.uuid) && ri3.uuid[14] == '4' && strcmp(ri3.uuid, ri.uuid) != 0 &&
       strcmp(ri3.uuid, ri2.uuid) != 0, "the new run has a fresh UUID v4 ('%s')", ri3.uuid);
    cb_store_run_finish(st, run2, "complete");
    cb_store_run_finish(st, run3, "complete");
    double *v;
    size_t n;
    cb_store_case_values(st, cs, ev, &v, NULL, NULL, &n);
    is_int(n, 3, "old samples intact");
    if (n == 3)
        ok(v[0] == (5000.0 - 40) / 100 && v[1] == (5200.0 - 40) / 100 && v[2] == (9000.0 - 40) / 200,
           "old values intact");
    free(v);
    cb_store_close(st);
    is_int(sql_int(path, "PRAGMA user_version"), latest, "user_version == latest on disk");
    is_int(sql_int(path, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'view' AND name IN"
                         " ('case_summary', 'case_summary_all', 'runs_overview', 'sample_values')"),
           4, "views exist after migration");
    is_int(sql_int(path, "SELECT n FROM case_summary"), 3, "case_summary sees the old case");
    is_int(sql_int(path, "SELECT SUM(cases) FROM runs_overview"), 1, "runs_overview sees it");
    is_int(sql_int(path, "SELECT COUNT(DISTINCT uuid) FROM runs"), 3, "three runs, three UUIDs on disk");
    char dup[256];
    snprintf(dup, sizeof dup, "UPDATE runs SET uuid = (SELECT uuid FROM runs WHERE id = %lld)"
             " WHERE id = %lld", (long long)run, (long long)run2);
    ok(sql_exec(path, dup, 0) != 0, "runs_uuid refuses a second run with the same UUID");
    ok(sql_exec(path, "UPDATE runs SET uuid = 'not-a-uuid' WHERE id = 1", 0) != 0,
       "the CHECK refuses a UUID not in canonical form");
    is_int(sql_exec(path, "INSERT INTO runs (host_id, build_id, cmdline, cpu, tsc_ghz, core_ghz,"
                          " core_ghz_spread, core_ghz_source, pid, boot_id, status, finished)"
                          " SELECT host_id, build_id, 'sql', 0, 1, 0, 0, '', 1, '', 'aborted', NULL"
                          " FROM runs WHERE id = 1", 0), 0, "a run inserted by plain SQL");
    is_int(sql_int(path, "SELECT COUNT(*) FROM runs WHERE cmdline = 'sql' AND length(uuid) = 36"
                         " AND substr(uuid, 9, 1) || substr(uuid, 14, 2) || substr(uuid, 19, 1)"
                         " || substr(uuid, 24, 1) = '--4--'"), 1,
           "the trigger gave the SQL-inserted run a UUID");
    /* median of 49.6, 51.6, 44.8 is 49.6 */
    is_int(sql_int(path, "SELECT CAST(ROUND(median * 10) AS INTEGER) FROM case_summary"), 496,
           "median over migrated data");
    cb_sb_release(&err);
}

/* ---- run identity ------------------------------------------------------- */

static void test_uuid(void)
{
    enum { N = 2000 };
    static char u[N][CB_UUID_LEN + 1];
    int good = 1, distinct = 1;
    unsigned nib[16] = {0};
    for (int i = 0; i < N; i++) {
        if (cb_uuid_v4(u[i], sizeof u[i]) != 0 || !cb_uuid_valid(u[i]) || u[i][14] != '4' ||
            !strchr("89ab", u[i][19]))
            good = 0;
        nib[strchr("0123456789abcdef", u[i][0]) - "0123456789abcdef"]++;
    }
    for (int i = 0; i < N && distinct; i++)
        for (int j = i + 1; j < N; j++)
            if (strcmp(u[i], u[j]) == 0) {
                distinct = 0;
                break;
            }
    ok(good, "uuid: %d UUIDs are canonical, version 4, variant 10 (e.g. %s)", N, u[0]);
    ok(distinct, "uuid: all %d distinct", N);
    /* 2000 draws over 16 first nibbles: 125 each expected; a generator stuck
     * on a few values (or not random at all) is far outside 60..190. */
    unsigned lo = N, hi = 0;
    for (int i = 0; i < 16; i++) {
        lo = nib[i] < lo ? nib[i] : lo;
        hi = nib[i] > hi ? nib[i] : hi;
    }
    ok(lo >= 60 && hi <= 190, "uuid: the first hex digit is spread (%u..%u of 2000 each)", lo, hi);
    char small[CB_UUID_LEN];
    is_int(cb_uuid_v4(small, sizeof small), -ENOSPC, "uuid: a buffer too small is refused");
    ok(!cb_uuid_valid("6B93C41E-E477-4054-AEFF-71D6550E36FB") && !cb_uuid_valid("6b93c41e") &&
       !cb_uuid_valid("6b93c41e-e477-4054-aeff_71d6550e36fb") && !cb_uuid_valid(NULL),
       "uuid: upper case, short, and misplaced separators are not canonical");
}

/* ---- refusals ----------------------------------------------------------- */

static void test_newer(void)
{
    char path[128], want1[64], want2[64];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "newer.db");
    struct cb_store *st;
    int latest = cb_store_schema_latest();
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "newer: create");
    cb_store_close(st);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", latest + 5);
    is_int(sql_exec(path, sql, 0), 0, "bump user_version with sqlite directly");
    snprintf(want1, sizeof want1, "schema %d", latest + 5);
    snprintf(want2, sizeof want2, "knows %d", latest);

    size_t blen;
    unsigned char *before = slurp(path, &blen);
    for (int mode = 0; mode < 2; mode++) {
        cb_sb_reset(&err);
        st = NULL;
        int r = cb_store_open(path, mode ? CB_STORE_WRITE : CB_STORE_READ, 0, &st, &err);
        is_int(r, -EPROTO, "newer schema refused (%s mode)", mode ? "write" : "read");
        ok(st == NULL, "no handle returned");
        ok(strstr(err.buf, want1) && strstr(err.buf, want2) && strstr(err.buf, path),
           "message names the file and both versions: %s", err.buf);
        ok(same_file(path, before, blen), "file byte-for-byte untouched");
    }
    free(before);

    /* The bump only in the WAL (not checkpointed): the header looks old, so
     * the refusal comes after SQLite opened the file, and closing must not
     * checkpoint it into the main file. */
    path_in(path, sizeof path, "newer-wal.db");
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "newer (wal): create");
    cb_store_close(st);
    is_int(sql_exec(path, sql, 1), 0, "bump user_version in the WAL only");
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    size_t wlen;
    unsigned char *wbefore = slurp(wal, &wlen);
    before = slurp(path, &blen);
    ok(wlen > 0, "the WAL holds the bump (%zu bytes)", wlen);
    int r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    is_int(r, -EPROTO, "newer schema in the WAL refused: %s", err.buf);
    ok(same_file(path, before, blen), "main file untouched");
    ok(same_file(wal, wbefore, wlen), "WAL untouched");
    free(before);
    free(wbefore);
    cb_sb_release(&err);
}

static void test_not_a_database(void)
{
    char path[128];
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st = NULL;
    path_in(path, sizeof path, "notes.txt");
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 20; i++)
        fprintf(f, "line %d: this is a text file, not a database\n", i);
    fclose(f);
    size_t blen;
    unsigned char *before = slurp(path, &blen);
    for (int mode = 0; mode < 2; mode++) {
        int r = cb_store_open(path, mode ? CB_STORE_WRITE : CB_STORE_READ, 0, &st, &err);
        is_int(r, -EINVAL, "text file refused with -EINVAL (%s): %s", mode ? "write" : "read", err.buf);
        ok(same_file(path, before, blen), "text file untouched");
    }
    free(before);

    /* An SQLite database, but some other program's. */
    path_in(path, sizeof path, "other.db");
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "CREATE TABLE addresses (name TEXT, street TEXT)", NULL, NULL, NULL);
    sqlite3_close(db);
    before = slurp(path, &blen);
    int r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    is_int(r, -EINVAL, "another program's SQLite database refused: %s", err.buf);
    ok(same_file(path, before, blen), "and untouched");
    free(before);

    /* A valid header over a damaged body. */
    path_in(path, sizeof path, "damaged.db");
    struct cb_store *ok_st;
    cb_store_open(path, CB_STORE_WRITE, 0, &ok_st, &err);
    cb_store_close(ok_st);
    size_t dlen;
    unsigned char *d = slurp(path, &dlen);
    for (size_t i = 100; i < dlen; i++)
        d[i] = (unsigned char)(i * 7 + 3);
    f = fopen(path, "wb");
    fwrite(d, 1, dlen, f);
    fclose(f);
    r = cb_store_open(path, CB_STORE_READ, 0, &st, &err);
    is_int(r, -EINVAL, "damaged database refused: %s", err.buf);
    ok(same_file(path, d, dlen), "damaged file untouched");
    free(d);
    cb_sb_release(&err);
}

static void test_paths(void)
{
    char path[128];
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    struct stat sb;

    is_int(cb_store_open(tmpdir, CB_STORE_WRITE, 0, &st, &err), -EISDIR,
           "directory refused with -EISDIR (write): %s", err.buf);
    is_int(cb_store_open(tmpdir, CB_STORE_READ, 0, &st, &err), -EISDIR,
           "directory refused with -EISDIR (read)");

    path_in(path, sizeof path, "missing.db");
    is_int(cb_store_open(path, CB_STORE_READ, 0, &st, &err), -ENOENT,
           "missing file in read mode: -ENOENT: %s", err.buf);
    ok(stat(path, &sb) != 0 && errno == ENOENT, "and no file was created");
    path_in(path, sizeof path, "nodir/x.db");
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), -ENOENT,
           "write into a missing directory: -ENOENT: %s", err.buf);

    /* Unwritable.  root passes access(2), so drop to nobody in a child. */
    path_in(path, sizeof path, "ro.db");
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "create ro.db");
    cb_store_close(st);
    chmod(path, 0444);
    chmod(tmpdir, 0755);
    size_t blen;
    unsigned char *before = slurp(path, &blen);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        int r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
        printf("# unwritable: %s\n", err.buf);
        _exit(r == -EACCES ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unwritable file in write mode: -EACCES");
    ok(same_file(path, before, blen), "unwritable file untouched");
    free(before);
    chmod(tmpdir, 0700);
    chmod(path, 0644);
    cb_sb_release(&err);
}

/* ---- reaping ------------------------------------------------------------ */

/* A collector that begins a run and dies without finishing it. */
static int64_t dead_collector(const char *path)
{
    int fds[2];
    int64_t id = -1;
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct cb_host h = test_host();
        struct cb_run_meta m = test_meta(&h, "killed");
        struct cb_store *st;
        struct cb_sb err = CB_SB_INIT;
        int64_t run = -1;
        if (cb_store_open(path, CB_STORE_WRITE, 0, &st, &err) == 0)
            cb_store_run_begin(st, &m, &run);
        if (write(fds[1], &run, sizeof run) != sizeof run)
            _exit(1);
        _exit(0);   /* no finish, no close: as if killed */
        cb_sb_release(&err);
    }
    close(fds[1]);
    if (read(fds[0], &id, sizeof id) != sizeof id)
        id = -1;
    close(fds[0]);
    waitpid(pid, NULL, 0);   /* gone: kill(pid, 0) now says ESRCH */
    return id;
}

static void test_reap(void)
{
    char path[128];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "reap.db");
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, NULL);
    struct cb_store *st;
    struct cb_run_info ri;

    int64_t dead = dead_collector(path);
    ok(dead > 0, "a child began run %lld and died", (long long)dead);
    is_int(sql_int(path, "SELECT COUNT(*) FROM runs WHERE status = 'running'"), 1,
           "its run is left 'running'");

    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "open write reaps");
    cb_store_run_get(st, dead, &ri);
    is_str(ri.status, "aborted", "the dead collector's run is aborted");
    int64_t mine;
    cb_store_run_begin(st, &m, &mine);
    cb_store_close(st);

    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "reopen write");
    cb_store_run_get(st, mine, &ri);
    is_str(ri.status, "running", "a run of a live process (us) stays running");
    is_int(cb_store_reap_aborted(st), 0, "nothing more to reap");
    cb_store_close(st);

    /* Read mode does not reap; an explicit call does, and counts. */
    int64_t dead2 = dead_collector(path);
    is_int(cb_store_open(path, CB_STORE_READ, 0, &st, &err), 0, "open read");
    cb_store_run_get(st, dead2, &ri);
    is_str(ri.status, "running", "read mode left the second dead run alone");
    is_int(cb_store_reap_aborted(st), 1, "reap_aborted reaps exactly one");
    cb_store_run_get(st, dead2, &ri);
    is_str(ri.status, "aborted", "second dead run aborted");
    cb_store_close(st);

    /* Our pid, but a different process start time: a reused pid. */
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE runs SET pid_start = pid_start + 12345 WHERE id = %lld",
             (long long)mine);
    is_int(sql_exec(path, sql, 0), 0, "fake a reused pid");
    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "open write");
    cb_store_run_get(st, mine, &ri);
    is_str(ri.status, "aborted", "a run whose pid was reused is aborted");
    is_int(cb_store_run_finish(st, mine, "complete"), -EINVAL, "a reaped run cannot be completed");
    cb_store_close(st);
    cb_sb_release(&err);
}

/* ---- resolve ------------------------------------------------------------ */

static void test_resolve(void)
{
    char path[128];
    struct cb_sb err = CB_SB_INIT;
    path_in(path, sizeof path, "resolve.db");
    struct cb_host h = test_host();
    struct cb_store *st;
    int64_t id[7], got;
    static const char *tags[7] = {"base", "base", "base", NULL, "new", NULL, "wip"};
    static const char *end[7] = {"complete", "complete", NULL, "aborted", "complete", NULL, NULL};

    is_int(cb_store_open(path, CB_STORE_WRITE, 0, &st, &err), 0, "resolve: open");
    is_int(cb_store_run_resolve(st, "latest", &got, &err), -ENOENT,
           "latest in an empty database: -ENOENT: %s", err.buf);
    for (int i = 0; i < 7; i++) {
        struct cb_run_meta m = test_meta(&h, tags[i]);
        cb_store_run_begin(st, &m, &id[i]);
        if (end[i])
            cb_store_run_finish(st, id[i], end[i]);
    }
    is_int(cb_store_run_resolve(st, "latest", &got, &err), 0, "latest");
    is_int(got, id[4], "latest is the newest complete run, not a running or aborted one");
    is_int(cb_store_run_resolve(st, "base", &got, &err), 0, "tag base");
    is_int(got, id[1], "tag: newest complete run with it (the running one is skipped)");
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)id[3]);
    is_int(cb_store_run_resolve(st, num, &got, &err), 0, "numeric id");
    is_int(got, id[3], "an explicit id resolves whatever its status");
    is_int(cb_store_run_resolve(st, "999", &got, &err), -ENOENT, "no run 999: %s", err.buf);
    ok(strstr(err.buf, "999") != NULL, "message names it");
    is_int(cb_store_run_resolve(st, "nope", &got, &err), -ENOENT, "unknown tag: %s", err.buf);
    ok(strstr(err.buf, "nope") != NULL, "message names the tag");
    is_int(cb_store_run_resolve(st, "wip", &got, &err), -ENOENT,
           "a tag with only a running run: %s", err.buf);
    is_int(sql_int(path, "SELECT COUNT(*) FROM case_summary_all"), 0, "(no cases)");
    is_int(sql_int(path, "SELECT COUNT(*) FROM runs_overview WHERE status = 'complete'"), 3,
           "runs_overview shows every run with its status");
    cb_store_close(st);
    cb_sb_release(&err);
}

/* ---- concurrent writers ------------------------------------------------- */

#define CW_CASES 15
#define CW_BATCHES 10

static int writer(const char *path, int who, int go)
{
    char c;
    if (read(go, &c, 1) < 0)
        return 10;
    struct cb_host h = test_host();
    struct cb_run_meta m = test_meta(&h, who ? "b" : "a");
    struct cb_store *st;
    struct cb_sb err = CB_SB_INIT;
    int r = cb_store_open(path, CB_STORE_WRITE, 0, &st, &err);
    if (r) {
        printf("# writer %d: open: %s\n", who, err.buf);
        cb_sb_release(&err);
        return r == -EBUSY ? 2 : 1;
    }
    int64_t run, ev[2];
    if ((r = cb_store_run_begin(st, &m, &run))) {
        cb_sb_release(&err);
        return r == -EBUSY ? 2 : 3;
    }
    struct cb_event_row e0 = {"tsc", "tsc", "", "", "tsc", "rdtsc", 1, ""};
    struct cb_event_row e1 = {"task-clock", "task-clock", "", "", "software", "read", 1, ""};
    if ((r = cb_store_event_add(st, run, &e0, &ev[0])) || (r = cb_store_event_add(st, run, &e1, &ev[1]))) {
        cb_sb_release(&err);
        return r == -EBUSY ? 2 : 4;
    }
    for (int i = 0; i < CW_CASES; i++) {
        struct cb_case_row c = {"copy", who ? "rep-movsb" : "memcpy", (uint64_t)64 << (i % 8), "B",
                                "call", i % 2 ? "cold" : "warm", 64, "ok", "", 0, 0, 0, NULL, NULL, 0, 0, NULL, 0, NULL, -1};
        struct cb_sample_row s[2 * CW_BATCHES];
        for (int b = 0; b < CW_BATCHES; b++)
            for (int e = 0; e < 2; e++)
                s[2 * b + e] = (struct cb_sample_row){b, 100, ev[e], 1000.0 + who * 100 + b, NAN,
                                                      0, 0, 0, NAN, 0, NAN, NULL};
        if ((r = cb_store_case_add(st, run, &c, s, 2 * CW_BATCHES, NULL))) {
            cb_sb_release(&err);
            return r == -EBUSY ? 2 : 5;
        }
    }
    if ((r = cb_store_run_finish(st, run, "complete"))) {
        cb_sb_release(&err);
        return r == -EBUSY ? 2 : 6;
    }
    cb_store_close(st);
    cb_sb_release(&err);
    return 0;
}

static void test_concurrent(void)
{
    char path[128];
    /* A fresh file: the two writers also race to create and migrate it. */
    path_in(path, sizeof path, "conc.db");
    int go[2];
    if (pipe(go) != 0) {
        ok(0, "pipe");
        return;
    }
    pid_t pids[2];
    for (int w = 0; w < 2; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            close(go[1]);
            _exit(writer(path, w, go[0]));
        }
    }
    close(go[0]);
    close(go[1]);   /* both read EOF at once: go */
    for (int w = 0; w < 2; w++) {
        int status = -1;
        waitpid(pids[w], &status, 0);
        ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "concurrent writer %d succeeded (exit %d; 2 = EBUSY surfaced)", w,
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    is_int(sql_int(path, "SELECT COUNT(*) FROM runs WHERE status = 'complete'"), 2,
           "two complete runs");
    is_int(sql_int(path, "SELECT COUNT(*) FROM cases"), 2 * CW_CASES, "every case of both");
    is_int(sql_int(path, "SELECT COUNT(*) FROM samples"), 2 * CW_CASES * CW_BATCHES * 2,
           "every sample of both");
    is_int(sql_int(path, "SELECT COUNT(*) FROM hosts"), 1, "one host row despite the race");
    sqlite3 *db;
    sqlite3_stmt *s;
    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL);
    sqlite3_step(s);
    is_str((const char *)sqlite3_column_text(s, 0), "wal", "the database is in WAL mode");
    sqlite3_finalize(s);
    sqlite3_close(db);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cb-test-store-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        tap_skip("mkdtemp failed");
        return 0;
    }
    is_int(cb_store_schema_latest(), (long long)cb_nmigrations, "latest schema = number of migrations");
    test_round_trip();
    test_migration();
    test_memref_migration();
    test_uuid();
    test_newer();
    test_not_a_database();
    test_paths();
    test_reap();
    test_resolve();
    test_boot_tsc();
    test_emulated();
    test_concurrent();

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return tap_done();
}
