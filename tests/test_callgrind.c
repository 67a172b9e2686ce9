/* test_callgrind.c — callgrind's dump files read back (issue 17's first step).
 *
 * The fixtures in tests/fixtures/callgrind/ were written by callgrind 3.19
 * (--cache-sim=yes --branch-sim=yes, a client-request dump per part) around
 * a loop of n = 1000 and then 2000 additions; the expected figures below are
 * read off those files by eye, not by this parser.  When valgrind is
 * installed, a small program is also run under callgrind here and its counts
 * checked for what makes them worth storing: they repeat exactly, and they
 * scale with the work. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/callgrind.h"
#include "tap.h"

static char fixtures[512];

static int parse_fixture(const char *name, struct cb_cg_dump *d, struct cb_sb *err)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    return cb_cg_parse_file(path, d, err);
}

static void test_case_dump(void)
{
    struct cb_cg_dump d;
    struct cb_sb err = CB_SB_INIT;
    is_int(parse_fixture("case.out", &d, &err), 0, "a client-request dump parses (%s)", err.buf);
    is_int(d.part, 1, "its part number");
    is_str(cb_cg_request(&d), "csum/adc-1chain/1500/warm iters=1000", "the request's name is the case's");
    ok(d.d1.size == 32768 && d.d1.line == 64 && d.d1.ways == 8, "D1 model 32 KiB, 64 B lines, 8-way");
    ok(d.ll.size == 268435456 && d.ll.line == 64 && d.ll.ways == 1, "LL model 256 MiB, direct-mapped");
    static const uint64_t want[CB_CG_NEVENTS] = {4020, 2, 9, 2, 0, 1, 2, 0, 0, 1001, 5, 0, 0};
    for (int e = 0; e < CB_CG_NEVENTS; e++)
        is_uint(d.ev[e], want[e], "%s from the summary line", cb_cg_event_name((enum cb_cg_event)e));
    is_uint(d.have, (1u << CB_CG_NEVENTS) - 1, "all 13 events named; Bi and Bim left out as zeros");
    /* 4031 accesses, 3 first-level misses of which 2 went to RAM:
     * 4028 L1 hits + 5 x 1 LL hit + 35 x 2 RAM hits. */
    is_near(cb_cg_estimated_cycles(&d), 4103.0, 0, "estimated cycles by the L1 + 5 LL + 35 RAM model");

    struct cb_cg_dump d2;
    is_int(parse_fixture("second.out", &d2, &err), 0, "the second part parses");
    is_uint(d2.ev[CB_CG_IR] - d.ev[CB_CG_IR], 4000, "1000 more additions: 4000 more instructions");
    is_uint(d2.ev[CB_CG_BC] - d.ev[CB_CG_BC], 1000, "... and 1000 more conditional branches");

    struct cb_cg_dump t;
    is_int(parse_fixture("termination.out", &t, &err), 0, "the end-of-program dump parses");
    ok(cb_cg_request(&t) == NULL, "it was not made by a client request");
    is_str(t.trigger, "Program termination", "its trigger");
    is_uint(t.ev[CB_CG_IR], 0, "a summary of 0 with the rest left out is all zeros");
    cb_sb_release(&err);
}

static void test_refusals(void)
{
    static const struct {
        const char *file, *says;
    } bad[] = {
        {"no-events.out", "events"},
        {"bad-number.out", "line 6"},
        {"too-many.out", "more costs than events"},
        {"not-callgrind.out", "format"},
    };
    struct cb_cg_dump d;
    struct cb_sb err = CB_SB_INIT;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cb_sb_reset(&err);
        int rc = parse_fixture(bad[i].file, &d, &err);
        ok(rc == -EINVAL && strstr(err.buf, bad[i].says) && strstr(err.buf, bad[i].file),
           "%s is refused, naming the file and '%s' (%s)", bad[i].file, bad[i].says, err.buf);
    }
    is_int(parse_fixture("missing.out", &d, &err), -ENOENT, "a missing file is -ENOENT");
    FILE *f = tmpfile();
    ok(f && cb_cg_parse(f, &d, &err) == -EINVAL && strstr(err.buf, "empty"), "an empty file is refused");
    if (f)
        fclose(f);
    struct cb_cg_dump partial = {.have = 1u << CB_CG_IR, .ev = {100}};
    ok(isnan(cb_cg_estimated_cycles(&partial)), "no cache events: the estimate is NAN, not a number");
    cb_sb_release(&err);
}

/* The program's loop, under callgrind: the dump named "loop" holds it alone. */
static int run_under_callgrind(const char *dir, unsigned n, struct cb_cg_dump *d)
{
    char cmd[2048], out[600];
    struct cb_sb err = CB_SB_INIT;
    snprintf(out, sizeof out, "%s/cg.%u", dir, n);
    snprintf(cmd, sizeof cmd,
             "valgrind -q --tool=callgrind --collect-atstart=no --cache-sim=yes --branch-sim=yes "
             "--callgrind-out-file='%s' '%s/loop' %u >/dev/null 2>&1",
             out, dir, n);
    if (system(cmd) != 0)
        return -1;
    char part[700];
    snprintf(part, sizeof part, "%s.1", out);
    if (cb_cg_parse_file(part, d, &err) < 0) {
        printf("# %s\n", err.buf);
        cb_sb_release(&err);
        return -1;
    }
    cb_sb_release(&err);
    return 0;
}

static void test_live(void)
{
    if (system("command -v valgrind >/dev/null 2>&1") != 0 || access("/usr/include/valgrind/callgrind.h", R_OK) != 0) {
        ok(1, "# SKIP valgrind is not installed (Debian package valgrind): no live callgrind run");
        return;
    }
    char dir[] = "/tmp/cb-test-callgrind-XXXXXX", src[600], cmd[2048];
    if (!mkdtemp(dir)) {
        ok(0, "a temporary directory");
        return;
    }
    snprintf(src, sizeof src, "%s/loop.c", dir);
    FILE *f = fopen(src, "w");
    if (!f) {
        ok(0, "write %s", src);
        return;
    }
    fputs("#include <stdlib.h>\n#include <valgrind/callgrind.h>\n"
          "static volatile unsigned long sink;\n"
          "__attribute__((noinline)) static void work(unsigned long n)\n"
          "{ unsigned long a = 0; for (unsigned long i = 0; i < n; i++) a += i * 3; sink = a; }\n"
          "int main(int argc, char **argv) {\n"
          "    unsigned long n = strtoul(argv[1], 0, 10);\n"
          "    CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; work(n); CALLGRIND_TOGGLE_COLLECT;\n"
          "    CALLGRIND_DUMP_STATS_AT(\"loop\");\n    return 0;\n}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "${CC:-cc} -O1 -o '%s/loop' '%s'", dir, src);
    if (system(cmd) != 0) {
        ok(0, "compile the callgrind program: %s", cmd);
        return;
    }
    /* A cross build's program (aarch64, run under qemu) is not one this
     * host's valgrind can run: nothing to check live then. */
    snprintf(cmd, sizeof cmd, "valgrind -q --tool=none '%s/loop' 1 >/dev/null 2>&1", dir);
    if (system(cmd) != 0) {
        ok(1, "# SKIP this host's valgrind cannot run the compiled program (a cross build?)");
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            printf("# could not remove %s\n", dir);
        return;
    }
    struct cb_cg_dump a, b, c;
    int ra = run_under_callgrind(dir, 5000, &a), rb = run_under_callgrind(dir, 5000, &b);
    int rc = run_under_callgrind(dir, 10000, &c);
    ok(ra == 0 && rb == 0 && rc == 0, "three runs under callgrind, each dumped and parsed");
    if (ra == 0 && rb == 0 && rc == 0) {
        is_str(cb_cg_request(&a), "loop", "the dump is the client request's");
        ok(memcmp(a.ev, b.ev, sizeof a.ev) == 0, "two runs of the same work: every count identical (Ir %llu)",
           (unsigned long long)a.ev[CB_CG_IR]);
        uint64_t more = c.ev[CB_CG_IR] - a.ev[CB_CG_IR];
        ok(c.ev[CB_CG_IR] > a.ev[CB_CG_IR] && more % 5000 == 0 && more / 5000 >= 2 && more / 5000 <= 8,
           "5000 more iterations: a whole number of instructions more per iteration (%llu)",
           (unsigned long long)(more / 5000));
        ok(c.ev[CB_CG_BC] - a.ev[CB_CG_BC] == 5000, "... and exactly 5000 more conditional branches");
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
}

int main(void)
{
    const char *srcdir = getenv("srcdir");
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures/callgrind", srcdir ? srcdir : ".");
    test_case_dump();
    test_refusals();
    test_live();
    return tap_done();
}
