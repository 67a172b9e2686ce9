-- 0026_memref.sql — a memory reference in the host's state, and the meter's
-- baseline that calibrate takes.
--
-- 0024's references all run from the L1, so a host state that slows only
-- memory-bound work (another tenant's memory traffic) read quiet while the
-- same binary's memory-bound cases moved 23% to 300% between runs.  The
-- reference 'mem' (src/counters/refset.h) is a chain of dependent loads of
-- lines flushed from the caches just before: memory latency.
--
-- runs.ref_mem, calibrations.ref_mem  its reading (TSC ticks per load), as
--                  0024's ref_* are; NULL not taken (before this migration,
--                  run --sim, a backend with none).
-- runs.state_ref, cases.state_ref  may be 'mem'.
-- calibrations.meter_baseline  the contention meter's quiet reading that
--                  calibrate took on ref_cpu (what runs.meter_baseline is for
--                  a run); NULL not taken.
--
-- Widening a CHECK that ALTER TABLE cannot change: SQLite's documented
-- procedure (see 0008_sim.sql), which leaves every stored row valid.  The
-- ADD COLUMNs after it bump the schema cookie, so every open connection
-- re-reads the schema.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql,
       'CHECK (state_ref IS NULL OR state_ref IN (''chain'', ''vec'', ''load'', ''copy''))',
       'CHECK (state_ref IS NULL OR state_ref IN (''chain'', ''vec'', ''load'', ''copy'', ''mem''))')
 WHERE type = 'table' AND name IN ('runs', 'cases');
PRAGMA writable_schema = RESET;
ALTER TABLE runs ADD COLUMN ref_mem REAL CHECK (ref_mem IS NULL OR ref_mem > 0);
ALTER TABLE calibrations ADD COLUMN ref_mem REAL CHECK (ref_mem IS NULL OR ref_mem > 0);
ALTER TABLE calibrations ADD COLUMN meter_baseline REAL
    CHECK (meter_baseline IS NULL OR meter_baseline > 0);
