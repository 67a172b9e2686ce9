-- 0003_regress.sql — regression tracking: acknowledged changes, commit order.
--
-- Applied by src/store.c like every migration (one transaction, with
-- PRAGMA user_version = 3).  No PRAGMAs or BEGIN/COMMIT here.

-- A known change, acknowledged with `cyclebudget ack CASE COMMIT --why ...`:
-- compare and history still show it, marked as acknowledged, but it no
-- longer fails the CI gate.  case_glob is a case name or an fnmatch(3) glob
-- over names 'probe/variant/size/mode' ('csum/*/1500/warm'); commit_hash is
-- the full hash of the commit that made the change.  Acknowledging the same
-- case and commit again replaces the reason.
CREATE TABLE acks (
    id          INTEGER PRIMARY KEY,
    case_glob   TEXT NOT NULL CHECK (length(case_glob) > 0),
    commit_hash TEXT NOT NULL CHECK (length(commit_hash) > 0),
    why         TEXT NOT NULL CHECK (length(trim(why)) > 0),
    created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (case_glob, commit_hash)
);
CREATE INDEX acks_commit ON acks (commit_hash);

-- The measured commits in commit order, as history uses it: by author date
-- (julianday() reads git's ISO 8601 with its UTC offset, so commits made in
-- different time zones still sort right), then by the first run that
-- measured the commit.  Only complete runs of clean trees count: a dirty
-- tree's numbers belong to no commit.
CREATE VIEW commit_order AS
SELECT cm.id AS commit_id, cm.hash, cm.subject, cm.author_date,
       MIN(r.id) AS first_run, COUNT(r.id) AS runs
  FROM commits cm
  JOIN runs r ON r.commit_id = cm.id
 WHERE r.status = 'complete' AND cm.dirty <> 1
 GROUP BY cm.id
 ORDER BY julianday(cm.author_date), MIN(r.id);

-- Every run's environment fingerprint, the fields compare refuses to mix:
-- CPU identity and microcode, kernel, the compiler and flags that built the
-- probes, the libpfm4 PMU, whether core cycles came from the PMU, and the
-- CPU the collector was pinned to.
CREATE VIEW run_fingerprint AS
SELECT r.id AS run_id,
       h.vendor, h.family, h.model, h.stepping, h.model_name, h.microcode, h.kernel, h.pmu,
       b.compiler, b.cflags, r.cpu,
       CASE WHEN EXISTS (SELECT 1 FROM events e
                          WHERE e.run_id = r.id AND e.part = 'cycles'
                            AND e.source = 'pmu' AND e.supported = 1)
            THEN 'pmu' ELSE 'tsc' END AS cycles_source
  FROM runs r
  JOIN hosts h ON h.id = r.host_id
  JOIN builds b ON b.id = r.build_id;
