/* ceilings_x86.c — the ceiling loops of x86-64 (see ceilings.h): vector and
 * scalar loads and stores, the add-with-carry chains, rep movsb and stosb.
 * ceilings.c times them. */
#define _GNU_SOURCE
#include "counters/ceilings.h"

#include <immintrin.h>
#include <string.h>

#include "host/cpu.h"

/* ---- the loops ----------------------------------------------------------- */

/* Each loop moves n bytes (a multiple of 512) from or to p.  The load
 * loops return the XOR of what their registers hold at the end (the last
 * step's words), the carry chains their sums; stores return 0. */

/* Loads into registers and nothing else, in asm: the load ports are the
 * ceiling, so no add may share their cycles (a loop that summed what it
 * loaded reached only 70% of likwid-bench's load_avx512 on this project's
 * VM, limited by the adds), and the compiler may neither drop nor merge
 * loads whose values are unused.  Eight per step, 512 bytes for AVX-512. */
#define LOAD8(INSN, W, R)                                                     \
    INSN " 0*" #W "(%[p]), %%" R "0\n\t" INSN " 1*" #W "(%[p]), %%" R "1\n\t" \
    INSN " 2*" #W "(%[p]), %%" R "2\n\t" INSN " 3*" #W "(%[p]), %%" R "3\n\t" \
    INSN " 4*" #W "(%[p]), %%" R "4\n\t" INSN " 5*" #W "(%[p]), %%" R "5\n\t" \
    INSN " 6*" #W "(%[p]), %%" R "6\n\t" INSN " 7*" #W "(%[p]), %%" R "7\n\t"
/* After the loop, one fold: the XOR of the 64-bit words the eight
 * registers hold, i.e. of the last 8*W bytes, so that a test can see the
 * loop read the right memory to its end (the loads stay the limit: the
 * fold runs once a pass). */
#define XOR8(X, R)                                                            \
    X " %%" R "1, %%" R "0, %%" R "0\n\t" X " %%" R "3, %%" R "2, %%" R "2\n\t" \
    X " %%" R "5, %%" R "4, %%" R "4\n\t" X " %%" R "7, %%" R "6, %%" R "6\n\t" \
    X " %%" R "2, %%" R "0, %%" R "0\n\t" X " %%" R "6, %%" R "4, %%" R "4\n\t" \
    X " %%" R "4, %%" R "0, %%" R "0\n\t"
#define FOLD_XMM0_VEX                                                         \
    "vmovq %%xmm0, %[r]\n\t"                                                  \
    "vpshufd $0x4e, %%xmm0, %%xmm1\n\t"                                       \
    "vmovq %%xmm1, %[t]\n\t"                                                  \
    "xorq %[t], %[r]"
#define FOLD_AVX512                                                           \
    XOR8("vpxorq", "zmm")                                                     \
    "vextracti64x4 $1, %%zmm0, %%ymm1\n\t"                                    \
    "vpxor %%ymm1, %%ymm0, %%ymm0\n\t"                                        \
    "vextracti128 $1, %%ymm0, %%xmm1\n\t"                                     \
    "vpxor %%xmm1, %%xmm0, %%xmm0\n\t" FOLD_XMM0_VEX
#define FOLD_AVX2                                                             \
    XOR8("vpxor", "ymm")                                                      \
    "vextracti128 $1, %%ymm0, %%xmm1\n\t"                                     \
    "vpxor %%xmm1, %%xmm0, %%xmm0\n\t" FOLD_XMM0_VEX
/* SSE2 has no three-operand pxor: the same pairs, two operands. */
#define FOLD_SSE2                                                             \
    "pxor %%xmm1, %%xmm0\n\tpxor %%xmm3, %%xmm2\n\t"                          \
    "pxor %%xmm5, %%xmm4\n\tpxor %%xmm7, %%xmm6\n\t"                          \
    "pxor %%xmm2, %%xmm0\n\tpxor %%xmm6, %%xmm4\n\t"                          \
    "pxor %%xmm4, %%xmm0\n\t"                                                 \
    "movq %%xmm0, %[r]\n\t"                                                   \
    "pshufd $0x4e, %%xmm0, %%xmm1\n\t"                                        \
    "movq %%xmm1, %[t]\n\t"                                                   \
    "xorq %[t], %[r]"
#define LOAD_ASM(INSN, W, R, FOLD)                                            \
    const char *p = buf, *end = p + n;                                        \
    uint64_t r, t;                                                            \
    __asm__ volatile("1:\n\t" LOAD8(INSN, W, R)                              \
                     "addq $8*" #W ", %[p]\n\t"                              \
                     "cmpq %[e], %[p]\n\t"                                   \
                     "jne 1b\n\t" FOLD                                        \
                     : [p] "+r"(p), [r] "=r"(r), [t] "=&r"(t)                 \
                     : [e] "r"(end)                                           \
                     : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", \
                       "xmm5", "xmm6", "xmm7");                               \
    return r

__attribute__((target("avx512f"))) static uint64_t load_avx512(void *buf, size_t n)
{
    LOAD_ASM("vmovdqa64", 64, "zmm", FOLD_AVX512);
}

/* 256 and 128 bytes a step: every set is a multiple of 4 KiB. */
__attribute__((target("avx2"))) static uint64_t load_avx2(void *buf, size_t n)
{
    LOAD_ASM("vmovdqa", 32, "ymm", FOLD_AVX2);
}

static uint64_t load_sse2(void *buf, size_t n)
{
    LOAD_ASM("movdqa", 16, "xmm", FOLD_SSE2);
}

/* Scalar 64-bit loads into four registers, as the vector loops do. */
static uint64_t load_scalar(void *buf, size_t n)
{
    const char *p = buf, *end = p + n;
    uint64_t a, b, c, d;
    __asm__ volatile("1:\n\t"
                     "movq 0(%[p]), %[a]\n\t"
                     "movq 8(%[p]), %[b]\n\t"
                     "movq 16(%[p]), %[c]\n\t"
                     "movq 24(%[p]), %[d]\n\t"
                     "movq 32(%[p]), %[a]\n\t"
                     "movq 40(%[p]), %[b]\n\t"
                     "movq 48(%[p]), %[c]\n\t"
                     "movq 56(%[p]), %[d]\n\t"
                     "addq $64, %[p]\n\t"
                     "cmpq %[e], %[p]\n\t"
                     "jne 1b"
                     : [p] "+r"(p), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d)
                     : [e] "r"(end)
                     : "cc", "memory");
    return a ^ b ^ c ^ d;
}

#define STORE8(STORE, W)                                                      \
    STORE((void *)(p + i + 0 * (W)), v); STORE((void *)(p + i + 1 * (W)), v);  \
    STORE((void *)(p + i + 2 * (W)), v); STORE((void *)(p + i + 3 * (W)), v);  \
    STORE((void *)(p + i + 4 * (W)), v); STORE((void *)(p + i + 5 * (W)), v);  \
    STORE((void *)(p + i + 6 * (W)), v); STORE((void *)(p + i + 7 * (W)), v)

__attribute__((target("avx512f"))) static uint64_t store_avx512(void *buf, size_t n)
{
    char *p = buf;
    __m512i v = _mm512_set1_epi64((long long)n);
    /* Opaque, so that the loop cannot be turned into a call of memset. */
    __asm__("" : "+v"(v));
    for (size_t i = 0; i < n; i += 512) {
        STORE8(_mm512_store_si512, 64);
    }
    return 0;
}

__attribute__((target("avx2"))) static uint64_t store_avx2(void *buf, size_t n)
{
    char *p = buf;
    __m256i v = _mm256_set1_epi64x((long long)n);
    __asm__("" : "+x"(v));
    for (size_t i = 0; i < n; i += 256) {
        STORE8(_mm256_store_si256, 32);
    }
    return 0;
}

static uint64_t store_sse2(void *buf, size_t n)
{
    char *p = buf;
    __m128i v = _mm_set1_epi64x((long long)n);
    __asm__("" : "+x"(v));
    for (size_t i = 0; i < n; i += 128) {
        STORE8(_mm_store_si128, 16);
    }
    return 0;
}

static uint64_t store_scalar(void *buf, size_t n)
{
    char *p = buf, *end = p + n;
    uint64_t v = n;
    __asm__ volatile("1:\n\t"
                     "movq %[v], 0(%[p])\n\t"
                     "movq %[v], 8(%[p])\n\t"
                     "movq %[v], 16(%[p])\n\t"
                     "movq %[v], 24(%[p])\n\t"
                     "movq %[v], 32(%[p])\n\t"
                     "movq %[v], 40(%[p])\n\t"
                     "movq %[v], 48(%[p])\n\t"
                     "movq %[v], 56(%[p])\n\t"
                     "addq $64, %[p]\n\t"
                     "cmpq %[e], %[p]\n\t"
                     "jne 1b"
                     : [p] "+r"(p)
                     : [e] "r"(end), [v] "r"(v)
                     : "cc", "memory");
    return 0;
}

/* One add-with-carry chain: every adcq waits for the previous one's carry.
 * decq leaves CF alone, so the chain runs on across steps. */
static uint64_t adc_1chain(void *buf, size_t n)
{
    const char *p = buf;
    uint64_t a = 0;
    size_t k = n / 64;
    __asm__("clc\n\t"
            "1:\n\t"
            "adcq 0(%[p]), %[a]\n\t"
            "adcq 8(%[p]), %[a]\n\t"
            "adcq 16(%[p]), %[a]\n\t"
            "adcq 24(%[p]), %[a]\n\t"
            "adcq 32(%[p]), %[a]\n\t"
            "adcq 40(%[p]), %[a]\n\t"
            "adcq 48(%[p]), %[a]\n\t"
            "adcq 56(%[p]), %[a]\n\t"
            "leaq 64(%[p]), %[p]\n\t"
            "decq %[k]\n\t"
            "jnz 1b\n\t"
            "adcq $0, %[a]"
            : [a] "+r"(a), [p] "+r"(p), [k] "+r"(k)
            :
            : "cc", "memory");
    return a;
}

#define ADX8(off)                                                             \
    "adcxq " #off "+0(%[p]), %[a]\n\t"                                       \
    "adoxq " #off "+8(%[p]), %[b]\n\t"                                       \
    "adcxq " #off "+16(%[p]), %[a]\n\t"                                      \
    "adoxq " #off "+24(%[p]), %[b]\n\t"                                      \
    "adcxq " #off "+32(%[p]), %[a]\n\t"                                      \
    "adoxq " #off "+40(%[p]), %[b]\n\t"                                      \
    "adcxq " #off "+48(%[p]), %[a]\n\t"                                      \
    "adoxq " #off "+56(%[p]), %[b]\n\t"

/* Two independent carry chains: adcx carries through CF only and adox
 * through OF only.  decq would clobber OF, so each 256-byte step starts by
 * clearing both flags and ends by adding them back in. */
__attribute__((target("adx"))) static uint64_t adc_2chain(void *buf, size_t n)
{
    const char *p = buf;
    uint64_t a = 0, b = 0, z = 0;
    size_t k = n / 256;
    __asm__("1:\n\t"
            "xorl %k[z], %k[z]\n\t"
            ADX8(0) ADX8(64) ADX8(128) ADX8(192)
            "adcxq %[z], %[a]\n\t"
            "adoxq %[z], %[b]\n\t"
            "leaq 256(%[p]), %[p]\n\t"
            "decq %[k]\n\t"
            "jnz 1b"
            : [a] "+r"(a), [b] "+r"(b), [p] "+r"(p), [k] "+r"(k), [z] "+r"(z)
            :
            : "cc", "memory");
    return a + b;
}

/* rep movsb of the first half of the set into the second. */
static uint64_t rep_movsb(void *buf, size_t n)
{
    void *d = (char *)buf + n / 2;
    const void *s = buf;
    size_t c = n / 2;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
    return 0;
}

static uint64_t rep_stosb(void *buf, size_t n)
{
    void *d = buf;
    size_t c = n;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0x5a) : "memory");
    return 0;
}

const char *cb_ceil_widest_isa(void)
{
    unsigned f = cb_cpu_features();
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && (f & CB_CPU_AVX512F))
        return "avx512";
    if (__builtin_cpu_supports("avx2") && (f & CB_CPU_AVX2))
        return "avx2";
    return "sse2";
}

cb_ceil_fn cb_ceil_load_fn(const char *isa)
{
    return strcmp(isa, "avx512") == 0 ? load_avx512
           : strcmp(isa, "avx2") == 0 ? load_avx2
           : strcmp(isa, "sse2") == 0 ? load_sse2
                                      : load_scalar;
}

static cb_ceil_fn store_loop(const char *isa)
{
    return strcmp(isa, "avx512") == 0 ? store_avx512
           : strcmp(isa, "avx2") == 0 ? store_avx2
           : strcmp(isa, "sse2") == 0 ? store_sse2
                                      : store_scalar;
}

size_t cb_ceil_loops(struct cb_ceil_loop *out, size_t max)
{
    const char *vec = cb_ceil_widest_isa();
    int adx = (cb_cpu_features() & CB_CPU_ADX) != 0;
    const struct cb_ceil_loop all[] = {
        {"load", vec, cb_ceil_load_fn(vec), CB_CEIL_LEVELS_ALL, 0},
        {"load", "scalar", load_scalar, CB_CEIL_LEVELS_ALL, 0},
        {"store", vec, store_loop(vec), CB_CEIL_LEVELS_ALL, 0},
        {"store", "scalar", store_scalar, CB_CEIL_LEVELS_ALL, 0},
        {"adc", "scalar", adc_1chain, 1u << CB_L1, 0},
        {"adcx2", "scalar", adc_2chain, adx ? 1u << CB_L1 : 0, 0},
        {"movsb", "scalar", rep_movsb, CB_CEIL_LEVELS_CACHED, 1},
        {"stosb", "scalar", rep_stosb, CB_CEIL_LEVELS_CACHED, 0},
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0] && n < max; i++)
        if (all[i].levels)
            out[n++] = all[i];
    return n;
}
