/* test_ceilings.c — the machine's ceilings (issue 19): which level a working
 * set fits in, the sets chosen from cache sizes, the share of a ceiling, the
 * cache sizes read from a sysfs tree written here, and that the load loop
 * gives this machine a finite positive figure (no threshold on speed: make
 * check must pass on a loaded VM).  Expected figures are worked out by hand
 * in the comments, not by the code under test. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caches.h"
#include "ceilings.h"
#include "tap.h"

static void put(const char *path, const char *val)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "%s\n", val);
    fclose(f);
}

/* One cache of cpu0 in the kernel's format. */
static void cache_dir(const char *root, int idx, const char *level, const char *type,
                      const char *size)
{
    char d[512], cmd[600], f[600];
    snprintf(d, sizeof d, "%s/sys/devices/system/cpu/cpu0/cache/index%d", root, idx);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", d);
    if (system(cmd) != 0)
        exit(1);
    snprintf(f, sizeof f, "%s/level", d);
    put(f, level);
    snprintf(f, sizeof f, "%s/type", d);
    put(f, type);
    snprintf(f, sizeof f, "%s/size", d);
    put(f, size);
}

static void test_sysfs(void)
{
    char root[] = "/tmp/cb-ceil-XXXXXX";
    if (!mkdtemp(root)) {
        ok(0, "mkdtemp");
        return;
    }
    /* This project's VM as lscpu shows it: 48K L1d, 64K L1i, 2 MiB L2,
     * 480 MiB L3.  The instruction cache must not be taken for L1. */
    cache_dir(root, 0, "1", "Data", "48K");
    cache_dir(root, 1, "1", "Instruction", "64K");
    cache_dir(root, 2, "2", "Unified", "2048K");
    cache_dir(root, 3, "3", "Unified", "491520K");
    uint64_t c[3];
    is_int(cb_caches_sizes(root, 0, c), 0, "sysfs tree read");
    is_uint(c[0], 48 * 1024, "L1d 48 KiB (not the 64 KiB L1i)");
    is_uint(c[1], 2048 * 1024, "L2 2 MiB");
    is_uint(c[2], 491520ull * 1024, "L3 480 MiB");
    is_int(cb_caches_sizes(root, 7, c), -ENOENT, "a CPU the tree lacks: nothing known");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        ok(0, "cleanup");
}

static void test_sets(void)
{
    uint64_t vm[3] = {48 << 10, 2 << 20, 480ull << 20}, set[CB_NLEVELS];
    char note[256];
    cb_ceil_sets(vm, set, note, sizeof note);
    is_uint(set[CB_L1], 24 << 10, "L1 set: half of 48 KiB");
    is_uint(set[CB_L2], 1 << 20, "L2 set: half of 2 MiB");
    is_uint(set[CB_L3], 8 << 20, "L3 set: 4x the L2 (8 MiB < half of 480 MiB)");
    is_uint(set[CB_DRAM], 256 << 20, "DRAM set: 4x 480 MiB capped at 256 MiB");
    ok(strstr(note, "capped at 256 MiB") && strstr(note, "480 MiB"), "the cap is said: %s", note);

    /* A desktop: 32 KiB, 1.25 MiB L2, 12 MiB L3 -> L3 set 4x1.25 = 5 MiB
     * (under 6 MiB), DRAM 4x12 = 48 MiB raised to the 64 MiB floor. */
    uint64_t desk[3] = {32 << 10, 1280 << 10, 12 << 20};
    cb_ceil_sets(desk, set, note, sizeof note);
    is_uint(set[CB_L1], 16 << 10, "desktop L1 set 16 KiB");
    is_uint(set[CB_L2], 640 << 10, "desktop L2 set 640 KiB");
    is_uint(set[CB_L3], 5 << 20, "desktop L3 set 5 MiB");
    is_uint(set[CB_DRAM], 64 << 20, "desktop DRAM set at the 64 MiB floor");
    is_str(note, "", "no note without a cap");

    /* An L3 only twice the L2: the L3 set is half the L3 (4x L2 would not
     * fit) -- 4 MiB L3, 2 MiB L2 is not over 2x, so no L3 level at all. */
    uint64_t small[3] = {32 << 10, 2 << 20, 4 << 20};
    cb_ceil_sets(small, set, note, sizeof note);
    is_uint(set[CB_L3], 0, "an L3 not over twice the L2 is not measured");
    uint64_t mid[3] = {32 << 10, 1 << 20, 6 << 20};
    cb_ceil_sets(mid, set, note, sizeof note);
    is_uint(set[CB_L3], 3 << 20, "L3 set capped at half of a 6 MiB L3");
    uint64_t none[3] = {0, 0, 0};
    cb_ceil_sets(none, set, note, sizeof note);
    is_uint(set[CB_L1], 0, "unknown L1: not measured");
    is_uint(set[CB_DRAM], 64 << 20, "unknown caches: DRAM set at the floor");
}

static void test_level_for(void)
{
    uint64_t vm[3] = {48 << 10, 2 << 20, 480ull << 20};
    is_int(cb_ceil_level_for(vm, 1500, 0), CB_L1, "1500 B warm: L1");
    is_int(cb_ceil_level_for(vm, 48 << 10, 0), CB_L1, "exactly 48 KiB: L1");
    is_int(cb_ceil_level_for(vm, (48 << 10) + 1, 0), CB_L2, "a byte over: L2");
    is_int(cb_ceil_level_for(vm, 64 << 10, 0), CB_L2, "64 KiB warm: L2");
    is_int(cb_ceil_level_for(vm, 16 << 20, 0), CB_L3, "16 MiB: L3");
    is_int(cb_ceil_level_for(vm, 1ull << 30, 0), CB_DRAM, "1 GiB: DRAM");
    is_int(cb_ceil_level_for(vm, 1500, 1), CB_DRAM, "cold: DRAM whatever the size");
    uint64_t nol2[3] = {32 << 10, 0, 8 << 20};
    is_int(cb_ceil_level_for(nol2, 64 << 10, 0), CB_L3, "L2 unknown: the next known level");
    is_str(cb_ceil_level_name(CB_DRAM), "DRAM", "level name");
    is_int(cb_ceil_level_by_name("L3"), CB_L3, "level by name");
    is_int(cb_ceil_level_by_name("L4"), -1, "unknown level name");
}

static void test_best_share(void)
{
    struct cb_ceilings cs;
    cb_ceilings_model(&cs, 2.0, 1.75);
    is_str(cs.source, "model", "the model says it is one");
    const struct cb_ceiling *b = cb_ceil_best(&cs, "load", CB_L1);
    ok(b && b->bpt == 64 && strcmp(b->isa, "avx512") == 0, "best L1 load: the avx512 64 B/tick");
    /* 64 B/tick at 2 GHz TSC, 3.5 GHz core: 64 * 2 / 3.5 = 36.571 B/cycle. */
    is_near(b ? b->bpc : 0, 64 * 2.0 / 3.5, 1e-9, "B/est-cycle = B/tick * tsc / core");
    b = cb_ceil_best(&cs, "store", CB_DRAM);
    ok(b && b->bpt == 4, "best DRAM store 4 B/tick");
    ok(cb_ceil_best(&cs, "adc", CB_L2) == NULL, "no adc ceiling at L2");
    /* A 1500 B checksum in 40 ticks: 37.5 B/tick, of 64: 58.59%. */
    is_near(cb_ceil_share(1500.0 / 40, 64), 37.5 / 64, 1e-12, "share 37.5 of 64");
    ok(isnan(cb_ceil_share(10, 0)), "no ceiling: NAN, not 0");
    ok(isnan(cb_ceil_share(NAN, 64)), "no figure: NAN");
    ok(isnan(cb_ceil_share(-1, 64)), "negative figure: NAN");
    is_near(cb_ceil_share(128, 64), 2.0, 1e-12, "over the ceiling is shown as it is (200%)");
}

static void test_measured(void)
{
    double b = cb_ceil_load_once(16 << 10, 3);
    ok(isfinite(b) && b > 0, "the load loop over 16 KiB gives a finite positive figure (%.1f B/tick)",
       b);
    const char *isa = cb_ceil_widest_isa();
#if defined(__x86_64__)
    ok(strcmp(isa, "avx512") == 0 || strcmp(isa, "avx2") == 0 || strcmp(isa, "sse2") == 0,
       "widest ISA %s", isa);
#elif defined(__aarch64__)
    is_str(isa, "neon", "widest ISA on arm64: neon (baseline on ARMv8-A)");
#endif
}

int main(void)
{
    test_sysfs();
    test_sets();
    test_level_for();
    test_best_share();
    test_measured();
    return tap_done();
}
