-- 0022_paths.sql — one packet's path composed from a run's cases (issue 41,
-- `cyclebudget budget --path`, src/report/path.c): what the path cost with
-- the run's cases, so that history tracks a path as it tracks a case.
--
-- path: the path's name ('rx', 'fwd', or a user's file's 'path' line);
-- size: the packet's bytes; context: 'user' or 'kernel' (SIMD steps charged
--   the FPU save); frame: the chosen frame (--frame);
-- charged_frame, charged_frames: the frames one packet of size bytes is
--   charged to (src/analysis/budget.c's rule);
-- cycles, cycles_lo, cycles_hi: the sum of the steps' medians (count
--   included) and its interval (the steps' 95% half-widths added in
--   quadrature); ns: the sum of their times per packet; NULL: no step measured;
-- steps, missing: how many steps, and how many had no case in the run;
-- detail: 'label=variant:cycles;...' in the path's order ('label=-' missing).
-- One row per run, path, size and context: a later composition replaces it.
CREATE TABLE path_results (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    path           TEXT    NOT NULL CHECK (length(path) > 0),
    size           INTEGER NOT NULL CHECK (size > 0),
    context        TEXT    NOT NULL CHECK (context IN ('user', 'kernel')),
    frame          INTEGER NOT NULL CHECK (frame >= 64),
    charged_frame  INTEGER NOT NULL CHECK (charged_frame >= 64),
    charged_frames INTEGER NOT NULL CHECK (charged_frames >= 1),
    cycles         REAL,
    cycles_lo      REAL,
    cycles_hi      REAL,
    ns             REAL,
    steps          INTEGER NOT NULL CHECK (steps > 0),
    missing        INTEGER NOT NULL CHECK (missing >= 0 AND missing <= steps),
    detail         TEXT    NOT NULL,
    UNIQUE (run_id, path, size, context)
);
CREATE INDEX path_results_path ON path_results (path, size, context);
