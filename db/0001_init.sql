-- 0001_init.sql — cyclebudget's tables: where every sample came from.
--
-- Applied by src/store.c inside one BEGIN IMMEDIATE transaction together
-- with PRAGMA user_version = 1 (and application_id), so a crash leaves either
-- nothing or the whole schema.  Do not put PRAGMAs or BEGIN/COMMIT here.
--
-- Conventions:
--  * Times are ISO-8601 UTC text, 'YYYY-MM-DDTHH:MM:SS.sssZ', so that they
--    sort as text and julianday() reads them.
--  * Text that may be unknown is '' rather than NULL where it is part of a
--    UNIQUE key: NULLs are all distinct in a UNIQUE index, which would defeat
--    the deduplication of hosts/builds/commits.
--  * NULL means "no value", never "zero": an unsupported counter's sample has
--    value NULL (the seed threads compare figures that were never measured
--    with ones that were; a 0 would look like a measurement).
--  * Enumerations are CHECKed here so a typo in C fails loudly at insert time
--    instead of silently vanishing from the views.

-- One row per distinct machine as this run saw it.  A host is the same host
-- only when everything that can change a cycle count is the same: a
-- microcode or kernel update makes a new row, so history can show the step.
CREATE TABLE hosts (
    id            INTEGER PRIMARY KEY,
    hostname      TEXT    NOT NULL,
    vendor        TEXT    NOT NULL,                 -- 'GenuineIntel', 'AuthenticAMD'
    family        INTEGER NOT NULL,
    model         INTEGER NOT NULL,
    stepping      INTEGER NOT NULL,
    model_name    TEXT    NOT NULL,
    microcode     TEXT    NOT NULL,                 -- '' when unreadable
    features      TEXT    NOT NULL,                 -- 'avx2+avx512f+adx', the CB_CPU_* names
    feature_mask  INTEGER NOT NULL CHECK (feature_mask >= 0),
    ncpus         INTEGER NOT NULL CHECK (ncpus >= 0),
    llc_bytes     INTEGER NOT NULL CHECK (llc_bytes >= 0),   -- 0 unknown
    kernel        TEXT    NOT NULL,
    -- The TSC rate rounded to 1 MHz: part of the identity, so a calibrated
    -- rate's last-digit jitter does not make a new host per run.  The exact
    -- rate a run used is runs.tsc_ghz.
    tsc_ghz       REAL    NOT NULL CHECK (tsc_ghz >= 0),
    tsc_source    TEXT    NOT NULL
                  CHECK (tsc_source IN ('sysfs', 'cpuid', 'hypervisor', 'calibrated', '')),
    pmu           TEXT    NOT NULL,                 -- libpfm4's view: 'amd64_fam19h_zen4', 'perf'
    UNIQUE (hostname, vendor, family, model, stepping, model_name, microcode,
            features, ncpus, llc_bytes, kernel, tsc_ghz, tsc_source, pmu)
);

-- The cyclebudget binary that measured.
CREATE TABLE builds (
    id       INTEGER PRIMARY KEY,
    version  TEXT NOT NULL,
    compiler TEXT NOT NULL,
    cflags   TEXT NOT NULL,
    UNIQUE (version, compiler, cflags)
);

-- The tree that was measured.  The same hash clean and dirty are two rows:
-- a dirty tree's numbers belong to no commit.
CREATE TABLE commits (
    id          INTEGER PRIMARY KEY,
    hash        TEXT    NOT NULL CHECK (length(hash) > 0),
    subject     TEXT    NOT NULL,
    author_date TEXT    NOT NULL,                   -- ISO 8601 as git prints it, or ''
    dirty       INTEGER NOT NULL CHECK (dirty IN (-1, 0, 1)),   -- -1 unknown
    UNIQUE (hash, dirty)
);

CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    host_id         INTEGER NOT NULL REFERENCES hosts (id),
    build_id        INTEGER NOT NULL REFERENCES builds (id),
    commit_id       INTEGER REFERENCES commits (id),  -- NULL: not measured from a git tree
    started         TEXT    NOT NULL
                    DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    CHECK (started GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*Z'),
    -- NULL while running, and for a run reaped as aborted (when it died is
    -- not known).
    finished        TEXT
                    CHECK (finished GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*Z'),
    status          TEXT    NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'complete', 'aborted')),
    cmdline         TEXT    NOT NULL,
    tag             TEXT    CHECK (tag IS NULL OR length(tag) > 0),
    cpu             INTEGER NOT NULL,                 -- pinned CPU, -1 not pinned
    tsc_ghz         REAL    NOT NULL CHECK (tsc_ghz >= 0),
    core_ghz        REAL    NOT NULL CHECK (core_ghz >= 0),   -- 0 unknown
    core_ghz_spread REAL    NOT NULL CHECK (core_ghz_spread >= 0),  -- %
    core_ghz_source TEXT    NOT NULL CHECK (core_ghz_source IN ('pmu', 'estimate', '')),
    -- Who is writing it, so that a collector that died (kill -9, OOM, a
    -- reboot) leaves a run the next writer can mark aborted instead of one
    -- that stays 'running' for ever.  pid_start (clock ticks after boot,
    -- /proc/PID/stat field 22) and boot_id guard against pid reuse.
    pid             INTEGER NOT NULL CHECK (pid > 0),
    pid_start       INTEGER,
    boot_id         TEXT    NOT NULL,
    CHECK (status <> 'running' OR finished IS NULL),
    CHECK (status <> 'complete' OR finished IS NOT NULL)
);
CREATE INDEX runs_status_started ON runs (status, started);
CREATE INDEX runs_tag ON runs (tag, status, started) WHERE tag IS NOT NULL;
CREATE INDEX runs_host ON runs (host_id);
CREATE INDEX runs_build ON runs (build_id);
CREATE INDEX runs_commit ON runs (commit_id);

-- What a run counted.  An event that could not be opened is still a row,
-- with supported = 0 and the reason: a report must be able to say "not
-- measured, because ..." rather than leave a column out.
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL CHECK (length(name) > 0),  -- as asked: 'prefetch-drops'
    part        TEXT    NOT NULL,                            -- component, or = name
    pfm         TEXT    NOT NULL,                            -- libpfm4 string, '' for pseudo-events
    encoding    TEXT    NOT NULL,                            -- 'type=0 config=0x0', '' unresolved
    source      TEXT    NOT NULL CHECK (source IN ('pmu', 'software', 'tsc', 'estimate')),
    read_method TEXT    NOT NULL
                CHECK (read_method IN ('read', 'rdpmc', 'rdtsc', 'derived', 'none')),
    supported   INTEGER NOT NULL CHECK (supported IN (0, 1)),
    why         TEXT    NOT NULL,
    CHECK (supported = 1 OR length(why) > 0),
    UNIQUE (run_id, name, part),
    UNIQUE (run_id, id)
);

-- One measured (probe, variant, size, mode) in a run.
CREATE TABLE cases (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    probe        TEXT    NOT NULL CHECK (length(probe) > 0),
    variant      TEXT    NOT NULL CHECK (length(variant) > 0),
    size         INTEGER NOT NULL CHECK (size >= 0),
    unit         TEXT    NOT NULL,                   -- 'B', 'obj'
    op           TEXT    NOT NULL CHECK (op IN ('call', 'packet', 'object', 'byte')),
    mode         TEXT    NOT NULL CHECK (mode IN ('warm', 'cold')),
    bytes_per_op INTEGER NOT NULL CHECK (bytes_per_op >= 0),   -- 0 not byte-oriented
    verdict      TEXT    NOT NULL CHECK (verdict IN ('ok', 'bad', 'skipped')),
    detail       TEXT    NOT NULL,
    UNIQUE (run_id, id)
);
-- compare/history look the same case up across runs.
CREATE INDEX cases_key ON cases (probe, variant, size, mode, run_id);

-- One row per batch per event.  value is the raw counter delta over the
-- batch (scaled when multiplexed); overhead is the empty batch's value that
-- the views subtract.  Per operation: (value - coalesce(overhead, 0)) / iters.
CREATE TABLE samples (
    case_id  INTEGER NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL CHECK (seq >= 0),
    iters    INTEGER NOT NULL CHECK (iters > 0),
    value    REAL,                                   -- NULL: not measured
    overhead REAL,                                   -- NULL: none subtracted
    enabled  INTEGER NOT NULL CHECK (enabled >= 0),  -- ns; 0 for pseudo-events
    running  INTEGER NOT NULL CHECK (running >= 0),
    scaled   INTEGER NOT NULL CHECK (scaled IN (0, 1)),
    PRIMARY KEY (case_id, event_id, seq)
) WITHOUT ROWID;
CREATE INDEX samples_event ON samples (event_id);

-- Keep the invariants foreign keys cannot express: a sample's event belongs
-- to the same run as its case, and an unsupported event never has a value
-- (a 0 written by mistake would pass for a measurement).
CREATE TRIGGER samples_check BEFORE INSERT ON samples
BEGIN
    SELECT RAISE(ABORT, 'sample: event and case belong to different runs')
     WHERE (SELECT run_id FROM cases WHERE id = NEW.case_id)
           IS NOT (SELECT run_id FROM events WHERE id = NEW.event_id);
    SELECT RAISE(ABORT, 'sample: value for an unsupported event')
     WHERE NEW.value IS NOT NULL
       AND (SELECT supported FROM events WHERE id = NEW.event_id) = 0;
END;
