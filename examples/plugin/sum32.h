/* sum32.h — the example plugin's checksum: csum_partial by 32-bit loads
 * into a 64-bit accumulator.  No carry is lost until 2^32 loads, and
 * 2^64 = 1 (mod 0xffff) makes the fold exact.
 *
 * One source for the three plugins built from it: this example
 * (csum_plugin.c), the ab tests' fixture (tests/fixtures/plugin/ab.c) and
 * the verdict benchmarks' plugin (bench/ab_plugin.c).  extra is the
 * benchmarks' planted slowdown: that many more loads of the buffer's start
 * into a sum thrown away, in the same function and one word per iteration
 * as the real loop, so that EXTRA_PCT% more words cost about EXTRA_PCT%
 * more time (a second call or pass would add a fixed cost on top: measured
 * +3% of work read +7%).  Everyone else passes 0, and the loop is gone. */
#ifndef CB_EXAMPLE_SUM32_H
#define CB_EXAMPLE_SUM32_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t sum32(const void *buf, size_t len, uint32_t sum, size_t extra)
{
    const unsigned char *p = buf, *start = buf;
    uint64_t acc = sum, waste = 0;
    for (; len >= 4; p += 4, len -= 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        acc += w;
    }
    for (size_t i = 0; i < extra; i++) {
        uint32_t w;
        memcpy(&w, start + 4 * i, 4);
        waste += w;
    }
    if (extra)
        __asm__ volatile("" : : "r"(waste));
    if (len >= 2) {
        uint16_t w;
        memcpy(&w, p, 2);
        acc += w;
        p += 2;
        len -= 2;
    }
    if (len)
        acc += *p;
    acc = (acc & 0xffffffff) + (acc >> 32);
    acc = (acc & 0xffffffff) + (acc >> 32);
    return (uint32_t)acc;
}

#endif
