-- 0008_sim.sql — simulated counts (issue 17): `run --sim` counts each case
-- under valgrind's callgrind, whose instruction and simulated cache counts
-- repeat exactly where wall-clock timing on a PMU-less VM moves by percents.
--
-- Applied like every migration (one transaction, PRAGMA user_version = 8).
-- Unlike the others it widens CHECK constraints written in 0001 and 0007,
-- which ALTER TABLE cannot do.  It uses the procedure SQLite documents for
-- changes that leave every stored row valid (https://sqlite.org/lang_altertable.html,
-- "making other kinds of table schema changes"): rewrite the table's SQL in
-- sqlite_schema with writable_schema on, then reload the schema.  Only new
-- values are allowed; no old row can fail the wider checks.  The ADD COLUMN
-- at the end also bumps the schema cookie, so every other open connection
-- re-reads the schema.
--
-- events.source 'simulated': a count from callgrind's model of the machine,
--   never mixed with 'pmu', 'tsc' or 'estimate' figures.
-- events.read_method, samples.method 'callgrind': read from callgrind's
--   per-case dump (a client request around each timed batch).
-- runs.clock_backend 'callgrind': the run was counted, not timed.
-- runs.sim_model: the simulated machine, as passed to valgrind and where it
--   came from: 'valgrind=3.19.0 I1=32768,8,64 D1=32768,8,64 LL=33554432,16,64
--   branch-sim=yes from=cpuid'.  NULL for timed runs.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(replace(sql,
       'CHECK (source IN (''pmu'', ''software'', ''tsc'', ''estimate''))',
       'CHECK (source IN (''pmu'', ''software'', ''tsc'', ''estimate'', ''simulated''))'),
       'CHECK (read_method IN (''read'', ''rdpmc'', ''rdtsc'', ''derived'', ''none''))',
       'CHECK (read_method IN (''read'', ''rdpmc'', ''rdtsc'', ''derived'', ''none'', ''callgrind''))')
 WHERE type = 'table' AND name = 'events';
UPDATE sqlite_schema
   SET sql = replace(sql,
       'CHECK (clock_backend IS NULL OR clock_backend IN (''perf_event'', ''fake''))',
       'CHECK (clock_backend IS NULL OR clock_backend IN (''perf_event'', ''fake'', ''callgrind''))')
 WHERE type = 'table' AND name = 'runs';
UPDATE sqlite_schema
   SET sql = replace(sql,
       'CHECK (method IS NULL OR method IN (''read'', ''rdpmc'', ''rdtsc'', ''derived'', ''fake'', ''none''))',
       'CHECK (method IS NULL OR method IN (''read'', ''rdpmc'', ''rdtsc'', ''derived'', ''fake'', ''none'', ''callgrind''))')
 WHERE type = 'table' AND name = 'samples';
PRAGMA writable_schema = RESET;
ALTER TABLE runs ADD COLUMN sim_model TEXT CHECK (sim_model IS NULL OR length(sim_model) > 0);
