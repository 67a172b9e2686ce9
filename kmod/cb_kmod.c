// SPDX-License-Identifier: GPL-2.0
/* cb_kmod.c — cyclebudget's in-kernel collector (issue 45).
 *
 * The user-space families model kernel code (kernel-2021/2023 csum, the SLUB
 * model, the XSAVEC estimate of kernel_fpu_begin); this module times the
 * kernel's own functions, so that a report can say how far each model is
 * from what it stands for.  It measures nothing by itself: `cyclebudget
 * kernel run` asks, through /dev/cyclebudget (cb_kmod_uapi.h), for one
 * verification or one timed batch at a time, and keeps every sample.
 *
 * A batch runs with preemption off and is timed with the TSC read the way
 * the kernel's own timing does (rdtsc_ordered; the arch counter on arm64),
 * and with a PMU cycles counter from perf_event_create_kernel_counter where
 * the CPU has one.  That counter is read outside the preemption-off window
 * (perf_event_read_value may sleep); the empty batch user space subtracts
 * carries the same readings.  GPL: kernel_fpu_begin and the perf calls are
 * EXPORT_SYMBOL_GPL. */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>
#include <generated/utsrelease.h>
#include <net/checksum.h>
#if IS_ENABLED(CONFIG_PAGE_POOL)
#if __has_include(<net/page_pool/helpers.h>)
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif
#define CB_HAVE_PAGE_POOL 1
#else
#define CB_HAVE_PAGE_POOL 0
#endif
#if defined(CONFIG_X86)
#include <asm/fpu/api.h>
#include <asm/msr.h>
#elif defined(CONFIG_ARM64)
#include <asm/neon.h>
#include <asm/simd.h>
#include <asm/arch_timer.h>
#endif

#include "cb_kmod_uapi.h"

#ifndef CB_KMOD_SRC_SHA
#define CB_KMOD_SRC_SHA ""
#endif
#ifndef CB_KMOD_CFG_SHA
#define CB_KMOD_CFG_SHA ""
#endif

struct cb_state {
	struct mutex lock;
	u8 *src, *dst;           /* warm buffers: max_size + 4 KiB each */
	u8 *csrc, *cdst;         /* the cold walk's buffers: cold_bytes each */
	size_t max_size, cold_bytes, cold_off;
	struct kmem_cache *cache;
	u32 obj_size;
	void *objs[CB_KMOD_MAX_BULK];
#if CB_HAVE_PAGE_POOL
	struct page_pool *pool;  /* order-0 pages, no device: what a driver's RX ring draws on */
#endif
	struct perf_event *ev;   /* cycles on ev_cpu, or NULL with ev_err */
	int ev_cpu, ev_err;
	u32 sink;
};

static struct cb_state cb;

static inline u64 cb_ticks(void)
{
#if defined(CONFIG_X86)
	return rdtsc_ordered();
#elif defined(CONFIG_ARM64)
	isb();
	return arch_timer_read_counter();
#else
	return get_cycles();
#endif
}

static void cb_fpu_begin(void)
{
#if defined(CONFIG_X86)
	kernel_fpu_begin();
#elif defined(CONFIG_ARM64)
	kernel_neon_begin();
#endif
}

static void cb_fpu_end(void)
{
#if defined(CONFIG_X86)
	kernel_fpu_end();
#elif defined(CONFIG_ARM64)
	kernel_neon_end();
#endif
}

/* The flag that says the user's vector state was saved away: set by the
 * first kernel_fpu_begin of an entry, cleared on the way back to user
 * space once the state is restored. */
static u32 cb_fpu_saved_flag(void)
{
#if defined(CONFIG_X86)
	return test_thread_flag(TIF_NEED_FPU_LOAD) ? 1 : 0;
#elif defined(CONFIG_ARM64)
	return test_thread_flag(TIF_FOREIGN_FPSTATE) ? 1 : 0;
#else
	return 0;
#endif
}

static void cb_free_buffers(void)
{
	kvfree(cb.src);
	kvfree(cb.dst);
	vfree(cb.csrc);
	vfree(cb.cdst);
	cb.src = cb.dst = cb.csrc = cb.cdst = NULL;
	if (cb.cache)
		kmem_cache_destroy(cb.cache);
	cb.cache = NULL;
#if CB_HAVE_PAGE_POOL
	if (cb.pool)
		page_pool_destroy(cb.pool);
	cb.pool = NULL;
#endif
	if (cb.ev)
		perf_event_release_kernel(cb.ev);
	cb.ev = NULL;
	cb.ev_cpu = -1;
	cb.ev_err = -ENODEV;
}

/* Warm buffers by kvmalloc, so that up to 4 MiB they are the direct map's
 * pages as an skb's data is; the cold walk is vmalloc'd (tens of MiB). */
static int cb_setup(const struct cb_kmod_setup *s)
{
	if (s->max_size > CB_KMOD_MAX_SIZE || s->cold_bytes > (512u << 20) ||
	    s->obj_size < 8 || s->obj_size > 4096)
		return -EINVAL;
	cb_free_buffers();
	cb.max_size = s->max_size;
	cb.src = kvmalloc(s->max_size + 4096, GFP_KERNEL);
	cb.dst = kvmalloc(s->max_size + 4096, GFP_KERNEL);
	if (!cb.src || !cb.dst)
		goto nomem;
	memset(cb.src, 0x11, s->max_size + 4096);
	memset(cb.dst, 0x22, s->max_size + 4096);
	cb.cold_bytes = s->cold_bytes;
	cb.cold_off = 0;
	if (s->cold_bytes) {
		cb.csrc = vmalloc(s->cold_bytes);
		cb.cdst = vmalloc(s->cold_bytes);
		if (!cb.csrc || !cb.cdst)
			goto nomem;
		memset(cb.csrc, 0x33, s->cold_bytes);
		memset(cb.cdst, 0x44, s->cold_bytes);
	}
	cb.obj_size = s->obj_size;
	cb.cache = kmem_cache_create("cb_kmod_run", s->obj_size, 0, 0, NULL);
	if (!cb.cache)
		goto nomem;
#if CB_HAVE_PAGE_POOL
	{
		struct page_pool_params pp = {
			.order = 0, .pool_size = 256, .nid = NUMA_NO_NODE,
		};
		struct page_pool *pool = page_pool_create(&pp);

		if (IS_ERR(pool))
			goto nomem;
		cb.pool = pool;
	}
#endif
	return 0;
nomem:
	cb_free_buffers();
	return -ENOMEM;
}

/* The cycles counter of cpu, created when the caller moved there.  May
 * sleep: called before preemption is turned off. */
static void cb_pmu_on(int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.size = sizeof(attr),
		.pinned = 1,
	};
	struct perf_event *ev;

	if (cb.ev_cpu == cpu)
		return;
	if (cb.ev)
		perf_event_release_kernel(cb.ev);
	cb.ev = NULL;
	cb.ev_cpu = cpu;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev)) {
		cb.ev_err = (int)PTR_ERR(ev);
		return;
	}
	cb.ev = ev;
	cb.ev_err = 0;
}

static u64 cb_pmu_read(void)
{
	u64 enabled, running;

	return cb.ev ? perf_event_read_value(cb.ev, &enabled, &running) : 0;
}

/* Where the next call's bytes are: the warm buffers, or the next stretch
 * of the cold walk (each call a new one, wrapping at the end). */
static void cb_place(u32 size, int cold, u8 **s, u8 **d)
{
	if (!cold) {
		*s = cb.src;
		*d = cb.dst;
		return;
	}
	if (cb.cold_off + size > cb.cold_bytes)
		cb.cold_off = 0;
	*s = cb.csrc + cb.cold_off;
	*d = cb.cdst + cb.cold_off;
	cb.cold_off += ALIGN(size, 64) + 64;
}

/* iters calls; the caller has turned preemption off.  Returns 0 or
 * -ENOMEM when the cache could not hand out every object. */
static int cb_loop(const struct cb_kmod_batch *b, int cold)
{
	u32 sum = 0, size = b->size, n = b->nobj;
	u64 i;
	u8 *s, *d;
	int rc = 0;

	for (i = 0; i < b->iters; i++) {
		switch (b->func) {
		case CB_KF_CSUM:
			cb_place(size, cold, &s, &d);
			sum = (__force u32)csum_partial(s, size, (__force __wsum)sum);
			break;
		case CB_KF_CSUM_COPY:
			cb_place(size, cold, &s, &d);
			sum += (__force u32)csum_partial_copy_nocheck(s, d, size);
			break;
		case CB_KF_MEMCPY:
			cb_place(size, cold, &s, &d);
			memcpy(d, s, size);
			break;
		case CB_KF_MEMSET:
			cb_place(size, cold, &s, &d);
			memset(d, 0x5a, size);
			break;
		case CB_KF_SLAB:
			cb.objs[0] = kmem_cache_alloc(cb.cache, GFP_ATOMIC);
			if (!cb.objs[0])
				return -ENOMEM;
			kmem_cache_free(cb.cache, cb.objs[0]);
			break;
		case CB_KF_SLAB_BULK:
			if (kmem_cache_alloc_bulk(cb.cache, GFP_ATOMIC, n, cb.objs) != n)
				rc = -ENOMEM;
			else
				kmem_cache_free_bulk(cb.cache, n, cb.objs);
			if (rc)
				return rc;
			break;
		case CB_KF_FPU_FIRST:
		case CB_KF_FPU_BATCH:
			cb_fpu_begin();
			cb_fpu_end();
			break;
#if CB_HAVE_PAGE_POOL
		case CB_KF_PAGE_POOL: {
			struct page *pg = page_pool_alloc_pages(cb.pool, GFP_ATOMIC | __GFP_NOWARN);

			if (!pg)
				return -ENOMEM;
			page_pool_put_full_page(cb.pool, pg, true);
			break;
		}
#endif
		default:
			break;
		}
	}
	cb.sink += sum;
	return rc;
}

static int cb_batch(struct cb_kmod_batch *b)
{
	int cpu, rc, cold = b->mode == 1;
	u64 t0, t1, c0, c1;

	if (b->func == CB_KF_PAGE_POOL && !CB_HAVE_PAGE_POOL)
		return -EOPNOTSUPP;
	if (b->func >= CB_KF_NFUNC || b->size > cb.max_size || b->nobj > CB_KMOD_MAX_BULK ||
	    (b->func == CB_KF_FPU_FIRST && b->iters > 1) || (cold && !cb.cold_bytes) ||
	    (!cb.cache && b->func != CB_KF_NOOP))
		return -EINVAL;
	if (cold && b->size > cb.cold_bytes)
		return -EINVAL;
	cpu = raw_smp_processor_id();
	cb_pmu_on(cpu);
	/* Later uses only: the first of this entry is spent before timing. */
	if (b->func == CB_KF_FPU_BATCH) {
		cb_fpu_begin();
		cb_fpu_end();
	}
	c0 = cb_pmu_read();
	preempt_disable();
	if (smp_processor_id() != cpu) {
		preempt_enable();
		return -EAGAIN;
	}
	t0 = cb_ticks();
	rc = cb_loop(b, cold);
	t1 = cb_ticks();
	preempt_enable();
	c1 = cb_pmu_read();
	b->ticks = t1 - t0;
	b->cpu = cpu;
	b->cycles_err = cb.ev ? 0 : cb.ev_err;
	b->cycles = cb.ev ? c1 - c0 : 0;
	return rc;
}

static void cb_verify_slab(struct cb_kmod_verify *v)
{
	u32 n = v->func == CB_KF_SLAB ? 1 : v->nobj, i, j, k;

	v->got = v->distinct = v->intact = 0;
	if (v->func == CB_KF_SLAB) {
		cb.objs[0] = kmem_cache_alloc(cb.cache, GFP_KERNEL);
		v->got = cb.objs[0] != NULL;
	} else {
		v->got = kmem_cache_alloc_bulk(cb.cache, GFP_KERNEL, n, cb.objs);
	}
	for (i = 0; i < v->got; i++) {
		int ok = ((unsigned long)cb.objs[i] & 7) == 0 && ksize(cb.objs[i]) >= cb.obj_size;

		for (j = 0; j < i && ok; j++)
			ok = cb.objs[j] != cb.objs[i];
		v->distinct += ok;
		memset(cb.objs[i], (int)(i & 0xff), cb.obj_size);
	}
	for (i = 0; i < v->got; i++) {
		const u8 *p = cb.objs[i];

		for (k = 0; k < cb.obj_size && p[k] == (u8)(i & 0xff); k++)
			;
		v->intact += k == cb.obj_size;
	}
	if (v->func == CB_KF_SLAB && v->got)
		kmem_cache_free(cb.cache, cb.objs[0]);
	else if (v->got)
		kmem_cache_free_bulk(cb.cache, v->got, cb.objs);
}

/* A page handed out and put back must come out again: the pool keeps up to
 * 64 pages in its alloc cache before it looks in the ring the page went
 * to, so up to 128 are drawn (and held) looking for it, then all put back. */
static int cb_verify_pool(struct cb_kmod_verify *v)
{
#if CB_HAVE_PAGE_POOL
	struct page *a;
	u32 i, n = 0;

	v->got = v->distinct = 0;
	a = page_pool_alloc_pages(cb.pool, GFP_KERNEL);
	if (!a)
		return 0;
	v->got = 1;
	memset(page_address(a), 0x5a, PAGE_SIZE);
	page_pool_put_full_page(cb.pool, a, false);
	while (n < 128 && !v->distinct) {
		struct page *b = page_pool_alloc_pages(cb.pool, GFP_KERNEL);

		if (!b)
			break;
		cb.objs[n++] = b;
		v->distinct = b == a;
	}
	for (i = 0; i < n; i++)
		page_pool_put_full_page(cb.pool, cb.objs[i], false);
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}

/* The function once, on the caller's bytes; the result goes back for
 * user space to judge.  The destination has 64 guard bytes each side. */
static int cb_verify(struct cb_kmod_verify *v)
{
	u8 *s, *d;

	if (!cb.cache || v->func >= CB_KF_NFUNC || v->align >= 64 || v->nobj > CB_KMOD_MAX_BULK ||
	    (u64)v->size + 192 > cb.max_size + 4096)
		return -EINVAL;
	s = cb.src + v->align;
	d = cb.dst + v->align;
	if (v->func == CB_KF_SLAB || v->func == CB_KF_SLAB_BULK) {
		cb_verify_slab(v);
		return 0;
	}
	if (v->func == CB_KF_PAGE_POOL)
		return cb_verify_pool(v);
	if (v->func == CB_KF_FPU_FIRST || v->func == CB_KF_FPU_BATCH) {
		v->fpu_before = cb_fpu_saved_flag();
		cb_fpu_begin();
		v->fpu_after = cb_fpu_saved_flag();
		cb_fpu_end();
		return 0;
	}
	if (copy_from_user(s, u64_to_user_ptr(v->in), v->size))
		return -EFAULT;
	memset(d, 0xa5, (size_t)v->size + 128);
	switch (v->func) {
	case CB_KF_CSUM:
		v->sum = (__force u32)csum_partial(s, v->size, 0);
		return 0;
	case CB_KF_CSUM_COPY:
		v->sum = (__force u32)csum_partial_copy_nocheck(s, d + 64, v->size);
		break;
	case CB_KF_MEMCPY:
		memcpy(d + 64, s, v->size);
		break;
	case CB_KF_MEMSET:
		memset(d + 64, 0x5a, v->size);
		break;
	default:
		return -EINVAL;
	}
	if (copy_to_user(u64_to_user_ptr(v->out), d, (size_t)v->size + 128))
		return -EFAULT;
	return 0;
}

static void cb_info(struct cb_kmod_info *in)
{
	int cpu = raw_smp_processor_id();

	memset(in, 0, sizeof(*in));
	in->abi = CB_KMOD_ABI;
	in->fpu_api = IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64);
	cb_pmu_on(cpu);
	in->pmu_err = cb.ev ? 0 : cb.ev_err;
	in->obj_size = cb.obj_size;
	strscpy(in->release, init_utsname()->release, sizeof(in->release));
	strscpy(in->built_for, UTS_RELEASE, sizeof(in->built_for));
	strscpy(in->src_sha256, CB_KMOD_SRC_SHA, sizeof(in->src_sha256));
	strscpy(in->config_sha256, CB_KMOD_CFG_SHA, sizeof(in->config_sha256));
#if defined(CONFIG_X86_64)
	strscpy(in->arch, "x86_64", sizeof(in->arch));
#elif defined(CONFIG_ARM64)
	strscpy(in->arch, "aarch64", sizeof(in->arch));
#else
	strscpy(in->arch, "other", sizeof(in->arch));
#endif
	in->page_pool = CB_HAVE_PAGE_POOL;
}

static long cb_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *up = (void __user *)arg;
	union {
		struct cb_kmod_info info;
		struct cb_kmod_setup setup;
		struct cb_kmod_verify verify;
		struct cb_kmod_batch batch;
	} u;
	long rc = 0;

	if (_IOC_SIZE(cmd) > sizeof(u))
		return -ENOTTY;
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&u, up, _IOC_SIZE(cmd)))
		return -EFAULT;
	mutex_lock(&cb.lock);
	switch (cmd) {
	case CB_KMOD_IOC_INFO:
		cb_info(&u.info);
		break;
	case CB_KMOD_IOC_SETUP:
		rc = cb_setup(&u.setup);
		break;
	case CB_KMOD_IOC_VERIFY:
		rc = cb_verify(&u.verify);
		break;
	case CB_KMOD_IOC_BATCH:
		rc = cb_batch(&u.batch);
		break;
	default:
		rc = -ENOTTY;
	}
	mutex_unlock(&cb.lock);
	if (rc == 0 && (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(up, &u, _IOC_SIZE(cmd)))
		rc = -EFAULT;
	return rc;
}

static const struct file_operations cb_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = cb_ioctl,
};

static struct miscdevice cb_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = CB_KMOD_DEVNAME,
	.fops = &cb_fops,
	.mode = 0600,
};

static int __init cb_init(void)
{
	mutex_init(&cb.lock);
	cb.ev_cpu = -1;
	cb.ev_err = -ENODEV;
	return misc_register(&cb_dev);
}

static void __exit cb_exit(void)
{
	misc_deregister(&cb_dev);
	mutex_lock(&cb.lock);
	cb_free_buffers();
	mutex_unlock(&cb.lock);
}

module_init(cb_init);
module_exit(cb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cyclebudget: times the kernel's own csum, copy, slab and FPU calls");
