-- 0025_bpf.sql (PostgreSQL) — the twin of db/0025_bpf.sql: runs.source may be
-- 'bpf', a run timed through BPF_PROG_TEST_RUN; read that file for its
-- meaning.
--
-- Where the dialects differ, and why: the CHECK is dropped and added again
-- by its name (PostgreSQL names a column's CHECK table_column_check), where
-- SQLite rewrites the table's SQL.
ALTER TABLE runs DROP CONSTRAINT runs_source_check;
ALTER TABLE runs ADD CONSTRAINT runs_source_check
    CHECK (source IS NULL OR source IN ('in-kernel', 'bpf'));
CREATE INDEX runs_source ON runs (source);
