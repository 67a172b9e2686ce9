/* copy.h — the memory-copy family (memcpy strategies a packet path can use).
 *
 * Variants range from glibc's memcpy to the kernel's historical unrolled
 * movq loop and the non-temporal "ntq"/"ntqpf" copies of the 2002 csum/copy
 * benchmark (seeds/2002-*).  The verifier driver is shared with csum_copy,
 * whose functions also copy. */
#ifndef CB_PROBES_COPY_H
#define CB_PROBES_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "harness/probe.h"
#include "harness/workset.h"

/* Short-copy helpers shared by the copy-like families (copy, csum_copy):
 * unaligned 8-byte load/store, and a loop-free copy of up to 64 bytes. */
static inline uint64_t cb_ld8(const unsigned char *p)
{
    uint64_t x;
    __builtin_memcpy(&x, p, 8);
    return x;
}

static inline void cb_st8(unsigned char *p, uint64_t x)
{
    __builtin_memcpy(p, &x, 8);
}

/* n <= 64 bytes with two overlapping moves of the largest power of two that
 * fits (glibc's short-copy trick): no loop, no byte-by-byte tail. */
static inline void cb_copy_le64(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n >= 32) {
        uint64_t a = cb_ld8(s), b = cb_ld8(s + 8), c = cb_ld8(s + 16), e = cb_ld8(s + 24);
        uint64_t w = cb_ld8(s + n - 32), x = cb_ld8(s + n - 24);
        uint64_t y = cb_ld8(s + n - 16), z = cb_ld8(s + n - 8);
        cb_st8(d, a), cb_st8(d + 8, b), cb_st8(d + 16, c), cb_st8(d + 24, e);
        cb_st8(d + n - 32, w), cb_st8(d + n - 24, x);
        cb_st8(d + n - 16, y), cb_st8(d + n - 8, z);
    } else if (n >= 16) {
        uint64_t a = cb_ld8(s), b = cb_ld8(s + 8);
        uint64_t y = cb_ld8(s + n - 16), z = cb_ld8(s + n - 8);
        cb_st8(d, a), cb_st8(d + 8, b), cb_st8(d + n - 16, y), cb_st8(d + n - 8, z);
    } else if (n >= 8) {
        uint64_t a = cb_ld8(s), z = cb_ld8(s + n - 8);
        cb_st8(d, a), cb_st8(d + n - 8, z);
    } else if (n >= 4) {
        uint32_t a, z;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&z, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &z, 4);
    } else if (n >= 2) {
        uint16_t a, z;
        __builtin_memcpy(&a, s, 2);
        __builtin_memcpy(&z, s + n - 2, 2);
        __builtin_memcpy(d, &a, 2);
        __builtin_memcpy(d + n - 2, &z, 2);
    } else if (n) {
        d[0] = s[0];
    }
}

/* src and dst never overlap (memcpy semantics, not memmove). */
typedef void (*cb_copy_fn)(void *dst, const void *src, size_t len);

/* A copy case's buffers: src slot i is copied to dst slot i (both worksets
 * have the same geometry, so they walk in step).  Exposed so tests can look
 * at what run() did. */
struct cb_copy_state {
    struct cb_workset src, dst;
};

/* Guard bytes checked on each side of every destination. */
#define CB_COPY_GUARD 64
/* Longest length the verifiers try (every length 0..CB_COPY_VERIFY_MAX). */
#define CB_COPY_VERIFY_MAX 2048

/* Perform one trial: copy len bytes src -> dst with fn (and any checks of
 * the family's own, e.g. a checksum).  Return 0, or -1 after writing why
 * into detail (dlen bytes). */
typedef int (*cb_copy_trial_fn)(const void *fn, void *dst, const void *src, size_t len,
                                char *detail, size_t dlen);

/* The copy verifier, for any copy-like family: runs trial over every length
 * 0..CB_COPY_VERIFY_MAX and a set of (src, dst) misalignments (see copy.c),
 * then compares every destination byte with a byte-loop reference copy and
 * CB_COPY_GUARD poisoned bytes on each side with their poison.  Fills *out;
 * returns 0, or -ENOMEM. */
int cb_copy_verify_with(const void *fn, cb_copy_trial_fn trial, struct cb_verdict *out);

/* Shared setup/teardown for copy-like families: src (filled with a pattern)
 * and dst worksets of c->size bytes each, both spanning c->cold_bytes in
 * cold mode.  c->priv becomes a struct cb_copy_state. */
int cb_copy_setup(struct cb_case *c);
void cb_copy_teardown(struct cb_case *c);

extern const struct cb_probe cb_probe_copy;

#endif
