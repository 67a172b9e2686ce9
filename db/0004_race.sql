-- 0004_race.sql — races: which variant of a family to use, per size bucket, on this machine.
--
-- A race IS a run: its cases and samples are ordinary rows of cases/samples
-- (one case per variant, size and round), so every view and report that
-- reads runs reads a race too.  These tables add what the race decided and
-- which cases it decided from.  A later race on the same host is compared
-- with an earlier one through race_summary (see src/race.c's report).
--
-- Margins are fractions: margin = (runner-up's cost - winner's cost) /
-- winner's median cost, over the per-round medians (rounds are the
-- independent units: samples within a round share its noise), estimated by the Hodges-Lehmann shift (the median of
-- all pairwise differences) with its distribution-free confidence interval
-- at level 1 - alpha.  A negative margin means the runner-up was faster by
-- median but not confidently, and the tie rule chose the winner.

CREATE TABLE races (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
    mode        TEXT    NOT NULL CHECK (mode IN ('warm', 'cold')),
    metric      TEXT    NOT NULL CHECK (length(metric) > 0),  -- the counter ranked: 'cycles' (PMU) or 'tsc'
    alpha       REAL    NOT NULL CHECK (alpha > 0 AND alpha < 1),
    min_margin  REAL    NOT NULL CHECK (min_margin >= 0),     -- fraction, e.g. 0.02
    rounds      INTEGER NOT NULL CHECK (rounds > 0),
    reps        INTEGER NOT NULL CHECK (reps > 0),             -- samples per variant per round
    seed        INTEGER NOT NULL                               -- the order's PRNG seed (replayable)
);

-- One row per family and size bucket.
--   decision  confident  the fastest beat every other variant (p < alpha and
--                        the margin's lower bound >= min_margin)
--             tie        some variant could not be told from the fastest: the
--                        winner is chosen among them by the tie rule
--             alone      one correct variant ran: it wins, without a runner-up
--             none       no variant could be measured here
CREATE TABLE race_results (
    id               INTEGER PRIMARY KEY,
    race_id          INTEGER NOT NULL REFERENCES races (id) ON DELETE CASCADE,
    probe            TEXT    NOT NULL CHECK (length(probe) > 0),
    bucket           TEXT    NOT NULL CHECK (length(bucket) > 0),  -- 'small', 'packets' ... or '1500'
    min_size         INTEGER NOT NULL CHECK (min_size >= 0),
    max_size         INTEGER CHECK (max_size IS NULL OR max_size >= min_size),  -- NULL: no bound
    size             INTEGER NOT NULL CHECK (size > 0),            -- the size measured for the bucket
    decision         TEXT    NOT NULL CHECK (decision IN ('confident', 'tie', 'alone', 'none')),
    winner           TEXT,
    winner_needs     TEXT    NOT NULL,                             -- 'avx2+adx', '' for none
    winner_median    REAL,                                         -- per op, in metric's unit
    runner_up        TEXT,
    runner_up_median REAL,
    margin           REAL,
    margin_lo        REAL,
    margin_hi        REAL,
    p_value          REAL,                                         -- Mann-Whitney, winner vs runner-up
    tied             TEXT    NOT NULL,                             -- 'a,b': not beaten by the fastest
    CHECK ((decision = 'none') = (winner IS NULL)),
    CHECK (decision IN ('alone', 'none') OR runner_up IS NOT NULL),
    CHECK (margin IS NULL OR (margin_lo <= margin AND margin <= margin_hi)),
    UNIQUE (race_id, probe, bucket),
    UNIQUE (race_id, id)
);

-- Every variant considered for a result, including the ones that could not
-- take part (bad: failed verification and was never timed; skipped: the CPU
-- lacks a feature, or setup failed).
CREATE TABLE race_entrants (
    result_id          INTEGER NOT NULL REFERENCES race_results (id) ON DELETE CASCADE,
    variant            TEXT    NOT NULL CHECK (length(variant) > 0),
    verdict            TEXT    NOT NULL CHECK (verdict IN ('ok', 'bad', 'skipped')),
    n                  INTEGER NOT NULL CHECK (n >= 0),   -- rounds measured (one median each)
    median             REAL,
    p_vs_fastest       REAL,
    margin_vs_fastest  REAL,
    beaten             INTEGER NOT NULL CHECK (beaten IN (0, 1)),
    detail             TEXT    NOT NULL,
    CHECK (verdict = 'ok' OR (n = 0 AND beaten = 0)),
    PRIMARY KEY (result_id, variant)
) WITHOUT ROWID;

-- The cases behind a result: round 0 holds the unmeasured (bad, skipped)
-- rows, rounds 1..N the measured ones.
CREATE TABLE race_cases (
    result_id INTEGER NOT NULL REFERENCES race_results (id) ON DELETE CASCADE,
    case_id   INTEGER NOT NULL REFERENCES cases (id) ON DELETE CASCADE,
    round     INTEGER NOT NULL CHECK (round >= 0),
    PRIMARY KEY (result_id, case_id)
) WITHOUT ROWID;
CREATE INDEX race_cases_case ON race_cases (case_id);

-- A race's cases must be cases of the race's own run.
CREATE TRIGGER race_cases_check BEFORE INSERT ON race_cases
BEGIN
    SELECT RAISE(ABORT, 'race_cases: the case belongs to another run')
     WHERE (SELECT run_id FROM cases WHERE id = NEW.case_id)
           IS NOT (SELECT ra.run_id FROM race_results rr JOIN races ra ON ra.id = rr.race_id
                    WHERE rr.id = NEW.result_id);
END;

-- One row per result of every complete race, with the machine it ran on.
-- The host is named by hostname and CPU model (a kernel or microcode update
-- makes a new hosts row, and a race before it should still be comparable).
-- prev_winner: the same family and bucket in the previous complete race on
-- the same host and mode (NULL when there is none).
CREATE VIEW race_summary AS
SELECT ra.id AS race_id, r.id AS run_id, r.started, h.hostname, h.model_name,
       ra.mode, ra.metric, ra.alpha, ra.min_margin,
       rr.probe, rr.bucket, rr.min_size, rr.max_size, rr.size, rr.decision,
       rr.winner, rr.winner_needs, rr.margin, rr.margin_lo, rr.margin_hi, rr.p_value,
       rr.runner_up, rr.tied,
       (SELECT pr.winner
          FROM race_results pr
          JOIN races pa ON pa.id = pr.race_id
          JOIN runs pu ON pu.id = pa.run_id
          JOIN hosts ph ON ph.id = pu.host_id
         WHERE pu.status = 'complete' AND pa.id < ra.id AND pa.mode = ra.mode
           AND ph.hostname = h.hostname AND ph.model_name = h.model_name
           AND pr.probe = rr.probe AND pr.bucket = rr.bucket
         ORDER BY pa.id DESC LIMIT 1) AS prev_winner
  FROM race_results rr
  JOIN races ra ON ra.id = rr.race_id
  JOIN runs r ON r.id = ra.run_id
  JOIN hosts h ON h.id = r.host_id
 WHERE r.status = 'complete'
 ORDER BY ra.id, rr.id;
