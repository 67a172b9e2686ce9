/* plugin_verify.c — a plugin variant checked with its buffers against guard
 * pages, at the same places relative to pages in every run. */
#define _GNU_SOURCE
#include "harness/plugin_verify.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cyclebudget/cyclebudget.h>

#include "probes/csum.h"

/* The lengths the pluggable families' verifiers try (0..2048: copy's, memset's
 * and csum's agree), their 64 start
 * alignments, and the long buffers: a page, either side of one, a jumbo
 * frame, 64K either side. */
#define MAXLEN 2048
#define ALIGNS 64
static const size_t big_lens[] = {4095, 4096, 4097, 9000, 65535, 65536, 65537};
#define NBIG (sizeof big_lens / sizeof big_lens[0])
#define NLENS (MAXLEN + 1 + NBIG)

enum place { END_AT_GUARD, AFTER_GUARD, PAGE_TAIL, NPLACES };

static const char *const place_fmt[NPLACES] = {
    "ends %zu bytes before a guard page", "starts %zu bytes after a guard page",
    "starts %zu bytes before the end of a page"};

/* guard | NPAGES of data | guard */
struct area {
    unsigned char *map, *data, *end;
    size_t pg, len, npages;
};

struct call {
    enum cb_call call;
    const void *fn;
    unsigned char *d;
    const unsigned char *s;
    size_t len;
    uint32_t sum, got;
    int fill;
};

/* The one jump target of the fault handler: a signal handler has no other
 * way to reach it.  Only the verification child ever sets it. */
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_sig;

static void on_fault(int sig)
{
    fault_sig = sig;
    siglongjmp(fault_jmp, 1);
}

/* 0, or the signal the call died of.  Kept apart from the loops so that
 * nothing of theirs lives across the jump. */
static __attribute__((noinline)) int guarded(struct call *c)
{
    fault_sig = 0;
    if (sigsetjmp(fault_jmp, 1))
        return fault_sig ? fault_sig : SIGSEGV;
    switch (c->call) {
    case CB_CALL_SUM: c->got = ((cb_csum_fn)c->fn)(c->s, c->len, c->sum); break;
    case CB_CALL_COPY: ((cb_copy_fn)c->fn)(c->d, c->s, c->len); break;
    case CB_CALL_COPY_SUM: c->got = ((cb_csum_copy_fn)c->fn)(c->s, c->d, c->len, c->sum); break;
    case CB_CALL_FILL: ((cb_memset_fn)c->fn)(c->d, c->fill, c->len); break;
    case CB_CALL_NONE: break;
    }
    return 0;
}

/* Room for a buffer of maxlen bytes after a page's last cache line. */
static int area_init(struct area *a, uint32_t seed, size_t maxlen)
{
    a->pg = (size_t)sysconf(_SC_PAGESIZE);
    a->npages = maxlen / a->pg + 3;
    a->len = (a->npages + 2) * a->pg;
    a->map = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a->map == MAP_FAILED)
        return -ENOMEM;
    a->data = a->map + a->pg;
    a->end = a->data + a->npages * a->pg;
    if (mprotect(a->map, a->pg, PROT_NONE) || mprotect(a->end, a->pg, PROT_NONE)) {
        munmap(a->map, a->len);
        return -ENOMEM;
    }
    for (unsigned char *p = a->data; p < a->end; p++) {
        seed = seed * 1103515245u + 12345u;
        *p = (unsigned char)(seed >> 16);
    }
    return 0;
}

/* Where a buffer of len bytes starting at alignment al (mod 64) goes, and
 * in *dist how far its end is from the guard (or its start from the guard
 * or from the page end).  Page-relative, so the same in every run. */
static unsigned char *place(const struct area *a, enum place w, size_t len, size_t al, size_t *dist)
{
    uintptr_t s;
    switch (w) {
    case END_AT_GUARD:
        s = (uintptr_t)(a->end - len);
        s -= (s - al) & (ALIGNS - 1);
        *dist = (size_t)((uintptr_t)a->end - s - len);
        return (unsigned char *)s;
    case AFTER_GUARD:
        *dist = al;
        return a->data + al;
    default:
        *dist = ALIGNS - al;
        return a->data + a->pg - ALIGNS + al;
    }
}

static size_t len_at(size_t i)
{
    return i <= MAXLEN ? i : big_lens[i - MAXLEN - 1];
}

int cb_plugin_verify_covers(uint64_t len)
{
    for (size_t i = 0; i < NLENS; i++)
        if (len_at(i) == len)
            return 1;
    return 0;
}

static unsigned char poison_at(size_t i)
{
    return (unsigned char)(0x5a ^ (i * 7));
}

/* The bytes of dst around and in the call's buffer, poisoned before it and
 * checked after: inside the expected bytes, outside the poison. */
struct window {
    unsigned char *lo, *hi;
};

static struct window window_of(const struct area *a, const struct call *c)
{
    struct window w = {c->d - 64 < a->data ? a->data : c->d - 64,
                       c->d + c->len + 64 > a->end ? a->end : c->d + c->len + 64};
    for (unsigned char *p = w.lo; p < w.hi; p++)
        *p = poison_at((size_t)(p - w.lo));
    return w;
}

/* 0 when the call's result is right; else what was wrong, in why. */
static int check(const struct call *c, const struct window *w, char *why, size_t n)
{
    if (cb_call_sums(c->call)) {
        uint16_t got = cb_csum_fold(c->got), want = cb_csum_fold(cb_csum_ref(c->s, c->len, c->sum));
        if (got != want)
            return snprintf(why, n, "got 0x%04x, want 0x%04x", (unsigned)got, (unsigned)want), 1;
        if (!cb_call_writes(c->call))
            return 0;
    }
    for (unsigned char *p = w->lo; p < w->hi; p++) {
        int in = p >= c->d && p < c->d + c->len;
        unsigned char want = !in ? poison_at((size_t)(p - w->lo))
                             : !cb_call_reads(c->call) ? (unsigned char)c->fill : c->s[p - c->d];
        if (*p != want)
            return snprintf(why, n, "dst[%ld] = 0x%02x, want 0x%02x (%s)", (long)(p - c->d), *p,
                            want, in ? "a wrong byte" : "written outside the buffer"), 1;
    }
    return 0;
}

struct ctx {
    enum cb_call call;
    const struct cb_variant *v;
    struct area a[2];            /* [0] the source or csum's buffer, [1] dst */
    struct cb_verdict *out;
    const size_t *lens;          /* the lengths tried, NULL: the families' (len_at) */
    size_t nlens;
};

/* Every length and alignment at placement w of the guarded side g (0 the
 * source, 1 the destination); the other side sits mid-area.  1 at the
 * first wrong or faulting input (with out's detail), else 0. */
static int sweep(struct ctx *x, enum place w, int g)
{
    size_t only = x->v->only_size;
    for (size_t i = 0; i < x->nlens; i++) {
        size_t len = x->lens ? x->lens[i] : len_at(i);
        if (only && len != only)
            continue;
        for (size_t al = 0; al < ALIGNS; al++) {
            size_t dist;
            struct call c = {.call = x->call, .fn = x->v->fn, .len = len, .fill = only ? 0 : 0xa7,
                             .sum = (uint32_t)(len * 2654435761u)};
            unsigned char *at = place(&x->a[g], w, len, al, &dist);
            c.s = g == 0 ? at : x->a[0].data + 64;
            c.d = g == 1 ? at : x->a[1].data + 64;
            struct window win = {0};
            if (cb_call_writes(c.call))
                win = window_of(&x->a[1], &c);
            char why[128] = "";
            int sig = guarded(&c);
            x->out->checked++;
            if (sig)
                snprintf(why, sizeof why, "%s: it accessed memory outside the buffer",
                         strsignal(sig));
            if (sig || check(&c, &win, why, sizeof why)) {
                char where[80];
                snprintf(where, sizeof where, place_fmt[w], dist);
                snprintf(x->out->detail, sizeof x->out->detail, "len=%zu align=%zu%s (%s%s): %s",
                         len, al, g ? " of dst" : !cb_call_writes(c.call) ? "" : " of src",
                         g ? "dst " : !cb_call_writes(c.call) ? "" : "src ", where, why);
                x->out->ok = 0;
                return 1;
            }
        }
    }
    return 0;
}

/* Every length of lens (NULL: the families' set) at every placement. */
static int verify_lens(enum cb_call call, const struct cb_variant *v, const size_t *lens,
                       size_t nlens, struct cb_verdict *out)
{
    struct ctx x = {.call = call, .v = v, .out = out, .lens = lens, .nlens = lens ? nlens : NLENS};
    memset(out, 0, sizeof *out);
    if (!v || !v->fn || call == CB_CALL_NONE)
        return -EINVAL;
    size_t maxlen = 65537;
    for (size_t i = 0; lens && i < nlens; i++)
        maxlen = lens[i] > maxlen ? lens[i] : maxlen;
    if (area_init(&x.a[0], 1, maxlen) < 0)
        return -ENOMEM;
    if (area_init(&x.a[1], 2, maxlen) < 0) {
        munmap(x.a[0].map, x.a[0].len);
        return -ENOMEM;
    }
    struct sigaction sa = {.sa_handler = on_fault}, old[2];
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old[0]);
    sigaction(SIGBUS, &sa, &old[1]);
    out->ok = 1;
    /* The side a family reads is guarded first: a read past the end is the
     * fault this check exists for; a fill only writes, a sum only reads. */
    int first = !cb_call_reads(call), last = cb_call_writes(call);
    for (int g = first; g <= last && out->ok; g++)
        for (int w = 0; w < NPLACES && out->ok; w++)
            sweep(&x, (enum place)w, g);
    sigaction(SIGSEGV, &old[0], NULL);
    sigaction(SIGBUS, &old[1], NULL);
    munmap(x.a[0].map, x.a[0].len);
    munmap(x.a[1].map, x.a[1].len);
    return 0;
}

int cb_plugin_verify_paged(enum cb_call call, const struct cb_variant *v, struct cb_verdict *out)
{
    return verify_lens(call, v, NULL, 0, out);
}

int cb_plugin_verify_len(enum cb_call call, const struct cb_variant *v, size_t len,
                         struct cb_verdict *out)
{
    return verify_lens(call, v, &len, 1, out);
}
