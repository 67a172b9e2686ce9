-- 0016_cpu_pair.sql — the two CPUs of a cross-CPU case (issue 35).
--
-- The cross-CPU families (xfer, slab's remote frees) run a second thread
-- pinned to another CPU; what a line or an object costs to move depends on
-- what the two share, so the pair is part of the case: 'cpu 0 -> cpu 1
-- (cores of one socket)' (also 'smt-siblings', 'two sockets').  A column of
-- its own rather than the detail text: detail says why a case is bad or
-- skipped, and compare and history must be able to tell two cases measured
-- on different pairs apart.  NULL for every one-CPU case.
ALTER TABLE cases ADD COLUMN cpu_pair TEXT;
