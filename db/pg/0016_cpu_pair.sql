-- 0016_cpu_pair.sql (PostgreSQL) — the twin of db/0016_cpu_pair.sql: the two
-- CPUs of a cross-CPU case; read that file for the column's meaning.
--
-- Where the dialects differ, and why: nowhere.
ALTER TABLE cases ADD COLUMN cpu_pair text;
