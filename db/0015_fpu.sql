-- 0015_fpu.sql — what kernel_fpu_begin()/end() cost on the host (issue 35),
-- stored with the calibration, beside the ceilings: reports charge it to the
-- SIMD variants a kernel would have to bracket with them.
--
-- fpu_state_bytes: the XSAVE area of the saved components (CPUID leaf 0xD);
-- fpu_xcr0: the enabled components (XGETBV 0; AMX is left out of the save);
-- fpu_save_insn: 'xsavec', 'xsaveopt' or 'xsave', the user-mode stand-in for
--   the kernel's XSAVES;
-- fpu_first_ticks: a first use in a kernel entry (save of dirty state,
--   fninit + ldmxcsr, and the XRSTOR the exit to user space runs);
-- fpu_later_ticks: a later use in the same entry (fninit + ldmxcsr only);
-- fpu_save_ticks, fpu_restore_ticks: the two halves.  All TSC ticks.
-- NULL everywhere: not measured (a calibration from before this migration,
-- or a CPU without XSAVE).
ALTER TABLE calibrations ADD COLUMN fpu_state_bytes INTEGER;
ALTER TABLE calibrations ADD COLUMN fpu_xcr0 INTEGER;
ALTER TABLE calibrations ADD COLUMN fpu_save_insn TEXT;
ALTER TABLE calibrations ADD COLUMN fpu_first_ticks REAL;
ALTER TABLE calibrations ADD COLUMN fpu_later_ticks REAL;
ALTER TABLE calibrations ADD COLUMN fpu_save_ticks REAL;
ALTER TABLE calibrations ADD COLUMN fpu_restore_ticks REAL;
