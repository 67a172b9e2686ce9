/* sha256.h — SHA-256 (FIPS 180-4), to name the exact plugin a run measured.
 *
 * A run stores the sha256 of every plugin it loaded, so that two runs of
 * "./my.so" built from different commits are told apart by content, not by
 * path.  Small and self-contained: no crypto library is worth a dependency
 * for one digest per run. */
#ifndef CB_SHA256_H
#define CB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct cb_sha256 {
    uint32_t h[8];
    uint64_t bytes;       /* message length so far */
    unsigned char buf[64];
    size_t nbuf;
};

void cb_sha256_init(struct cb_sha256 *s);
void cb_sha256_update(struct cb_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void cb_sha256_hex(struct cb_sha256 *s, char out[65]);

/* The digest of a whole file; 0 or a negative errno from open/read. */
int cb_sha256_file(const char *path, char out[65]);

#endif
