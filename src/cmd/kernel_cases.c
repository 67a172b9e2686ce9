/* kernel_cases.c — the cases of `kernel run`, collected and stored (kernel_cases.h). */
#define _GNU_SOURCE
#include "cmd/kernel_cases.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "host/cpu.h"
#include "host/emulation.h"
#include "counters/events.h"
#include "cli/parse.h"
#include "harness/probe.h"
#include "store/store.h"
#include "counters/tsc.h"

/* The in-kernel families: those whose probe records name a kernel twin
 * (probe.h's struct cb_kernel_twin), then the FPU, which no user-space
 * family stands beside (its figures are set beside the XSAVEC estimate). */
#define KFAMILY_FPU "fpu"

void cb_kernel_plan_init(struct kernel_plan *k)
{
    k->db = cb_default_db();
    k->cpu = CB_CPU_DEFAULT;
    cb_harness_defaults(&k->harness);
}

static int add_case(struct kernel_plan *k, const char *probe, const char *variant, uint32_t func,
                    uint32_t size, uint32_t nobj, int mode, struct cb_sb *err)
{
    const struct cb_probe *p = cb_probe_find(probe);
    if (k->ncases == CB_KCASES_MAX) {
        cb_sb_setf(err, "too many cases (at most %d): give fewer sizes", CB_KCASES_MAX);
        return -EINVAL;
    }
    char *name = k->names[k->ncases];
    snprintf(name, sizeof k->names[0], "%s", variant);
    k->cases[k->ncases++] = (struct cb_kcase){
        .probe = probe, .variant = name, .func = func, .size = size, .nobj = nobj, .mode = mode,
        .op = p ? p->op : "call", .unit = p ? p->unit : "B"};
    if (size > k->max_size)
        k->max_size = size;
    k->any_cold |= mode == 1;
    return 0;
}

/* A twin of one fixed size: one case, or one per bulk count.  Warm only:
 * a cold cache or pool has no meaning here. */
static int add_fixed(struct kernel_plan *k, const struct cb_probe *p,
                     const struct cb_kernel_twin *t, struct cb_sb *err)
{
    char name[48];
    if (!t->counts)
        return add_case(k, p->name, t->func, t->kfunc, t->size, 1, 0, err);
    int rc = 0;
    for (size_t i = 0; rc == 0 && t->counts[i]; i++) {
        snprintf(name, sizeof name, "%s%u", t->func, t->counts[i]);
        rc = add_case(k, p->name, name, t->kfunc, t->size, t->counts[i], 0, err);
    }
    return rc;
}

/* The FPU: a first use (timed in the kernel, and from user space with the
 * exit) and one in a batch.  Warm only. */
static int add_fpu(struct kernel_plan *k, struct cb_sb *err)
{
    char name[48];
    int rc = 0;
#if defined(__aarch64__)
    const char *fn = "kernel_neon_begin";
#else
    const char *fn = "kernel_fpu_begin";
#endif
    snprintf(name, sizeof name, "%s-first", fn);
    rc = add_case(k, KFAMILY_FPU, name, CB_KF_FPU_FIRST, 0, 0, 0, err);
    /* The same first use timed from user space: with the restore the
     * kernel defers to the exit, as the XSAVEC estimate's first use is. */
    snprintf(name, sizeof name, "%s-first+exit", fn);
    if (rc == 0 && (rc = add_case(k, KFAMILY_FPU, name, CB_KF_FPU_FIRST, 0, 0, 0, err)) == 0)
        k->cases[k->ncases - 1].user_timed = 1;
    snprintf(name, sizeof name, "%s-batch", fn);
    return rc ? rc : add_case(k, KFAMILY_FPU, name, CB_KF_FPU_BATCH, 0, 0, 0, err);
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

/* A twin over the family's byte sizes, in each mode asked for. */
static int add_sized(struct kernel_plan *k, const struct cb_probe *p,
                     const struct cb_kernel_twin *t, int warm, int cold, struct cb_sb *err)
{
    uint64_t sizes[64];
    size_t n = family_sizes(k, p->name, sizes, 64, err);
    if (n == 0 && k->sizes_arg)
        return -EINVAL;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (sizes[i] > CB_KMOD_MAX_SIZE) {
            cb_sb_setf(err, "-s %" PRIu64 ": the module takes sizes up to %u bytes", sizes[i],
                       CB_KMOD_MAX_SIZE);
            return -EINVAL;
        }
        for (int m = 0; rc == 0 && m < 2; m++)
            if (m ? cold : warm)
                rc = add_case(k, p->name, t->func, t->kfunc, (uint32_t)sizes[i], 0, m, err);
    }
    return rc;
}

/* The in-kernel family i (i < the registry's count, then the FPU), by
 * its name; NULL past the end.  *p is its probe record (NULL: the FPU). */
static const char *kfamily_at(size_t i, const struct cb_probe **p)
{
    size_t n = cb_probe_count();
    for (size_t j = 0; j < n; j++) {
        const struct cb_probe *q = cb_probe_at(j);
        if (q->nkernel && i-- == 0)
            return *p = q, q->name;
    }
    *p = NULL;
    return i == 0 ? KFAMILY_FPU : NULL;
}

/* Every name in -p must be a kernel family. */
static int check_families(const char *arg, struct cb_sb *err)
{
    char buf[256];
    const struct cb_probe *p;
    snprintf(buf, sizeof buf, "%s", arg ? arg : "");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const char *name;
        size_t i = 0;
        while ((name = kfamily_at(i, &p)) != NULL && strcmp(name, t) != 0)
            i++;
        if (!name) {
            cb_sb_setf(err, "-p: '%s' is not a kernel family: give ", t);
            for (i = 0; (name = kfamily_at(i, &p)) != NULL; i++)
                cb_sb_addf(err, "%s%s", i ? ", " : "", name);
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
    const struct cb_probe *p;
    const char *name;
    for (size_t f = 0; rc == 0 && (name = kfamily_at(f, &p)) != NULL; f++) {
        if (!want_family(k->probes_arg, name))
            continue;
        if (!p) {
            if (warm)
                rc = add_fpu(k, err);
            continue;
        }
        for (size_t t = 0; rc == 0 && t < p->nkernel; t++)
            if (p->kernel[t].size)
                rc = warm ? add_fixed(k, p, &p->kernel[t], err) : 0;
            else
                rc = add_sized(k, p, &p->kernel[t], warm, cold, err);
    }
    if (rc == 0 && k->ncases == 0) {
        cb_sb_setf(err, "nothing to measure: the fixed-size families and fpu are warm only (-m cold)");
        return -EINVAL;
    }
    return rc;
}
