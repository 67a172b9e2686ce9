#!/bin/bash
# winners.sh — how often two identical runs name the same winners (issue
# 40: two runs of `run -p csum -s 1500` named avx2 best, with avx512 not a
# tie, then avx512).  Prints figures; asserts nothing.
#
#   bench/winners.sh [CYCLEBUDGET] [PAIRS]
#
# Each run's claims are read from its text report: per group (probe, size,
# mode) the best variant, or the variants tied with the first.  Two ways:
#   alone   every run in a store of its own, so its claims rest on its own
#           samples (the within-run rank test);
#   shared  every run in one store after SEED runs (default 2) of the same
#           bytes, so its claims rest on it and the runs before it (a
#           paired t over runs, rank.h).
# A pair agrees when both runs claim exactly the same in every group.
# PAIRS (default 5) pairs each; ARGS (default "-p csum -s 1500", the
# issue's) are run's options.
set -u
CB=${1:-./cyclebudget}
PAIRS=${2:-5}
SEED=${SEED:-2}
ARGS=${ARGS:--p csum -s 1500}
case $CB in /*) ;; *) CB=$(cd "$(dirname "$CB")" && pwd)/$(basename "$CB") ;; esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 2
export NO_COLOR=1

# claims DB: one line per group, "csum 1500 B warm: best avx2" or
# "...: tie avx2 avx512", from the newest run's text report.
claims() {
    "$CB" report latest --db "$1" 2>/dev/null | awk '
        /^[a-z_0-9]+ +[0-9]+ [A-Za-z]+ +(warm|cold) +\(/ { g = $1 " " $2 " " $3 " " $4; first = ""; next }
        g != "" && /^  variant / { want = 1; next }
        want && /^  [A-Za-z0-9]/ { first = $1; want = 0; best[g] = "best " first; next }
        g != "" && /^  = tied within noise:/ {
            sub(/^  = tied within noise: */, ""); n = split($0, t, " +")
            for (i = 2; i <= n; i++) for (j = i; j > 1 && t[j - 1] > t[j]; j--) { x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
            s = "tie"; for (i = 1; i <= n; i++) s = s " " t[i]; best[g] = s; next }
        END { for (k in best) print k ": " best[k] }' | sort
}
rec() {  # rec DB
    # shellcheck disable=SC2086
    "$CB" run $ARGS --db "$1" -q >/dev/null 2>>"$W/err" || { echo "winners: run failed:" >&2; tail -3 "$W/err" >&2; exit 2; }
}
flips=""
# same KIND I DB1 DB2: a run into each store, then 0 when both claim the
# same; the differing claims are kept for the report.
same() {
    rec "$3" && claims "$3" >"$W/x"
    rec "$4" && claims "$4" >"$W/y"
    cmp -s "$W/x" "$W/y" && return 0
    flips="$flips$(diff "$W/x" "$W/y" | grep '^[<>]' | head -4 | sed "s/^/    $1 pair $2: /")
"
    return 1
}
alone=0 shared=0
for i in $(seq 1 "$PAIRS"); do same alone "$i" "$W/a$i.db" "$W/b$i.db" && alone=$((alone + 1)); done
for k in $(seq 1 "$SEED"); do rec "$W/s.db"; done
for i in $(seq 1 "$PAIRS"); do same shared "$i" "$W/s.db" "$W/s.db" && shared=$((shared + 1)); done
echo "winners.sh: run $ARGS, $PAIRS pairs each; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s' "$flips"
echo "alone (claims within one run): $alone/$PAIRS pairs named the same winners and ties"
echo "shared (runs as the unit, $SEED+ earlier runs of the same bytes): $shared/$PAIRS pairs"
