/* test_caches.c — the cache model run --sim gives valgrind (issue 17).
 *
 * valgrind refuses a cache whose set count is not a power of two, and a
 * hypervisor may hide the cpuid cache leaves (the AMD EPYC KVM guest this
 * project's CI runs on has no TOPOEXT), so the model comes from sysfs there.
 * The sysfs trees below are written by the test in the kernel's format, with
 * the figures `lscpu` printed on that guest; the expected models are worked
 * out by hand in the comments, not by the code under test. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/caches.h"
#include "tap.h"

static char root[64];

static void put(const char *dir, const char *name, const char *val)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "%s\n", val);
    fclose(f);
}

static void mkdirs(const char *path)
{
    char p[512];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0700);
            *s = '/';
        }
    mkdir(p, 0700);
}

/* One cache index in cpu0's directory of a sysroot. */
static void index_dir(const char *sysroot, int i, const char *level, const char *type, const char *size,
                      const char *ways, const char *line)
{
    char dir[384];
    snprintf(dir, sizeof dir, "%s/sys/devices/system/cpu/cpu0/cache/index%d", sysroot, i);
    mkdirs(dir);
    put(dir, "level", level);
    put(dir, "type", type);
    put(dir, "size", size);
    put(dir, "ways_of_associativity", ways);
    put(dir, "coherency_line_size", line);
}

static void test_epyc_sysfs(void)
{
    char sr[128];
    snprintf(sr, sizeof sr, "%s/epyc", root);
    index_dir(sr, 0, "1", "Data", "48K", "12", "64");
    index_dir(sr, 1, "1", "Instruction", "32K", "8", "64");
    index_dir(sr, 2, "2", "Unified", "1024K", "16", "64");
    index_dir(sr, 3, "3", "Unified", "32768K", "16", "64");
    struct cb_cache_model m;
    int rc = cb_caches_read_sysfs(&m, sr, 0);
    is_int(rc, 0, "an EPYC guest's sysfs caches are read");
    /* 48 KiB / 64 B = 768 lines over 12 ways = 64 sets: a power of two, kept. */
    ok(m.sd1.size == 49152 && m.sd1.ways == 12 && m.sd1.line == 64, "D1 48 KiB 12-way kept (%ld,%ld,%ld)",
       m.sd1.size, m.sd1.ways, m.sd1.line);
    ok(m.si1.size == 32768 && m.si1.ways == 8, "I1 32 KiB 8-way");
    /* The last level is L3, not L2. */
    ok(m.ll_level == 3 && m.sll.size == 32L << 20 && m.sll.ways == 16, "LL is the 32 MiB L3 (L%d, %ld)",
       m.ll_level, m.sll.size);
    ok(!m.adjusted, "nothing adjusted");
    char desc[256], args[3][64];
    cb_caches_describe(&m, desc, sizeof desc);
    is_str(desc, "I1=32768,8,64 D1=49152,12,64 LL=33554432,16,64 (L3) from=sysfs", "the model as recorded");
    cb_caches_args(&m, args);
    is_str(args[1], "--D1=49152,12,64", "the D1 argument for valgrind");
}

static void test_fit(void)
{
    struct cb_cache in = {.size = 36L << 20, .ways = 12, .line = 64}, out;
    /* 36 MiB / 64 = 589824 = 2^16 * 9 lines; 12 ways give 49152 sets, not a
     * power of two.  The largest power of two <= 49152 dividing the lines is
     * 32768, so 589824 / 32768 = 18 ways: the same 36 MiB. */
    is_int(cb_cache_fit(&in, &out), 0, "a 36 MiB 12-way LL can be fitted");
    ok(out.size == 36L << 20 && out.ways == 18 && out.line == 64, "as 18 ways of 32768 sets (%ld ways)",
       out.ways);
    in = (struct cb_cache){.size = 32768, .ways = 8, .line = 48};
    is_int(cb_cache_fit(&in, &out), -EINVAL, "a 48-byte line is refused");
    in = (struct cb_cache){.size = 32768, .ways = 8, .line = 64};
    is_int(cb_cache_fit(&in, &out), 0, "a power-of-two cache fits as it is");
    ok(out.ways == 8, "unchanged");
}

static void test_missing(void)
{
    char sr[128];
    snprintf(sr, sizeof sr, "%s/none", root);
    struct cb_cache_model m;
    is_int(cb_caches_read_sysfs(&m, sr, 0), -ENOENT, "no sysfs tree: -ENOENT");
    /* L1 only, no unified level: there is no last level to simulate. */
    snprintf(sr, sizeof sr, "%s/l1only", root);
    index_dir(sr, 0, "1", "Data", "32K", "8", "64");
    index_dir(sr, 1, "1", "Instruction", "32K", "8", "64");
    is_int(cb_caches_read_sysfs(&m, sr, 0), -ENOENT, "no last-level cache: -ENOENT");
}

static void test_live(void)
{
    struct cb_cache_model m;
    int rc = cb_caches_read(&m);
    /* This host's model, whatever it is, must be one valgrind accepts. */
    if (rc == 0) {
        long sets = m.sd1.size / m.sd1.line / m.sd1.ways;
        ok((sets & (sets - 1)) == 0 && m.sd1.size >= 4096, "this host's D1 model has 2^k sets (%ld, from %s)",
           sets, m.from);
    } else
        is_int(rc, -ENOENT, "this host gives no cache model: -ENOENT");
}

/* --sim-caches: the given caches replace the host's, are fitted like
 * them, and anything malformed is refused with the option named. */
static void test_override(void)
{
    struct cb_cache_model m;
    char desc[256];
    struct cb_sb err = CB_SB_INIT;
    memset(&m, 0, sizeof m);
    /* Nothing read from the host: all three are needed. */
    is_int(cb_caches_override(&m, "D1=32K,8,64 LL=8M,16,64", &err), -EINVAL,
           "no host model and no I1: refused (%s)", err.buf);
    memset(&m, 0, sizeof m);
    is_int(cb_caches_override(&m, "I1=32K,8,64 D1=48K,12,64 LL=36M,12,64", &err), 0,
           "all three given: a model");
    /* 48K 12-way: 768 lines, 64 sets, a power of two: unchanged.  36 MiB
     * 12-way: 589824 lines, 49152 sets; the largest power of two dividing
     * the lines with at most 49152 sets is 32768, so 18 ways. */
    ok(m.sd1.size == 49152 && m.sd1.ways == 12 && m.sll.size == 37748736 && m.sll.ways == 18,
       "fitted as the host's caches are: D1 %ld,%ld LL %ld,%ld", m.sd1.size, m.sd1.ways, m.sll.size,
       m.sll.ways);
    cb_caches_describe(&m, desc, sizeof desc);
    ok(strstr(desc, "from=option") && !strstr(desc, "given:"), "all given: from=option (%s)", desc);
    /* Over a host model, only the named ones change, and the record says which. */
    memset(&m, 0, sizeof m);
    m.i1 = (struct cb_cache){65536, 16, 64};
    m.d1 = (struct cb_cache){49152, 12, 64};
    m.ll = (struct cb_cache){503316480, 16, 64};
    m.ll_level = 3;
    m.from = "cpuid";
    is_int(cb_caches_override(&m, "LL=8M,16,64", &err), 0, "LL alone over the host's");
    cb_caches_describe(&m, desc, sizeof desc);
    ok(m.sll.size == 8388608 && m.sd1.size == 49152 && strstr(desc, "from=cpuid given: LL"),
       "only LL replaced, and the record says so (%s)", desc);
    static const char *const bad[] = {"D1=32K,8", "L2=1M,8,64", "D1=32K,8,48", "D1=0,8,64",
                                      "D1=32K,8,64x", "D1=32K,8,64 D1=32K,8,64", "", "LL=8G,16,64"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.buf[0] = 0;
        is_int(cb_caches_override(&m, bad[i], &err), -EINVAL, "'%s' refused", bad[i]);
        ok(strstr(err.buf, "--sim-caches") != NULL, "  naming the option (%s)", err.buf);
    }
    cb_sb_release(&err);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/cb-caches-XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_epyc_sysfs();
    test_fit();
    test_missing();
    test_live();
    test_override();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "# could not remove %s\n", root);
    return tap_done();
}
