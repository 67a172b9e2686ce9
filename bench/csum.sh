#!/bin/bash
# bench/csum.sh — the csum benchmark: what counting costs on this machine, and
# bytes per cycle of every checksum variant at 1500 bytes, warm and cold.
# It prints figures and asserts nothing about them.
#   usage: bench/csum.sh [path/to/cyclebudget]    (or: make bench)
set -euo pipefail
CB=${1:-./cyclebudget}
db=$(mktemp --suffix=.db)
trap 'rm -f "$db" "$db-wal" "$db-shm"' EXIT
echo "== counter read overhead (cyclebudget calibrate)"
"$CB" calibrate
echo
echo "== csum at 1500 bytes, warm and cold"
"$CB" run -p csum -s 1500 -m warm,cold --max-time 1 --db "$db" -q
"$CB" report --db "$db" | sed -n '/^csum/,$p'
echo
echo "== speed-up over adc-1chain (median cycles), warm"
sqlite3 -batch -noheader -separator ' ' "$db" "
  with c as (select variant, mode, median from case_summary
             where event = (select name from events where part = (
               case when exists (select 1 from events where part='cycles' and supported=1 and source='pmu')
                    then 'cycles' else 'cycles-est' end) limit 1))
  select printf('  %-16s %5.2fx', a.variant, b.median / a.median)
  from c a join c b on b.variant = 'adc-1chain' and b.mode = a.mode
  where a.mode = 'warm' order by a.median;"
