-- 0014_case_clock.sql — the core clock each case was converted at.
--
-- Applied by src/store.c like every migration (one transaction, with
-- PRAGMA user_version = 14).  No PRAGMAs or BEGIN/COMMIT here.
--
-- Without PMU cycles a case's "cycles" are its TSC time times an estimated
-- core clock (src/counters/tsc.h).  Until this migration that clock was a
-- single chain window timed after each sample, and it swung with the work
-- just done: the implied clock of one idle run's csum cases ranged 2.49 to
-- 4.08 GHz (issue 32).  The harness now brackets each case, before and
-- after its samples, with several estimates each (src/harness/caseclock.h),
-- and keeps:
--   clock_ghz         the case's own clock: the mean of the two brackets
--   clock_spread_pct  its noise: the larger of each bracket's range and the
--                     two brackets' disagreement, % of clock_ghz
--   clock_used        'case' when that clock agrees with the run's within
--                     its noise (or both brackets moved alike), else 'run':
--                     the case's estimated cycles are its TSC time at it
--   clock_flagged     1 when the case's clock disagreed with the run's
-- NULL: recorded before this migration, not measured (skipped, bad), or
-- counted by PMU cycles or the simulator, where no clock was estimated.
ALTER TABLE cases ADD COLUMN clock_ghz REAL CHECK (clock_ghz IS NULL OR clock_ghz > 0);
ALTER TABLE cases ADD COLUMN clock_spread_pct REAL
    CHECK (clock_spread_pct IS NULL OR clock_spread_pct >= 0);
ALTER TABLE cases ADD COLUMN clock_used TEXT
    CHECK (clock_used IS NULL OR clock_used IN ('case', 'run'));
ALTER TABLE cases ADD COLUMN clock_flagged INTEGER
    CHECK (clock_flagged IS NULL OR clock_flagged IN (0, 1));
