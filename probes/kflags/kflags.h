/* kflags.h — models of kernel code built a second time with the x86-64
 * kernel's code generation: the objects in probes/kflags/ are
 * compiled with KERNEL_CFLAGS (configure: -mno-sse -mno-mmx -mno-sse2
 * -mno-avx -mno-red-zone, retpoline and return thunks, as far as the
 * compiler accepts them in user space), and their variants carry the suffix
 * "+kflags".  Nothing with a float may be declared here: those objects have
 * no SSE registers to pass one in.  On arm64 the flags are the arm64
 * kernel's -mgeneral-regs-only (no FP/SIMD registers either), and the calls
 * loops add its pac-ret+leaf+bti (kflags/calls.c). */
#ifndef CB_KFLAGS_H
#define CB_KFLAGS_H

#include <stddef.h>
#include <stdint.h>

/* The flags the "+kflags" objects were built with ("" when none applied:
 * not x86-64, or a compiler that takes none of them). */
extern const char cb_kernel_cflags[];

/* csum kernel-2021 and kernel-2023 (csum_kernel.h), the kernel's way. */
uint32_t cb_csum_kernel_2021_kflags(const void *buf, size_t len, uint32_t sum);
uint32_t cb_csum_kernel_2023_kflags(const void *buf, size_t len, uint32_t sum);

/* memset's fixed-size struct clears (192, 200, 256 bytes): without SSE the
 * compiler clears with general-purpose stores or rep stos, as the kernel's
 * build of the same C does. */
void cb_memset_struct192_kflags(void *dst, int c, size_t n);
void cb_memset_struct200_kflags(void *dst, int c, size_t n);
void cb_memset_struct256_kflags(void *dst, int c, size_t n);

/* The calls family's thunked loops (calls.h): n calls of a one-instruction
 * function, directly or through a pointer, each returning through the
 * return thunk; the indirect ones through a retpoline. */
uint64_t cb_calls_direct_kflags(uint64_t n, uint64_t x);
uint64_t cb_calls_indirect_kflags(uint64_t n, uint64_t x);

/* The slab family's "single+kflags" (slub.c's model, built the kernel's
 * way): iters alloc+touch+free pairs (warm); free and reallocate each of
 * slot[0..k-1] (cold).  acc gathers the addresses, as slab.c's touch(). */
struct cb_slub_cache;
void cb_slab_single_kflags(struct cb_slub_cache *c, uint64_t iters, uint64_t *acc);
void cb_slab_replace_kflags(struct cb_slub_cache *c, void **slot, size_t k, uint64_t *acc);

#endif
