/* ab_plugin.c — the plugin the verdict benchmarks build in several
 * versions: "mine" is examples/plugin's csum (32-bit loads, 64-bit
 * accumulator), which EXTRA_PCT slows by about that share: it loads
 * EXTRA_PCT% more words (a planted change in real code on the real clock,
 * scaling with the work as a real regression would);
 * "ctl" is the same function never slowed, the control.
 *
 *   cc -O2 -shared -fPIC -I include -DEXTRA_PCT=10 -o head.so bench/ab_plugin.c */
#include <stdint.h>

#include <cyclebudget/cyclebudget.h>

#include "../examples/plugin/sum32.h"

#ifndef EXTRA_PCT
#define EXTRA_PCT 0
#endif

/* sum32.h: the example's loop, with the extra loads in the same function. */
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
