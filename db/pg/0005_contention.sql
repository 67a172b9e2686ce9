-- 0005_contention.sql (PostgreSQL) — the twin of db/0005_contention.sql: the
-- contention meter's columns; read that file for what they mean.
-- The only difference: REAL is double precision (PostgreSQL's REAL is float4).
ALTER TABLE cases ADD COLUMN contention double precision
    CHECK (contention IS NULL OR contention > 0);
ALTER TABLE cases ADD COLUMN contended_share double precision
    CHECK (contended_share IS NULL OR (contended_share >= 0 AND contended_share <= 1));
ALTER TABLE samples ADD COLUMN smt double precision CHECK (smt IS NULL OR smt > 0);
