#!/bin/bash
# bench/csum-ceiling.sh — every csum variant as a share of the L1 load ceiling.
# An independent loop (bench/l1load.c: zmm loads only, no shared code with
# cyclebudget) measures how many bytes per TSC tick the core can load from L1;
# cyclebudget times the csum variants, warm, at the same sizes.  Both are in
# bytes per TSC tick, which needs no core-clock estimate.  It prints figures
# and asserts nothing.
#   usage: bench/csum-ceiling.sh [path/to/cyclebudget]   (or: make bench-csum-ceiling)
#   CC (default cc) builds the load loop; MAX_TIME (default 0.5) caps each case.
#
# Columns, per size:
#   B/t    the variant's bytes per TSC tick (size / median ticks per call)
#   %load  its share of the load loop at the same size (the same call shape:
#          one call per buffer, so the per-call cost is in both)
#   %L1    its share of the steady L1 load ceiling (load512's best at 4 or 16 KiB)
#   %2op   its share of add2x512 at the same size: the most that a checksum
#          needing two vector ALU ops per 64 B (avx512-vnni) can reach
# The load loop's own rows: load512 loads only; add512 also adds each vector
# into one of 4 accumulators (one vector ALU op per 64 B, the least any
# reduction needs); add2x512 adds each vector twice (two ALU ops per 64 B, as
# avx512-vnni's vpdpbusd pair: the most a two-op checksum can reach); load256
# is the AVX2 load ceiling.
set -euo pipefail
CB=${1:-./cyclebudget}
here=$(cd "$(dirname "$0")" && pwd)
sizes="64 256 1500 4096"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/c.db"

command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed; nothing to print" >&2; exit 0; }
${CC:-cc} -O2 -o "$tmp/l1load" "$here/l1load.c"

echo "== L1 load loop (bench/l1load.c)"
"$tmp/l1load" $sizes 16384 | tee "$tmp/load"
echo

"$CB" run -p csum -s "${sizes// /,}" -m warm --max-time "${MAX_TIME:-0.5}" --db "$db" -q
echo "== csum, warm, bytes per TSC tick ($(sqlite3 "$db" "select printf('TSC %.3f GHz', tsc_ghz) from runs order by id desc limit 1"))"

# size -> load512 / add512 / load256 B/tick, and the 16 KiB ceiling
declare -A l512 a512 a2x512 l256
while read -r s a b c d; do
    [[ $s =~ ^[0-9]+$ ]] || continue
    l512[$s]=$a a512[$s]=$b a2x512[$s]=$c l256[$s]=$d
done <"$tmp/load"
# The steady ceiling: the better of 4 KiB and 16 KiB (both sit in L1).
ceil=$(awk -v a="${l512[4096]}" -v b="${l512[16384]}" 'BEGIN { print (a > b ? a : b) }')

printf '%-14s' variant
for s in $sizes; do printf ' %27s' "$s B"; done
printf '\n%-14s' ""
for s in $sizes; do printf ' %6s %6s %6s %6s' B/t %load %L1 %2op; done
echo
row() {  # row NAME then B/tick per size
    local name=$1
    shift
    printf '%-14s' "$name"
    local s
    for s in $sizes; do
        awk -v v="$1" -v l="${l512[$s]}" -v c="$ceil" -v t="${a2x512[$s]}" 'BEGIN {
            if (v == "" || v == "-") { printf " %6s %6s %6s %6s", "-", "-", "-", "-"; exit }
            printf " %6.1f %5.0f%% %5.0f%% %5.0f%%", v, (l > 0 ? 100 * v / l : 0),
                (c > 0 ? 100 * v / c : 0), (t > 0 ? 100 * v / t : 0) }'
        shift
    done
    echo
}
row load512 $(for s in $sizes; do echo "${l512[$s]}"; done)
row add512 $(for s in $sizes; do echo "${a512[$s]}"; done)
row add2x512 $(for s in $sizes; do echo "${a2x512[$s]}"; done)
row load256 $(for s in $sizes; do echo "${l256[$s]}"; done)
for v in $(sqlite3 "$db" "select distinct variant from case_summary where part='tsc' order by variant"); do
    row "$v" $(for s in $sizes; do
        sqlite3 "$db" "select coalesce((select printf('%.1f', $s / median) from case_summary
                       where part='tsc' and variant='$v' and size=$s and median > 0
                       order by run_id desc limit 1), '-')"
    done)
done
echo
echo "steady L1 load ceiling: $ceil B/TSC tick (load512, the better of 4 KiB and 16 KiB)"
echo "(the load loop's figures are the best of many short trials, cyclebudget's are medians)"
