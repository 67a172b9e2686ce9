-- 0025_bpf.sql — a run measured inside the running kernel through BPF.
--
-- `cyclebudget bpf run` loads BPF programs with libbpf and times them with
-- BPF_PROG_TEST_RUN: the kernel's own csum_partial through bpf_csum_diff,
-- and the user's XDP programs on frames the tool builds.  Its samples are a
-- run like any other (report, compare, history and race read it with the
-- same code), as 0019's in-kernel runs are; what differs is said here:
--
-- runs.source 'bpf': such a run.  Its build row names the programs, not the
--   cyclebudget binary: version 'bpf <sha256 of the user's object, or of
--   the tool's own>', compiler 'linux <release>', cflags 'config sha256
--   <hash of the running kernel's config>'.  runs.code_id is the sha256 over
--   every object loaded; each case's code_hash is its program's tag (the
--   kernel's hash of its instructions, 16 hex digits).  Each program sample's
--   overhead is the empty program's batch of the same mode and repeat,
--   measured beside it; the empty program is also stored as its own case.
--
-- Widening a CHECK that ALTER TABLE cannot change: SQLite's documented
-- procedure (see 0008_sim.sql), which leaves every stored row valid.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql,
       'CHECK (source IS NULL OR source IN (''in-kernel''))',
       'CHECK (source IS NULL OR source IN (''in-kernel'', ''bpf''))')
 WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
-- Bump the schema cookie so that every open connection re-reads the schema.
CREATE INDEX runs_source ON runs (source);
