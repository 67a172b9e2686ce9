/* kernel.c — `cyclebudget kernel run`: time the kernel's own functions
 * inside the running kernel, beside the user-space models.
 *
 * Seed 001 measures in the kernel with a module (time_bench); every model
 * here (kernel-2021/2023 csum, the SLUB model, the XSAVEC estimate of a
 * first kernel_fpu_begin) is a stand-in for code a kernel engineer would
 * rather see timed where it runs.  This command builds kmod/ against the
 * running kernel's headers (or --kdir; --module loads one built already),
 * loads it, verifies every function against the tool's references, times
 * it by the harness's rules (kmeasure.h), unloads it, and stores a run
 * whose source is "in-kernel" with every sample.
 *
 * Refusals come before anything is written, one line each, exit 2: a
 * kernel that loads no modules at all (pointing to `bpf run`), not root,
 * no headers, a kernel that loads only signed modules (kmod.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "harness/probe.h"
#include "host/cpu.h"
#include "config.h"
#include "host/emulation.h"
#include "counters/events.h"
#include "harness/kernel_store.h"
#include "harness/kmeasure.h"
#include "host/kmod.h"
#include "cli/parse.h"
#include "store/store.h"
#include "counters/tsc.h"
#include "harness/workset.h"
#include "kmod/cb_kmod_uapi.h"
#include "util/strbuf.h"

/* The kmem_cache made for the run: 256-byte objects, as slab_bulk_test01
 * and the user-space slab family's suite size. */
#define CB_KCASE_OBJ_SIZE 256
#define CB_KCASES_MAX 512

struct kernel_plan {
    const char *probes_arg, *sizes_arg, *mode_arg, *kdir, *module, *db, *tag;
    int quiet, cpu, pinned, loaded;
    struct cb_harness_opts harness;
    struct cb_sb cmdline;
    struct cb_kcase cases[CB_KCASES_MAX];
    char names[CB_KCASES_MAX][48];      /* the variant names the cases point into */
    size_t ncases;
    uint64_t max_size;
    int any_cold;
    char kdir_buf[4096], src_buf[4096], ko_buf[4200], work[4096];
    struct cb_kmod_info info;
};

/* ---- the cases: -p, -s and -m into the plan ---------------------------- */

/* The in-kernel families: those whose probe records name a kernel twin
 * (probe.h's struct cb_kernel_twin), then the FPU, which no user-space
 * family stands beside (its figures are set beside the XSAVEC estimate). */
#define KFAMILY_FPU "fpu"

static void kernel_plan_init(struct kernel_plan *k)
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

static int kernel_plan_cases(struct kernel_plan *k, struct cb_sb *err)
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

/* ---- the command -------------------------------------------------------- */

enum { OPT_REPS = CB_OPT_LONG_ONLY, OPT_CPU, OPT_COLD, OPT_MAX_TIME };

static int kernel_option(int id, const char *arg, void *ctx, struct cb_sb *err)
{
    struct kernel_plan *k = ctx;
    uint64_t u64;
    switch (id) {
    case OPT_REPS: return cb_parse_int(arg, 1, 100000, "--reps", &k->harness.reps, err);
    case OPT_CPU: return cb_parse_int(arg, 0, 65535, "--cpu", &k->cpu, err);
    case OPT_MAX_TIME:
        return cb_parse_seconds(arg, "--max-time", &k->harness.case_seconds, err);
    case OPT_COLD:
        if (cb_parse_cold_bytes(arg, &u64, err) < 0)
            return -EINVAL;
        k->harness.cold_bytes = u64;
        return 0;
    default:
        return 1;
    }
}

static int kernel_parse(int argc, char **argv, void *ctx, struct cb_sb *err)
{
    struct kernel_plan *k = ctx;
    static const struct cb_option options[] = {
        CB_OPT_STR('p', "probes", struct kernel_plan, probes_arg, "LIST",
                   "kernel families: csum, csum_copy, copy, memset, slab, fpu, page_pool "
                   "(default: all)"),
        CB_OPT_STR('s', "sizes", struct kernel_plan, sizes_arg, "LIST",
                   "sizes in bytes for csum, csum_copy, copy, memset (default: each family's "
                   "quick-suite sizes); slab objects are 256 bytes, fpu has none"),
        CB_OPT_STR('m', "mode", struct kernel_plan, mode_arg, "MODE",
                   "warm, cold, or warm,cold (default: warm,cold; slab, fpu and page_pool are "
                   "warm only)"),
        CB_OPT_STR(0, "kdir", struct kernel_plan, kdir, "DIR",
                   "the kernel build tree to build the module against (default: "
                   "/lib/modules/$(uname -r)/build)"),
        CB_OPT_STR(0, "module", struct kernel_plan, module, "FILE",
                   "load this cb_kmod.ko, built already for the running kernel, instead of "
                   "building kmod/ (CI boots a kernel that has no headers inside)"),
        CB_OPT_CALL(OPT_REPS, "reps", "N",
                    "exactly N samples per case (default: until the median's 95% CI is within "
                    "+-1%, or --max-time)"),
        CB_OPT_CALL(OPT_MAX_TIME, "max-time", "SEC", "time cap per case when adaptive (default: 0.1)"),
        CB_OPT_STR(0, "db", struct kernel_plan, db, "PATH",
                   "database (default: $CB_DB, else ./" CB_DEFAULT_DB ")"),
        CB_OPT_STR(0, "tag", struct kernel_plan, tag, "TAG", "label the run"),
        CB_OPT_CALL(OPT_CPU, "cpu", "N", "pin to CPU N (default: the last CPU this process may use)"),
        CB_OPT_CALL(OPT_COLD, "cold-bytes", "SIZE",
                    "cold-mode walk, per buffer, in the kernel (default: 2x LLC, 64M..128M)"),
        CB_OPT_BOOL('q', "quiet", struct kernel_plan, quiet, "no progress lines"),
        CB_OPT_END,
    };
    static const struct cb_cmd_parser parser = {
        .cmd = "kernel",
        .option = kernel_option,
        .synopsis =
            "usage: cyclebudget kernel run [-p LIST] [-s LIST] [-m MODE] [--kdir DIR | --module FILE]\n"
            "  Build cyclebudget's kernel module (kmod/) against the running kernel's headers,\n"
            "  load it, verify and time csum_partial, csum_partial_copy_nocheck, memcpy,\n"
            "  memset, kmem_cache_alloc/free and the bulk APIs, kernel_fpu_begin/end and\n"
            "  page_pool inside the kernel (preemption off, the TSC, PMU cycles where the\n"
            "  kernel has them), unload it, and store the run with every sample (source\n"
            "  \"in-kernel\").\n"
            "  'report' then sets each case beside its user-space model.  Needs root, the\n"
            "  headers, and a kernel that loads unsigned modules: it says so otherwise (exit 2).\n",
        .options = options,
    };
    kernel_plan_init(k);
    if (argc < 2 || strcmp(argv[1], "run") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            cb_usage(&parser, stdout);
            return 1;
        }
        cb_sb_setf(err, "kernel takes one action, 'run' (cyclebudget kernel run --help)");
        return -EINVAL;
    }
    int rc = cb_getopt(argc - 1, argv + 1, &parser, k, err);
    if (rc != 0)
        return rc;
    if (optind < argc - 1) {
        cb_sb_setf(err, "kernel run takes options only ('%s')", argv[optind + 1]);
        return -EINVAL;
    }
    return kernel_plan_cases(k, err);
}

/* The refusals, in the order a user fixes them; one line, exit 2. */
static int refuse(struct kernel_plan *k)
{
    struct cb_sb why = CB_SB_INIT;
    char rel[128];
    cb_kmod_release(rel, sizeof rel);
    /* A kernel without modules first: neither root nor headers would help. */
    int rc = cb_kmod_check_modules(NULL, rel, &why);
    if (rc == 0)
        rc = cb_kmod_check_root(&why);
    if (rc == 0 && !k->module)
        rc = cb_kmod_kdir(k->kdir, k->kdir_buf, sizeof k->kdir_buf, &why);
    if (rc == 0 && !k->module)
        rc = cb_kmod_source_dir(k->src_buf, sizeof k->src_buf, &why);
    if (rc == 0 && k->module && access(k->module, R_OK) != 0) {
        cb_sb_addf(&why, "--module %s cannot be read: %s", k->module, strerror(errno));
        rc = -ENOENT;
    }
    if (rc == 0)
        rc = cb_kmod_check_signing(NULL, &why);
    if (rc < 0)
        cb_error("kernel run: %s", why.buf);
    cb_sb_release(&why);
    return rc;
}

/* Build (or take --module), load, open the device: the fd, or an exit
 * status (negative: 2 refused, 1 failed) with the line said. */
static int bring_up(struct kernel_plan *k)
{
    struct cb_sb why = CB_SB_INIT;
    const char *ko = k->module;
    int rc = 0;
    if (!ko) {
        if (!k->quiet)
            fprintf(stderr, "cyclebudget: building %s against %s\n", k->src_buf, k->kdir_buf);
        rc = cb_kmod_build(k->src_buf, k->kdir_buf, k->ko_buf, sizeof k->ko_buf, k->work,
                           sizeof k->work, &why);
        ko = k->ko_buf;
    }
    if (rc == 0 && (rc = cb_kmod_load(ko, &why)) == 0) {
        k->loaded = 1;
        rc = cb_kmod_open(&why);
    }
    if (rc < 0) {
        cb_error("kernel run: %s", why.buf);
        cb_sb_release(&why);
        return rc == -EPERM || rc == -EKEYREJECTED || rc == -ENOSYS ? -CB_EXIT_USAGE : -1;
    }
    cb_sb_release(&why);
    return rc;
}

static void bring_down(struct kernel_plan *k, int fd)
{
    struct cb_sb why = CB_SB_INIT;
    if (fd >= 0)
        close(fd);
    if (k->loaded && cb_kmod_unload(&why) < 0)
        cb_error("kernel run: %s", why.buf);
    cb_kmod_cleanup(k->work);
    cb_sb_release(&why);
}

/* INFO and SETUP: the module's identity, and the run's buffers. */
static int module_ready(struct kernel_plan *k, int fd)
{
    if (ioctl(fd, CB_KMOD_IOC_INFO, &k->info) < 0 || k->info.abi != CB_KMOD_ABI) {
        cb_error("kernel run: the module speaks ABI %u, this cyclebudget %d: rebuild it from "
                 "this version's kmod/", k->info.abi, CB_KMOD_ABI);
        return -EPROTO;
    }
    struct cb_kmod_setup s = {.max_size = k->max_size, .obj_size = CB_KCASE_OBJ_SIZE,
                              .cold_bytes = k->any_cold ? k->harness.cold_bytes : 0};
    if (ioctl(fd, CB_KMOD_IOC_SETUP, &s) < 0) {
        cb_error("kernel run: the module could not set up %" PRIu64 " bytes of buffers (%s): "
                 "give a smaller --cold-bytes or fewer large sizes", k->max_size, strerror(errno));
        return -errno;
    }
    return 0;
}

/* Open the store, begin the run, verify and time every case, finish:
 * the exit status (0, 1 when a case was BAD or the run failed). */
static int kernel_collect(struct kernel_plan *k, int fd)
{
    struct cb_sb err = CB_SB_INIT;
    struct cb_store *st;
    int rc = cb_store_open(k->db, CB_STORE_WRITE, 0, &st, &err);
    if (rc < 0) {
        cb_error("kernel run: %s", err.buf);
        cb_sb_release(&err);
        return rc == -EPROTO || rc == -EINVAL || rc == -EISDIR || rc == -EACCES ? CB_EXIT_USAGE : 1;
    }
    struct cb_kernel_run r = {.cases = k->cases, .ncases = k->ncases, .harness = &k->harness,
                              .info = &k->info, .cmdline = k->cmdline.buf, .tag = k->tag, .fd = fd,
                              .pinned = k->pinned, .quiet = k->quiet};
    if ((rc = cb_kernel_run_begin(&r, st)) < 0) {
        cb_error("kernel run: cannot record the run in %s: %s", k->db, strerror(-rc));
        cb_store_close(st);
        cb_sb_release(&err);
        return 1;
    }
    if (!k->quiet)
        fprintf(stderr, "cyclebudget: in the kernel %s (module %.16s, %s), CPU %d: %zu cases\n",
                k->info.release, k->info.src_sha256, k->info.pmu_err ? "no PMU cycles" : "PMU cycles",
                k->pinned, k->ncases);
    cb_sb_reset(&err);
    rc = cb_kernel_run_cases(&r, cb_stop_flag(), &err);
    cb_store_close(st);
    if (rc < 0 && rc != -EINTR && err.len)
        cb_error("kernel run: %s", err.buf);
    cb_sb_release(&err);
    if (rc == -EINTR) {
        cb_error("kernel run: stopped; run %" PRId64 " is stored as aborted", r.run_id);
        return 130;
    }
    if (rc < 0)
        return 1;
    if (!k->quiet)
        printf("run %" PRId64 " (in-kernel): %d cases verified and measured, %d not; "
               "'cyclebudget report %" PRId64 "' sets them beside the user-space models\n",
               r.run_id, r.nmeasured, r.nbad, r.run_id);
    return r.nbad ? 1 : 0;
}

static int kernel_body(void *ctx, struct cb_store *unused)
{
    (void)unused;
    struct kernel_plan *k = ctx;
    int rc = refuse(k);
    if (rc < 0)
        return CB_EXIT_USAGE;
    struct cb_sb err = CB_SB_INIT;
    int pinned;
    if (cb_pin_cpu(k->cpu, &pinned, &err) < 0) {
        cb_error("kernel run: %s", err.buf);
        cb_sb_release(&err);
        return CB_EXIT_USAGE;
    }
    k->pinned = pinned;
    if (!k->harness.cold_bytes)
        k->harness.cold_bytes = cb_workset_cold_bytes();
    int fd = bring_up(k);
    if (fd < 0) {
        bring_down(k, -1);
        cb_sb_release(&err);
        return fd == -CB_EXIT_USAGE ? CB_EXIT_USAGE : 1;
    }
    cb_catch_stop_signals(1);
    int st = module_ready(k, fd) < 0 ? 1 : kernel_collect(k, fd);
    bring_down(k, fd);
    cb_sb_release(&err);
    return st;
}

int cmd_kernel(int argc, char **argv)
{
    static const struct cb_cmd cmd = {kernel_parse, CB_EXIT_USAGE, NULL, 1, kernel_body};
    struct kernel_plan *k = calloc(1, sizeof *k);
    if (!k) {
        cb_error("kernel run: out of memory");
        return 1;
    }
    cb_sb_init(&k->cmdline);
    cb_quote_cmdline(argc, argv, &k->cmdline);
    int st = cb_cmd_main(&cmd, argc, argv, k);
    cb_sb_release(&k->cmdline);
    free(k);
    return st;
}
