/* memcpy_slow.c — glibc's memcpy behind ADDS dependent register adds per
 * call, LD_PRELOAD'd by bench/verdicts.sh as a planted change outside the
 * measured binary (the store sees it in runs.code_id, codeid.h).
 *
 *   cc -O2 -shared -fPIC -DADDS=20 -o slow.so bench/memcpy_slow.c -ldl
 *
 * The chain starts from the last byte the previous call stored and ends as
 * an offset of 0 added to both pointers, so each call's copy waits for its
 * chain and each chain for the previous copy.  A chain that fed nothing
 * (or only the length, which the branch predictor guesses) overlapped the
 * copies: 20 adds read +3% on a 31-tick copy of 1500 bytes, where this
 * reads +89% (Intel Xeon VM).  The adds take their 1 from a register:
 * Golden Cove class cores (this project's Sapphire Rapids guests among
 * them) fold a chain of "add $imm" at rename, six a cycle, and the chain
 * cost 3 ticks instead of 20 cycles (docs/lab-notes.md). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#ifndef ADDS
#define ADDS 20
#endif

static void *(*real_memcpy)(void *, const void *, size_t);

#if !defined(__x86_64__)
#error "memcpy_slow.c: the chain is x86-64 assembly (bench/verdicts.sh skips the preload rows)"
#endif

void *memcpy(void *d, const void *s, size_t n)
{
    if (!real_memcpy)
        real_memcpy = (void *(*)(void *, const void *, size_t))dlsym(RTLD_NEXT, "memcpy");
    if (!n)
        return real_memcpy(d, s, n);
    unsigned long z, one = 1;
    /* "and $0" is no zeroing idiom: it keeps the load's dependency. */
    __asm__ volatile("movzbl -1(%1,%2),%k0\n\tand $0,%0" : "=&r"(z) : "r"(d), "r"(n) : "memory");
    __asm__ volatile("" : "+r"(one));
    for (int i = 0; i < ADDS; i++)
        __asm__ volatile("add %1,%0" : "+r"(z) : "r"(one));
    z -= ADDS;
    return real_memcpy((char *)d + z, (const char *)s + z, n);
}
