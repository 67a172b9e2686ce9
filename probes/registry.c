/* registry.c — the probe families linked into cyclebudget, and those that
 * loaded plugins add.  It lives with the families (probes/): adding one is
 * its file here, a line in the table below and in mk/probes.am; its probe
 * record (struct cb_probe) says the rest, including whether and how
 * plugins add variants to it (.call), so that nothing in src/ names it.
 *
 * The one piece of global state the project allows: a const table of the
 * built-in families, and its one runtime extension, the plugin list below.
 * Lookups go through cb_probe_find/cb_probe_at, which see both. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <cyclebudget/cyclebudget.h>

#include "host/cpu.h"
#include "harness/probe.h"
/* The families' headers; with cyclebudget.h above, the compiler also checks
 * that each pluggable family's function type is the public one (a typedef
 * declared twice must name the same type). */
#include "probes/calls.h"
#include "probes/copy.h"
#include "probes/csum.h"
#include "probes/csum_copy.h"
#include "probes/memset.h"
#include "probes/page_pool.h"
#include "probes/rxring.h"
#include "probes/slab.h"
#include "probes/synthetic.h"
#include "probes/xfer.h"

const struct cb_probe *const cb_probes[] = {
    &cb_probe_csum,
    &cb_probe_copy,
    &cb_probe_csum_copy,
    &cb_probe_memset,
    &cb_probe_slab,
    &cb_probe_rx_prefetch,
    &cb_probe_calls,
    &cb_probe_xfer,
    &cb_probe_synthetic,
    &cb_probe_page_pool,
};
const size_t cb_nprobes = sizeof cb_probes / sizeof cb_probes[0];

/* The runtime extension: families registered by run --plugin (plugin.c),
 * in the order loaded.  One with a built-in family's name takes its place
 * (a copy of it, its variants plus the plugin's); others follow the
 * built-ins.  Filled in the parse step, single-threaded, before anything is
 * measured, and never shrunk: the probes and variants it points to live as
 * long as the process, as the dlopened code they call does. */
#define CB_REGISTRY_MAX_EXT 32
static const struct cb_probe *registry_ext[CB_REGISTRY_MAX_EXT];
/* The namespace of each entry (NULL: the one commands see).  ab loads two
 * builds of one plugin, whose variants have the same names: each build's
 * families live in a namespace of their own ("base", "head"), so that
 * neither replaces the other and neither shows in list or run. */
static const char *registry_ns[CB_REGISTRY_MAX_EXT];
static size_t registry_next;

static int same_ns(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int cb_registry_add_ns(const char *ns, const struct cb_probe *p)
{
    for (size_t i = 0; i < registry_next; i++)
        if (same_ns(registry_ns[i], ns) && strcmp(registry_ext[i]->name, p->name) == 0) {
            registry_ext[i] = p;
            return 0;
        }
    if (registry_next == CB_REGISTRY_MAX_EXT)
        return -ENOSPC;
    registry_ns[registry_next] = ns;
    registry_ext[registry_next++] = p;
    return 0;
}

int cb_registry_add(const struct cb_probe *p)
{
    return cb_registry_add_ns(NULL, p);
}

static const struct cb_probe *ext_named_ns(const char *ns, const char *name)
{
    for (size_t i = 0; i < registry_next; i++)
        if (same_ns(registry_ns[i], ns) && strcmp(registry_ext[i]->name, name) == 0)
            return registry_ext[i];
    return NULL;
}

static const struct cb_probe *ext_named(const char *name)
{
    return ext_named_ns(NULL, name);
}

const struct cb_probe *cb_probe_find_ns(const char *ns, const char *name)
{
    const struct cb_probe *e = ns ? ext_named_ns(ns, name) : NULL;
    return e ? e : cb_probe_find(name);
}

const char *cb_probe_ns(const struct cb_probe *p)
{
    for (size_t i = 0; i < registry_next; i++)
        if (registry_ext[i] == p)
            return registry_ns[i];
    return NULL;
}

size_t cb_registry_size(void)
{
    return cb_nprobes + registry_next;
}

const struct cb_probe *cb_registry_any(size_t i)
{
    return i < cb_nprobes ? cb_probes[i] : i - cb_nprobes < registry_next ? registry_ext[i - cb_nprobes] : NULL;
}

size_t cb_probe_count(void)
{
    size_t n = cb_nprobes;
    for (size_t i = 0; i < registry_next; i++) {
        size_t k = 0;
        while (k < cb_nprobes && strcmp(cb_probes[k]->name, registry_ext[i]->name) != 0)
            k++;
        n += k == cb_nprobes && !registry_ns[i];
    }
    return n;
}

const struct cb_probe *cb_probe_at(size_t i)
{
    if (i < cb_nprobes) {
        const struct cb_probe *e = ext_named(cb_probes[i]->name);
        return e ? e : cb_probes[i];
    }
    i -= cb_nprobes;
    for (size_t j = 0; j < registry_next; j++) {
        size_t k = 0;
        while (k < cb_nprobes && strcmp(cb_probes[k]->name, registry_ext[j]->name) != 0)
            k++;
        if (k == cb_nprobes && !registry_ns[j] && i-- == 0)
            return registry_ext[j];
    }
    return NULL;
}

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
    const struct cb_probe *e = ext_named(name);
    if (e)
        return e;
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
