#!/bin/sh
# merge.sh — how long `cyclebudget merge` takes: a store of 200 runs x 100
# cases (10 samples per case and event, made with SQL from one real run, as
# bench/report.sh makes it) merged into an empty store, then merged again
# (nothing to add: every run's content digest is compared), then a second
# host's copy of it.  Prints the times; asserts nothing.
#   bench/merge.sh ./cyclebudget
set -eu
CB=${1:-./cyclebudget}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$T/src.db
"$CB" run -p csum -V ref -s 64 -m warm --reps 3 --db "$S" -q >/dev/null
sqlite3 "$S" <<'SQL'
BEGIN;
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 199)
INSERT INTO runs (host_id, build_id, commit_id, started, finished, status, cmdline, tag, cpu,
                  tsc_ghz, core_ghz, core_ghz_spread, core_ghz_source, pid, pid_start, boot_id)
SELECT host_id, build_id, commit_id, started, finished, 'complete', cmdline, 'bench' || x, cpu,
       tsc_ghz, core_ghz, core_ghz_spread, core_ghz_source, pid + x, pid_start, boot_id
  FROM runs, n WHERE runs.id = 1;
INSERT INTO events (run_id, name, part, pfm, encoding, source, read_method, supported, why)
SELECT r.id, e.name, e.part, e.pfm, e.encoding, e.source, e.read_method, e.supported, e.why
  FROM runs r JOIN events e ON e.run_id = 1 WHERE r.id > 1;
WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < 99)
INSERT INTO cases (run_id, probe, variant, size, unit, op, mode, bytes_per_op, verdict, detail)
SELECT r.id, 'csum', 'v' || n.x, 64, 'B', 'call', 'warm', 64, 'ok', ''
  FROM runs r, n WHERE r.id > 1 ORDER BY r.id, n.x;
WITH RECURSIVE s(q) AS (SELECT 0 UNION ALL SELECT q + 1 FROM s WHERE q < 9)
INSERT INTO samples (case_id, event_id, seq, iters, value, overhead, enabled, running, scaled)
SELECT c.id, e.id, s.q, 1000, 1000.0 * (36 + abs(random() % 50)), 0, 0, 0, 0
  FROM cases c JOIN events e ON e.run_id = c.run_id AND e.supported = 1, s
 WHERE c.run_id > 1;
COMMIT;
SQL
echo "source: $(sqlite3 "$S" 'select count(*) from runs') runs, $(sqlite3 "$S" 'select count(*) from cases') cases," \
     "$(sqlite3 "$S" 'select count(*) from samples') sample rows, $(du -h "$S" | cut -f1)"
# A second host's store: the same rows under other UUIDs and hostname.
cp "$S" "$T/other.db"
sqlite3 "$T/other.db" "update hosts set hostname = 'other'; update runs set uuid = null, boot_id = 'other-' || boot_id;
  update runs set uuid = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
    || substr(lower(hex(randomblob(2))), 2) || '-a' || substr(lower(hex(randomblob(2))), 2)
    || '-' || lower(hex(randomblob(6)))"
step() {  # step LABEL SRC
    start=$(date +%s.%N)
    "$CB" merge "$2" --into "$T/dst.db" -q
    end=$(date +%s.%N)
    printf '%-34s %6.2f s  (%s runs in the destination)\n' "$1" \
        "$(awk "BEGIN { printf \"%.2f\", $end - $start }")" "$(sqlite3 "$T/dst.db" 'select count(*) from runs')"
}
step "into an empty store" "$S"
step "again (nothing added)" "$S"
step "a second host's 200 runs" "$T/other.db"
