-- 0017_emulated.sql (PostgreSQL) — the twin of db/0017_emulated.sql: why a
-- run counts as emulated, NULL when native; read that file for its meaning.
--
-- Where the dialects differ, and why: nowhere.
ALTER TABLE runs ADD COLUMN emulated text CHECK (emulated IS NULL OR length(emulated) > 0);
