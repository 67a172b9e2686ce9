/* caches.h — this CPU's caches from cpuid, as a cache model for valgrind.
 *
 * `run --sim` counts under callgrind's cache simulator.  Its
 * default model is what valgrind itself reads from cpuid, and it falls back
 * to a made-up machine when it cannot (some hypervisors, AMD parts it does
 * not know), so a cold case could hit in a simulated cache larger than the
 * real one.  The model is therefore read here, from the cpuid cache leaves
 * (Intel's leaf 4, AMD's 0x8000001d), or from sysfs where the hypervisor
 * hides those leaves (seen on an AMD EPYC KVM guest without TOPOEXT), passed
 * to valgrind explicitly as --I1/--D1/--LL, and stored with the run. */
#ifndef CB_CACHES_H
#define CB_CACHES_H

#include "util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/* One cache: size in bytes, ways, line size; all 0 when unknown. */
struct cb_cache {
    long size, ways, line;
};

struct cb_cache_model {
    struct cb_cache i1, d1, ll;      /* what cpuid says (ll: the last level) */
    struct cb_cache si1, sd1, sll;   /* what is simulated: the same, or adjusted to valgrind's
                                        rule that a cache's set count is a power of two */
    int ll_level;                    /* 2 or 3; 0 unknown */
    int adjusted;                    /* some simulated cache differs from cpuid's */
    const char *from;                /* "cpuid" or "sysfs"; "option" when all three were given */
    char given[16];                  /* the caches set by cb_caches_override: "D1 LL", "" none */
};

/* Read the caches of the CPU this thread runs on: cpuid, else
 * sysroot/sys/devices/system/cpu/cpuN/cache (sysroot "" for the live
 * system; tests give a fixture tree).  0, or -ENOENT when neither knows
 * (the caller then leaves valgrind's default). */
int cb_caches_read(struct cb_cache_model *m);
int cb_caches_read_sysfs(struct cb_cache_model *m, const char *sysroot, int cpu);

/* The sizes in bytes of the L1 data cache, L2 and L3 (0 each unknown),
 * for calibrate's working sets: sysroot/sys/devices/system/cpu/cpuN/cache
 * (sysroot "" for the live system, cpu < 0 for cpu0), then, live only,
 * cpuid for what sysfs lacks.  The instruction cache is never taken for
 * L1.  0, or -ENOENT when nothing is known. */
int cb_caches_sizes(const char *sysroot, int cpu, uint64_t size[3]);

/* Fit one cache to valgrind's rule: the same size and line, with the set
 * count made the largest power of two that divides size / line, and the
 * ways made up to keep the size (valgrind's own adjustment for LL caches
 * such as 12-way 36 MiB).  0, or -EINVAL when no cache of that size fits
 * (line not a power of two, or size not a multiple of it). */
int cb_cache_fit(const struct cb_cache *c, struct cb_cache *out);

/* Replace some of m's caches by those spec names, for run --sim-caches: a
 * model that does not depend on the host (tests, or comparing with another
 * machine's model).  spec: one to three "NAME=SIZE,WAYS,LINE" separated by
 * spaces, NAME one of I1, D1, LL, SIZE in bytes or with a K or M suffix:
 * "D1=32K,8,64 LL=8M,16,64".  m may hold nothing read (all three must then
 * be given).  The simulated copies are fitted again.  0, or -EINVAL with err
 * saying what is wrong. */
int cb_caches_override(struct cb_cache_model *m, const char *spec, struct cb_sb *err);

/* "--I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64" into three
 * valgrind arguments, and the model in one line for the run's record. */
void cb_caches_args(const struct cb_cache_model *m, char args[3][64]);
void cb_caches_describe(const struct cb_cache_model *m, char *buf, size_t len);

#endif
