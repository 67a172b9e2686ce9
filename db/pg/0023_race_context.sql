-- 0023_race_context.sql (PostgreSQL) — the twin of db/0023_race_context.sql:
-- a race's context and FPU charge, and race_summary's "before" within one
-- context; read that file for what they mean.
--
-- Where the dialects differ, and why: REAL is double precision (as
-- everywhere in db/pg/).
ALTER TABLE races ADD COLUMN context text NOT NULL DEFAULT 'user'
    CHECK (context IN ('user', 'kernel'));
ALTER TABLE races ADD COLUMN fpu_charge double precision CHECK (fpu_charge IS NULL OR fpu_charge >= 0);
DROP VIEW IF EXISTS race_summary;
CREATE VIEW race_summary AS
SELECT ra.id AS race_id, r.id AS run_id, r.started, h.hostname, h.model_name,
       ra.mode, ra.context, ra.fpu_charge, ra.metric, ra.alpha, ra.min_margin,
       rr.probe, rr.bucket, rr.min_size, rr.max_size, rr.size, rr.decision,
       rr.winner, rr.winner_needs, rr.margin, rr.margin_lo, rr.margin_hi, rr.p_value,
       rr.runner_up, rr.tied,
       (SELECT pr.winner
          FROM race_results pr
          JOIN races pa ON pa.id = pr.race_id
          JOIN runs pu ON pu.id = pa.run_id
          JOIN hosts ph ON ph.id = pu.host_id
         WHERE pu.status = 'complete' AND pa.id < ra.id AND pa.mode = ra.mode
           AND pa.context = ra.context
           AND ph.hostname = h.hostname AND ph.model_name = h.model_name
           AND pr.probe = rr.probe AND pr.bucket = rr.bucket
         ORDER BY pa.id DESC LIMIT 1) AS prev_winner
  FROM race_results rr
  JOIN races ra ON ra.id = rr.race_id
  JOIN runs r ON r.id = ra.run_id
  JOIN hosts h ON h.id = r.host_id
 WHERE r.status = 'complete'
 ORDER BY ra.id, rr.id;
