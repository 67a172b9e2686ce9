-- 0018_cntfrq.sql — a host's counter rate may come from CNTFRQ_EL0 (issue 36).
--
-- On arm64 the generic timer (CNTVCT_EL0) has the TSC's role, and its rate is
-- whatever firmware wrote into CNTFRQ_EL0: hosts.tsc_source 'cntfrq'.  The
-- CHECK of 0001 allowed only the x86 sources.  SQLite cannot ALTER a CHECK,
-- and rebuilding hosts would mean dropping and re-creating every view over
-- it; widening an IN list only lets more rows in (every stored row stays
-- valid), which is the case SQLite's ALTER TABLE page allows editing the
-- stored CREATE TABLE text for (writable_schema), followed by a schema
-- reload (RESET) so that this connection checks the new constraint at once.
-- tests/test_db.c stores a 'cntfrq' host after migrating an older store.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, '''calibrated'', '''')', '''calibrated'', ''cntfrq'', '''')')
 WHERE type = 'table' AND name = 'hosts';
PRAGMA writable_schema = RESET;
