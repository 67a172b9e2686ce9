/* arm64/memset_arm64.h — the arm64 memset strategies of the memset family
 * (probes/memset.c keeps the one variant table; these are its arm64
 * entries).  Compiled on aarch64 only (mk/probes.am, CB_ARCH_ARM64). */
#ifndef CB_PROBES_ARM64_MEMSET_H
#define CB_PROBES_ARM64_MEMSET_H

#include <stddef.h>

/* All as cb_memset_fn: set n bytes at dst to (unsigned char)c. */
void cb_memset_arm64_byte(void *dst, int c, size_t n);
void cb_memset_arm64_stp(void *dst, int c, size_t n);
void cb_memset_arm64_neon(void *dst, int c, size_t n);
/* dc zva for whole blocks when c == 0 (stp for the unaligned head and tail);
 * any other c, or dc zva prohibited (DCZID_EL0.DZP), takes the stp path. */
void cb_memset_arm64_dczva(void *dst, int c, size_t n);

/* The dc zva block in bytes, 4 << DCZID_EL0.BS; 0 when DCZID_EL0.DZP says
 * dc zva is prohibited.  Read once. */
size_t cb_arm64_zva_block(void);

#endif
