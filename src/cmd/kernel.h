/* kernel.h — what `kernel run` measures and how it is stored (kernel.c
 * parses, lists the cases and loads the module; kernel_store.c collects
 * them through the module and writes the run). */
#ifndef CB_CMD_KERNEL_H
#define CB_CMD_KERNEL_H

#include <stdint.h>

#include "harness/harness.h"
#include "harness/kmeasure.h"
#include "util/strbuf.h"
#include "kmod/cb_kmod_uapi.h"

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

void cb_kernel_plan_init(struct kernel_plan *k);
/* -p, -s, -m into the case list: 0, or -EINVAL with err. */
int cb_kernel_plan_cases(struct kernel_plan *k, struct cb_sb *err);
/* Open the store, begin the run, verify and time every case, finish:
 * the exit status (0, 1 when a case was BAD or the run failed). */
int cb_kernel_collect(struct kernel_plan *k, int fd);

#endif
