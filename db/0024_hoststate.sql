-- 0024_hoststate.sql — the host's state: how fast a few fixed loops ran,
-- and whether each run and case was measured quiet or slowed.
--
-- The same binary's ns/op moved 1.7x between identical runs on a Zen 4 VM
-- (vector and copy code; a scalar chain 12%), each run steady inside: the
-- host slowed whole runs, and a run judged against its own start reads
-- quiet.  So a run times a reference set (src/counters/refset.h: a scalar
-- chain, vector adds, L1 loads, a 1500-byte memcpy; TSC ticks per
-- operation) on its CPU at its start and beside every case, and judges them
-- against the host's quiet figures: a low quantile of the start readings of
-- past runs of this host, CPU and clock backend, and of calibrate's
-- (src/store/hoststate.h).
--
-- runs.ref_*       the reading at the run's start; NULL not taken (a run
--                  before this migration, run --sim, a backend with none).
-- runs.state       'quiet' or 'slowed': slowed when any case it kept was
--                  measured slowed (with no case measured, its start's);
--                  NULL not judged.
-- runs.state_ratio the largest reading / quiet figure, and state_ref the
--                  reference it was on ('chain', 'vec', 'load', 'copy').
-- runs.state_n     how many readings the host's quiet figures came from.
-- runs.slowed_cases, runs.slowed_s  cases measured in a slowed state, each
--                  try counted once per case, and the seconds those tries
--                  took (the summary of the run).
-- cases.state, state_ratio, state_ref  the case's state: the worse of the
--                  readings just before and just after the try it kept.
-- cases.tries      how many times it was measured: a case found slowed is
--                  measured again, a bounded number of times, then kept
--                  and labelled.
-- calibrations.ref_cpu, ref_*  calibrate's reading, on that CPU.
ALTER TABLE runs ADD COLUMN ref_chain REAL CHECK (ref_chain IS NULL OR ref_chain > 0);
ALTER TABLE runs ADD COLUMN ref_vec REAL CHECK (ref_vec IS NULL OR ref_vec > 0);
ALTER TABLE runs ADD COLUMN ref_load REAL CHECK (ref_load IS NULL OR ref_load > 0);
ALTER TABLE runs ADD COLUMN ref_copy REAL CHECK (ref_copy IS NULL OR ref_copy > 0);
ALTER TABLE runs ADD COLUMN state TEXT CHECK (state IS NULL OR state IN ('quiet', 'slowed'));
ALTER TABLE runs ADD COLUMN state_ratio REAL CHECK (state_ratio IS NULL OR state_ratio > 0);
ALTER TABLE runs ADD COLUMN state_ref TEXT
    CHECK (state_ref IS NULL OR state_ref IN ('chain', 'vec', 'load', 'copy'));
ALTER TABLE runs ADD COLUMN state_n INTEGER CHECK (state_n IS NULL OR state_n >= 0);
ALTER TABLE runs ADD COLUMN slowed_cases INTEGER CHECK (slowed_cases IS NULL OR slowed_cases >= 0);
ALTER TABLE runs ADD COLUMN slowed_s REAL CHECK (slowed_s IS NULL OR slowed_s >= 0);
ALTER TABLE cases ADD COLUMN state TEXT CHECK (state IS NULL OR state IN ('quiet', 'slowed'));
ALTER TABLE cases ADD COLUMN state_ratio REAL CHECK (state_ratio IS NULL OR state_ratio > 0);
ALTER TABLE cases ADD COLUMN state_ref TEXT
    CHECK (state_ref IS NULL OR state_ref IN ('chain', 'vec', 'load', 'copy'));
ALTER TABLE cases ADD COLUMN tries INTEGER CHECK (tries IS NULL OR tries >= 1);
ALTER TABLE calibrations ADD COLUMN ref_cpu INTEGER;
ALTER TABLE calibrations ADD COLUMN ref_chain REAL CHECK (ref_chain IS NULL OR ref_chain > 0);
ALTER TABLE calibrations ADD COLUMN ref_vec REAL CHECK (ref_vec IS NULL OR ref_vec > 0);
ALTER TABLE calibrations ADD COLUMN ref_load REAL CHECK (ref_load IS NULL OR ref_load > 0);
ALTER TABLE calibrations ADD COLUMN ref_copy REAL CHECK (ref_copy IS NULL OR ref_copy > 0);
-- The quiet figures are read per host and CPU, newest first.
CREATE INDEX runs_host_cpu ON runs (host_id, cpu, id);
