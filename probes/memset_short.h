/* memset_short.h — a fill of at most 64 bytes without a loop, shared by
 * the x86 (memset.c) and arm64 (arm64/memset.c) variants for their short
 * sizes and tails: two overlapping runs of the largest power of two that
 * fits, so every n costs a fixed handful of stores. */
#ifndef CB_MEMSET_SHORT_H
#define CB_MEMSET_SHORT_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t splat8(int c)
{
    return (uint64_t)(unsigned char)c * 0x0101010101010101ull;
}

static inline void st8(unsigned char *p, uint64_t x)
{
    __builtin_memcpy(p, &x, 8);
}

/* n <= 64 bytes. */
static inline void set_le64(unsigned char *d, uint64_t v, size_t n)
{
    if (n >= 32) {
        st8(d, v), st8(d + 8, v), st8(d + 16, v), st8(d + 24, v);
        st8(d + n - 32, v), st8(d + n - 24, v), st8(d + n - 16, v), st8(d + n - 8, v);
    } else if (n >= 16) {
        st8(d, v), st8(d + 8, v), st8(d + n - 16, v), st8(d + n - 8, v);
    } else if (n >= 8) {
        st8(d, v), st8(d + n - 8, v);
    } else if (n >= 4) {
        uint32_t w = (uint32_t)v;
        __builtin_memcpy(d, &w, 4);
        __builtin_memcpy(d + n - 4, &w, 4);
    } else if (n >= 2) {
        uint16_t w = (uint16_t)v;
        __builtin_memcpy(d, &w, 2);
        __builtin_memcpy(d + n - 2, &w, 2);
    } else if (n) {
        d[0] = (unsigned char)v;
    }
}

#endif
