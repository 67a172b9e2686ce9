-- 0021_case_code.sql — what identifies each case's measured code, and where
-- it sat (issue 40).
--
-- Two builds of this repository that differed only in src/report/ gave a
-- csum case +10.0% [+9.99, +10.03]: the variant's code was the same, its
-- address was not.  So each case stores:
--   code_hash  16 hex digits of a SHA-256 of the machine code the case timed
--              (the family's timed loop and the variant, with their direct
--              callees), with what a link at another address rewrites masked
--              (src/harness/codehash.h).  Equal on both sides of a change:
--              the change is placement, not code.  NULL: not known (a family
--              whose variants are parameters of a model, a walk the decoder
--              could not finish, a run before this migration).
--   code_addr  the variant's entry address mod 4096 (mod 64 is its low six
--              bits), where it ran.  NULL with no code_hash's variant.
ALTER TABLE cases ADD COLUMN code_hash TEXT
    CHECK (code_hash IS NULL OR length(code_hash) = 16);
ALTER TABLE cases ADD COLUMN code_addr INTEGER
    CHECK (code_addr IS NULL OR (code_addr >= 0 AND code_addr < 4096));
