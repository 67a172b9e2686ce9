/* workset.c — warm and cold buffer sets (see workset.h for why). */
#include "harness/workset.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "host/cpu.h"

size_t cb_workset_cold_bytes(void)
{
    /* Twice the LLC, at least 64 MiB.  Capped at 128 MiB: VMs often report
     * the whole socket's L3 (512 MiB on this project's CI host) although a
     * core reaches only its own CCD's share, and a larger set only makes
     * setup slower.  --cold-bytes overrides. */
    size_t want = 2 * cb_llc_bytes();
    if (want < (64u << 20))
        want = 64u << 20;
    if (want > (128u << 20))
        want = 128u << 20;
    return want;
}

int cb_workset_init(struct cb_workset *w, size_t len, size_t offset, enum cb_mode mode,
                    size_t cold_bytes, unsigned pages)
{
    memset(w, 0, sizeof *w);
    /* Slots are whole cache lines apart, so no two buffers share a line and a
     * cold buffer is never warmed by its neighbour's access. */
    size_t need = offset + (len ? len : 1);
    w->stride = (need + 63) & ~(size_t)63;
    w->len = len;
    w->offset = offset;
    w->count = 1;
    if (mode == CB_MODE_COLD) {
        if (!cold_bytes)
            cold_bytes = cb_workset_cold_bytes();
        size_t want = (cold_bytes + w->stride - 1) / w->stride;
        w->count = 2;
        while (w->count < want)
            w->count <<= 1;
    }
    size_t shift = mode == CB_MODE_COLD ? 0 : (size_t)pages * 4096;
    w->map_len = shift + w->count * w->stride + 64;
    void *m = mmap(NULL, w->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        memset(w, 0, sizeof *w);
        return -ENOMEM;
    }
    w->map = m;
    w->mem = w->map + shift;
#ifdef MADV_HUGEPAGE
    /* The kernel's packet buffers live in its huge-page direct map, so a cold
     * case should pay cache misses, not a TLB miss per 4 KiB. */
    if (mode == CB_MODE_COLD)
        (void)madvise(m, w->map_len, MADV_HUGEPAGE);
#endif
    /* Fault every page in now, so page faults are not timed. */
    memset(w->map, 0, w->map_len);
    return 0;
}

void cb_workset_settle(struct cb_workset *w)
{
    if (w->count < 2)
        return;
    size_t save = w->cur;
    unsigned sum = 0;
    for (size_t i = 0; i < w->count; i++) {
        const volatile unsigned char *p = cb_workset_next(w) - w->offset;
        for (size_t off = 0; off < w->stride; off += 64)
            sum += p[off];
    }
    w->cur = save;
    /* Keep the reads: the sum goes nowhere, through a volatile. */
    *(volatile unsigned *)&w->settled = sum;
}

void cb_fill_random(unsigned char *p, size_t n, uint64_t *seed)
{
    uint64_t x = *seed;
    while (n) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t k = n < 8 ? n : 8;
        memcpy(p, &x, k);
        p += k;
        n -= k;
    }
    *seed = x;
}

void cb_workset_fill_random(struct cb_workset *w, uint64_t seed)
{
    for (size_t i = 0; i < w->count; i++)
        cb_fill_random(cb_workset_at(w, i), w->len, &seed);
    cb_workset_settle(w);
}

void cb_workset_free(struct cb_workset *w)
{
    if (w->map)
        munmap(w->map, w->map_len);
    memset(w, 0, sizeof *w);
}
