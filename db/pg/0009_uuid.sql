-- 0009_uuid.sql (PostgreSQL) — the twin of db/0009_uuid.sql: runs.uuid, a
-- run's identity beyond one store (merge); read that file for its meaning.
--
-- Where the dialects differ, and why: PostgreSQL (13 and later) draws a
-- version 4 UUID itself (gen_random_uuid()) and a column may have an
-- expression default, so the trigger SQLite needs for runs inserted without
-- one is a DEFAULT here; the CHECK is a regular expression instead of GLOB.
ALTER TABLE runs ADD COLUMN uuid text DEFAULT gen_random_uuid()::text
    CHECK (uuid IS NULL OR uuid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$');

UPDATE runs SET uuid = gen_random_uuid()::text WHERE uuid IS NULL;

CREATE UNIQUE INDEX runs_uuid ON runs (uuid);
