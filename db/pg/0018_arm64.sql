-- 0018_arm64.sql (PostgreSQL) — the twin of db/0018_arm64.sql: the values an
-- arm64 run stores ('cntfrq', 'cntvct', the NEON and dc zva ceilings); read
-- that file for their meaning.
--
-- Where the dialects differ, and why: PostgreSQL re-adds each named CHECK
-- (an unnamed column CHECK is named TABLE_COLUMN_check) instead of editing
-- the table's text.
ALTER TABLE hosts
    DROP CONSTRAINT hosts_tsc_source_check,
    ADD CONSTRAINT hosts_tsc_source_check
        CHECK (tsc_source IN ('sysfs', 'cpuid', 'hypervisor', 'calibrated', 'cntfrq', ''));
ALTER TABLE events
    DROP CONSTRAINT events_read_method_check,
    ADD CONSTRAINT events_read_method_check
        CHECK (read_method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'none', 'callgrind', 'cntvct'));
ALTER TABLE samples
    DROP CONSTRAINT samples_method_check,
    ADD CONSTRAINT samples_method_check
        CHECK (method IS NULL OR method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'fake', 'none',
                                            'callgrind', 'cntvct'));
ALTER TABLE ceilings
    DROP CONSTRAINT ceilings_kind_check,
    ADD CONSTRAINT ceilings_kind_check
        CHECK (kind IN ('load', 'store', 'adc', 'adcx2', 'movsb', 'stosb', 'zva', 'memcpy', 'memset')),
    DROP CONSTRAINT ceilings_isa_check,
    ADD CONSTRAINT ceilings_isa_check
        CHECK (isa IN ('avx512', 'avx2', 'sse2', 'scalar', 'neon', 'neon-x4', 'dczva', 'glibc'));
ALTER TABLE runs
    DROP CONSTRAINT runs_core_est_method_check,
    ADD CONSTRAINT runs_core_est_method_check
        CHECK (core_est_method IS NULL OR core_est_method IN ('add-chain', 'imul-chain', 'mul-chain',
                                                              'none'));
