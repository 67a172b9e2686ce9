-- 0002_views.sql (PostgreSQL) — the twin of db/0002_views.sql: the same views,
-- columns and quantiles; read that file for what they mean.
--
-- Where the dialects differ, and why:
--  * CAST(x AS REAL) is double precision here: PostgreSQL's REAL is float4,
--    which would round every per-operation figure to 7 digits.
--  * CAST(h AS INTEGER) truncates in SQLite and rounds in PostgreSQL: the
--    order statistic below the quantile is floor(h) (h >= 1), and h is
--    computed in double precision as SQLite does.
--  * SUM() of integers is numeric in PostgreSQL: cast back to bigint so
--    that n_scaled reads as an integer.
--  * runs_overview's seconds use julianday() as SQLite's do (0001 defines it)
--    and are double precision, as SQLite's ROUND() returns.
CREATE VIEW sample_values AS
SELECT s.case_id, s.event_id, s.seq, s.iters, s.value, s.overhead, s.scaled,
       (s.value - COALESCE(s.overhead, 0.0)) / CAST(s.iters AS double precision) AS per_op
  FROM samples s;

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
           (cnt - 1) * 0.25::double precision + 1 AS h25,
           (cnt - 1) * 0.50::double precision + 1 AS h50,
           (cnt - 1) * 0.75::double precision + 1 AS h75
      FROM ranked r
),
q AS (
    SELECT case_id, event_id,
           MAX(cnt) AS n,
           CAST(SUM(CASE WHEN per_op IS NOT NULL THEN scaled ELSE 0 END) AS bigint) AS n_scaled,
           MIN(per_op) AS min,
           MAX(per_op) AS max,
           SUM(CASE WHEN rn = floor(h25) THEN per_op * (1 - (h25 - floor(h25)))
                    WHEN rn = floor(h25) + 1 THEN per_op * (h25 - floor(h25)) END) AS p25,
           SUM(CASE WHEN rn = floor(h50) THEN per_op * (1 - (h50 - floor(h50)))
                    WHEN rn = floor(h50) + 1 THEN per_op * (h50 - floor(h50)) END) AS median,
           SUM(CASE WHEN rn = floor(h75) THEN per_op * (1 - (h75 - floor(h75)))
                    WHEN rn = floor(h75) + 1 THEN per_op * (h75 - floor(h75)) END) AS p75
      FROM pos
     GROUP BY case_id, event_id
)
SELECT c.run_id, r.status, r.tag,
       c.probe, c.variant, c.size, c.unit, c.mode, c.op, c.verdict,
       e.name AS event, e.part, e.source, e.supported,
       COALESCE(q.n, 0) AS n,
       q.median, q.min, q.max, q.p25, q.p75,
       100.0::double precision * (q.p75 - q.p25) / NULLIF(ABS(q.median), 0) AS spread_pct,
       COALESCE(q.n_scaled, 0) AS n_scaled,
       c.bytes_per_op, c.id AS case_id, e.id AS event_id
  FROM cases c
  JOIN runs r ON r.id = c.run_id
  JOIN events e ON e.run_id = c.run_id
  LEFT JOIN q ON q.case_id = c.id AND q.event_id = e.id
 ORDER BY c.run_id, c.id, e.id;

CREATE VIEW case_summary AS
SELECT * FROM case_summary_all WHERE status = 'complete';

CREATE VIEW runs_overview AS
SELECT r.id, r.status, r.started, r.finished,
       CAST(ROUND(CAST((julianday(r.finished) - julianday(r.started)) * 86400.0 AS numeric), 1)
            AS double precision) AS seconds,
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
