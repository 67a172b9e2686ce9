/* plugin.h — run --plugin: variants from the user's own shared objects.
 *
 * A plugin is a shared object defining cyclebudget_plugin(), which returns
 * one table (include/cyclebudget/cyclebudget.h): variants for the built-in
 * families csum, copy, csum_copy and memset, and families of its own.  The
 * object is first loaded in a forked child, so that a plugin that crashes
 * or hangs while loading is refused before this process has run a line of
 * it; then here, where its table is checked again and its variants join the
 * registry (registry.c's runtime extension).  From there on a plugin
 * variant is measured exactly as a built-in one: verified against the
 * family's reference before it is ever timed (in a child, so that one that
 * crashes there is BAD with its signal), excluded as BAD by name when
 * wrong. */
#ifndef CB_PLUGIN_H
#define CB_PLUGIN_H

#include "util/strbuf.h"

#include <stddef.h>

#include "harness/codehash.h"
#include "harness/harness.h"
#include "harness/probe.h"

#define CB_PLUGIN_MAX 8               /* --plugin, at most this many times */

/* What a run stores about a loaded plugin (0009_plugins.sql). */
struct cb_plugin_info {
    char path[4096];                  /* absolute */
    char sha256[65];                  /* of the file's bytes */
    char name[64];                    /* the table's name */
    char variants[1024];              /* "csum/mine,csum/mine-bad": what it added */
};

/* Load the plugin at path into the registry.  Every failure is the user's
 * to fix (exit 2), with err saying what was wrong and what to do:
 *   -ENOENT   no such file, or it cannot be read
 *   -ENOEXEC  not a shared object dlopen accepts, or no cyclebudget_plugin()
 *   -EPROTO   built against another CB_API_VERSION
 *   -EFAULT   it crashed (or hung) while loading or registering
 *   -EINVAL   its table is malformed (names, counts, families, clashes)
 * Nothing is registered unless 0 is returned. */
int cb_plugin_load(const char *path, struct cb_plugin_info *out, struct cb_sb *err);
/* The same into namespace ns (probe.h; a string that lives as long as the
 * process): ab loads two builds of one plugin, "base" and "head", whose
 * variants are named alike.  Their families are found with
 * cb_probe_find_ns(ns, ...) only. */
int cb_plugin_load_ns(const char *path, const char *ns, struct cb_plugin_info *out, struct cb_sb *err);

/* The code roots of case (p, v) besides the family's loop and the variant
 * (plugin_code.c): a plugin family's call function in *call (else NULL).
 * 0, or -ENOTSUP for a family whose variants are not functions. */
int cb_plugin_code_roots(const struct cb_probe *p, const struct cb_variant *v, const void **call);

/* Load the plugin at path again, from a copy of its file (removed once
 * loaded), into namespace ns: another inode, so the dynamic loader maps its
 * code and data again, at other addresses (ab's copies, ab.h).  As
 * cb_plugin_load_ns; -EIO when the copy cannot be written. */
int cb_plugin_load_copy(const char *path, const char *ns, struct cb_sb *err);

/* What identifies the code case (p, v) times, apart from where it sits
 * (codehash.h): for a family whose variants are functions (csum, copy,
 * csum_copy, memset and a plugin's own families), the hash of the family's
 * timed loop, a plugin family's call function and the variant, as loaded;
 * *addr is the variant's entry address mod 4096.  0, or a negative errno
 * with hash "" (-ENOTSUP: the family's variants are parameters of a model,
 * not code; or codehash.h's reasons). */
int cb_variant_code_id(const struct cb_probe *p, const struct cb_variant *v,
                       char hash[CB_CODE_HASH_LEN + 1], unsigned *addr);

/* 1 when case (p, v) runs a plugin's code: a plugin's variant of a
 * built-in family, or a variant of a plugin's own family; else 0. */
int cb_plugin_owns(const struct cb_probe *p, const struct cb_variant *v);

/* Every size timed is a size verified: a plugin's variant of a built-in
 * family is checked (in a child, against guard pages, plugin_verify.h) at
 * size when its verification did not try that length.  *out ok when it
 * matched, or when there was nothing to check; 0, or a negative errno
 * (out then not ok, saying why). */
int cb_plugin_verify_size(const struct cb_probe *p, const struct cb_variant *v, uint64_t size,
                          struct cb_verdict *out);

/* What the timing child measures with: measure(ctx, h, c, m) in place of
 * cb_harness_measure (NULL: that), and ctx's ctx_size bytes of plain data
 * (no pointer the measure changes), sent back and copied over ctx. */
struct cb_timed_work {
    int (*measure)(void *ctx, struct cb_harness *h, struct cb_case *c, struct cb_measurement *m);
    void *ctx;
    size_t ctx_size;
};

/* w's measure (w NULL: cb_harness_measure(h, c, m)) in a forked child
 * (plugin_timed.c), pinned to pinned as this process is, with counters of
 * its own; m as there.  Returns as the measure (-EINTR when *h->stop was
 * raised: the child is killed, nothing kept), or -EFAULT with why set: the
 * plugin's code crashed, exited, forked, looped (no progress for
 * CB_PLUGIN_STALL seconds, default 30), left its CPU, set an alarm,
 * changed SIGINT's handling or the locale: the case is BAD. */
int cb_plugin_measure_in_child(struct cb_harness *h, struct cb_case *c, struct cb_measurement *m,
                               int pinned, const struct cb_timed_work *w, char *why, size_t len);

#endif
