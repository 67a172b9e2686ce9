-- 0008_sim.sql (PostgreSQL) — the twin of db/0008_sim.sql: simulated counts
-- (run --sim); read that file for what the new values mean.
--
-- Where the dialects differ, and why: SQLite cannot alter a CHECK, so its
-- 0008 rewrites the table's text in sqlite_schema under writable_schema.
-- PostgreSQL drops each named CHECK (0001, 0007) and adds the wider one in
-- its place; adding it checks the stored rows, which all pass (only new
-- values are allowed).
ALTER TABLE events
    DROP CONSTRAINT events_source_check,
    ADD CONSTRAINT events_source_check
        CHECK (source IN ('pmu', 'software', 'tsc', 'estimate', 'simulated')),
    DROP CONSTRAINT events_read_method_check,
    ADD CONSTRAINT events_read_method_check
        CHECK (read_method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'none', 'callgrind'));
ALTER TABLE runs
    DROP CONSTRAINT runs_clock_backend_check,
    ADD CONSTRAINT runs_clock_backend_check
        CHECK (clock_backend IS NULL OR clock_backend IN ('perf_event', 'fake', 'callgrind'));
ALTER TABLE samples
    DROP CONSTRAINT samples_method_check,
    ADD CONSTRAINT samples_method_check
        CHECK (method IS NULL OR method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'fake', 'none',
                                            'callgrind'));
ALTER TABLE runs ADD COLUMN sim_model text CHECK (sim_model IS NULL OR length(sim_model) > 0);
