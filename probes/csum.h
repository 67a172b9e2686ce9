/* csum.h — the Internet checksum family's function type and reference.
 *
 * csum_partial semantics (Linux arch/x86/lib/csum-partial_64.c): the result
 * is a 32-bit partial sum that, folded to 16 bits with end-around carry,
 * equals the RFC 1071 ones'-complement sum of the bytes taken as 16-bit
 * little-endian words from buf[0] (whatever buf's address), plus the
 * initial partial sum.  Two implementations agree when their folded sums
 * agree; the 32-bit partial sums themselves may differ. */
#ifndef CB_PROBES_CSUM_H
#define CB_PROBES_CSUM_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t (*cb_csum_fn)(const void *buf, size_t len, uint32_t sum);

/* The reference: a byte-pair loop straight from RFC 1071. */
uint32_t cb_csum_ref(const void *buf, size_t len, uint32_t sum);

/* Fold a 32-bit partial sum to 16 bits with end-around carry (not
 * complemented: the checksum field is ~cb_csum_fold(...)). */
static inline uint16_t cb_csum_fold(uint32_t sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)sum;
}

extern const struct cb_probe cb_probe_csum;

#endif
