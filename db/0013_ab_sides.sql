-- 0013_ab_sides.sql — the two sides of an `ab` run (issue 31).
--
-- `cyclebudget ab BASE.so HEAD.so` measures two builds of one plugin in
-- one process, interleaved round by round, into one run: every case is
-- stored once per round and side, and side says whose build it timed.
-- NULL everywhere else (a run of one build).  The two plugins the run
-- loaded are told apart the same way in run_plugins.
ALTER TABLE cases ADD COLUMN side TEXT CHECK (side IN ('base', 'head'));
ALTER TABLE run_plugins ADD COLUMN side TEXT CHECK (side IN ('base', 'head'));
