-- 0024_hoststate.sql (PostgreSQL) — the twin of db/0024_hoststate.sql: the
-- reference readings of each run and calibration, and each run's and
-- case's state; read that file for the columns' meaning.
--
-- Where the dialects differ, and why: INTEGER is bigint, REAL is double
-- precision (PostgreSQL's REAL is 4 bytes).
ALTER TABLE runs ADD COLUMN ref_chain double precision CHECK (ref_chain IS NULL OR ref_chain > 0);
ALTER TABLE runs ADD COLUMN ref_vec double precision CHECK (ref_vec IS NULL OR ref_vec > 0);
ALTER TABLE runs ADD COLUMN ref_load double precision CHECK (ref_load IS NULL OR ref_load > 0);
ALTER TABLE runs ADD COLUMN ref_copy double precision CHECK (ref_copy IS NULL OR ref_copy > 0);
ALTER TABLE runs ADD COLUMN state text CHECK (state IS NULL OR state IN ('quiet', 'slowed'));
ALTER TABLE runs ADD COLUMN state_ratio double precision CHECK (state_ratio IS NULL OR state_ratio > 0);
ALTER TABLE runs ADD COLUMN state_ref text
    CHECK (state_ref IS NULL OR state_ref IN ('chain', 'vec', 'load', 'copy'));
ALTER TABLE runs ADD COLUMN state_n bigint CHECK (state_n IS NULL OR state_n >= 0);
ALTER TABLE runs ADD COLUMN slowed_cases bigint CHECK (slowed_cases IS NULL OR slowed_cases >= 0);
ALTER TABLE runs ADD COLUMN slowed_s double precision CHECK (slowed_s IS NULL OR slowed_s >= 0);
ALTER TABLE cases ADD COLUMN state text CHECK (state IS NULL OR state IN ('quiet', 'slowed'));
ALTER TABLE cases ADD COLUMN state_ratio double precision CHECK (state_ratio IS NULL OR state_ratio > 0);
ALTER TABLE cases ADD COLUMN state_ref text
    CHECK (state_ref IS NULL OR state_ref IN ('chain', 'vec', 'load', 'copy'));
ALTER TABLE cases ADD COLUMN tries bigint CHECK (tries IS NULL OR tries >= 1);
ALTER TABLE calibrations ADD COLUMN ref_cpu bigint;
ALTER TABLE calibrations ADD COLUMN ref_chain double precision CHECK (ref_chain IS NULL OR ref_chain > 0);
ALTER TABLE calibrations ADD COLUMN ref_vec double precision CHECK (ref_vec IS NULL OR ref_vec > 0);
ALTER TABLE calibrations ADD COLUMN ref_load double precision CHECK (ref_load IS NULL OR ref_load > 0);
ALTER TABLE calibrations ADD COLUMN ref_copy double precision CHECK (ref_copy IS NULL OR ref_copy > 0);
-- The quiet figures are read per host and CPU, newest first.
CREATE INDEX runs_host_cpu ON runs (host_id, cpu, id);
