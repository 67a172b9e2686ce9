-- 0015_fpu.sql (PostgreSQL) — the twin of db/0015_fpu.sql: the cost of
-- kernel_fpu_begin()/end() with the calibration; read that file for the
-- columns' meaning.
--
-- Where the dialects differ, and why: INTEGER is bigint, REAL is double
-- precision (PostgreSQL's REAL is 4 bytes).
ALTER TABLE calibrations ADD COLUMN fpu_state_bytes bigint;
ALTER TABLE calibrations ADD COLUMN fpu_xcr0 bigint;
ALTER TABLE calibrations ADD COLUMN fpu_save_insn text;
ALTER TABLE calibrations ADD COLUMN fpu_first_ticks double precision;
ALTER TABLE calibrations ADD COLUMN fpu_later_ticks double precision;
ALTER TABLE calibrations ADD COLUMN fpu_save_ticks double precision;
ALTER TABLE calibrations ADD COLUMN fpu_restore_ticks double precision;
