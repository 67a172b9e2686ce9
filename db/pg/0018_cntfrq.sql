-- 0018_cntfrq.sql (PostgreSQL) — the twin of db/0018_cntfrq.sql: hosts.tsc_source
-- may be 'cntfrq' (arm64's CNTFRQ_EL0); read that file for its meaning.
--
-- Where the dialects differ, and why: PostgreSQL alters a CHECK in place
-- (0001's unnamed CHECK got the default name hosts_tsc_source_check).
ALTER TABLE hosts DROP CONSTRAINT hosts_tsc_source_check;
ALTER TABLE hosts ADD CONSTRAINT hosts_tsc_source_check
    CHECK (tsc_source IN ('sysfs', 'cpuid', 'hypervisor', 'calibrated', 'cntfrq', ''));
