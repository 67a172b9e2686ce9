/* ab_plugin.c — the plugin the verdict benchmarks build in several
 * versions: "mine" is examples/plugin's csum (32-bit loads, 64-bit
 * accumulator), which EXTRA_PCT slows by about that share: it loads
 * EXTRA_PCT% more words (a planted change in real code on the real clock,
 * scaling with the work as a real regression would);
 * "ctl" is the same function never slowed, the control.
 *
 *   cc -O2 -shared -fPIC -I include -DEXTRA_PCT=10 -o head.so bench/ab_plugin.c */
#include <stdint.h>
#include <string.h>

#include <cyclebudget/cyclebudget.h>

#ifndef EXTRA_PCT
#define EXTRA_PCT 0
#endif

/* 32-bit loads into a 64-bit accumulator; then `extra` more loads of the
 * buffer's start into a sum that is thrown away.  The extra loop is in the
 * same function as the real one, and runs its words one per iteration as
 * the real one does, so that EXTRA_PCT% more words cost about EXTRA_PCT%
 * more time: a second call or a second pass with its own set-up would add
 * a fixed cost of a few percent on top (measured: +3% of work read +7%). */
static uint32_t sum32(const void *buf, size_t len, uint32_t sum, size_t extra)
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

static uint32_t mine_csum(const void *buf, size_t len, uint32_t sum)
{
    return sum32(buf, len, sum, len / 4 * EXTRA_PCT / 100);
}

static uint32_t ctl_csum(const void *buf, size_t len, uint32_t sum)
{
    return sum32(buf, len, sum, 0);
}

static const struct cb_plugin_variant variants[] = {
    {"csum", "mine", "32-bit loads, 64-bit accumulator; EXTRA_PCT% more work", (const void *)mine_csum},
    {"csum", "ctl", "the same, never slowed: the control", (const void *)ctl_csum},
};

const struct cb_plugin *cyclebudget_plugin(void)
{
    static const struct cb_plugin plugin = {
        .api_version = CB_API_VERSION,
        .name = "abbench",
        .variants = variants,
        .nvariants = sizeof variants / sizeof variants[0],
    };
    return &plugin;
}
