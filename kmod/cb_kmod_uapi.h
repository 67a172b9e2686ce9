/* cb_kmod_uapi.h — what cyclebudget's kernel module and `cyclebudget kernel
 * run` say to each other, through the misc device /dev/cyclebudget.
 *
 * Why a char device with ioctls rather than debugfs: every exchange is a
 * request and its answer (verify these bytes; time this many calls), which
 * one ioctl carries with no text to parse, and /dev needs no debugfs mount
 * (locked down or absent on many distribution kernels).  The node is made
 * by devtmpfs; where it is missing, user space makes one from
 * /sys/class/misc/cyclebudget/dev.
 *
 * Every sample stays with user space: one CB_KMOD_IOC_BATCH is one batch,
 * timed in the kernel with preemption off, and its raw TSC ticks (and PMU
 * cycles, where a counter could be created) come back as they are.  Batch
 * sizing and the stopping rules are user space's, the same code path as a
 * user-space run (src/harness/kmeasure.c).
 *
 * Shared by the module (kernel types) and user space (<linux/types.h>).
 * Bump CB_KMOD_ABI with any change to the structs below. */
#ifndef CB_KMOD_UAPI_H
#define CB_KMOD_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define CB_KMOD_ABI 2
#define CB_KMOD_DEVNAME "cyclebudget"
#define CB_KMOD_MODNAME "cb_kmod"
/* The largest size one case may ask for (the copy family goes to 16 MiB). */
#define CB_KMOD_MAX_SIZE (16u << 20)
#define CB_KMOD_MAX_BULK 256

/* The kernel functions measured, one per case kind. */
enum cb_kmod_func {
    CB_KF_NOOP = 0,        /* an empty ioctl: what the syscall itself costs */
    CB_KF_CSUM,            /* csum_partial(buf, size, 0) */
    CB_KF_CSUM_COPY,       /* csum_partial_copy_nocheck(src, dst, size) */
    CB_KF_MEMCPY,          /* memcpy(dst, src, size) */
    CB_KF_MEMSET,          /* memset(dst, 0x5a, size) */
    CB_KF_SLAB,            /* kmem_cache_alloc + kmem_cache_free */
    CB_KF_SLAB_BULK,       /* kmem_cache_alloc_bulk + kmem_cache_free_bulk of nobj */
    CB_KF_FPU_FIRST,       /* kernel_fpu_begin/end, the first in this entry (iters must be 1) */
    CB_KF_FPU_BATCH,       /* kernel_fpu_begin/end, each after a first one in this entry */
    CB_KF_PAGE_POOL,       /* page_pool_alloc_pages + page_pool_put_full_page (the release's
                              page_pool; recycled through its ptr_ring in process context) */
    CB_KF_NFUNC
};

struct cb_kmod_info {
    __u32 abi;             /* CB_KMOD_ABI */
    __u32 fpu_api;         /* 1: kernel_fpu_begin/end (x86) or kernel_neon_begin/end (arm64) */
    __s32 pmu_err;         /* creating a cycles counter on this CPU: 0 or -errno */
    __u32 obj_size;        /* the run's kmem_cache object size */
    char release[65];      /* the running kernel (utsname) */
    char built_for[65];    /* UTS_RELEASE the module was built against */
    char src_sha256[65];   /* sha256 of the module's sources, from its Kbuild */
    char config_sha256[65];/* sha256 of the kernel tree's .config it was built against */
    char arch[16];
    __u8 page_pool;        /* 1: the kernel has page_pool (CONFIG_PAGE_POOL) */
    __u8 pad[3];
};

/* Set up the run's buffers and cache (before any VERIFY or BATCH). */
struct cb_kmod_setup {
    __u64 max_size;        /* the largest case size of the run */
    __u64 cold_bytes;      /* the cold walk's length per buffer; 0: no cold case */
    __u32 obj_size;        /* the kmem_cache's object size (256) */
    __u32 pad;
};

/* Run func once over user-given bytes and hand the result back, for user
 * space to check against the tool's reference. */
struct cb_kmod_verify {
    __u32 func, size, align, nobj;
    __u64 in;              /* user pointer: size bytes (csum, copy) */
    __u64 out;             /* user pointer: size + 128 bytes: the destination with 64
                              guard bytes each side (copy, memset, csum_copy) */
    __u32 sum;             /* csum, csum_copy: the returned __wsum */
    __u32 got;             /* slab: objects handed out; page_pool: a page was */
    __u32 distinct;        /* slab: of them distinct, aligned and within the cache's size;
                              page_pool: the page put back came out again (recycled) */
    __u32 intact;          /* slab: of them that kept a written pattern until freed */
    __u32 fpu_before;      /* fpu: TIF_NEED_FPU_LOAD (x86) before kernel_fpu_begin */
    __u32 fpu_after;       /* fpu: and after it */
};

/* One batch: iters calls of func at size in mode, timed in the kernel. */
struct cb_kmod_batch {
    __u32 func, size, mode, nobj;   /* mode 0 warm, 1 cold */
    __u64 iters;           /* 0: the empty batch (the cost of the readings) */
    __u64 ticks;           /* out: rdtsc_ordered (x86) / cntvct (arm64) delta */
    __u64 cycles;          /* out: the PMU cycles counter's delta, when cycles_err is 0 */
    __s32 cycles_err;      /* out: 0 counted, else why not (-errno) */
    __u32 cpu;             /* out: the CPU it ran on */
};

#define CB_KMOD_IOC_MAGIC 0xcb
#define CB_KMOD_IOC_INFO _IOR(CB_KMOD_IOC_MAGIC, 1, struct cb_kmod_info)
#define CB_KMOD_IOC_SETUP _IOW(CB_KMOD_IOC_MAGIC, 2, struct cb_kmod_setup)
#define CB_KMOD_IOC_VERIFY _IOWR(CB_KMOD_IOC_MAGIC, 3, struct cb_kmod_verify)
#define CB_KMOD_IOC_BATCH _IOWR(CB_KMOD_IOC_MAGIC, 4, struct cb_kmod_batch)

#endif
