-- 0010_ceilings.sql — the machine's ceilings (issue 19): how many bytes a
-- core loads and stores per cycle from each cache level and from DRAM, how
-- fast an add-with-carry chain and rep movsb/stosb go (src/counters/ceilings.h),
-- so that a report can show each case as a share of what the machine can do.
--
-- Applied like every migration (one transaction, PRAGMA user_version = 10).
--
-- calibrations: one measurement of every ceiling, on one host (hosts: CPU,
--   microcode, kernel, TSC rate) in one environment (fingerprint: the
--   timing-relevant lines of src/host/fingerprint.h, governor, boost, SMT...,
--   without the CPU number, since every core of a host has the same
--   ceilings).  `run` reuses the newest calibration of its host and
--   fingerprint, or measures and stores one.  source 'model': fixed figures
--   of a made-up machine, written under the fake clock by tests (never a
--   measurement).  l1/l2/l3_bytes: the cache sizes the working sets were
--   chosen from (0 unknown), which also decide the level a case's working
--   set fits in.  core_ghz: the estimated core clock the per-cycle figures
--   were converted with (NULL: no estimate).  note: what to know about the
--   sets, such as the DRAM set being capped below 4x a large LLC.
-- ceilings: one figure each, the best of trials, with the middle half of
--   the trials as spread.  bytes_per_tick is per TSC tick; bytes_per_cycle
--   per ESTIMATED core cycle (NULL without an estimate, never 0).
-- runs.calibration_id: the calibration a run is judged against (NULL: none,
--   e.g. runs from before this migration, or run --sim); calibration_reused
--   1 when the run found it stored, 0 when it measured it.
CREATE TABLE calibrations (
    id          INTEGER PRIMARY KEY,
    host_id     INTEGER NOT NULL REFERENCES hosts (id),
    fingerprint TEXT    NOT NULL,
    taken       TEXT    NOT NULL
                DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                CHECK (taken GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*Z'),
    source      TEXT    NOT NULL CHECK (source IN ('measured', 'model')),
    tsc_ghz     REAL    NOT NULL CHECK (tsc_ghz > 0),
    core_ghz    REAL    CHECK (core_ghz IS NULL OR core_ghz > 0),
    core_method TEXT    NOT NULL,
    l1_bytes    INTEGER NOT NULL CHECK (l1_bytes >= 0),
    l2_bytes    INTEGER NOT NULL CHECK (l2_bytes >= 0),
    l3_bytes    INTEGER NOT NULL CHECK (l3_bytes >= 0),
    note        TEXT    NOT NULL
);
CREATE INDEX calibrations_host ON calibrations (host_id, fingerprint, id);

CREATE TABLE ceilings (
    id              INTEGER PRIMARY KEY,
    calibration_id  INTEGER NOT NULL REFERENCES calibrations (id) ON DELETE CASCADE,
    kind            TEXT    NOT NULL
                    CHECK (kind IN ('load', 'store', 'adc', 'adcx2', 'movsb', 'stosb')),
    level           TEXT    NOT NULL CHECK (level IN ('L1', 'L2', 'L3', 'DRAM')),
    isa             TEXT    NOT NULL CHECK (isa IN ('avx512', 'avx2', 'sse2', 'scalar')),
    set_bytes       INTEGER NOT NULL CHECK (set_bytes > 0),
    bytes_per_tick  REAL    NOT NULL CHECK (bytes_per_tick > 0),
    bytes_per_cycle REAL    CHECK (bytes_per_cycle IS NULL OR bytes_per_cycle > 0),
    spread_pct      REAL    CHECK (spread_pct IS NULL OR spread_pct >= 0),
    trials          INTEGER NOT NULL CHECK (trials > 0),
    UNIQUE (calibration_id, kind, level, isa)
);

ALTER TABLE runs ADD COLUMN calibration_id INTEGER REFERENCES calibrations (id);
ALTER TABLE runs ADD COLUMN calibration_reused INTEGER
    CHECK (calibration_reused IS NULL OR calibration_reused IN (0, 1));
