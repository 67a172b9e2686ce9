-- 0021_case_code.sql (PostgreSQL) — the twin of db/0021_case_code.sql: each
-- case's code hash and its entry address mod 4096; read that file for the
-- columns' meaning.
--
-- Where the dialects differ, and why: INTEGER is bigint (as everywhere in
-- db/pg/).
ALTER TABLE cases ADD COLUMN code_hash text
    CHECK (code_hash IS NULL OR length(code_hash) = 16);
ALTER TABLE cases ADD COLUMN code_addr bigint
    CHECK (code_addr IS NULL OR (code_addr >= 0 AND code_addr < 4096));
