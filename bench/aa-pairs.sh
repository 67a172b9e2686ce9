#!/bin/sh
# aa-pairs.sh — how often compare cries wolf on A/A pairs of default runs
# (issue 31): no --cpu, one run a side, judged against the store's noise
# floor.  Prints figures; asserts nothing.
#
#   sh bench/aa-pairs.sh [CYCLEBUDGET] [PAIRS]
#
# The protocol, as docs/regressions.md gives it ("One run a side: the noise
# floor"): one shared database (a new one in a temporary directory, or
# DB=PATH to keep it); SEED runs of the build first (default 3: the floor
# needs 2 degrees of freedom from runs the pair does not contain), then
# PAIRS pairs (default 10), each `run --tag aN`, `run --tag bN` with ARGS
# (default "-p csum -s 64,1500,4096 -m warm,cold") and no --cpu, followed by
# `compare aN bN`.  Every run of the build joins the floor of later pairs.
# The runs are made from that temporary directory, no git tree, so they are
# all one build to the store whatever state this tree is in.
#
# Last line: "false_alarms=K/N refused=R/N" (compares that exited 1, and
# those that exited 2).  Before it, one line per pair: its exit status, its
# verdict counts and its pinned CPUs, and the rows called regressed or
# improved; then the wall time of one compare.
set -u
CB=${1:-./cyclebudget}
PAIRS=${2:-10}
SEED=${SEED:-3}
ARGS=${ARGS:--p csum -s 64,1500,4096 -m warm,cold}
case $CB in /*) ;; *) CB=$(cd "$(dirname "$CB")" && pwd)/$(basename "$CB") ;; esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
DB=${DB:-$W/aa.db}
cd "$W" || exit 2
rec() {
    # shellcheck disable=SC2086
    "$CB" run $ARGS --tag "$1" --db "$DB" -q >/dev/null 2>>"$W/err" || { echo "aa-pairs: run failed:" >&2; tail -3 "$W/err" >&2; exit 2; }
}
i=1
while [ "$i" -le "$SEED" ]; do rec "seed$i"; i=$((i + 1)); done
alarms=0 refused=0 t_total=0
i=1
while [ "$i" -le "$PAIRS" ]; do
    rec "a$i"
    rec "b$i"
    t0=$(date +%s.%N)
    "$CB" compare "a$i" "b$i" --db "$DB" >"$W/o" 2>"$W/e"
    st=$?
    t1=$(date +%s.%N)
    t_total=$(echo "$t_total $t0 $t1" | awk '{ printf "%.3f", $1 + $3 - $2 }')
    [ "$st" -eq 1 ] && alarms=$((alarms + 1))
    [ "$st" -eq 2 ] && refused=$((refused + 1))
    summary=$(grep -E '^[0-9]+ regressed' "$W/o" || head -1 "$W/e")
    cpus=$(sqlite3 "$DB" "select group_concat(cpu, '/') from runs where tag in ('a$i', 'b$i')" 2>/dev/null)
    echo "pair $i: exit $st  cpus ${cpus:-?}  $summary"
    grep -E ' (regressed|improved)( \(acknowledged\))?$' "$W/o" | sed 's/^/    /'
    i=$((i + 1))
done
echo "compare wall time: $(echo "$t_total $PAIRS" | awk '{ printf "%.2f", $1 / $2 }') s per pair (mean; the floor is learned each time)"
echo "false_alarms=$alarms/$PAIRS refused=$refused/$PAIRS"
