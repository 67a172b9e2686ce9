#!/bin/sh
# report.sh — how long a big report takes: 200 runs x 100 cases, 10 samples
# per case and event, written as HTML, JSON and CSV.  Prints the times and
# the sizes; asserts nothing.
#   bench/report.sh ./cyclebudget
# The synthetic store is one real (tiny) run, copied 200 times with SQL.
set -eu
CB=${1:-./cyclebudget}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/bench.db
"$CB" run -p csum -V ref -s 64 -m warm --reps 3 --db "$D" -q >/dev/null
start=$(date +%s.%N)
sqlite3 "$D" <<'SQL'
BEGIN;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200)
INSERT INTO runs (host_id, build_id, commit_id, started, finished, status, cmdline, tag, cpu,
                  tsc_ghz, core_ghz, core_ghz_spread, core_ghz_source, pid, pid_start, boot_id)
SELECT host_id, build_id, commit_id, started, finished, 'complete', cmdline, 'bench' || x, cpu,
       tsc_ghz, core_ghz, core_ghz_spread, core_ghz_source, pid, pid_start, boot_id
  FROM runs, n WHERE runs.id = 1;
INSERT INTO events (run_id, name, part, pfm, encoding, source, read_method, supported, why)
SELECT r.id, e.name, e.part, e.pfm, e.encoding, e.source, e.read_method, e.supported, e.why
  FROM runs r JOIN events e ON e.run_id = 1 WHERE r.id > 1;
WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 99),
     k AS (SELECT x, 'v' || (x % 10) AS variant,
                  CASE (x / 10) % 5 WHEN 0 THEN 64 WHEN 1 THEN 256 WHEN 2 THEN 1500
                                    WHEN 3 THEN 4096 ELSE 65536 END AS size,
                  CASE WHEN x < 50 THEN 'warm' ELSE 'cold' END AS mode FROM n)
INSERT INTO cases (run_id, probe, variant, size, unit, op, mode, bytes_per_op, verdict, detail)
SELECT r.id, 'csum', k.variant, k.size, 'B', 'call', k.mode, k.size, 'ok', ''
  FROM runs r, k WHERE r.id > 1 ORDER BY r.id, k.mode DESC, k.size, k.variant;
WITH RECURSIVE s(q) AS (SELECT 0 UNION ALL SELECT q + 1 FROM s WHERE q < 9)
INSERT INTO samples (case_id, event_id, seq, iters, value, overhead, enabled, running, scaled)
SELECT c.id, e.id, s.q, 1000, 1000.0 * (c.size / 4.0 + 20 + abs(random() % 50)), 0, 0, 0, 0
  FROM cases c JOIN events e ON e.run_id = c.run_id AND e.supported = 1, s
 WHERE c.run_id > 1;
COMMIT;
SQL
end=$(date +%s.%N)
echo "synthetic store: 200 runs x $(sqlite3 "$D" 'select count(*) from cases where run_id = 2') cases," \
     "$(sqlite3 "$D" 'select count(*) from samples') sample rows," \
     "$(du -h "$D" | cut -f1) (made in $(awk "BEGIN { printf \"%.2f\", $end - $start }") s)"
runs=$(seq 2 201)
for f in html json csv; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$CB" report $runs --db "$D" --format $f -o "$T/r.$f"
    end=$(date +%s.%N)
    printf '%-5s %6.2f s  %8s\n' "$f" "$(awk "BEGIN { printf \"%.2f\", $end - $start }")" "$(du -h "$T/r.$f" | cut -f1)"
done
