-- 0014_case_clock.sql (PostgreSQL) — the twin of db/0014_case_clock.sql: the
-- core clock each case was converted at; read that file for the columns.
-- The only difference: REAL is double precision (PostgreSQL's REAL is
-- float4) and INTEGER is bigint.
ALTER TABLE cases ADD COLUMN clock_ghz double precision
    CHECK (clock_ghz IS NULL OR clock_ghz > 0);
ALTER TABLE cases ADD COLUMN clock_spread_pct double precision
    CHECK (clock_spread_pct IS NULL OR clock_spread_pct >= 0);
ALTER TABLE cases ADD COLUMN clock_used text
    CHECK (clock_used IS NULL OR clock_used IN ('case', 'run'));
ALTER TABLE cases ADD COLUMN clock_flagged bigint
    CHECK (clock_flagged IS NULL OR clock_flagged IN (0, 1));
