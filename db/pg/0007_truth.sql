-- 0007_truth.sql (PostgreSQL) — the twin of db/0007_truth.sql: where each
-- figure came from; read that file for what the columns mean.
--
-- Where the dialects differ, and why: REAL is double precision; and the
-- CHECKs that 0008 widens are named (runs_clock_backend_check,
-- samples_method_check), so that 0008 can replace them, where SQLite
-- rewrites its schema's text.
ALTER TABLE runs ADD COLUMN clock_backend text
    CONSTRAINT runs_clock_backend_check
    CHECK (clock_backend IS NULL OR clock_backend IN ('perf_event', 'fake'));
ALTER TABLE runs ADD COLUMN core_est_method text
    CHECK (core_est_method IS NULL OR core_est_method IN ('add-chain', 'imul-chain', 'none'));
ALTER TABLE runs ADD COLUMN core_est_ghz double precision
    CHECK (core_est_ghz IS NULL OR core_est_ghz >= 0);
ALTER TABLE runs ADD COLUMN core_est_spread double precision
    CHECK (core_est_spread IS NULL OR core_est_spread >= 0);
ALTER TABLE runs ADD COLUMN core_est_add_ghz double precision
    CHECK (core_est_add_ghz IS NULL OR core_est_add_ghz >= 0);
ALTER TABLE runs ADD COLUMN core_est_imul_ghz double precision
    CHECK (core_est_imul_ghz IS NULL OR core_est_imul_ghz >= 0);
ALTER TABLE runs ADD COLUMN meter_kind text
    CHECK (meter_kind IS NULL OR meter_kind IN ('none', 'smt', 'host', 'unstable'));
ALTER TABLE runs ADD COLUMN meter_baseline double precision
    CHECK (meter_baseline IS NULL OR meter_baseline > 0);
ALTER TABLE runs ADD COLUMN meter_spread double precision
    CHECK (meter_spread IS NULL OR meter_spread >= 0);
ALTER TABLE runs ADD COLUMN meter_why text;
ALTER TABLE runs ADD COLUMN fingerprint text;
ALTER TABLE samples ADD COLUMN raw double precision;
ALTER TABLE samples ADD COLUMN method text
    CONSTRAINT samples_method_check
    CHECK (method IS NULL OR method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'fake', 'none'));
