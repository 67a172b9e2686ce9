/* test_guardpage.c — no checksum, copy or memset variant touches a byte
 * outside its buffer.
 *
 * The kernel's word-at-a-time tricks (load_unaligned_zeropad) read past the
 * end of a buffer on purpose and rely on an exception fixup when that read
 * crosses into an unmapped page; user space has no such fixup, so a variant
 * that borrowed the trick would crash a real program only at the one length
 * and address where the buffer ends at a page boundary.  Here every buffer
 * is placed flush against a PROT_NONE guard page (its end, and separately
 * its start right after one), for every length 0..300 and some large ones,
 * with sources and destinations of copies guarded in turn.  A fault is
 * caught and reported by variant and length; results are also checked
 * against independent references (a byte-pair RFC 1071 sum, the source
 * bytes, the fill byte), since a variant that stops early would pass the
 * fault check alone. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "copy.h"
#include "cpu.h"
#include "csum.h"
#include "csum_copy.h"
#include "memset.h"
#include "probe.h"
#include "tap.h"

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t faulted;

static void on_fault(int sig)
{
    (void)sig;
    faulted = 1;
    siglongjmp(fault_jmp, 1);
}

/* One call of a variant, with what it needs and what it returned. */
struct call {
    const void *fn;
    unsigned char *d;
    const unsigned char *s;
    size_t len;
    uint32_t sum, got;
    int fill;
};

static void call_csum(struct call *c) { c->got = ((cb_csum_fn)c->fn)(c->s, c->len, c->sum); }
static void call_copy(struct call *c) { ((cb_copy_fn)c->fn)(c->d, c->s, c->len); }
static void call_csum_copy(struct call *c)
{
    c->got = ((cb_csum_copy_fn)c->fn)(c->s, c->d, c->len, c->sum);
}
static void call_memset(struct call *c) { ((cb_memset_fn)c->fn)(c->d, c->fill, c->len); }

/* 0, or -1 when the call faulted.  Kept apart from the loops so nothing of
 * theirs lives across the longjmp. */
static __attribute__((noinline)) int guarded(void (*fn)(struct call *), struct call *c)
{
    if (sigsetjmp(fault_jmp, 1))
        return -1;
    fn(c);
    return 0;
}

/* guard | npages of data | guard */
struct area {
    unsigned char *map, *data, *end;
    size_t pg, len;
};

static void area_init(struct area *a, size_t npages, unsigned seed)
{
    a->pg = (size_t)sysconf(_SC_PAGESIZE);
    a->len = (npages + 2) * a->pg;
    a->map = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a->map == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    a->data = a->map + a->pg;
    a->end = a->data + npages * a->pg;
    if (mprotect(a->map, a->pg, PROT_NONE) || mprotect(a->end, a->pg, PROT_NONE)) {
        perror("mprotect");
        exit(1);
    }
    uint32_t x = seed;
    for (unsigned char *p = a->data; p < a->end; p++) {
        x = x * 1103515245u + 12345u;
        *p = (unsigned char)(x >> 16);
    }
}

static void area_free(struct area *a)
{
    munmap(a->map, a->len);
}

static const size_t big_lens[] = {
    511, 512, 513, 1023, 1024, 1500, 2047, 2048, 4095, 4096, 4097, 9000, 65535, 65536, 65537,
};
#define NLENS (301 + sizeof big_lens / sizeof big_lens[0])
#define MAXLEN 65537
#define NPAGES ((MAXLEN + 4095) / 4096 + 1)

static size_t len_at(size_t i)
{
    return i <= 300 ? i : big_lens[i - 301];
}

/* Where a buffer of len bytes sits: 0 flush against the back guard, 1 right
 * after the front guard. */
static unsigned char *place(const struct area *a, size_t len, int where)
{
    return where == 0 ? a->end - len : a->data;
}

static const char *const where_name[] = {"ends at a guard page", "starts after a guard page"};

static int skip_variant(const struct cb_variant *v, unsigned feat)
{
    if (cb_variant_runnable(v, feat))
        return 0;
    char need[128];
    printf("ok %d - # SKIP %s: this CPU lacks %s\n", ++tap_n, v->name,
           cb_cpu_feature_names(v->needs & ~feat, need, sizeof need));
    return 1;
}

static void test_csum(unsigned feat)
{
    struct area a;
    area_init(&a, NPAGES, 1);
    for (size_t j = 0; j < cb_probe_csum.nvariants; j++) {
        const struct cb_variant *v = &cb_probe_csum.variants[j];
        if (skip_variant(v, feat))
            continue;
        for (int w = 0; w < 2; w++) {
            size_t bad = (size_t)-1, wrong = (size_t)-1;
            faulted = 0;
            for (size_t i = 0; i < NLENS; i++) {
                struct call c = {.fn = v->fn, .len = len_at(i)};
                c.s = place(&a, c.len, w);
                c.sum = (uint32_t)(c.len * 2654435761u);
                if (guarded(call_csum, &c) < 0) {
                    bad = c.len;
                    break;
                }
                if (wrong == (size_t)-1 &&
                    cb_csum_fold(c.got) != cb_csum_fold(cb_csum_ref(c.s, c.len, c.sum)))
                    wrong = c.len;
            }
            ok(!faulted, "csum %s: no access outside the buffer when it %s (0..300 and up to 64K+1)",
               v->name, where_name[w]);
            if (faulted)
                printf("#   faulted at length %zu\n", bad);
            ok(wrong == (size_t)-1, "csum %s: sums agree with RFC 1071 when it %s", v->name,
               where_name[w]);
            if (wrong != (size_t)-1)
                printf("#   first wrong length %zu\n", wrong);
        }
    }
    area_free(&a);
}

/* The copy-like families: copy and csum_copy.  g says which buffer is
 * guarded: 0 the destination, 1 the source, 2 both. */
static void test_copies(const struct cb_probe *p, int with_sum, unsigned feat)
{
    struct area src, dst;
    area_init(&src, NPAGES, 2);
    area_init(&dst, NPAGES, 3);
    static const char *const gname[] = {"destination", "source", "source and destination"};
    for (size_t j = 0; j < p->nvariants; j++) {
        const struct cb_variant *v = &p->variants[j];
        if (skip_variant(v, feat))
            continue;
        for (int g = 0; g < 3; g++) {
            for (int w = 0; w < 2; w++) {
                size_t bad = (size_t)-1, wrong = (size_t)-1;
                faulted = 0;
                for (size_t i = 0; i < NLENS; i++) {
                    struct call c = {.fn = v->fn, .len = len_at(i)};
                    /* The unguarded side sits mid-area, away from both guards. */
                    c.s = g >= 1 ? place(&src, c.len, w) : src.data + 64;
                    c.d = g != 1 ? place(&dst, c.len, w) : dst.data + 64;
                    c.sum = (uint32_t)(c.len * 40503u);
                    memset(dst.data, 0xee, (size_t)(dst.end - dst.data));
                    if (guarded(with_sum ? call_csum_copy : call_copy, &c) < 0) {
                        bad = c.len;
                        break;
                    }
                    int same = memcmp(c.d, c.s, c.len) == 0;
                    if (with_sum)
                        same = same &&
                               cb_csum_fold(c.got) == cb_csum_fold(cb_csum_ref(c.s, c.len, c.sum));
                    if (wrong == (size_t)-1 && !same)
                        wrong = c.len;
                }
                ok(!faulted, "%s %s: no access outside the buffers when the %s %s", p->name,
                   v->name, gname[g], where_name[w]);
                if (faulted)
                    printf("#   faulted at length %zu\n", bad);
                ok(wrong == (size_t)-1, "%s %s: result matches the source when the %s %s",
                   p->name, v->name, gname[g], where_name[w]);
                if (wrong != (size_t)-1)
                    printf("#   first wrong length %zu\n", wrong);
            }
        }
    }
    area_free(&src);
    area_free(&dst);
}

static void test_memset(unsigned feat)
{
    struct area a;
    area_init(&a, NPAGES, 4);
    for (size_t j = 0; j < cb_probe_memset.nvariants; j++) {
        const struct cb_variant *v = &cb_probe_memset.variants[j];
        if (skip_variant(v, feat))
            continue;
        /* A fixed-size clear zeroes its one size and ignores the fill. */
        int fill = v->only_size ? 0 : 0x5a;
        for (int w = 0; w < 2; w++) {
            size_t bad = (size_t)-1, wrong = (size_t)-1;
            faulted = 0;
            for (size_t i = 0; i < NLENS; i++) {
                struct call c = {.fn = v->fn, .len = len_at(i), .fill = fill};
                if (v->only_size && c.len != v->only_size)
                    continue;
                c.d = place(&a, c.len, w);
                memset(a.data, 0xee, (size_t)(a.end - a.data));
                if (guarded(call_memset, &c) < 0) {
                    bad = c.len;
                    break;
                }
                size_t k = 0;
                while (k < c.len && c.d[k] == fill)
                    k++;
                if (wrong == (size_t)-1 && k != c.len)
                    wrong = c.len;
            }
            ok(!faulted, "memset %s: no access outside the buffer when it %s", v->name,
               where_name[w]);
            if (faulted)
                printf("#   faulted at length %zu\n", bad);
            ok(wrong == (size_t)-1, "memset %s: every byte filled when it %s", v->name,
               where_name[w]);
            if (wrong != (size_t)-1)
                printf("#   first wrong length %zu\n", wrong);
        }
    }
    area_free(&a);
}

/* Reads whole 8-byte words, rounding the length up: the overread this test
 * exists to catch, here on purpose, to show the guard catches it. */
static uint32_t overreading_sum(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = buf;
    uint64_t acc = sum;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        acc += w;
    }
    return (uint32_t)(acc ^ acc >> 32);
}

static void test_guard_catches(void)
{
    struct area a;
    area_init(&a, 2, 5);
    struct call c = {.fn = (const void *)overreading_sum, .len = 13};
    c.s = place(&a, c.len, 0);
    int r = guarded(call_csum, &c);
    ok(r < 0, "the guard page catches a deliberate 3-byte overread");
    c.len = 16;
    c.s = place(&a, c.len, 0);
    ok(guarded(call_csum, &c) == 0, "and lets a read that ends exactly at the guard pass");
    area_free(&a);
}

int main(void)
{
    struct sigaction sa = {.sa_handler = on_fault};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    unsigned feat = cb_cpu_features();
    test_guard_catches();
    test_csum(feat);
    test_copies(&cb_probe_copy, 0, feat);
    test_copies(&cb_probe_csum_copy, 1, feat);
    test_memset(feat);
    return tap_done();
}
