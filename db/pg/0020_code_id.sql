-- 0020_code_id.sql (PostgreSQL) — the twin of db/0020_code_id.sql: the
-- identity of the bytes a run measured, and the same in words; read that
-- file for its meaning.
--
-- Where the dialects differ, and why: nowhere.
ALTER TABLE runs ADD COLUMN code_id text CHECK (code_id IS NULL OR length(code_id) = 64);
ALTER TABLE runs ADD COLUMN code_what text;
CREATE INDEX runs_code_id ON runs (code_id);
