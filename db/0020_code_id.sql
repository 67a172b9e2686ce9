-- 0020_code_id.sql — the bytes a run measured (issue 40).
--
-- compare learns its between-run noise floor from runs of the same code,
-- and a build row (version, compiler, flags) with a commit is not the same
-- code: a dirty tree, a build outside git, an LD_PRELOAD'd wrapper or a
-- CB_* variable that slows the measured code leave them equal.  A run now
-- records what it saw (src/host/codeid.h):
--
-- runs.code_id: sha256 (hex) of the measuring object's build-id (or its
--   sha256 when it has none), each LD_PRELOAD'd object's path and sha256,
--   and the CB_* variables that change the measured code.  Two runs with
--   the same code_id and the same run_plugins hashes measured the same
--   bytes.  NULL: recorded before this migration (such runs teach no floor).
-- runs.code_what: the same in words, shortened, for messages
--   ('exe build-id e27236a93bcae440; LD_PRELOAD /tmp/slow.so 9c1e...').
ALTER TABLE runs ADD COLUMN code_id TEXT CHECK (code_id IS NULL OR length(code_id) = 64);
ALTER TABLE runs ADD COLUMN code_what TEXT;
CREATE INDEX runs_code_id ON runs (code_id);
