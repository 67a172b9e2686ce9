/* kernel_cases.c — the cases of `kernel run`, collected and stored (kernel_cases.h). */
#define _GNU_SOURCE
#include "kernel_cases.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cpu.h"
#include "emulation.h"
#include "events.h"
#include "parse.h"
#include "probe.h"
#include "store.h"
#include "tsc.h"

/* The families, named as the user-space families they stand beside. */
static const struct kfamily {
    const char *probe, *variant;
    uint32_t func;
} kfamilies[] = {
    {"csum", "csum_partial", CB_KF_CSUM},
    {"csum_copy", "csum_partial_copy_nocheck", CB_KF_CSUM_COPY},
    {"copy", "memcpy", CB_KF_MEMCPY},
    {"memset", "memset", CB_KF_MEMSET},
    {"slab", NULL, CB_KF_SLAB},
    {"fpu", NULL, CB_KF_FPU_FIRST},
    {"page_pool", NULL, CB_KF_PAGE_POOL},
};
#define NKFAMILIES (sizeof kfamilies / sizeof kfamilies[0])

/* The bulk sizes of slab_bulk_test01 and the user-space slab family. */
static const uint32_t bulks[] = {1, 2, 4, 8, 16, 32, 64, 128, 250};

void cb_kernel_plan_init(struct kernel_plan *k)
{
    k->db = cb_default_db();
    k->cpu = CB_CPU_DEFAULT;
    cb_harness_defaults(&k->harness);
}

static int add_case(struct kernel_plan *k, const char *probe, const char *variant, uint32_t func,
                    uint32_t size, uint32_t nobj, int mode, struct cb_sb *err)
{
    if (k->ncases == CB_KCASES_MAX) {
        cb_sb_setf(err, "too many cases (at most %d): give fewer sizes", CB_KCASES_MAX);
        return -EINVAL;
    }
    char *name = k->names[k->ncases];
    snprintf(name, sizeof k->names[0], "%s", variant);
    int obj = func == CB_KF_SLAB || func == CB_KF_SLAB_BULK;
    k->cases[k->ncases++] = (struct cb_kcase){
        .probe = probe, .variant = name, .func = func, .size = size, .nobj = nobj, .mode = mode,
        .op = obj ? "object" : "call", .unit = "B"};
    if (size > k->max_size)
        k->max_size = size;
    k->any_cold |= mode == 1;
    return 0;
}

/* slab: one alloc+free, then each bulk size; fpu: a first use (timed in the
 * kernel, and from user space with the exit) and one in a batch; page_pool:
 * a page drawn and put back.  Warm only: a cold cache, FPU or pool has no
 * meaning here. */
static int add_fixed(struct kernel_plan *k, const struct kfamily *f, struct cb_sb *err)
{
    char name[48];
    int rc = 0;
    if (f->func == CB_KF_SLAB) {
        rc = add_case(k, "slab", "kmem_cache_alloc+free", CB_KF_SLAB, CB_KCASE_OBJ_SIZE, 1, 0,
                      err);
        for (size_t i = 0; rc == 0 && i < sizeof bulks / sizeof bulks[0]; i++) {
            snprintf(name, sizeof name, "kmem_cache_alloc_bulk-%u", bulks[i]);
            rc = add_case(k, "slab", name, CB_KF_SLAB_BULK, CB_KCASE_OBJ_SIZE, bulks[i], 0, err);
        }
        return rc;
    }
    if (f->func == CB_KF_PAGE_POOL)
        return add_case(k, "page_pool", "page_pool_alloc+put", CB_KF_PAGE_POOL, 4096, 0, 0, err);
#if defined(__aarch64__)
    const char *fn = "kernel_neon_begin";
#else
    const char *fn = "kernel_fpu_begin";
#endif
    snprintf(name, sizeof name, "%s-first", fn);
    rc = add_case(k, "fpu", name, CB_KF_FPU_FIRST, 0, 0, 0, err);
    /* The same first use timed from user space: with the restore the
     * kernel defers to the exit, as the XSAVEC estimate's first use is. */
    snprintf(name, sizeof name, "%s-first+exit", fn);
    if (rc == 0 && (rc = add_case(k, "fpu", name, CB_KF_FPU_FIRST, 0, 0, 0, err)) == 0)
        k->cases[k->ncases - 1].user_timed = 1;
    snprintf(name, sizeof name, "%s-batch", fn);
    return rc ? rc : add_case(k, "fpu", name, CB_KF_FPU_BATCH, 0, 0, 0, err);
}

/* The sizes of one byte family: -s, else its quick suite's. */
static size_t family_sizes(const struct kernel_plan *k, const char *probe, uint64_t *out,
                           size_t max, struct cb_sb *err)
{
    if (k->sizes_arg) {
        int n = cb_parse_size_list(k->sizes_arg, out, max, err);
        return n < 0 ? 0 : (size_t)n;
    }
    const struct cb_probe *p = cb_probe_find(probe);
    const size_t *src = p ? (p->suite_sizes ? p->suite_sizes : p->sizes) : NULL;
    size_t n = 0;
    while (src && n < max && src[n]) {
        out[n] = src[n];
        n++;
    }
    return n;
}

static int parse_modes(const char *arg, int *warm, int *cold, struct cb_sb *err)
{
    *warm = *cold = 1;
    if (!arg || strcmp(arg, "warm,cold") == 0 || strcmp(arg, "cold,warm") == 0)
        return 0;
    *warm = strcmp(arg, "warm") == 0;
    *cold = strcmp(arg, "cold") == 0;
    if (*warm || *cold)
        return 0;
    cb_sb_setf(err, "-m '%s': give warm, cold or warm,cold", arg);
    return -EINVAL;
}

static int want_family(const char *arg, const char *name)
{
    if (!arg)
        return 1;
    size_t n = strlen(name);
    for (const char *p = arg; (p = strstr(p, name)) != NULL; p += n)
        if ((p == arg || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return 1;
    return 0;
}

/* Every name in -p must be a kernel family. */
static int check_families(const char *arg, struct cb_sb *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg ? arg : "");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < NKFAMILIES && strcmp(kfamilies[i].probe, t) != 0)
            i++;
        if (i == NKFAMILIES) {
            cb_sb_setf(err, "-p: '%s' is not a kernel family: give csum, csum_copy, copy, "
                     "memset, slab, fpu or page_pool", t);
            return -EINVAL;
        }
    }
    return 0;
}

int cb_kernel_plan_cases(struct kernel_plan *k, struct cb_sb *err)
{
    int warm, cold, rc = check_families(k->probes_arg, err);
    if (rc == 0)
        rc = parse_modes(k->mode_arg, &warm, &cold, err);
    for (size_t f = 0; rc == 0 && f < NKFAMILIES; f++) {
        const struct kfamily *kf = &kfamilies[f];
        if (!want_family(k->probes_arg, kf->probe))
            continue;
        if (!kf->variant) {
            if (warm)
                rc = add_fixed(k, kf, err);
            continue;
        }
        uint64_t sizes[64];
        size_t n = family_sizes(k, kf->probe, sizes, 64, err);
        if (n == 0 && k->sizes_arg)
            return -EINVAL;
        for (size_t i = 0; rc == 0 && i < n; i++) {
            if (sizes[i] > CB_KMOD_MAX_SIZE) {
                cb_sb_setf(err, "-s %" PRIu64 ": the module takes sizes up to %u bytes",
                         sizes[i], CB_KMOD_MAX_SIZE);
                return -EINVAL;
            }
            for (int m = 0; rc == 0 && m < 2; m++)
                if (m ? cold : warm)
                    rc = add_case(k, kf->probe, kf->variant, kf->func, (uint32_t)sizes[i], 0, m,
                                  err);
        }
    }
    if (rc == 0 && k->ncases == 0) {
        cb_sb_setf(err, "nothing to measure: slab, fpu and page_pool are warm only (-m cold)");
        return -EINVAL;
    }
    return rc;
}
