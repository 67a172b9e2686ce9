-- 0005_contention.sql — was the core shared while a case was measured?
--
-- Applied by src/store.c like every migration (one transaction, with
-- PRAGMA user_version = 5).  No PRAGMAs or BEGIN/COMMIT here.
--
-- Beside every sample the harness reads an SMT contention meter (src/tsc.h:
-- a tight add loop's time per add over the unrolled add chain's; 1.0 when
-- this thread has its core to itself).  On this project's VM the host ran
-- other work on the SMT sibling of one vCPU for minutes at a time, and the
-- same code then took up to 3x the cycles.  Such phases come and go within
-- milliseconds as often as they last minutes, so each sample keeps its own
-- reading (samples.smt, the larger of the readings just before and just
-- after it; the same on every event row of the sample), and compare uses a
-- run's quiet samples when it has enough of them.  Each case keeps the
-- median reading and the share of contended samples.  NULL: not measured
-- (runs recorded before this migration, cases never timed).
ALTER TABLE cases ADD COLUMN contention REAL CHECK (contention IS NULL OR contention > 0);
ALTER TABLE cases ADD COLUMN contended_share REAL
    CHECK (contended_share IS NULL OR (contended_share >= 0 AND contended_share <= 1));
ALTER TABLE samples ADD COLUMN smt REAL CHECK (smt IS NULL OR smt > 0);
