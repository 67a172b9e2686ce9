/* fpu.c — the cost of kernel_fpu_begin()/kernel_fpu_end(), measured with
 * the user-mode XSAVE family (fpu.h); arm64's kernel_neon_begin() is
 * fpu_arm64.c. */
#include "counters/fpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters/tsc.h"

#if defined(__x86_64__)
#include <cpuid.h>

#define TRIALS 301
#define AMX_BITS ((1ull << 17) | (1ull << 18))
/* The vector components whose registers are made dirty before a save:
 * SSE (the XMM registers), AVX (YMM upper halves), and AVX-512's opmask,
 * ZMM upper halves and ZMM16-31. */
#define VEC_BITS ((1ull << 1) | (1ull << 2) | (1ull << 5) | (1ull << 6) | (1ull << 7))

enum insn { I_XSAVE, I_XSAVEOPT, I_XSAVEC };
enum what { W_EMPTY, W_SAVE, W_RESTORE, W_FIRST, W_LATER };

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void xsave_as(enum insn k, void *buf, uint64_t mask)
{
    uint32_t lo = (uint32_t)mask, hi = (uint32_t)(mask >> 32);
    if (k == I_XSAVEC)
        __asm__ __volatile__("xsavec64 (%0)" : : "r"(buf), "a"(lo), "d"(hi) : "memory");
    else if (k == I_XSAVEOPT)
        __asm__ __volatile__("xsaveopt64 (%0)" : : "r"(buf), "a"(lo), "d"(hi) : "memory");
    else
        __asm__ __volatile__("xsave64 (%0)" : : "r"(buf), "a"(lo), "d"(hi) : "memory");
}

static void xrstor(const void *buf, uint64_t mask)
{
    uint32_t lo = (uint32_t)mask, hi = (uint32_t)(mask >> 32);
    __asm__ __volatile__("xrstor64 (%0)" : : "r"(buf), "a"(lo), "d"(hi) : "memory");
}

/* What kernel_fpu_begin() runs after (or instead of) the save: a clean
 * x87 state and the default MXCSR (kernel_fpu_begin_mask(KFPU_387 |
 * KFPU_MXCSR)). */
static void kfpu_init(void)
{
    uint32_t mxcsr = 0x1f80;
    __asm__ __volatile__("fninit\n\tldmxcsr %0" : : "m"(mxcsr) : "memory");
}

struct bufs {
    unsigned char *dirty, *save;
    uint64_t mask;
    enum insn k;
};

/* One trial, in ticks (with the timing's own overhead).  The registers are
 * loaded from dirty first, a buffer at another address than save, so that
 * no save can skip them as unmodified since its last restore (XSAVEOPT's
 * modified optimisation), as a user task's registers are dirty when it
 * enters the kernel. */
static __attribute__((noinline)) uint64_t trial(const struct bufs *b, enum what w)
{
    xrstor(b->dirty, b->mask);
    if (w == W_RESTORE)
        xsave_as(b->k, b->save, b->mask);
    uint64_t t0 = cb_tsc_begin();
    switch (w) {
    case W_SAVE:
        xsave_as(b->k, b->save, b->mask);
        break;
    case W_RESTORE:
        xrstor(b->save, b->mask);
        break;
    case W_FIRST:
        xsave_as(b->k, b->save, b->mask);
        kfpu_init();
        xrstor(b->save, b->mask);
        break;
    case W_LATER:
        kfpu_init();
        break;
    case W_EMPTY:
        break;
    }
    return cb_tsc_end() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double median_of(const struct bufs *b, enum what w)
{
    uint64_t v[TRIALS];
    for (int i = 0; i < TRIALS; i++)
        v[i] = trial(b, w);
    qsort(v, TRIALS, sizeof v[0], cmp_u64);
    return (double)v[TRIALS / 2];
}

/* The standard-format size of the components in mask: the end of the
 * last one (CPUID leaf 0xD subleaf i: EAX size, EBX offset). */
static uint32_t state_size(uint64_t mask)
{
    uint32_t end = 512 + 64;
    for (unsigned i = 2; i < 63; i++) {
        unsigned a, b, c, d;
        if (!(mask >> i & 1) || !__get_cpuid_count(0xd, i, &a, &b, &c, &d))
            continue;
        if (b + a > end)
            end = b + a;
    }
    return end;
}

/* dirty: the current state (plain XSAVE writes every component asked
 * for, so nothing in it is stale), with random vector registers marked in
 * use.  MXCSR, x87 and PKRU keep their values. */
static void make_dirty(unsigned char *buf, uint64_t mask)
{
    xsave_as(I_XSAVE, buf, mask);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned i = 1; i < 8; i++) {
        unsigned a = 256, off = 160, c, d; /* component 1: XMM0-15 in the legacy area */
        if (!(mask >> i & 1) || !(VEC_BITS >> i & 1))
            continue;
        if (i > 1 && !__get_cpuid_count(0xd, i, &a, &off, &c, &d))
            continue;
        for (unsigned j = 0; j < a; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[off + j] = (unsigned char)x;
        }
    }
    uint64_t bv;
    memcpy(&bv, buf + 512, 8);
    bv |= mask & VEC_BITS;
    memcpy(buf + 512, &bv, 8);
}

int cb_fpu_measure(struct cb_fpu_cost *out)
{
    memset(out, 0, sizeof *out);
    strcpy(out->source, "measured");
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 26)) || !(c & (1u << 27)))
        return -ENOTSUP;
    if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d) || b < 576)
        return -ENOTSUP;
    size_t cap = ((size_t)b + 63) & ~(size_t)63;
    out->xcr0 = xgetbv0();
    out->saved_mask = out->xcr0 & ~AMX_BITS;
    out->state_bytes = state_size(out->saved_mask);
    __get_cpuid_count(0xd, 1, &a, &b, &c, &d);
    enum insn k = (a & 2) ? I_XSAVEC : (a & 1) ? I_XSAVEOPT : I_XSAVE;
    static const char *const names[] = {"xsave", "xsaveopt", "xsavec"};
    strcpy(out->save_insn, names[k]);
    unsigned char *mem = aligned_alloc(64, 3 * cap);
    if (!mem)
        return -ENOMEM;
    memset(mem, 0, 3 * cap);
    unsigned char *orig = mem + 2 * cap;
    xsave_as(I_XSAVE, orig, out->xcr0 & ~AMX_BITS);
    struct bufs bf = {mem, mem + cap, out->saved_mask, k};
    make_dirty(bf.dirty, bf.mask);
    double empty = median_of(&bf, W_EMPTY);
    out->save_ticks = median_of(&bf, W_SAVE) - empty;
    out->restore_ticks = median_of(&bf, W_RESTORE) - empty;
    out->first_ticks = median_of(&bf, W_FIRST) - empty;
    out->later_ticks = median_of(&bf, W_LATER) - empty;
    /* Back to the state this process had: its own registers, MXCSR, x87. */
    xrstor(orig, out->xcr0 & ~AMX_BITS);
    free(mem);
    out->supported = 1;
    return 0;
}

#elif !defined(__aarch64__)
/* arm64's is kernel_neon_begin's model, fpu_arm64.c. */

int cb_fpu_measure(struct cb_fpu_cost *out)
{
    memset(out, 0, sizeof *out);
    strcpy(out->source, "measured");
    return -ENOTSUP;
}

#endif

void cb_fpu_model(struct cb_fpu_cost *out)
{
    memset(out, 0, sizeof *out);
    *out = (struct cb_fpu_cost){.supported = 1, .xcr0 = 0xe7, .saved_mask = 0xe7,
                                .state_bytes = 2688, .first_ticks = 600, .later_ticks = 40,
                                .save_ticks = 300, .restore_ticks = 260};
    strcpy(out->save_insn, "xsavec");
    strcpy(out->source, "model");
}

double cb_fpu_first(const struct cb_fpu_cost *f, double ratio)
{
    return f && f->supported ? f->first_ticks * ratio : 0.0 / 0.0;
}

double cb_fpu_batched(const struct cb_fpu_cost *f, double ratio, int n)
{
    if (!f || !f->supported || n < 1)
        return 0.0 / 0.0;
    return (f->first_ticks + (n - 1) * f->later_ticks) * ratio / n;
}
