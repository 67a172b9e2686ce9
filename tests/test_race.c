/* test_race.c — the race's decisions, its stored rows and its emitted header.
 *
 * The decision rule is tested on planted samples (pure, deterministic).  The
 * whole race is tested with test-only families defined here, whose costs
 * are planted by construction: a variant that does its hash pass 5 times
 * against one that does it once, two variants that are the same function,
 * and a variant that does no work and is wrong.  The margins are large and
 * the seeds fixed, and nothing asserts a time: only which variant won. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "harness/collect.h"
#include "harness/fakeclock.h"
#include "harness/probe.h"
#include "analysis/race.h"
#include "report/race_report.h"
#include "tap.h"
#include "counters/tsc.h"

static char tmpdir[64];

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* ------------------------------------------------------ test-only family */

typedef uint64_t (*hash_fn)(const uint8_t *p, size_t len, uint64_t seed);

/* FNV-1a: one dependent multiply per byte, so the cost is proportional to
 * the bytes hashed and cannot be vectorised away. */
static uint64_t fnv(const uint8_t *p, size_t len, uint64_t seed)
{
    uint64_t h = seed ^ 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The same hash, done `passes` times: the seed goes through an empty asm
 * each pass, so the compiler cannot see that the passes repeat. */
static uint64_t fnv_passes(const uint8_t *p, size_t len, uint64_t seed, int passes)
{
    uint64_t h = 0;
    for (int k = 0; k < passes; k++) {
        uint64_t s = seed;
        __asm__ volatile("" : "+r"(s));
        h = fnv(p, len, s);
        __asm__ volatile("" : "+r"(h));
    }
    return h;
}

static uint64_t hash_once(const uint8_t *p, size_t len, uint64_t seed)
{
    return fnv_passes(p, len, seed, 1);
}

static uint64_t hash_5x(const uint8_t *p, size_t len, uint64_t seed)
{
    return fnv_passes(p, len, seed, 5);
}

/* Fast for small sizes, 5x slower above 64 bytes; and the reverse. */
static uint64_t hash_small_fast(const uint8_t *p, size_t len, uint64_t seed)
{
    return fnv_passes(p, len, seed, len <= 64 ? 1 : 5);
}

static uint64_t hash_big_fast(const uint8_t *p, size_t len, uint64_t seed)
{
    return fnv_passes(p, len, seed, len <= 64 ? 5 : 1);
}

/* Wrong, and free: it would win any race it was allowed to run. */
static uint64_t hash_cheat(const uint8_t *p, size_t len, uint64_t seed)
{
    (void)p;
    return seed + len;
}

struct tbuf {
    uint8_t *buf;
};

static int t_setup(struct cb_case *c)
{
    struct tbuf *t = malloc(sizeof *t);
    if (!t)
        return -ENOMEM;
    t->buf = malloc(c->size ? c->size : 1);
    if (!t->buf) {
        free(t);
        return -ENOMEM;
    }
    for (size_t i = 0; i < c->size; i++)
        t->buf[i] = (uint8_t)(i * 131 + 7);
    c->priv = t;
    return 0;
}

static void t_run(struct cb_case *c, uint64_t iters)
{
    struct tbuf *t = c->priv;
    hash_fn fn = (hash_fn)c->variant->fn;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++)
        acc += fn(t->buf, c->size, i);
    c->sink += acc;
}

static int t_verify(const struct cb_variant *v, struct cb_verdict *out)
{
    hash_fn fn = (hash_fn)v->fn;
    uint8_t buf[200];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 37 + 1);
    memset(out, 0, sizeof *out);
    out->ok = 1;
    for (size_t len = 0; len <= sizeof buf; len++) {
        out->checked++;
        if (fn(buf, len, len) != fnv(buf, len, len)) {
            out->ok = 0;
            snprintf(out->detail, sizeof out->detail, "len %zu: differs from FNV-1a", len);
            return 0;
        }
    }
    return 0;
}

static void t_teardown(struct cb_case *c)
{
    struct tbuf *t = c->priv;
    if (t) {
        free(t->buf);
        free(t);
    }
    c->priv = NULL;
}

/* The fake clock's model of each variant: its passes over the buffer, as
 * the functions above make them.  The races below are timed on it, so
 * their verdicts do not depend on how busy the host is (test_race once
 * failed under make -j8 on two CPUs when they were timed for real). */
static double t_nominal(const struct cb_case *c)
{
    const void *fn = c->variant->fn;
    double passes = fn == (const void *)hash_5x ? 5
                    : fn == (const void *)hash_cheat ? 0.02
                    : fn == (const void *)hash_small_fast ? (c->size <= 64 ? 1 : 5)
                    : fn == (const void *)hash_big_fast ? (c->size <= 64 ? 5 : 1)
                    : 1;
    return passes * (8.0 + (double)c->size);
}

#define FN(f) ((const void *)(f))
#define T CB_VARIANT_TESTONLY

/* big-fast first: were the small bucket not decided with confidence, the
 * tie rule (table order) would pick big-fast there, and the test would see. */
static const struct cb_variant planted_v[] = {
    {"big-fast", "5 passes up to 64 B, 1 above", 0, FN(hash_big_fast), T, 0},
    {"small-fast", "1 pass up to 64 B, 5 above", 0, FN(hash_small_fast), T, 0},
};
static const struct cb_variant same_v[] = {
    {"a", "one pass", 0, FN(hash_once), T, 0},
    {"b", "the very same function", 0, FN(hash_once), T, 0},
};
static const struct cb_variant bad_v[] = {
    {"ref", "five passes: correct and slow", 0, FN(hash_5x), T | CB_VARIANT_REFERENCE, 0},
    {"cheat", "no work, wrong answer", 0, FN(hash_cheat), T, 0},
};
static const size_t t_sizes[] = {64, 1024, 0};

#define FAMILY(var, nm, vs)                                                          \
    static const struct cb_probe var = {                                             \
        .name = nm, .desc = "test-only", .unit = "B", .op = "call", .variants = vs,  \
        .nvariants = sizeof vs / sizeof vs[0], .sizes = t_sizes, .setup = t_setup,   \
        .run = t_run, .verify = t_verify, .teardown = t_teardown,                    \
        .nominal = t_nominal,                                                        \
    }
FAMILY(planted_p, "racetest", planted_v);
FAMILY(same_p, "racesame", same_v);
FAMILY(bad_p, "racebad", bad_v);

/* ------------------------------------------------------- pure decisions */

static void set_entrant(struct cb_race_entrant *e, const struct cb_variant *v, const double *x,
                        size_t n, enum cb_race_verdict verdict)
{
    memset(e, 0, sizeof *e);
    e->v = v;
    e->verdict = verdict;
    e->vals = (double *)x;
    e->n = verdict == CB_RACE_OK ? n : 0;
}

/* A feature a vector variant of this architecture needs (only its count
 * matters to the tie rule, but the names say what a reader expects). */
#if defined(__aarch64__)
#define T_VECTOR CB_CPU_SVE
#define T_VECTOR_NAME "sve"
#else
#define T_VECTOR CB_CPU_AVX2
#define T_VECTOR_NAME "avx2"
#endif

static void test_decide(void)
{
    static const struct cb_variant plain = {"plain", "", 0, NULL, 0, 0};
    static const struct cb_variant refv = {"reference", "", 0, NULL, CB_VARIANT_REFERENCE, 0};
    static const struct cb_variant vec = {"vector", "", T_VECTOR, NULL, 0, 0};
    static const struct cb_variant fancy[2] = {{"x", "", 0, NULL, 0, 0}, {"y", "", 0, NULL, 0, 0}};
    double base[12], slow[12], jit[12];
    for (int i = 0; i < 12; i++) {
        base[i] = 100 + (i * 7 % 12);     /* 100..111, shuffled */
        slow[i] = 5 * base[i];
    }
    for (int i = 0; i < 12; i++)
        jit[i] = base[(i + 5) % 12];      /* the same values, another order */
    struct cb_race_entrant e[3];
    struct cb_race_cell c = {.e = e};

    /* Planted 5x: the fast one wins with confidence though listed second. */
    set_entrant(&e[0], &plain, slow, 12, CB_RACE_OK);
    set_entrant(&e[1], &vec, base, 12, CB_RACE_OK);
    c.ne = 2;
    cb_race_decide(&c, 0.01, 0.02);
    is_str(cb_race_decision_name(c.decision), "confident", "planted 5x: confident");
    is_int(c.winner, 1, "planted 5x: the faster variant wins");
    is_int(c.runner_up, 0, "planted 5x: the slower is the runner-up");
    is_near(c.margin, 4.0, 0.05, "planted 5x: margin is +400%% (median shift / winner's median)");
    ok(c.margin_lo <= c.margin && c.margin <= c.margin_hi && c.margin_lo > 3.0,
       "planted 5x: CI [%.2f, %.2f] around the margin, far above 0", c.margin_lo, c.margin_hi);
    ok(c.p < 0.001, "planted 5x: p = %.2g", c.p);

    /* The same samples: a tie, and the tie rule prefers fewer features. */
    set_entrant(&e[0], &vec, base, 12, CB_RACE_OK);
    set_entrant(&e[1], &plain, jit, 12, CB_RACE_OK);
    cb_race_decide(&c, 0.01, 0.02);
    is_str(cb_race_decision_name(c.decision), "tie", "identical samples: a tie");
    is_int(c.winner, 1, "tie: the variant needing no CPU feature wins over " T_VECTOR_NAME);
    is_near(c.p, 1.0, 1e-9, "identical samples: p = 1");

    /* Then the reference, then table order. */
    set_entrant(&e[0], &fancy[0], base, 12, CB_RACE_OK);
    set_entrant(&e[1], &refv, jit, 12, CB_RACE_OK);
    cb_race_decide(&c, 0.01, 0.02);
    is_int(c.winner, 1, "tie with equal needs: the reference wins");
    set_entrant(&e[0], &fancy[1], base, 12, CB_RACE_OK);
    set_entrant(&e[1], &fancy[0], jit, 12, CB_RACE_OK);
    cb_race_decide(&c, 0.01, 0.02);
    is_int(c.winner, 1, "tie with equal needs, no reference: the earlier table row wins");

    /* A confident rank test but a margin below min_margin: still a tie. */
    double plus1[12];
    for (int i = 0; i < 12; i++)
        plus1[i] = 1000 + i * 0.01;
    double plus1b[12];
    for (int i = 0; i < 12; i++)
        plus1b[i] = plus1[i] * 1.01;
    set_entrant(&e[0], &vec, plus1, 12, CB_RACE_OK);
    set_entrant(&e[1], &plain, plus1b, 12, CB_RACE_OK);
    cb_race_decide(&c, 0.01, 0.02);
    ok(c.e[1].p < 0.01 || c.e[0].p < 0.01, "1%% apart, no overlap: the rank test alone would say so");
    is_str(cb_race_decision_name(c.decision), "tie", "1%% < min margin 2%%: a tie");
    is_int(c.winner, 1, "... and the plainer variant wins it");
    cb_race_decide(&c, 0.01, 0.0);
    is_str(cb_race_decision_name(c.decision), "confident", "with min margin 0 it is confident");
    is_int(c.winner, 0, "... for the faster one");

    /* A BAD variant with the lowest samples is not a contender. */
    double tiny[12];
    for (int i = 0; i < 12; i++)
        tiny[i] = 1;
    set_entrant(&e[0], &plain, slow, 12, CB_RACE_OK);
    set_entrant(&e[1], &fancy[0], tiny, 12, CB_RACE_BAD);
    set_entrant(&e[2], &vec, base, 12, CB_RACE_SKIPPED);
    c.ne = 3;
    cb_race_decide(&c, 0.01, 0.02);
    is_str(cb_race_decision_name(c.decision), "alone", "bad and skipped entrants leave one: alone");
    is_int(c.winner, 0, "the only correct, runnable variant wins");
    is_int(c.runner_up, -1, "alone: no runner-up");
    set_entrant(&e[0], &plain, slow, 12, CB_RACE_BAD);
    cb_race_decide(&c, 0.01, 0.02);
    is_str(cb_race_decision_name(c.decision), "none", "nothing correct: no winner");
    is_int(c.winner, -1, "none: winner -1");

    /* Hodges-Lehmann by hand: b - a over {1,2,3} x {4,5,6} is
     * 1,2,2,3,3,3,4,4,5: median 3. */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6}, est, lo, hi;
    is_int(cb_race_shift(a, 3, b, 3, 0.05, &est, &lo, &hi), 0, "shift computes");
    is_near(est, 3.0, 1e-12, "shift {4,5,6} - {1,2,3}: median pairwise difference is 3");
    ok(lo <= est && est <= hi && lo >= 1 && hi <= 5, "its CI [%g, %g] lies within the differences", lo, hi);
}

static void test_buckets(void)
{
    struct cb_race_bucket b[CB_RACE_MAX_BUCKETS];
    uint64_t s[] = {1500, 64, 64, 9000};
    int n = cb_race_buckets_from_sizes(s, 4, b);
    is_int(n, 3, "-s 1500,64,64,9000: three buckets (sorted, deduplicated)");
    ok(b[0].lo == 0 && b[0].hi == 64 && b[0].size == 64, "first bucket (0, 64] at 64");
    ok(b[1].lo == 64 && b[1].hi == 1500 && b[1].size == 1500, "second (64, 1500] at 1500");
    ok(b[2].lo == 1500 && b[2].hi == CB_RACE_UNBOUNDED && b[2].size == 9000, "last is open-ended, at 9000");
    is_str(b[1].name, "1500", "a -s bucket is named by its size");
    is_int(cb_race_buckets_from_sizes(s, 0, b), -EINVAL, "no sizes: -EINVAL");
    size_t nd = cb_race_default_buckets(b, 64u << 20);
    is_int(nd, 5, "five default buckets");
    ok(!strcmp(b[0].name, "small") && b[0].hi == 64 && !strcmp(b[1].name, "packets") && b[1].hi == 1500 &&
       !strcmp(b[2].name, "pages") && b[2].hi == 4096 && !strcmp(b[3].name, "large") && b[3].hi == 65536 &&
       !strcmp(b[4].name, "streaming") && b[4].hi == CB_RACE_UNBOUNDED && b[4].size == (64u << 20),
       "defaults: small <=64, packets <=1500, pages <=4096, large <=64K, streaming beyond");
    int inside = 1;
    for (size_t i = 0; i < nd; i++)
        inside &= b[i].size > b[i].lo && b[i].size <= b[i].hi;
    ok(inside, "each default bucket's measured size lies inside it");
}

/* ------------------------------------------------------------ real races */

static int open_collector(struct cb_collector *col, const char *db)
{
    struct cb_collect_opts o = {.db = db, .events = "cycles", .cmdline = "test_race", .cpu = -1, .quiet = 1};
    cb_harness_defaults(&o.harness);
    o.harness.reps = 3;
    o.harness.cold_bytes = 8u << 20;
    struct cb_sb err = CB_SB_INIT;
    int usage;
    int rc = cb_collector_open(col, &o, &err, &usage);
    if (rc < 0)
        printf("# collector: %s\n", err.buf);
    cb_sb_release(&err);
    return rc;
}

static int race_once(const char *db, const struct cb_probe *p, const struct cb_race_bucket *b,
                     size_t nb, int rounds, uint64_t seed, struct cb_race *r, struct cb_host *host)
{
    struct cb_collector col;
    memset(r, 0, sizeof *r); /* the callers free it whatever happens */
    if (open_collector(&col, db) < 0)
        return -1;
    const struct cb_probe *probes[] = {p};
    struct cb_race_opts o = {
        .probes = probes, .nprobes = 1, .buckets = b, .nbuckets = nb, .mode = CB_MODE_WARM,
        .rounds = rounds, .alpha = 0.01, .min_margin = 0.02, .seed = seed, .include_testonly = 1,
    };
    int rc = cb_race_run(&col, &o, r);
    if (rc == 0)
        rc = cb_race_store(&col, r);
    *host = col.host;
    /* r keeps pointers to probes[]: emitting happens before this returns */
    cb_collector_finish(&col, rc == 0 ? "complete" : "aborted");
    r->o.probes = NULL;
    return rc;
}

static const struct cb_race_cell *cell(const struct cb_race *r, size_t i)
{
    return &r->cells[i];
}

static const char *winner(const struct cb_race_cell *c)
{
    return c->winner >= 0 ? c->e[c->winner].v->name : "(none)";
}

static long long q1(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        printf("# sql error: %s\n", sqlite3_errmsg(db));
        return -1;
    }
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static int emit_header(struct cb_race *r, const struct cb_probe *p, const struct cb_host *h,
                       const char *path)
{
    const struct cb_probe *probes[] = {p};
    r->o.probes = probes;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = cb_race_emit_header(r, h, f);
    fclose(f);
    r->o.probes = NULL;
    return rc;
}

static int file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

/* Compile a program against the header with the user's C compiler, run it
 * for each size, and return what it printed. */
static int compile_and_run(const char *header, const char *family, const char *upper, const char *names,
                           const char *sizes, char *outbuf, size_t outlen)
{
    char src[256], bin[256], cmd[2048];
    tmp_path(src, sizeof src, "dispatch.c");
    tmp_path(bin, sizeof bin, "dispatch");
    FILE *f = fopen(src, "w");
    if (!f)
        return -1;
    /* The variants are stand-in functions found by name, as a user's own
     * code would bind the names to its implementations. */
    fprintf(f,
            "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"%s\"\n"
            "static const char *names = \"%s\";\n"
            "static int run_variant(const char *name) {\n"
            "    char buf[256]; snprintf(buf, sizeof buf, \",%%s,\", names);\n"
            "    char key[64]; snprintf(key, sizeof key, \",%%s,\", name);\n"
            "    char *at = strstr(buf, key);\n"
            "    return at ? (int)(at - buf) : -1;\n}\n"
            "int main(int argc, char **argv) {\n"
            "    for (int i = 1; i < argc; i++) {\n"
            "        const char *name = cb_race_%s_pick((size_t)strtoull(argv[i], 0, 10));\n"
            "        if (run_variant(name) < 0) { printf(\"unknown:%%s\\n\", name); return 1; }\n"
            "        printf(\"%%s\\n\", name);\n"
            "    }\n"
            "    printf(\"requires:%%s\\n\", CB_RACE_%s_REQUIRES);\n"
            "    return 0;\n}\n",
            header, names, family, upper);
    fclose(f);
    /* $CB_EXEC (e.g. qemu-aarch64) runs it where the kernel cannot: a cross
     * build's tests run under qemu without binfmt_misc (.ci/run). */
    snprintf(cmd, sizeof cmd, "${CC:-cc} -std=c99 -Wall -Wextra -Werror -o '%s' '%s' && ${CB_EXEC:-} '%s' %s > '%s.out'",
             bin, src, bin, sizes, bin);
    int rc = system(cmd);
    if (rc != 0) {
        printf("# command failed (%d): %s\n", rc, cmd);
        return -1;
    }
    char outp[300];
    snprintf(outp, sizeof outp, "%s.out", bin);
    f = fopen(outp, "r");
    if (!f)
        return -1;
    size_t n = fread(outbuf, 1, outlen - 1, f);
    outbuf[n] = '\0';
    fclose(f);
    return 0;
}

static void test_planted(void)
{
    char db[256], hdr[256], out[1024];
    tmp_path(db, sizeof db, "planted.db");
    tmp_path(hdr, sizeof hdr, "planted.h");
    struct cb_race_bucket b[CB_RACE_MAX_BUCKETS];
    uint64_t sizes[] = {64, 1024};
    int nb = cb_race_buckets_from_sizes(sizes, 2, b);
    struct cb_race r;
    struct cb_host host;
    int rc = race_once(db, &planted_p, b, (size_t)nb, 8, 42, &r, &host);
    is_int(rc, 0, "planted race runs and is stored");
    if (rc != 0) {
        cb_race_free(&r);
        return;
    }
    is_str(winner(cell(&r, 0)), "small-fast", "bucket <=64: the variant 5x faster there wins");
    is_str(cb_race_decision_name(cell(&r, 0)->decision), "confident", "... with confidence");
    is_str(winner(cell(&r, 1)), "big-fast", "bucket >64: the variant 5x faster there wins");
    is_str(cb_race_decision_name(cell(&r, 1)->decision), "confident", "... with confidence");
    ok(cell(&r, 0)->margin_lo > 0 && cell(&r, 1)->margin_lo > 0, "both margins' CIs are above 0");

    /* The schedule: each (bucket, variant) once per round, rounds shuffled. */
    is_int(r.norder, 32, "2 buckets x 2 variants x 8 rounds = 32 cases timed");
    int counts[2][2] = {{0}};
    for (size_t k = 0; k < r.norder; k++)
        counts[r.order[k] >> 16][r.order[k] & 0xffff]++;
    ok(counts[0][0] == 8 && counts[0][1] == 8 && counts[1][0] == 8 && counts[1][1] == 8,
       "every (bucket, variant) ran once in each of the 8 rounds");
    int differ = memcmp(r.order, r.order + 4, 4 * sizeof *r.order) ||
                 memcmp(r.order, r.order + 8, 4 * sizeof *r.order);
    ok(differ, "the order is not the same in every round");
    uint64_t first[32];
    memcpy(first, r.order, sizeof first);

    is_int(emit_header(&r, &planted_p, &host, hdr), 0, "the header is written");
    ok(file_has(hdr, "{64, \"small-fast\", \"\"}"), "the header binds sizes <= 64 to small-fast");
    ok(file_has(hdr, "{SIZE_MAX, \"big-fast\", \"\"}"), "... and everything above to big-fast");
    ok(file_has(hdr, "#define CB_RACE_RACETEST_REQUIRES \"\""), "... and needs no CPU feature");
    rc = compile_and_run(hdr, "racetest", "RACETEST", "small-fast,big-fast", "0 10 64 65 1024 1048576", out, sizeof out);
    is_int(rc, 0, "a program compiled against the header runs");
    is_str(out, "small-fast\nsmall-fast\nsmall-fast\nbig-fast\nbig-fast\nbig-fast\nrequires:\n",
           "it dispatches 0, 10, 64 to small-fast and 65, 1K, 1M to big-fast");

    /* The stored race. */
    sqlite3 *s;
    if (sqlite3_open(db, &s) == SQLITE_OK) {
        is_int(q1(s, "select count(*) from races r join runs u on u.id = r.run_id where u.status = 'complete'"),
               1, "one race, on a complete run");
        is_int(q1(s, "select count(*) from race_results where decision = 'confident' and "
                     "((bucket = '64' and winner = 'small-fast' and runner_up = 'big-fast') or "
                     " (bucket = '1024' and winner = 'big-fast' and runner_up = 'small-fast'))"),
               2, "race_results: both winners and runners-up stored");
        is_int(q1(s, "select count(*) from race_results where margin_lo > 0 and margin_lo <= margin and margin <= margin_hi"),
               2, "margins stored with their CI");
        is_int(q1(s, "select count(*) from race_cases where round between 1 and 8"), 32,
               "32 cases linked to the race, rounds 1..8");
        is_int(q1(s, "select count(*) from race_cases rc join cases c on c.id = rc.case_id "
                     "join samples sa on sa.case_id = c.id join events e on e.id = sa.event_id "
                     "where e.part = (select metric from races)"),
               96, "the samples behind it are kept: 32 cases x 3 samples of the ranked counter");
        is_int(q1(s, "select sum(n) from race_entrants"), 32, "race_entrants count one value per round");
        is_int(q1(s, "select count(*) from race_summary where prev_winner is null"), 2,
               "a first race has no previous winner");
        sqlite3_close(s);
    }
    cb_race_free(&r);

    /* Again with the same seed: the same order, and the store compares. */
    rc = race_once(db, &planted_p, b, (size_t)nb, 8, 42, &r, &host);
    is_int(rc, 0, "a second race runs");
    if (rc == 0) {
        ok(r.norder == 32 && memcmp(first, r.order, sizeof first) == 0, "the same seed replays the same order");
        if (sqlite3_open(db, &s) == SQLITE_OK) {
            is_int(q1(s, "select count(*) from race_summary where race_id = 2 and prev_winner = winner"), 2,
                   "race_summary compares the second race with the first on this host");
            sqlite3_close(s);
        }
        struct cb_store *st;
        struct cb_sb err = CB_SB_INIT;
        if (cb_store_open(db, CB_STORE_READ, 0, &st, &err) == 0) {
            char rep[256];
            tmp_path(rep, sizeof rep, "report.txt");
            FILE *f = fopen(rep, "w");
            int n = f ? cb_race_report_text(st, f) : -1;
            if (f)
                fclose(f);
            is_int(n, 1, "the report shows one race: the latest on this host");
            ok(file_has(rep, "race 2 (run 2"), "it is race 2");
            ok(file_has(rep, "racetest   64") && file_has(rep, "small-fast") && file_has(rep, "same"),
               "its table has the bucket, the winner and the comparison with race 1");
            cb_store_close(st);
        }
        cb_sb_release(&err);
    }
    cb_race_free(&r);
}

static void test_identical(void)
{
    char db[256], hdr[256], out[512];
    tmp_path(db, sizeof db, "same.db");
    tmp_path(hdr, sizeof hdr, "same.h");
    struct cb_race_bucket b[CB_RACE_MAX_BUCKETS];
    uint64_t sizes[] = {512};
    int nb = cb_race_buckets_from_sizes(sizes, 1, b);
    struct cb_race r;
    struct cb_host host;
    int rc = race_once(db, &same_p, b, (size_t)nb, 6, 7, &r, &host);
    is_int(rc, 0, "identical-variants race runs");
    if (rc == 0) {
        ok(cell(&r, 0)->decision != CB_RACE_CONFIDENT, "two identical variants: never a confident winner (%s, p %.3g)",
           cb_race_decision_name(cell(&r, 0)->decision), cell(&r, 0)->p);
        is_str(winner(cell(&r, 0)), "a", "the tie goes to the earlier table row");
        is_int(emit_header(&r, &same_p, &host, hdr), 0, "its header is written");
        is_int(compile_and_run(hdr, "racesame", "RACESAME", "a,b", "1 100000", out, sizeof out), 0, "and compiles");
        is_str(out, "a\na\nrequires:\n", "it dispatches every size to a");
    }
    cb_race_free(&r);
}

static void test_bad(void)
{
    char db[256], hdr[256];
    tmp_path(db, sizeof db, "bad.db");
    tmp_path(hdr, sizeof hdr, "bad.h");
    struct cb_race_bucket b[CB_RACE_MAX_BUCKETS];
    uint64_t sizes[] = {256};
    int nb = cb_race_buckets_from_sizes(sizes, 1, b);
    struct cb_race r;
    struct cb_host host;
    int rc = race_once(db, &bad_p, b, (size_t)nb, 2, 3, &r, &host);
    is_int(rc, 0, "race with a BAD variant runs");
    if (rc == 0) {
        const struct cb_race_cell *c = cell(&r, 0);
        is_str(winner(c), "ref", "the correct variant wins, though the BAD one does no work");
        is_str(cb_race_decision_name(c->decision), "alone", "the BAD one is not a contender");
        is_int(c->e[1].verdict, CB_RACE_BAD, "cheat is marked BAD");
        for (size_t k = 0; k < r.norder; k++)
            if ((r.order[k] & 0xffff) == 1)
                ok(0, "cheat was scheduled for timing");
        is_int(emit_header(&r, &bad_p, &host, hdr), 0, "its header is written");
        ok(!file_has(hdr, "\"cheat\""), "the header never names the BAD variant");
        sqlite3 *s;
        if (sqlite3_open(db, &s) == SQLITE_OK) {
            is_int(q1(s, "select count(*) from cases where variant = 'cheat' and verdict = 'bad'"), 1,
                   "its case is stored as bad, once");
            is_int(q1(s, "select count(*) from samples sa join cases c on c.id = sa.case_id where c.variant = 'cheat'"),
                   0, "and it was never timed: no samples");
            is_int(q1(s, "select count(*) from race_entrants where variant = 'cheat' and verdict = 'bad' and n = 0 and detail like 'len %'"),
                   1, "race_entrants keeps it as bad, with the first differing input");
            sqlite3_close(s);
        }
    }
    cb_race_free(&r);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cb-test-race-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot make a temporary directory\n");
        return 1;
    }
    test_decide();
    test_buckets();
    setenv(CB_FAKE_ENV, "seed=11", 1);
    test_planted();
    test_identical();
    test_bad();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return tap_done();
}
