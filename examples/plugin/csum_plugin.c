/* csum_plugin.c — an example variant plugin: two csum_partial variants of
 * your own, one right and one deliberately wrong, measured beside the
 * built-in ones.
 *
 *   cc -O2 -shared -fPIC $(pkg-config --cflags cyclebudget) -o example.so csum_plugin.c
 *   cyclebudget run --plugin ./example.so -p csum -s 1500
 *
 * cyclebudget verifies both against its RFC 1071 reference at every length
 * 0..2048 and start offset 0..63 before timing anything: "mine" is
 * measured and stored, "mine-broken" is reported BAD and never timed.
 * Replace mine_csum with your own csum_partial, compiled with your flags. */
#include <stdint.h>

#include <cyclebudget/cyclebudget.h>

#include "sum32.h"

/* Your csum_partial goes here; this one is sum32.h's (32-bit loads into a
 * 64-bit accumulator). */
static uint32_t mine_csum(const void *buf, size_t len, uint32_t sum)
{
    return sum32(buf, len, sum, 0);
}

/* The same, with a classic bug: the last odd byte is dropped. */
static uint32_t mine_broken_csum(const void *buf, size_t len, uint32_t sum)
{
    return mine_csum(buf, len & ~(size_t)1, sum);
}

static const struct cb_plugin_variant variants[] = {
    {"csum", "mine", "32-bit loads, 64-bit accumulator (example plugin)", (const void *)mine_csum},
    {"csum", "mine-broken", "drops the last odd byte (deliberately wrong)",
     (const void *)mine_broken_csum},
};

const struct cb_plugin *cyclebudget_plugin(void)
{
    static const struct cb_plugin plugin = {
        .api_version = CB_API_VERSION,
        .name = "example",
        .variants = variants,
        .nvariants = sizeof variants / sizeof variants[0],
    };
    return &plugin;
}
