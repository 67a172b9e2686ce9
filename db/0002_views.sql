-- 0002_views.sql — views for people and for reports.
--
-- Which runs a view sees:
--   runs_overview      every run, with its status (so aborted ones show up).
--   sample_values      every sample of every run (no filter; join runs for status).
--   case_summary_all   every run, with a status column.
--   case_summary       complete runs only: what reports, compare and history
--                      mean by "the results".  A running run is unfinished
--                      and an aborted one may be missing cases, so neither
--                      is shown unless asked for through case_summary_all.
--
-- Try:  sqlite3 -header -column cyclebudget.db 'select * from case_summary'

-- One row per sample with its per-operation value:
--   per_op = (value - coalesce(overhead, 0)) / iters
-- NULL when the event was not measured (value NULL).
CREATE VIEW sample_values AS
SELECT s.case_id, s.event_id, s.seq, s.iters, s.value, s.overhead, s.scaled,
       (s.value - COALESCE(s.overhead, 0.0)) / CAST(s.iters AS REAL) AS per_op
  FROM samples s;

-- One row per run, case and event of that run (a case with no samples, e.g.
-- a skipped one, still has its rows, with n = 0).
--   n           batches with a value
--   n_scaled    of those, how many were multiplexed and scaled
--   median, p25, p75
--               quantiles of per_op over the batches, linearly interpolated
--               between order statistics (Hyndman & Fan type 7, numpy's
--               default): for quantile q of n sorted values x[1..n],
--               h = (n-1)q + 1, result = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
--               For q = 0.5 this is the usual median (mean of the two middle
--               values when n is even).
--   min, max    of per_op
--   spread_pct  100 * (p75 - p25) / |median|: the interquartile range as a
--               percentage of the median; NULL when the median is 0 or unknown.
-- Values are per operation in the event's own unit (cycles, TSC ticks, ns
-- for task-clock ...); source says which kind of number it is.
CREATE VIEW case_summary_all AS
WITH ranked AS (
    SELECT sv.case_id, sv.event_id, sv.per_op, sv.scaled,
           ROW_NUMBER() OVER (PARTITION BY sv.case_id, sv.event_id
                              ORDER BY sv.per_op NULLS LAST, sv.seq) AS rn,
           COUNT(sv.per_op) OVER (PARTITION BY sv.case_id, sv.event_id) AS cnt
      FROM sample_values sv
),
pos AS (
    SELECT r.*,
           (cnt - 1) * 0.25 + 1 AS h25,
           (cnt - 1) * 0.50 + 1 AS h50,
           (cnt - 1) * 0.75 + 1 AS h75
      FROM ranked r
),
q AS (
    SELECT case_id, event_id,
           MAX(cnt) AS n,
           SUM(CASE WHEN per_op IS NOT NULL THEN scaled ELSE 0 END) AS n_scaled,
           MIN(per_op) AS min,
           MAX(per_op) AS max,
           SUM(CASE WHEN rn = CAST(h25 AS INTEGER) THEN per_op * (1 - (h25 - CAST(h25 AS INTEGER)))
                    WHEN rn = CAST(h25 AS INTEGER) + 1 THEN per_op * (h25 - CAST(h25 AS INTEGER)) END) AS p25,
           SUM(CASE WHEN rn = CAST(h50 AS INTEGER) THEN per_op * (1 - (h50 - CAST(h50 AS INTEGER)))
                    WHEN rn = CAST(h50 AS INTEGER) + 1 THEN per_op * (h50 - CAST(h50 AS INTEGER)) END) AS median,
           SUM(CASE WHEN rn = CAST(h75 AS INTEGER) THEN per_op * (1 - (h75 - CAST(h75 AS INTEGER)))
                    WHEN rn = CAST(h75 AS INTEGER) + 1 THEN per_op * (h75 - CAST(h75 AS INTEGER)) END) AS p75
      FROM pos
     GROUP BY case_id, event_id
)
SELECT c.run_id, r.status, r.tag,
       c.probe, c.variant, c.size, c.unit, c.mode, c.op, c.verdict,
       e.name AS event, e.part, e.source, e.supported,
       COALESCE(q.n, 0) AS n,
       q.median, q.min, q.max, q.p25, q.p75,
       100.0 * (q.p75 - q.p25) / NULLIF(ABS(q.median), 0) AS spread_pct,
       COALESCE(q.n_scaled, 0) AS n_scaled,
       c.bytes_per_op, c.id AS case_id, e.id AS event_id
  FROM cases c
  JOIN runs r ON r.id = c.run_id
  JOIN events e ON e.run_id = c.run_id
  LEFT JOIN q ON q.case_id = c.id AND q.event_id = e.id
 ORDER BY c.run_id, c.id, e.id;

CREATE VIEW case_summary AS
SELECT * FROM case_summary_all WHERE status = 'complete';

-- One row per run, newest first, every status.
CREATE VIEW runs_overview AS
SELECT r.id, r.status, r.started, r.finished,
       ROUND((julianday(r.finished) - julianday(r.started)) * 86400.0, 1) AS seconds,
       r.tag, h.hostname, h.model_name, h.pmu,
       substr(cm.hash, 1, 12) AS commit_hash, cm.dirty, cm.subject,
       b.version, b.compiler,
       r.cpu, r.tsc_ghz, r.core_ghz, r.core_ghz_source,
       (SELECT COUNT(*) FROM cases c WHERE c.run_id = r.id) AS cases,
       (SELECT COUNT(*) FROM cases c WHERE c.run_id = r.id AND c.verdict = 'bad') AS bad,
       (SELECT COUNT(*) FROM events e WHERE e.run_id = r.id AND e.supported = 1) AS events,
       (SELECT COUNT(*) FROM events e WHERE e.run_id = r.id AND e.supported = 0) AS unsupported,
       r.cmdline
  FROM runs r
  JOIN hosts h ON h.id = r.host_id
  JOIN builds b ON b.id = r.build_id
  LEFT JOIN commits cm ON cm.id = r.commit_id
 ORDER BY r.id DESC;
