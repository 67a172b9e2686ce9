#!/bin/bash
# bench/mem.sh — cyclebudget's glibc memcpy/memset throughput next to perf's
# own `perf bench mem`, at 4 KiB and 1 MiB, in PAIRS interleaved pairs (perf,
# then cyclebudget, then the next pair), so that drift on a shared machine
# falls on both.  It prints each pair and, per row, the median ratio
# (cyclebudget / perf), its range, and how many pairs cyclebudget was the
# slower; it asserts nothing (docs/measuring.md, "perf bench mem", says
# what the figures mean).
#   usage: bench/mem.sh [path/to/cyclebudget]     (or: make bench-mem)
#   PAIRS=7          pairs per row
#   CB_ARGS='...'    extra options for cyclebudget run (e.g. '-e tsc': no
#                    other counter read between batches)
#   ROWS='memset:4096'  only these rows (function:bytes, space-separated)
#   PERF_SHORT=15    perf's figure is the median of 15 short perf runs (about
#                    0.1-0.6 ms of loop each) instead of one long one:
#                    on a shared machine a long loop's mean counts every
#                    preemption (at load 9 on 2 vCPUs it read 3x low), while a
#                    short run is mostly not preempted, and the median drops
#                    those that were
#
# Units: perf prints "GB/sec" meaning GiB/s (it divides by 1024^3), so both
# columns are GiB/s.  cyclebudget's figure is bytes per median TSC-timed
# operation, with the empty-batch overhead subtracted; perf's is total bytes
# over gettimeofday() time for the whole loop (a mean, including the loop
# and call overhead).
set -euo pipefail
CB=${1:-./cyclebudget}
PAIRS=${PAIRS:-7}
CB_ARGS=${CB_ARGS:-}
ROWS=${ROWS:-"memcpy:4096 memcpy:1048576 memset:4096 memset:1048576"}
command -v perf >/dev/null || { echo "perf is not installed (Debian: linux-perf); nothing to compare" >&2; exit 0; }
perf bench mem memset -s 4KB -l 1 >/dev/null 2>&1 || { echo "perf bench mem does not run here; nothing to compare" >&2; exit 0; }
db=$(mktemp --suffix=.db)
trap 'rm -f "$db" "$db-wal" "$db-shm"' EXIT

perf_once() {  # perf_once memcpy|memset BYTES LOOPS
    perf bench mem "$1" -s "$2" -l "$3" -f default 2>/dev/null |
        awk '/GB\/sec/ {print $1} /MB\/sec/ {print $1 / 1024}' | tail -1
}

perf_gibs() {  # perf_gibs memcpy|memset BYTES LOOPS
    if [ -z "${PERF_SHORT:-}" ]; then
        perf_once "$@"
        return
    fi
    local short=$(( $3 / 200 > 0 ? $3 / 200 : 1 ))
    for _ in $(seq 1 "$PERF_SHORT"); do perf_once "$1" "$2" "$short"; done |
        sort -g | awk '{ v[NR] = $1 } END { printf "%.2f\n", v[int((NR + 1) / 2)] }'
}

cb_gibs() {  # cb_gibs copy|memset BYTES
    # shellcheck disable=SC2086
    "$CB" run -p "$1" -V glibc -s "$2" -m warm --max-time 1 --db "$db" -q $CB_ARGS
    sqlite3 -batch -noheader "$db" "
      select printf('%.2f', $2 / (s.median / r.tsc_ghz) * 1e9 / 1073741824.0)
      from case_summary s join runs r on r.id = s.run_id
      where s.probe = '$1' and s.size = $2 and s.part = 'tsc'
      order by s.run_id desc limit 1;"
}

printf '%-7s %8s %5s %12s %12s %7s\n' function bytes pair "perf GiB/s" "cb GiB/s" ratio
for row in $ROWS; do
    fn=${row%%:*} bytes=${row##*:}
    probe=$fn
    [ "$fn" = memcpy ] && probe=copy
    loops=$((bytes <= 65536 ? 1000000 : 5000))
    ratios=""
    for i in $(seq 1 "$PAIRS"); do
        p=$(perf_gibs "$fn" "$bytes" "$loops")
        c=$(cb_gibs "$probe" "$bytes")
        r=$(awk -v p="$p" -v c="$c" 'BEGIN { if (p > 0) printf "%.3f", c / p; else print "nan" }')
        ratios="$ratios $r"
        printf '%-7s %8s %5s %12s %12s %7s\n' "$fn" "$bytes" "$i" "$p" "$c" "$r"
    done
    echo "$ratios" | tr ' ' '\n' | grep -v '^$' | sort -g | awk -v f="$fn" -v b="$bytes" '
        { v[NR] = $1; slower += ($1 < 1) }
        END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%-7s %8s median ratio %.2f (%.2f-%.2f), cyclebudget slower in %d of %d pairs\n",
                     f, b, m, v[1], v[NR], slower, NR }'
done
