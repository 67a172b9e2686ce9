-- 0007_truth.sql — where each figure came from, in enough detail to audit it.
--
-- Applied by src/store.c like every migration (one transaction, with
-- PRAGMA user_version = 7).  No PRAGMAs or BEGIN/COMMIT here.  Issue 15:
-- on a cloud VM with no PMU the contention meter flagged every case of an
-- idle run and the core-clock estimate ran low; these columns keep what is
-- needed to see why a verdict was reached, and to redo any scaling.
--
-- runs.clock_backend: 'perf_event' (the machine) or 'fake' (CB_FAKE_CLOCK,
--   a test backend whose samples are a model: never a measurement).
-- runs.core_est_*: the core clock estimated by the add chain and,
--   independently, by the imul chain (src/tsc.h); method is the one chosen,
--   spread its windows' middle half in %.  Kept beside core_ghz even when
--   core_ghz came from the PMU, so that the two can be compared.
-- runs.meter_*: the contention meter's kind ('smt': a sibling the kernel
--   shows; 'host': a guest that shows none; 'none': bare metal with no
--   sibling; 'unstable': its baseline spread too much), its baseline raw
--   reading on the run's CPU and that baseline's spread in %, and the
--   reasoning in words.  From this migration on samples.smt is relative to
--   meter_baseline (raw = smt * meter_baseline); before it, relative to 1.0.
-- runs.fingerprint: the environment (src/fingerprint.h), key=value; pairs.
-- samples.raw: the counter's own delta before any multiplex scaling
--   (value = raw * enabled / running when scaled); NULL before this migration.
-- samples.method: how this sample's figure was read ('rdpmc', 'read',
--   'rdtsc', 'derived', 'fake'): rdpmc falls back to read() when the event
--   is descheduled at the moment of the read, and that is recorded here.
ALTER TABLE runs ADD COLUMN clock_backend TEXT
    CHECK (clock_backend IS NULL OR clock_backend IN ('perf_event', 'fake'));
ALTER TABLE runs ADD COLUMN core_est_method TEXT
    CHECK (core_est_method IS NULL OR core_est_method IN ('add-chain', 'imul-chain', 'none'));
ALTER TABLE runs ADD COLUMN core_est_ghz REAL CHECK (core_est_ghz IS NULL OR core_est_ghz >= 0);
ALTER TABLE runs ADD COLUMN core_est_spread REAL CHECK (core_est_spread IS NULL OR core_est_spread >= 0);
ALTER TABLE runs ADD COLUMN core_est_add_ghz REAL CHECK (core_est_add_ghz IS NULL OR core_est_add_ghz >= 0);
ALTER TABLE runs ADD COLUMN core_est_imul_ghz REAL CHECK (core_est_imul_ghz IS NULL OR core_est_imul_ghz >= 0);
ALTER TABLE runs ADD COLUMN meter_kind TEXT
    CHECK (meter_kind IS NULL OR meter_kind IN ('none', 'smt', 'host', 'unstable'));
ALTER TABLE runs ADD COLUMN meter_baseline REAL CHECK (meter_baseline IS NULL OR meter_baseline > 0);
ALTER TABLE runs ADD COLUMN meter_spread REAL CHECK (meter_spread IS NULL OR meter_spread >= 0);
ALTER TABLE runs ADD COLUMN meter_why TEXT;
ALTER TABLE runs ADD COLUMN fingerprint TEXT;
ALTER TABLE samples ADD COLUMN raw REAL;
ALTER TABLE samples ADD COLUMN method TEXT
    CHECK (method IS NULL OR method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'fake', 'none'));
