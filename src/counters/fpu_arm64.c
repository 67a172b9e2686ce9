/* fpu_arm64.c — the cost of kernel_neon_begin()/kernel_neon_end() on arm64
 * (fpu.h), modelled in user space.
 *
 * A first kernel_neon_begin() in a kernel entry saves the task's FPSIMD
 * state, fpsimd_save_state() in arch/arm64/kernel/entry-fpsimd.S: the 32
 * 128-bit V registers as 16 `stp q` pairs, then FPSR and FPCR (mrs, str),
 * 520 of struct user_fpsimd_state's 528 bytes, and marks it foreign
 * (TIF_FOREIGN_FPSTATE); the return to user space loads it back
 * (fpsimd_load_state: `ldp q` pairs, FPSR, and FPCR only when it changed,
 * since an msr to FPCR may synchronise the pipeline).  A later use in the
 * same entry finds the state already saved and runs nothing that touches
 * the registers, so its figure is the empty timing's: about 0.  SVE state
 * is left out: Linux discards a task's SVE state at every syscall, so a
 * kernel entry by syscall saves only the FPSIMD part (an interrupt taken
 * while SVE is live would save more).  Same buffers and medians as the
 * x86 model: dirty registers loaded from one buffer, saved to another. */
#include "counters/fpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters/tsc.h"
#include "util/sort.h"

#define TRIALS 101
#define STATE_BYTES 528 /* sizeof(struct user_fpsimd_state) */

enum what { W_EMPTY, W_SAVE, W_RESTORE, W_FIRST, W_LATER };

#define VREGS                                                                                   \
    "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",    \
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25",    \
        "v26", "v27", "v28", "v29", "v30", "v31"

/* fpsimd_save_state: q0-q31, then FPSR at 512 and FPCR at 516. */
static inline void neon_save(void *buf)
{
    __asm__ __volatile__("stp q0, q1, [%0, #0]\n\tstp q2, q3, [%0, #32]\n\t"
                         "stp q4, q5, [%0, #64]\n\tstp q6, q7, [%0, #96]\n\t"
                         "stp q8, q9, [%0, #128]\n\tstp q10, q11, [%0, #160]\n\t"
                         "stp q12, q13, [%0, #192]\n\tstp q14, q15, [%0, #224]\n\t"
                         "stp q16, q17, [%0, #256]\n\tstp q18, q19, [%0, #288]\n\t"
                         "stp q20, q21, [%0, #320]\n\tstp q22, q23, [%0, #352]\n\t"
                         "stp q24, q25, [%0, #384]\n\tstp q26, q27, [%0, #416]\n\t"
                         "stp q28, q29, [%0, #448]\n\tstp q30, q31, [%0, #480]\n\t"
                         "mrs x9, fpsr\n\tstr w9, [%0, #512]\n\t"
                         "mrs x9, fpcr\n\tstr w9, [%0, #516]"
                         :
                         : "r"(buf)
                         : "x9", "memory");
}

/* fpsimd_load_state: the registers, FPSR, and FPCR only when it differs. */
static inline void neon_load(const void *buf)
{
    __asm__ __volatile__("ldp q0, q1, [%0, #0]\n\tldp q2, q3, [%0, #32]\n\t"
                         "ldp q4, q5, [%0, #64]\n\tldp q6, q7, [%0, #96]\n\t"
                         "ldp q8, q9, [%0, #128]\n\tldp q10, q11, [%0, #160]\n\t"
                         "ldp q12, q13, [%0, #192]\n\tldp q14, q15, [%0, #224]\n\t"
                         "ldp q16, q17, [%0, #256]\n\tldp q18, q19, [%0, #288]\n\t"
                         "ldp q20, q21, [%0, #320]\n\tldp q22, q23, [%0, #352]\n\t"
                         "ldp q24, q25, [%0, #384]\n\tldp q26, q27, [%0, #416]\n\t"
                         "ldp q28, q29, [%0, #448]\n\tldp q30, q31, [%0, #480]\n\t"
                         "ldr w9, [%0, #512]\n\tmsr fpsr, x9\n\t"
                         "ldr w9, [%0, #516]\n\tmrs x10, fpcr\n\t"
                         "cmp x9, x10\n\tb.eq 1f\n\tmsr fpcr, x9\n"
                         "1:"
                         :
                         : "r"(buf)
                         : "x9", "x10", "cc", "memory", VREGS);
}

/* Operations per timed trial.  A save takes tens of ns and a CNTVCT tick
 * is 16-40 ns, so one operation would time as 0 or 1 tick: a trial repeats
 * it REPS times (about 1000 ticks or more, cb_min_batch_ticks's 0.1%) and
 * reports ticks per operation.  Nothing here elides a repeated save (no
 * XSAVEOPT-style tracking), so the repeats cost what the first does. */
#define REPS 1000

/* One trial: ticks per operation (with the loop's and the timing's own
 * overhead, removed by the empty trial); the registers are dirty from
 * another buffer first, as a user task's are at kernel entry. */
static __attribute__((noinline)) double trial(unsigned char *dirty, unsigned char *save,
                                              enum what w)
{
    neon_load(dirty);
    if (w == W_RESTORE)
        neon_save(save);
    uint64_t t0 = cb_tsc_begin();
    for (int i = 0; i < REPS; i++) {
        switch (w) {
        case W_SAVE:
            neon_save(save);
            break;
        case W_RESTORE:
            neon_load(save);
            break;
        case W_FIRST:
            neon_save(save);
            neon_load(save);
            break;
        case W_LATER: /* the state is already saved: nothing to do */
        case W_EMPTY:
            __asm__ __volatile__("" ::: "memory");
            break;
        }
    }
    return (double)(cb_tsc_end() - t0) / REPS;
}

static double median_of(unsigned char *dirty, unsigned char *save, enum what w)
{
    double v[TRIALS];
    for (int i = 0; i < TRIALS; i++)
        v[i] = trial(dirty, save, w);
    cb_sort_doubles(v, (size_t)TRIALS);
    return v[TRIALS / 2];
}

int cb_fpu_measure(struct cb_fpu_cost *out)
{
    memset(out, 0, sizeof *out);
    strcpy(out->source, "measured");
    unsigned char *mem = aligned_alloc(64, 3 * 576);
    if (!mem)
        return -ENOMEM;
    unsigned char *dirty = mem, *save = mem + 576, *orig = mem + 2 * 576;
    memset(mem, 0, 3 * 576);
    neon_save(orig);
    /* This process's FPSR/FPCR with random vector registers. */
    memcpy(dirty, orig, STATE_BYTES);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned j = 0; j < 512; j++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        dirty[j] = (unsigned char)x;
    }
    out->state_bytes = STATE_BYTES;
    strcpy(out->save_insn, "stp q");
    double empty = median_of(dirty, save, W_EMPTY);
    out->save_ticks = median_of(dirty, save, W_SAVE) - empty;
    out->restore_ticks = median_of(dirty, save, W_RESTORE) - empty;
    out->first_ticks = median_of(dirty, save, W_FIRST) - empty;
    out->later_ticks = median_of(dirty, save, W_LATER) - empty;
    neon_load(orig);
    free(mem);
    out->supported = 1;
    return 0;
}
