/* plugin_internal.h — what plugin.c, plugin_family.c and plugin_child.c share. */
#ifndef CB_PLUGIN_INTERNAL_H
#define CB_PLUGIN_INTERNAL_H

#include <cyclebudget/cyclebudget.h>

#include "harness/probe.h"

/* The faults a child dies of, with no handler of this process in the way. */
void cb_plugin_default_faults(void);
/* verify(v) in a forked child, so that a plugin's code that crashes there
 * is BAD by name with the signal: verify's result, its verdict in *out. */
int cb_plugin_verify_in_child(int (*verify)(const struct cb_variant *, struct cb_verdict *),
                              const struct cb_variant *v, struct cb_verdict *out);
/* The probe the harness sees for a plugin's own family f (allocated, for
 * the process's lifetime, as the registry's entries are); NULL: no memory. */
struct cb_probe *cb_plugin_family_probe(const struct cb_plugin_family *f);
/* p is a plugin's own family: 1, with its call function in *call (what
 * codehash reads as v's code); 0 another probe; -ENOTSUP v not found. */
int cb_plugin_family_call(const struct cb_probe *p, const struct cb_variant *v, const void **call);

#endif
