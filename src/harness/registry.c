/* registry.c — the probe families linked into cyclebudget.
 *
 * The one piece of global state the project allows: a const table.  Adding a
 * family is one line here plus its file in probes/. */
#include <stddef.h>
#include <string.h>

#include "cpu.h"
#include "probe.h"
#include "copy.h"
#include "csum.h"
#include "csum_copy.h"
#include "memset.h"
#include "rxring.h"
#include "slab.h"
#include "synthetic.h"

const struct cb_probe *const cb_probes[] = {
    &cb_probe_csum,
    &cb_probe_copy,
    &cb_probe_csum_copy,
    &cb_probe_memset,
    &cb_probe_slab,
    &cb_probe_rx_prefetch,
    &cb_probe_synthetic,
};
const size_t cb_nprobes = sizeof cb_probes / sizeof cb_probes[0];

const char *cb_mode_name(enum cb_mode m)
{
    return m == CB_MODE_COLD ? "cold" : "warm";
}

int cb_mode_parse(const char *s)
{
    if (s && strcmp(s, "warm") == 0)
        return CB_MODE_WARM;
    if (s && strcmp(s, "cold") == 0)
        return CB_MODE_COLD;
    return -1;
}

const struct cb_probe *cb_probe_find(const char *name)
{
    for (size_t i = 0; i < cb_nprobes; i++)
        if (strcmp(cb_probes[i]->name, name) == 0)
            return cb_probes[i];
    return NULL;
}

const struct cb_variant *cb_variant_find(const struct cb_probe *p, const char *name)
{
    for (size_t i = 0; i < p->nvariants; i++)
        if (strcmp(p->variants[i].name, name) == 0)
            return &p->variants[i];
    return NULL;
}

int cb_variant_runnable(const struct cb_variant *v, unsigned cpu_features)
{
    return (v->needs & ~cpu_features) == 0;
}
