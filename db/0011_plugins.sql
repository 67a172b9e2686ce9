-- 0011_plugins.sql — the variant plugins a run loaded (issue 18).
--
-- `run --plugin ./my.so` measures the user's own functions beside the
-- built-in variants.  The path alone does not say which build of my.so was
-- measured, so the file's sha256 is stored with it: two runs of the same
-- path from different commits of the user's tree differ here.
CREATE TABLE run_plugins (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    path      TEXT    NOT NULL,                      -- absolute, as loaded
    sha256    TEXT    NOT NULL CHECK (length(sha256) = 64),
    name      TEXT    NOT NULL,                      -- the plugin's own name
    variants  TEXT    NOT NULL                       -- 'csum/mine,csum/mine-bad'
);
CREATE INDEX run_plugins_run ON run_plugins (run_id);
