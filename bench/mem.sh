#!/bin/bash
# bench/mem.sh — cyclebudget's memcpy/memset throughput next to perf's own
# `perf bench mem`, at the same sizes, in the same run.  Both time glibc's
# memcpy and memset on one warm buffer; on an idle machine they should agree
# within 10%.  It prints figures and asserts nothing.
#   usage: bench/mem.sh [path/to/cyclebudget]     (or: make bench-mem)
#
# Units: perf prints "GB/sec" meaning GiB/s (it divides by 1024^3), so both
# columns are GiB/s.  cyclebudget's figure is bytes per median TSC-timed
# operation, with the empty-batch overhead subtracted; perf's is total bytes
# over gettimeofday() time for the whole loop (a mean, including the loop
# and call overhead).
set -euo pipefail
CB=${1:-./cyclebudget}
command -v perf >/dev/null || { echo "perf is not installed (Debian: linux-perf); nothing to compare" >&2; exit 0; }
db=$(mktemp --suffix=.db)
trap 'rm -f "$db" "$db-wal" "$db-shm"' EXIT

perf_gibs() {  # perf_gibs memcpy|memset SIZE LOOPS
    perf bench mem "$1" -s "$2" -l "$3" -f default 2>/dev/null |
        awk '/GB\/sec/ {print $1} /MB\/sec/ {print $1 / 1024}' | tail -1
}

cb_gibs() {  # cb_gibs copy|memset BYTES
    "$CB" run -p "$1" -V glibc -s "$2" -m warm --max-time 1 --db "$db" -q
    sqlite3 -batch -noheader "$db" "
      select printf('%.2f', $2 / (s.median / r.tsc_ghz) * 1e9 / 1073741824.0)
      from case_summary s join runs r on r.id = s.run_id
      where s.probe = '$1' and s.size = $2 and s.part = 'tsc'
      order by s.run_id desc limit 1;"
}

printf '%-8s %-8s %14s %14s %8s\n' function size "perf GiB/s" "cyclebudget" "diff"
for row in "memcpy copy 4KB 4096 1000000" "memcpy copy 1MB 1048576 5000" \
           "memset memset 4KB 4096 1000000" "memset memset 1MB 1048576 5000"; do
    set -- $row
    p=$(perf_gibs "$1" "$3" "$5")
    c=$(cb_gibs "$2" "$4")
    d=$(awk -v p="$p" -v c="$c" 'BEGIN { if (p > 0) printf "%+.1f%%", (c - p) / p * 100; else print "-" }')
    printf '%-8s %-8s %14s %14s %8s\n' "$1" "$3" "$p" "$c" "$d"
done
