/* arm64/copy_arm64.h — the arm64 memcpy strategies of the copy family
 * (probes/copy.c keeps the one variant table; these are its arm64 entries).
 * Compiled on aarch64 only (mk/probes.am, CB_ARCH_ARM64). */
#ifndef CB_PROBES_ARM64_COPY_H
#define CB_PROBES_ARM64_COPY_H

#include <stddef.h>

/* All have memcpy semantics (src and dst never overlap), as cb_copy_fn. */
void cb_copy_arm64_byte(void *dst, const void *src, size_t n);
void cb_copy_arm64_ldp(void *dst, const void *src, size_t n);
void cb_copy_arm64_neon(void *dst, const void *src, size_t n);

#endif
