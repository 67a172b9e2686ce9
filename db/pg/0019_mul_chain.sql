-- 0019_mul_chain.sql (PostgreSQL) — the twin of db/0019_mul_chain.sql:
-- runs.core_est_method 'mul-chain' (arm64's dependent-mul estimate); read
-- that file for its meaning.
--
-- Where the dialects differ, and why: SQLite cannot alter a CHECK, so its
-- 0019 edits the stored table text; PostgreSQL drops the CHECK 0007 added
-- with the column (named runs_core_est_method_check by default) and adds the
-- wider one in its place.
ALTER TABLE runs
    DROP CONSTRAINT runs_core_est_method_check,
    ADD CONSTRAINT runs_core_est_method_check
        CHECK (core_est_method IS NULL OR core_est_method IN ('add-chain', 'imul-chain',
                                                              'mul-chain', 'none'));
