-- 0019_mul_chain.sql — an arm64 run's core clock may be estimated by its
-- dependent-mul chain (issue 36).
--
-- On arm64 the estimate times a chain of dependent adds and one of dependent
-- muls (src/counters/tsc.c, cb_core_choose_arch); where they disagree the mul
-- chain's figure, a lower bound on the clock, is the one used:
-- runs.core_est_method 'mul-chain' (x86's is 'imul-chain').  0007's CHECK
-- allowed only the x86 names, so such a run could not begin.  Widened like
-- 0008 and 0018: the stored CREATE TABLE text edited under writable_schema
-- (every stored row stays valid), then the schema reloaded (RESET).
-- tests/test_db.c stores a 'mul-chain' run on both backends after migrating.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, '''add-chain'', ''imul-chain'', ''none'')',
                     '''add-chain'', ''imul-chain'', ''mul-chain'', ''none'')')
 WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
