-- 0013_ab_sides.sql (PostgreSQL) — the twin of db/0012_ab_sides.sql: the
-- two sides of an `ab` run; read that file for the columns' meaning.
--
-- Where the dialects differ, and why: nowhere but the type's spelling.
ALTER TABLE cases ADD COLUMN side text CHECK (side IN ('base', 'head'));
ALTER TABLE run_plugins ADD COLUMN side text CHECK (side IN ('base', 'head'));
