-- 0019_inkernel.sql (PostgreSQL) — the twin of db/0019_inkernel.sql: runs.source,
-- 'in-kernel' for a run timed by the kernel module, NULL for a user-space run;
-- read that file for its meaning.
--
-- Where the dialects differ, and why: nowhere.
ALTER TABLE runs ADD COLUMN source text CHECK (source IS NULL OR source IN ('in-kernel'));
