/* fpu.h — what kernel_fpu_begin()/kernel_fpu_end() cost on this CPU, so
 * that reports can charge it to the SIMD variants a kernel would run
 * between them ("SIMD instructions seem even faster but the
 * kernel_fpu_begin/end() kill all the benefits", 2016 TXDP thread).
 *
 * First use in a kernel entry: kernel_fpu_begin() saves the user's extended
 * state (XSAVES of every enabled component) and sets TIF_NEED_FPU_LOAD; the
 * return to user space restores it (XRSTORS).  Measured here as the user-mode
 * equivalent: XSAVEC (else XSAVEOPT, else XSAVE) of dirty state into a
 * 64-byte aligned buffer of CPUID leaf 0xD's size for XCR0, then XRSTOR of
 * it, then FNINIT + LDMXCSR (what kernel_fpu_begin() itself runs).
 * A later use in the same entry: TIF_NEED_FPU_LOAD is already set, so no
 * save: FNINIT + LDMXCSR only.  AMX tile state (XCR0 bits 17-18) is left out
 * of the saved set: using it needs arch_prctl permission, and a kernel
 * never saves it for a task that has not asked.  All figures in TSC ticks,
 * medians of many trials less the empty timing's median.
 *
 * arm64 (fpu_arm64.c): kernel_neon_begin()'s save of the FPSIMD state,
 * v0-v31 and FPSR/FPCR (528 bytes, `stp q` pairs as fpsimd_save_state
 * does), and its load on the return to user space; a later use saves
 * nothing.  xcr0 and saved_mask are 0 there, save_insn "stp q", figures
 * in CNTVCT ticks. */
#ifndef CB_FPU_H
#define CB_FPU_H

#include <stdint.h>

#define CB_FPU_BATCH_DEFAULT 16

struct cb_fpu_cost {
    int supported;        /* 0: no XSAVE here (or neither x86-64 nor arm64): nothing measured */
    uint64_t xcr0;        /* the enabled components (XGETBV 0) */
    uint64_t saved_mask;  /* those saved: xcr0 less AMX */
    uint32_t state_bytes; /* CPUID.(0xD,0).EBX: the XSAVE area for xcr0 */
    char save_insn[12];   /* "xsavec", "xsaveopt", "xsave"; arm64 "stp q" */
    char source[12];      /* "measured", "model" (fixed figures for tests) */
    double first_ticks;   /* save + restore + fninit/ldmxcsr: a first use */
    double later_ticks;   /* fninit/ldmxcsr: a later use in the same entry */
    double save_ticks;    /* the save alone (dirty state) */
    double restore_ticks; /* the XRSTOR alone (exit to user) */
};

/* Measure on this CPU (pin first).  0, or -ENOTSUP with out->supported 0
 * (no XSAVE, or OSXSAVE off). */
int cb_fpu_measure(struct cb_fpu_cost *out);
/* Fixed figures for tests (CB_CEILINGS=model): an AVX-512 host's 2688-byte
 * state, first use 600 ticks, later 40. */
void cb_fpu_model(struct cb_fpu_cost *out);

/* Per call, in the caller's units (ticks scaled by ratio: core cycles per
 * TSC tick, or 1): the first-use charge, and the charge amortised over a
 * batch of n calls in one kernel entry (first + (n-1) * later) / n. */
double cb_fpu_first(const struct cb_fpu_cost *f, double ratio);
double cb_fpu_batched(const struct cb_fpu_cost *f, double ratio, int n);

#endif
