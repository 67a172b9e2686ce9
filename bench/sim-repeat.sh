#!/bin/sh
# sim-repeat.sh — how exactly run --sim repeats, and what it costs (issue 17).
# Runs the same cases N times under --sim (default 5) into one scratch store
# and prints, for each case and simulated event, the per-op median of every
# run, their min and max, and the spread (max - min) / min.  Then times one
# ordinary (timed) run of the same cases against one --sim run, per case.
# Prints figures, asserts nothing.
#   bench/sim-repeat.sh ./cyclebudget [N] [CASES]
# CASES is a --cases list (default: two checksums and glibc's copy at 1500 B,
# and a checksum at 64 KiB warm and cold).  Needs valgrind and sqlite3.
# SIM_CACHES='D1=32K,8,64 LL=8M,16,64' passes --sim-caches (the host's model
# otherwise: with a large LL a cold case walks twice it, and is slow).
set -eu
CB=${1:-./cyclebudget}
N=${2:-5}
CASES=${3:-csum/adc-1chain/1500/warm,csum/avx2/1500/warm,copy/glibc/1500/warm,csum/adc-1chain/65536/warm,csum/adc-1chain/65536/cold}
command -v sqlite3 >/dev/null || { echo "sim-repeat: needs sqlite3 (apt-get install sqlite3)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/sim.db
ncases=$(echo "$CASES" | tr ',' '\n' | wc -l)
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

sim_total=0
i=1
while [ "$i" -le "$N" ]; do
    t0=$(now)
    if [ -n "${SIM_CACHES:-}" ]; then
        "$CB" run --sim --sim-caches "$SIM_CACHES" --cases "$CASES" --db "$D" --tag "sim$i" -q
    else
        "$CB" run --sim --cases "$CASES" --db "$D" --tag "sim$i" -q
    fi
    t1=$(now)
    s=$(secs "$t0" "$t1")
    echo "run --sim $i of $N: $s s for $ncases cases"
    sim_total=$(awk -v a="$sim_total" -v b="$s" 'BEGIN { print a + b }')
    i=$((i + 1))
done

echo
echo "per-op medians over $N runs of the same build (spread = (max - min) / min):"
# case_summary holds each case's per-op median; group the runs' medians by
# case and event.
sqlite3 -batch -noheader -separator ' ' "$D" "
SELECT printf('%-28s %-10s', probe || '/' || variant || '/' || size || '/' || mode, event),
       printf('min %14.4f  max %14.4f  spread %.3g', MIN(median), MAX(median),
              CASE WHEN MIN(median) > 0 THEN (MAX(median) - MIN(median)) / MIN(median)
                   WHEN MAX(median) = 0 THEN 0 ELSE NULL END),
       '  runs ' || COUNT(*)
  FROM case_summary
 WHERE event IN ('Ir', 'Dr', 'Dw', 'D1mr', 'D1mw', 'DLmr', 'DLmw', 'I1mr', 'Bcm', 'cycles-sim')
 GROUP BY probe, variant, size, mode, event
 ORDER BY probe, variant, size, mode DESC,
          CASE event WHEN 'Ir' THEN 0 WHEN 'Dr' THEN 1 WHEN 'Dw' THEN 2 WHEN 'I1mr' THEN 3
                     WHEN 'D1mr' THEN 4 WHEN 'D1mw' THEN 5 WHEN 'DLmr' THEN 6 WHEN 'DLmw' THEN 7
                     WHEN 'Bcm' THEN 8 ELSE 9 END;"
echo
echo "cases whose Ir differs between runs: $(sqlite3 -batch -noheader "$D" "
SELECT COUNT(*) FROM (SELECT 1 FROM case_summary WHERE event = 'Ir'
 GROUP BY probe, variant, size, mode HAVING MIN(median) <> MAX(median))") of $ncases"
echo "compare of run 1 and run $N:"
"$CB" compare 1 "$N" --db "$D" | tail -n 3 || true

echo
t0=$(now)
"$CB" run --cases "$CASES" --db "$T/timed.db" -q
t1=$(now)
timed=$(secs "$t0" "$t1")
awk -v s="$sim_total" -v n="$N" -v t="$timed" -v c="$ncases" 'BEGIN {
    ps = s / n / c; pt = t / c
    printf "time per case: --sim %.2f s (mean of %d runs), timed run %.2f s: %.1fx\n", ps, n, pt, ps / pt }'
