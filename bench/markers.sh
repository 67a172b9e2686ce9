#!/bin/sh
# markers.sh — the cost of region markers (issue 18): a begin/end pair with
# the markers off (no CYCLEBUDGET_DB: a load and a branch each) and on (a
# counter read at each end and a sample kept), and what init and close cost.
# Builds bench/markers.c against the built library.  Prints figures,
# asserts nothing (timing never gates make check).
#   bench/markers.sh [BUILDDIR] [N]
set -eu
B=${1:-.}
N=${2:-10000000}
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
${CC:-cc} -O2 -I"$top/include" -o "$T/markers" "$top/bench/markers.c" -L"$B/.libs" -lcyclebudget
export LD_LIBRARY_PATH="$B/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset CYCLEBUDGET_DB
for i in 1 2 3; do "$T/markers" "$N"; done
# On, samples are kept (at most 100000 a region), so fewer pairs.
for i in 1 2 3; do rm -f "$T/m.db"; CYCLEBUDGET_DB="$T/m.db" "$T/markers" 100000; done
echo "events: ${CYCLEBUDGET_EVENTS:-run's default}; on a host without a PMU only the TSC and task-clock (a read() system call) are read"
