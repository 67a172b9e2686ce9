-- 0012_lean_samples.sql (PostgreSQL) — the twin of db/0012_lean_samples.sql:
-- the second index of every sample row, by its event, is dropped (read that
-- file for why).  No difference between the dialects.
DROP INDEX IF EXISTS samples_event;
