-- 0018_arm64.sql — the values an arm64 run stores (issue 36).
--
-- On arm64 the generic timer has the TSC's role: its count is read from
-- CNTVCT_EL0 and its rate from CNTFRQ_EL0, which firmware programs.  The
-- ceilings there are NEON and dc zva loops, and glibc's memcpy/memset.  The
-- CHECKs of 0001, 0007/0008 and 0010 allowed only the x86 values.  Like
-- 0008, this widens them by the procedure SQLite documents for changes that
-- leave every stored row valid (https://sqlite.org/lang_altertable.html,
-- "making other kinds of table schema changes"): rewrite the table's SQL in
-- sqlite_schema with writable_schema on, then reload the schema (RESET), so
-- that this connection checks the wider constraints at once.
--
-- hosts.tsc_source 'cntfrq': the counter's rate is CNTFRQ_EL0's.
-- events.read_method, samples.method 'cntvct': read from CNTVCT_EL0.
-- runs.core_est_method 'mul-chain': the core clock from a chain of dependent
--   muls (arm64 has no imul; src/counters/tsc.h says when it is chosen).
-- ceilings.kind 'zva' (dc zva), 'memcpy', 'memset' (glibc's);
-- ceilings.isa 'neon' (ldp/stp of q registers), 'neon-x4' (ld1/st1 of four),
--   'dczva', 'glibc'.
-- tests/test_db.c stores each new value on both backends after migrating.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, '''calibrated'', '''')', '''calibrated'', ''cntfrq'', '''')')
 WHERE type = 'table' AND name = 'hosts';
UPDATE sqlite_schema
   SET sql = replace(sql, '''none'', ''callgrind'')', '''none'', ''callgrind'', ''cntvct'')')
 WHERE type = 'table' AND name IN ('events', 'samples');
UPDATE sqlite_schema
   SET sql = replace(replace(sql,
       '''movsb'', ''stosb'')', '''movsb'', ''stosb'', ''zva'', ''memcpy'', ''memset'')'),
       '''sse2'', ''scalar'')', '''sse2'', ''scalar'', ''neon'', ''neon-x4'', ''dczva'', ''glibc'')')
 WHERE type = 'table' AND name = 'ceilings';
UPDATE sqlite_schema
   SET sql = replace(sql, '''imul-chain'', ''none'')', '''imul-chain'', ''mul-chain'', ''none'')')
 WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
