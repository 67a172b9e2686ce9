/* kflags/slub_model.c — the SLUB model (slub.c) built a second time with the
 * kernel's code generation (kflags.h), under names of its own, and the slab
 * family's single alloc+free loops on it: "single+kflags".  The cache
 * structure is the same, so a cache made by cb_slub_create is driven by
 * these functions and checked by cb_slub_check as ever. */
/* The arm64 kernel's pac-ret+leaf+bti on every function here, as on the
 * calls family's kflags loops (kflags/calls.c says why). */
#if defined(__aarch64__)
#pragma GCC target("branch-protection=pac-ret+leaf+bti")
#endif
#define cb_slub_create cb_slub_create_kflags
#define cb_slub_destroy cb_slub_destroy_kflags
#define cb_slub_alloc cb_slub_alloc_kflags
#define cb_slub_alloc_bulk cb_slub_alloc_bulk_kflags
#define cb_slub_free cb_slub_free_kflags
#define cb_slub_free_bulk cb_slub_free_bulk_kflags
#define cb_slub_locate cb_slub_locate_kflags
#define cb_slub_check cb_slub_check_kflags
#include "probes/slub.c"

#include "probes/kflags/kflags.h"

/* slab.c's touch(): the object is written and observed. */
static inline void kf_touch(void *p, uint64_t v, uint64_t *acc)
{
    *(uint64_t *)p = v;
    *acc += (uintptr_t)p;
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

void cb_slab_single_kflags(struct cb_slub_cache *c, uint64_t iters, uint64_t *acc)
{
    for (uint64_t i = 0; i < iters; i++) {
        void *p = cb_slub_alloc_kflags(c);
        kf_touch(p, i, acc);
        cb_slub_free_kflags(c, p);
    }
}

void cb_slab_replace_kflags(struct cb_slub_cache *c, void **slot, size_t k, uint64_t *acc)
{
    for (size_t j = 0; j < k; j++) {
        cb_slub_free_kflags(c, slot[j]);
        slot[j] = cb_slub_alloc_kflags(c);
        kf_touch(slot[j], j, acc);
    }
}
