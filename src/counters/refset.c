/* refset.c — the reference loops and the state they say (see refset.h). */
#include "counters/refset.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/sort.h"
#include "counters/tsc.h"

static const char *const names[CB_NREFS] = {"chain", "vec", "load", "copy", "mem"};

const char *cb_ref_name(int ref)
{
    return ref >= 0 && ref < CB_NREFS ? names[ref] : "";
}

int cb_ref_parse(const char *s)
{
    for (int i = 0; s && i < CB_NREFS; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

void cb_refs_clear(struct cb_refs *r)
{
    for (int i = 0; i < CB_NREFS; i++)
        r->v[i] = NAN;
}

int cb_refs_any(const struct cb_refs *r)
{
    for (int i = 0; i < CB_NREFS; i++)
        if (r->v[i] > 0)
            return 1;
    return 0;
}

/* A register the compiler must assume changed: no loop is folded away. */
#if defined(__x86_64__)
#define KEEP_V(v) __asm__ volatile("" : "+x"(v))
#elif defined(__aarch64__)
#define KEEP_V(v) __asm__ volatile("" : "+w"(v))
#else
#define KEEP_V(v) __asm__ volatile("" : "+m"(v))
#endif
#define KEEP_R(x) __asm__ volatile("" : "+r"(x))

typedef uint32_t v4u __attribute__((vector_size(16)));

#define LOAD_BYTES 16384
#define COPY_BYTES 1536
static v4u load_buf[LOAD_BYTES / sizeof(v4u)];
/* Source and destination 2 KiB apart modulo 4 KiB: a store never aliases
 * a load of the same page offset, whose stall drew 20 to 60% onto the
 * figure in some processes and not others. */
static unsigned char copy_buf[8192] __attribute__((aligned(4096)));
#define COPY_SRC copy_buf
#define COPY_DST (copy_buf + 4096 + 2048)

/* The memory reference: a dependent chain of loads, one per node, in a
 * random cyclic order over MEM_NODES nodes 128 bytes apart (one line of
 * each adjacent-line pair, so the spatial prefetcher brings in no node).
 * Each window's nodes are flushed from every cache before it is timed, so
 * every load goes to memory, whatever the LLC kept between readings: a
 * large shared LLC (a VM's whole socket) keeps some lines and loses others
 * to the host's other tenants, and a window of hits and misses mixed read
 * 3x apart.  One operation: one load.  1 MiB, whose 256 pages the second-
 * level TLB holds, so a load is not a page walk as well. */
#define MEM_NODES 8192
#define MEM_STRIDE 128
static unsigned char *mem_buf;           /* mapped on first use; NULL: none */
static uint32_t *mem_order;              /* the chain's order: the lines to flush */
static size_t mem_cur;                   /* the next window's first place in mem_order */

/* Map and link the nodes, once: 0, or -ENOMEM (the reference is not
 * taken).  Mapped after the L1 references' buffers are first touched, so
 * that they keep the pages they had without it. */
static int mem_init(void)
{
    static int rc = 1;
    if (rc <= 0)
        return rc;
    size_t len = (size_t)MEM_NODES * MEM_STRIDE + MEM_NODES * sizeof(uint32_t);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return rc = -ENOMEM;
    mem_buf = m;
    mem_order = (uint32_t *)(mem_buf + (size_t)MEM_NODES * MEM_STRIDE);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < MEM_NODES; i++)
        mem_order[i] = i;
    for (uint32_t i = MEM_NODES - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t j = (uint32_t)(x % (i + 1)), t = mem_order[i];
        mem_order[i] = mem_order[j], mem_order[j] = t;
    }
    for (uint32_t i = 0; i < MEM_NODES; i++)
        memcpy(mem_buf + (size_t)mem_order[i] * MEM_STRIDE, &mem_order[(i + 1) % MEM_NODES],
               sizeof(uint32_t));
    return rc = 0;
}

static void flush_line(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("clflush (%0)" ::"r"(p) : "memory");
#elif defined(__aarch64__)
    __asm__ volatile("dc civac, %0" ::"r"(p) : "memory");
#else
    (void)p;
#endif
}

/* Flush the lines the next n operations of the memory reference load, and
 * wait until they are gone. */
static void mem_flush(uint64_t n)
{
    for (uint64_t i = 0; i < n && i < MEM_NODES; i++)
        flush_line(mem_buf + (size_t)mem_order[(mem_cur + i) % MEM_NODES] * MEM_STRIDE);
#if defined(__x86_64__)
    __asm__ volatile("mfence" ::: "memory");
#elif defined(__aarch64__)
    __asm__ volatile("dsb ish" ::: "memory");
#endif
}

/* A 1.5 KiB copy through vector registers, 64 bytes a step.  Not libc's
 * memcpy: a memcpy preloaded or changed is a change of the code measured,
 * and must not read as the host's state. */
static void copy_once(void)
{
    for (size_t k = 0; k < COPY_BYTES; k += 64) {
        v4u a, b, c, d;
        __builtin_memcpy(&a, COPY_SRC + k, 16);
        __builtin_memcpy(&b, COPY_SRC + k + 16, 16);
        __builtin_memcpy(&c, COPY_SRC + k + 32, 16);
        __builtin_memcpy(&d, COPY_SRC + k + 48, 16);
        /* The loop stays a loop, never a call of memcpy. */
        KEEP_V(a);
        KEEP_V(b);
        KEEP_V(c);
        KEEP_V(d);
        __builtin_memcpy(COPY_DST + k, &a, 16);
        __builtin_memcpy(COPY_DST + k + 16, &b, 16);
        __builtin_memcpy(COPY_DST + k + 32, &c, 16);
        __builtin_memcpy(COPY_DST + k + 48, &d, 16);
    }
}

/* n operations of reference ref. */
__attribute__((noinline)) static void run_ref(int ref, uint64_t n)
{
    switch (ref) {
    case CB_REF_CHAIN: {
        uint64_t x = 1;
        for (uint64_t i = 0; i < n; i++) {
            x = x * 5 + 3;
            KEEP_R(x);
        }
        break;
    }
    case CB_REF_VEC: {
        v4u a = {0}, b = a, c = a, d = a, e = a, f = a, g = a, h = a, one = {1, 1, 1, 1};
        for (uint64_t i = 0; i < n; i++) {
            a += one, b += one, c += one, d += one, e += one, f += one, g += one, h += one;
            KEEP_V(a); KEEP_V(b); KEEP_V(c); KEEP_V(d);
            KEEP_V(e); KEEP_V(f); KEEP_V(g); KEEP_V(h);
        }
        break;
    }
    case CB_REF_LOAD: {
        /* One operation: one pass over the buffer (LOAD_BYTES / 16 loads). */
        v4u s0 = {0}, s1 = s0, s2 = s0, s3 = s0;
        for (uint64_t r = 0; r < n; r++) {
            for (size_t i = 0; i < LOAD_BYTES / sizeof(v4u); i += 4) {
                s0 += load_buf[i], s1 += load_buf[i + 1];
                s2 += load_buf[i + 2], s3 += load_buf[i + 3];
            }
            KEEP_V(s0); KEEP_V(s1); KEEP_V(s2); KEEP_V(s3);
        }
        break;
    }
    case CB_REF_COPY:
        for (uint64_t i = 0; i < n; i++) {
            copy_once();
            __asm__ volatile("" ::: "memory");
        }
        break;
    }
}

/* n operations of the memory reference: its own function, so that run_ref's
 * code, and where its loops fall against the instruction fetch's 32- and
 * 64-byte blocks, stays as it is without it: the copy loop reads 35 or
 * 50-60 ticks by process by where it falls alone. */
__attribute__((noinline)) static void run_mem(uint64_t n)
{
    uint32_t at = mem_order[mem_cur];
    for (uint64_t i = 0; i < n; i++) {
        memcpy(&at, mem_buf + (size_t)at * MEM_STRIDE, sizeof at);
        KEEP_R(at);
    }
    mem_cur = (mem_cur + n) % MEM_NODES;
}

static double window(int ref, uint64_t n)
{
    if (ref == CB_REF_MEM)
        mem_flush(n);
    uint64_t t0 = cb_tsc_begin();
    if (ref == CB_REF_MEM)
        run_mem(n);
    else
        run_ref(ref, n);
    uint64_t t1 = cb_tsc_end();
    return t1 > t0 ? (double)(t1 - t0) : 0;
}

#define WINDOWS 15
/* A window lasts at least this many ticks of a 1 GHz counter (20 us at
 * 2.5 GHz, as a batch of the harness); scaled by the counter's rate. */
#define WINDOW_TICKS 50000.0

void cb_refs_measure(struct cb_refs *out)
{
    /* Sized once per process: the windows' length does not change the
     * figure, and every later reading then costs the same. */
    static uint64_t iters[CB_NREFS];
    double ghz = cb_tsc_ghz_reported(NULL);
    double want = ghz > 0 ? WINDOW_TICKS * ghz / 2.5 : WINDOW_TICKS;
    double t[CB_NREFS][WINDOWS];
    cb_refs_clear(out);
    for (int ref = 0; ref < CB_NREFS; ref++) {
        if (iters[ref])
            continue;
        if (ref == CB_REF_MEM && mem_init() < 0)
            continue;
        uint64_t n = 16;
        window(ref, n);
        /* The memory reference's window stays within its nodes: each load
         * of a window is a node not yet loaded in it. */
        uint64_t most = ref == CB_REF_MEM ? MEM_NODES / 2 : (uint64_t)1 << 30;
        while (n < most && window(ref, n) < want)
            n *= 2;
        iters[ref] = n;
    }
    /* The references in turn, window by window: each median then spans
     * the whole reading, as the host's speed moves within milliseconds. */
    for (int k = 0; k < WINDOWS; k++)
        for (int ref = 0; ref < CB_NREFS; ref++)
            t[ref][k] = iters[ref] ? window(ref, iters[ref]) : 0;
    for (int ref = 0; ref < CB_NREFS; ref++) {
        cb_sort_doubles(t[ref], WINDOWS);
        double med = t[ref][WINDOWS / 2];
        if (med > 0)
            out->v[ref] = med / (double)iters[ref];
    }
}

const char *cb_state_name(const struct cb_state *s)
{
    return s->kind == CB_STATE_QUIET ? "quiet" : s->kind == CB_STATE_SLOWED_KIND ? "slowed" : NULL;
}

void cb_state_text(const struct cb_state *s, char *buf, size_t len)
{
    if (s->kind == CB_STATE_SLOWED_KIND)
        snprintf(buf, len, "slowed %.2fx (%s)", s->ratio, cb_ref_name(s->ref));
    else
        snprintf(buf, len, "%s", s->kind == CB_STATE_QUIET ? "quiet" : "-");
}

void cb_state_judge(const struct cb_refs *now, const struct cb_refs *quiet, struct cb_state *out)
{
    *out = (struct cb_state){.kind = CB_STATE_UNJUDGED, .ratio = NAN, .ref = -1};
    for (int i = 0; i < CB_NREFS; i++) {
        if (!(now->v[i] > 0) || !(quiet->v[i] > 0))
            continue;
        double r = now->v[i] / quiet->v[i];
        if (out->ref < 0 || r > out->ratio)
            out->ratio = r, out->ref = i;
    }
    if (out->ref >= 0)
        out->kind = out->ratio >= CB_STATE_SLOWED ? CB_STATE_SLOWED_KIND : CB_STATE_QUIET;
}

void cb_state_worse(struct cb_state *acc, const struct cb_state *s)
{
    if (s->kind == CB_STATE_UNJUDGED)
        return;
    if (acc->kind == CB_STATE_UNJUDGED || s->kind > acc->kind ||
        (s->kind == acc->kind && s->ratio > acc->ratio))
        *acc = *s;
}
