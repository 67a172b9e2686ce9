/* csum_simd.h — the checksum family's SIMD variants (csum_simd.c), for
 * csum.c's family table: csum_partial semantics, as csum.h says. */
#ifndef CB_PROBES_CSUM_SIMD_H
#define CB_PROBES_CSUM_SIMD_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
uint32_t cb_csum_avx2(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_avx512(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_avx512_vnni(const void *buf, size_t len, uint32_t sum);
#endif

#endif
