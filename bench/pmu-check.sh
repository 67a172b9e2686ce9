#!/bin/bash
# bench/pmu-check.sh — wherever a PMU is at hand: user-space counter reads
# (rdpmc on x86, mrs on arm64) against read(), PMU cycles against the
# TSC-based estimate, a forced multiplexed group, and prefetch-drops, through
# the tool's own events.c and counters.c (bench/pmu_check.c).  The PMU
# stage runs it in its arm64 VM (tests/pmu/, docs/arm64.md), where all but
# the estimate (emulated cycles) and prefetch-drops (no Arm event) pass.  One line per check; exit 0 all pass, 1 one failed,
# 77 ("SKIP: no hardware PMU (...)") where cycles cannot be counted, as in a
# VM without a virtual PMU.  Prints figures; asserts only these checks.
#   usage: bench/pmu-check.sh [path/to/bench/pmu_check]    (or: make bench-pmu)
# Pin it (taskset -c N) for steadier figures; perf_event_paranoid must allow
# per-process counting (<= 2) and rdpmc (x86: /sys/bus/event_source/devices/cpu/rdpmc = 1;
# arm64: sysctl kernel.perf_user_access=1).
set -u
CHECK=${1:-./bench/pmu_check}
if [ ! -x "$CHECK" ]; then
    echo "pmu-check: $CHECK is not built: make bench/pmu_check (or make bench-pmu)" >&2
    exit 1
fi
for f in /sys/bus/event_source/devices/cpu/rdpmc /proc/sys/kernel/perf_user_access \
    /proc/sys/kernel/perf_event_paranoid; do
    [ -r "$f" ] && echo "     host       $f = $(cat "$f")"
done
"$CHECK"
rc=$?
case $rc in
0) echo "pmu-check: all checks passed" ;;
77) echo "pmu-check: skipped (exit 77): no hardware PMU on this host" ;;
*) echo "pmu-check: a check failed (exit $rc)" ;;
esac
exit $rc
