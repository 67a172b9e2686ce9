/* cyclebudget.h — the public API of libcyclebudget (see cyclebudget(3)).
 *
 * Two ways to measure your own code with cyclebudget:
 *
 *  - A variant plugin: a shared object that hands `cyclebudget run --plugin
 *    ./my.so` a table of functions.  Each one joins a family (csum, copy,
 *    csum_copy, memset, or a family the plugin defines), is verified against
 *    the family's reference before it is ever timed (also at each size a
 *    run times), and is measured and stored exactly as a built-in variant
 *    is, in a child process of the run: a timed function must return, and
 *    must leave the process as it found it (no exit, fork, alarm, signal
 *    handling, CPU affinity or locale changed); one that does not ends its
 *    case as BAD, with the reason.  A plugin needs only this header
 *    (pkg-config --cflags cyclebudget), not the library.
 *
 *  - Region markers (cb_region_begin/cb_region_end, further below) around
 *    code that cannot be cut into a function; link -lcyclebudget.
 *
 * Everything here is versioned by CB_API_VERSION: a plugin built against
 * another version is refused, never half-loaded.  Nothing else in the
 * library is part of the API.  C11; no other header is needed. */
#ifndef CYCLEBUDGET_CYCLEBUDGET_H
#define CYCLEBUDGET_CYCLEBUDGET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a structure or a function type below changes. */
#define CB_API_VERSION 1

/* What the library exports (everything else is hidden). */
#if defined(__GNUC__)
#define CB_API __attribute__((visibility("default")))
#else
#define CB_API
#endif

/* The CB_API_VERSION the library was built with. */
CB_API unsigned cb_api_version(void);

/* ---- variant plugins ----------------------------------------------------
 *
 * The function types of the built-in families a plugin may add to.  Each is
 * what the family's variants implement; see `cyclebudget list`.
 *   csum       csum_partial: the 32-bit ones'-complement partial sum of len
 *              bytes at buf (any alignment) plus sum; verified folded to 16
 *              bits against RFC 1071 at every length 0..2048 and start
 *              offset 0..63, and on longer and all-0xff/all-zero buffers.
 *   copy       memcpy of len bytes (non-overlapping); verified on every
 *              length 0..2048 at every src/dst alignment, bytes beside dst
 *              untouched.
 *   csum_copy  copy len bytes and return their partial sum, as csum.
 *   memset     fill len bytes at dst with the byte c.
 * (slab's variants are parameters of a built-in allocator model, not
 * functions: it takes no plugin variants.) */
typedef uint32_t (*cb_csum_fn)(const void *buf, size_t len, uint32_t sum);
typedef void (*cb_copy_fn)(void *dst, const void *src, size_t len);
typedef uint32_t (*cb_csum_copy_fn)(const void *src, void *dst, size_t len, uint32_t sum);
typedef void (*cb_memset_fn)(void *dst, int c, size_t len);

/* One variant.  Names are 1-48 characters of [A-Za-z0-9_.+-], unique in
 * their family (a built-in variant's name is refused). */
struct cb_plugin_variant {
    const char *family;   /* "csum", "copy", "csum_copy", "memset", or one of
                             the plugin's own families */
    const char *name;
    const char *desc;     /* one line: what it is (may be NULL) */
    const void *fn;       /* the family's function type, cast to const void * */
};

/* A family of the plugin's own: one operation works on len bytes. */
struct cb_plugin_family {
    const char *name;     /* must not be a built-in family's name */
    const char *desc;     /* one line (may be NULL) */
    /* One timed operation: run variant fn over the len bytes at buf
     * (random data, re-used warm or streamed cold) and return anything
     * derived from the result, so that the call cannot be optimised away. */
    uint64_t (*call)(const void *fn, void *buf, size_t len);
    /* The reference check of variant fn, before it is ever timed: 0 when
     * it is right; otherwise nonzero, with the first wrong input described
     * in detail.  NULL: the family's variants are measured and reported as
     * unverified. */
    int (*check)(const void *fn, char *detail, size_t detail_len);
    const size_t *sizes;  /* default sizes in bytes, 0-terminated; NULL: 64, 1500, 4096 */
};

/* What a plugin registers: its whole contribution, in one table. */
struct cb_plugin {
    unsigned api_version; /* CB_API_VERSION, as the plugin was compiled */
    const char *name;     /* the plugin's name, for messages */
    const struct cb_plugin_family *families;
    size_t nfamilies;
    const struct cb_plugin_variant *variants;
    size_t nvariants;
};

/* The one entry point a plugin defines: it returns the plugin's table
 * (static storage; called once, before anything is measured).
 *
 *   static const struct cb_plugin_variant vs[] = {
 *       {"csum", "mine", "my csum_partial", (const void *)my_csum},
 *   };
 *   const struct cb_plugin *cyclebudget_plugin(void)
 *   {
 *       static const struct cb_plugin p = {CB_API_VERSION, "mine", NULL, 0, vs, 1};
 *       return &p;
 *   }
 */
#define CB_PLUGIN_ENTRY "cyclebudget_plugin"
CB_API const struct cb_plugin *cyclebudget_plugin(void);

/* ---- region markers -------------------------------------------------------
 *
 * For code that cannot be cut into a function: mark a region by name, and
 * each pass through it is one sample, read from the same counters as
 * `cyclebudget run` (its default events, or CYCLEBUDGET_EVENTS) and
 * written into the same store, as a run of its own, one case per region
 * (probe "region", variant the region's name).  `cyclebudget report latest`
 * shows them; compare and history treat them as any other case.
 *
 *   cb_marker_init();                 // reads the environment, below
 *   for (...) {
 *       cb_region_begin("parse");
 *       parse(pkt);
 *       cb_region_end("parse");
 *   }
 *   cb_marker_close();                // writes the run (also done at exit)
 *
 * The environment chooses, as LIKWID_MARKER_INIT's does:
 *   CYCLEBUDGET_DB      the store to write; unset: the markers are inactive,
 *                       and each call costs a load and a branch
 *   CYCLEBUDGET_EVENTS  comma-separated events (default: run's)
 *   CYCLEBUDGET_TAG     a tag for the run
 * A region's samples include the cost of the reads around it; the
 * median cost of an empty begin/end pair, measured at init, is stored as
 * each sample's overhead and subtracted in reports.  Markers are for one
 * thread: the one that called cb_marker_init (it is pinned to the CPU it
 * was on; the counters count that thread).  Begin and end from any other
 * thread are refused with -EPERM (said once on stderr) and change nothing;
 * init and close are for that thread too, close also for the thread that
 * calls exit() once the markers' thread no longer uses them.  A region is
 * found by its name's bytes, never by the pointer: one buffer may name
 * "parse", then "send".  Regions may nest when their names differ.  At most
 * 64 regions, 100000 samples kept per region.
 *
 * The clock's resolution is measured at init (the step of the TSC between
 * back-to-back reads): a region whose median pass, less the empty pair, is
 * under 20 of those steps is stored as skipped, "below the timer's
 * resolution (N ns)", never as a figure: put the region around many passes
 * (and divide), or time the code as a plugin (run --plugin).
 *
 * Every call returns 0 (also when the markers are inactive: no
 * CYCLEBUDGET_DB, or after close) or one of these negative errnos:
 *   cb_marker_init   -EINVAL   bad CYCLEBUDGET_EVENTS, or CB_FAKE_CLOCK/CB_SIM set;
 *                    another   the store or the counters could not be opened
 *                              (the errno of that: -EACCES, -ENOENT, -EBUSY, ...);
 *                    each with its message printed; the markers stay inactive.
 *   cb_region_begin  -EINVAL        name NULL or ""
 *                    -ENAMETOOLONG  name over 48 bytes (never cut)
 *                    -EPERM         not the markers' thread
 *                    -EBUSY         the region is begun already
 *                    -E2BIG         64 regions exist and name is a new one
 *   cb_region_end    -EINVAL, -ENAMETOOLONG, -EPERM as begin;
 *                    -ENOENT        no such region, or it is not begun
 *                    -ENOMEM        the sample could not be kept (the region's
 *                                   case says how many were dropped)
 *   cb_marker_close  a negative errno of the store (-ENOSPC, -EIO, ...): the
 *                    regions could not be written; the run is marked aborted.
 * A failure never stops the program. */
CB_API int cb_marker_init(void);
CB_API int cb_region_begin(const char *name);
CB_API int cb_region_end(const char *name);
CB_API int cb_marker_close(void);

#ifdef __cplusplus
}
#endif

#endif
