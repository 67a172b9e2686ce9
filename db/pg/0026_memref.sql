-- 0026_memref.sql (PostgreSQL) — the twin of db/0026_memref.sql: the memory
-- reference's readings, state_ref 'mem', and calibrate's meter baseline;
-- read that file for the columns' meaning.
--
-- Where the dialects differ, and why: REAL is double precision (PostgreSQL's
-- REAL is 4 bytes); the CHECKs are dropped and added again by their names
-- (PostgreSQL names a column's CHECK table_column_check), where SQLite
-- rewrites the tables' SQL.
ALTER TABLE runs DROP CONSTRAINT runs_state_ref_check;
ALTER TABLE runs ADD CONSTRAINT runs_state_ref_check
    CHECK (state_ref IS NULL OR state_ref IN ('chain', 'vec', 'load', 'copy', 'mem'));
ALTER TABLE cases DROP CONSTRAINT cases_state_ref_check;
ALTER TABLE cases ADD CONSTRAINT cases_state_ref_check
    CHECK (state_ref IS NULL OR state_ref IN ('chain', 'vec', 'load', 'copy', 'mem'));
ALTER TABLE runs ADD COLUMN ref_mem double precision CHECK (ref_mem IS NULL OR ref_mem > 0);
ALTER TABLE calibrations ADD COLUMN ref_mem double precision CHECK (ref_mem IS NULL OR ref_mem > 0);
ALTER TABLE calibrations ADD COLUMN meter_baseline double precision
    CHECK (meter_baseline IS NULL OR meter_baseline > 0);
