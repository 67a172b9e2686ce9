/* callee_plugin.c — the plugin of a user's library's shape for the verdict
 * benchmarks: csum variant "mine" is a small static wrapper that calls a
 * global function of the same object, cbb_callee, through the PLT; only
 * the callee does the work, and EXTRA_PCT slows the callee alone (that
 * many percent more words read into a dependent sum thrown away, as
 * bench/ab_plugin.c does in the variant itself).  "ctl" is the same sum,
 * never slowed: the control.  A change here is a change of the wrapper's
 * callee only, which the code identity must follow (codehash.h).
 *
 *   cc -O2 -shared -fPIC -I include -DEXTRA_PCT=10 -o head.so bench/callee_plugin.c */
#include <stdint.h>

#include <cyclebudget/cyclebudget.h>

#include "../examples/plugin/sum32.h"

#ifndef EXTRA_PCT
#define EXTRA_PCT 0
#endif

uint32_t cbb_callee(const void *buf, size_t len, uint32_t sum);

__attribute__((noinline)) uint32_t cbb_callee(const void *buf, size_t len, uint32_t sum)
{
    return sum32(buf, len, sum, len / 4 * EXTRA_PCT / 100);
}

static uint32_t mine_csum(const void *buf, size_t len, uint32_t sum)
{
    uint32_t r = cbb_callee(buf, len, sum);
    __asm__ volatile("" : "+r"(r));
    return r;
}

static uint32_t ctl_csum(const void *buf, size_t len, uint32_t sum)
{
    return sum32(buf, len, sum, 0);
}

static const struct cb_plugin_variant variants[] = {
    {"csum", "mine", "a wrapper calling cbb_callee; EXTRA_PCT% more work in the callee", (const void *)mine_csum},
    {"csum", "ctl", "the same sum, never slowed: the control", (const void *)ctl_csum},
};

const struct cb_plugin *cyclebudget_plugin(void)
{
    static const struct cb_plugin plugin = {
        .api_version = CB_API_VERSION,
        .name = "calleebench",
        .variants = variants,
        .nvariants = sizeof variants / sizeof variants[0],
    };
    return &plugin;
}
