-- 0009_uuid.sql — a run's identity beyond this file (issue 20).
--
-- Applied like every migration (one transaction, PRAGMA user_version = 9).
-- runs.id is this database's row number: two stores collected on two hosts
-- both have a run 1.  runs.uuid names the run wherever it is copied, so
-- that `cyclebudget merge` can tell a run it already holds from a new one.
-- It is a UUID version 4 (RFC 9562) in its canonical lower-case form,
-- 'xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx' with V one of 8, 9, a, b; the
-- collector draws it from getrandom(2) when the run begins.
--
-- Runs recorded before this migration get a fresh one here.  ALTER TABLE
-- cannot give a new column an expression default, so the trigger below
-- gives one to any run inserted without it (bench/report.sh makes its
-- synthetic runs with plain SQL).  PostgreSQL would write the same as
-- `uuid TEXT NOT NULL DEFAULT gen_random_uuid()::text`.
ALTER TABLE runs ADD COLUMN uuid TEXT
    CHECK (uuid IS NULL OR (length(uuid) = 36 AND uuid GLOB
        '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-4[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'));

UPDATE runs
   SET uuid = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
              || substr(lower(hex(randomblob(2))), 2) || '-'
              || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2)
              || '-' || lower(hex(randomblob(6)))
 WHERE uuid IS NULL;

CREATE UNIQUE INDEX runs_uuid ON runs (uuid);

CREATE TRIGGER runs_uuid_default AFTER INSERT ON runs
WHEN NEW.uuid IS NULL
BEGIN
    UPDATE runs
       SET uuid = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
                  || substr(lower(hex(randomblob(2))), 2) || '-'
                  || substr('89ab', 1 + (abs(random()) % 4), 1)
                  || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))
     WHERE id = NEW.id;
END;
