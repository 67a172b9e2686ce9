/* test_ceilings.c — the machine's ceilings (issue 19): which level a working
 * set fits in, the sets chosen from cache sizes, the share of a ceiling, the
 * cache sizes read from a sysfs tree written here, and that the load loop
 * gives this machine a finite positive figure (no threshold on speed: make
 * check must pass on a loaded VM), and what every loop of this arch reads
 * or writes, against references computed here.  Expected figures are worked out by hand
 * in the comments, not by the code under test. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/caches.h"
#include "counters/ceilings.h"
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
    is_near(cb_ceil_share(128, 64), 2.0, 1e-12, "over the ceiling is shown as it is (200%%)");
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

/* ---- what each loop touches, against references written here ---------- */

/* n bytes between two inaccessible pages: a loop that strays past either
 * end faults, and the test dies rather than passes. */
static unsigned char *guarded(size_t n)
{
    unsigned char *m = mmap(NULL, n + 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mprotect(m, 4096, PROT_NONE) < 0 || mprotect(m + 4096 + n, 4096, PROT_NONE) < 0) {
        munmap(m, n + 8192);
        return NULL;
    }
    return m + 4096;
}

static void unguard(unsigned char *p, size_t n)
{
    munmap(p - 4096, n + 8192);
}

/* Words no two of which are alike (an odd multiplier is a bijection). */
static void fill_words(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n / 8; i++) {
        uint64_t w = (i + seed) * 0x9e3779b97f4a7c15ull;
        memcpy(p + 8 * i, &w, 8);
    }
}

static uint64_t word(const unsigned char *p, size_t i)
{
    uint64_t w;
    memcpy(&w, p + 8 * i, 8);
    return w;
}

/* How many bytes at the end of the set a load loop's result folds: the
 * registers of its last step (eight vector registers, or four x). */
static size_t load_tail(const char *isa)
{
    static const struct { const char *isa; size_t bytes; } t[] = {
        {"avx512", 512}, {"avx2", 256}, {"sse2", 128},  /* x86-64: 8 registers */
        {"neon", 128}, {"neon-x4", 128},                /* arm64: v0-v7 */
        {"scalar", 32},                                 /* both: 4 x 64-bit */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].isa, isa) == 0)
            return t[i].bytes;
    return 0;
}

/* The 64-bit one's-complement sum with end-around carry: one carry chain
 * over the words, the last carry added back. */
static uint64_t ref_adc(const unsigned char *p, size_t n)
{
    uint64_t a = 0, c = 0;
    for (size_t i = 0; i < n / 8; i++) {
        unsigned __int128 t = (unsigned __int128)a + word(p, i) + c;
        a = (uint64_t)t;
        c = (uint64_t)(t >> 64);
    }
    return a + c;
}

/* adcx/adox: in each 256-byte step the even words carry through one chain,
 * the odd through the other, each step's last carries added in. */
static uint64_t ref_adcx2(const unsigned char *p, size_t n)
{
    uint64_t acc[2] = {0, 0};
    for (size_t s = 0; s < n / 256; s++) {
        for (int k = 0; k < 2; k++) {
            uint64_t c = 0;
            for (size_t i = (size_t)k; i < 32; i += 2) {
                unsigned __int128 t = (unsigned __int128)acc[k] + word(p, 32 * s + i) + c;
                acc[k] = (uint64_t)t;
                c = (uint64_t)(t >> 64);
            }
            acc[k] += c;
        }
    }
    return acc[0] + acc[1];
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void check_loop(const struct cb_ceil_loop *lp, size_t n)
{
    unsigned char *p = guarded(n), *ref = malloc(n);
    if (!p || !ref) {
        ok(0, "%s %s: memory for %zu bytes", lp->kind, lp->isa, n);
        free(ref);
        return;
    }
    fill_words(p, n, n);
    memcpy(ref, p, n);
    uint64_t got = lp->fn(p, n);
    const char *k = lp->kind;
    if (strcmp(k, "load") == 0) {
        size_t tail = load_tail(lp->isa);
        uint64_t want = 0;
        for (size_t i = (n - tail) / 8; tail && i < n / 8; i++)
            want ^= word(ref, i);
        ok(tail && got == want && memcmp(p, ref, n) == 0,
           "load %s over %zu B: XOR of the last %zu B 0x%016llx (want 0x%016llx), memory unchanged",
           lp->isa, n, tail, (unsigned long long)got, (unsigned long long)want);
    } else if (strcmp(k, "store") == 0) {
        int each = 1;
        for (size_t i = 0; i < n / 8; i++)
            each &= word(p, i) == (uint64_t)n;
        ok(each, "store %s over %zu B: every word is the set's size", lp->isa, n);
    } else if (strcmp(k, "adc") == 0 || strcmp(k, "adcx2") == 0) {
        uint64_t want = strcmp(k, "adc") == 0 ? ref_adc(ref, n) : ref_adcx2(ref, n);
        ok(got == want, "%s over %zu B: sum 0x%016llx (want 0x%016llx)", k, n,
           (unsigned long long)got, (unsigned long long)want);
    } else if (strcmp(k, "movsb") == 0 || strcmp(k, "memcpy") == 0) {
        ok(lp->half && memcmp(p, ref, n / 2) == 0 && memcmp(p + n / 2, ref, n / 2) == 0,
           "%s %s over %zu B: the first half copied into the second, itself unchanged", k, lp->isa,
           n);
    } else if (strcmp(k, "stosb") == 0 || strcmp(k, "memset") == 0) {
        ok(all_bytes(p, n, 0x5a), "%s %s over %zu B: every byte 0x5a", k, lp->isa, n);
    } else if (strcmp(k, "zva") == 0) {
        ok(all_bytes(p, n, 0), "zva over %zu B: every byte zero (and no byte outside)", n);
    } else {
        ok(0, "loop %s %s: this test has no reference for it", k, lp->isa);
    }
    unguard(p, n);
    free(ref);
}

static void test_loops(void)
{
    struct cb_ceil_loop loops[CB_CEIL_MAX];
    size_t nl = cb_ceil_loops(loops, CB_CEIL_MAX);
    ok(nl >= 5, "%zu loops on this CPU", nl);
    int has[2] = {0, 0};
    for (size_t i = 0; i < nl; i++) {
        has[0] |= strcmp(loops[i].kind, "load") == 0 && strcmp(loops[i].isa, "scalar") == 0;
        has[1] |= strcmp(loops[i].kind, "load") == 0 &&
                  strcmp(loops[i].isa, cb_ceil_widest_isa()) == 0;
        /* Two sizes: one step more or less would show at the end. */
        check_loop(&loops[i], 4096);
        check_loop(&loops[i], 12288);
    }
    ok(has[0] && has[1], "scalar and widest (%s) load loops are measured", cb_ceil_widest_isa());
#if defined(__x86_64__)
    /* The narrower vector loads, measured only where they are the widest. */
    __builtin_cpu_init();
    static const char *const narrower[] = {"avx2", "sse2"};
    for (int i = 0; i < 2; i++) {
        if (strcmp(narrower[i], cb_ceil_widest_isa()) == 0 ||
            (i == 0 && !__builtin_cpu_supports("avx2")))
            continue;
        struct cb_ceil_loop lp = {"load", narrower[i], cb_ceil_load_fn(narrower[i]), 0, 0};
        check_loop(&lp, 4096);
        check_loop(&lp, 12288);
    }
#endif
#if defined(__aarch64__)
    unsigned bs = cb_ceil_zva_block();
    int zva = 0;
    for (size_t i = 0; i < nl; i++)
        zva |= strcmp(loops[i].kind, "zva") == 0;
    ok(bs == 0 ? !zva : zva && bs >= 16 && bs <= 2048 && (bs & (bs - 1)) == 0,
       "dc zva block %u B from DCZID_EL0: %s", bs, zva ? "measured" : "prohibited, absent");
#endif
}

int main(void)
{
    test_sysfs();
    test_sets();
    test_level_for();
    test_best_share();
    test_measured();
    test_loops();
    return tap_done();
}
