#!/bin/bash
# ab-power.sh — issue 31's done-when for `ab`, on the real clock: how often
# `cyclebudget ab X.so X.so` exits 0, and how often, with HEAD.so about 10%
# slower in one variant at 1500 B warm, it exits 1 naming exactly that case.
# Prints figures; asserts nothing.
#
#   bench/ab-power.sh [CYCLEBUDGET] [TRIES] [EXTRA_PCT]
#
# The plugin is bench/ab_plugin.c: "mine" (slowed by EXTRA_PCT% more work,
# default 10, about +10% at 1500 B warm) and
# "ctl" (never slowed: the control, which must not be named).  Both are
# compared in every try (-s 1500 -m warm, the defaults otherwise), so an
# A/A false alarm on either counts.  Each try is its own process and its
# own database.  TRIES defaults to 20.  The last lines give the measured
# change (the median over the A/B tries of mine's head/base) and the wall
# time of one verdict (median).
set -u
CB=${1:-./cyclebudget}
N=${2:-20}
PCT=${3:-10}
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CB_CEILINGS=model
unset CB_FAKE_CLOCK
cc=${CC:-cc}
$cc -O2 -shared -fPIC -I"$top/include" -o "$T/x.so" "$top/bench/ab_plugin.c" &&
    $cc -O2 -shared -fPIC -I"$top/include" -DEXTRA_PCT="$PCT" -o "$T/slow.so" "$top/bench/ab_plugin.c" ||
    { echo "ab-power: cannot build bench/ab_plugin.c" >&2; exit 2; }

now() { date +%s.%N; }
aa0=0 named=0 other=0
: >"$T/times" && : >"$T/ratios"
for i in $(seq 1 "$N"); do
    t0=$(now)
    "$CB" ab "$T/x.so" "$T/x.so" -s 1500 -m warm -q --db "$T/aa$i.db" >"$T/out" 2>/dev/null
    rc=$?
    awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }' >>"$T/times"
    [ $rc -eq 0 ] && aa0=$((aa0 + 1))
    [ $rc -ne 0 ] && { echo "--- A/A try $i exit $rc"; grep -E '^(csum|ab:)' "$T/out"; } >>"$T/log"
    t0=$(now)
    "$CB" ab "$T/x.so" "$T/slow.so" -s 1500 -m warm -q --db "$T/ab$i.db" --format json >"$T/j" 2>/dev/null
    rc=$?
    awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }' >>"$T/times"
    verdicts=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join(c["case"].split("/")[1] + ":" + c["verdict"] for c in d["cases"]))
for c in d["cases"]:
    if c["case"] == "csum/mine/1500/warm" and c["ratio"]: print(c["ratio"], file=open(sys.argv[2], "a"))' "$T/j" "$T/ratios" 2>/dev/null)
    if [ $rc -eq 1 ] && [[ " $verdicts " == *" mine:regressed "* ]] && [[ " $verdicts " != *" ctl:regressed "* && " $verdicts " != *" ctl:improved "* ]]; then
        named=$((named + 1))
    else
        echo "--- A/B try $i exit $rc: $verdicts" >>"$T/log"
    fi
done
med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "nan" }'; }
echo "ab A/A (X.so X.so, -s 1500 -m warm): exit 0 in $aa0/$N"
echo "ab A/B (HEAD EXTRA_PCT=$PCT in mine): exit 1 naming csum/mine/1500/warm only in $named/$N"
echo "measured change of mine (median head/base over the A/B tries): $(med <"$T/ratios")"
echo "wall time of one verdict (median over all tries): $(med <"$T/times") s"
[ -s "$T/log" ] && { echo "misses:"; cat "$T/log"; }
exit 0
