-- 0006_rounds.sql (PostgreSQL) — the twin of db/0006_rounds.sql: which round
-- of its case each sample was taken in; read that file for what it means.
-- The only difference: INTEGER is bigint, as SQLite's integers are 64-bit.
ALTER TABLE samples ADD COLUMN round bigint CHECK (round IS NULL OR round >= 0);
