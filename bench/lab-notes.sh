#!/bin/sh
# lab-notes.sh — re-measure the figures of docs/lab-notes.md.  Prints the date,
# the host and each command before what it prints, so that the output can be
# pasted into the lab notes as it stands.  Asserts nothing: timing never gates
# make check.  The detection series take hours on a 2-core VM: they run only
# with LAB_NOTES_LONG=1.
#   usage: bench/lab-notes.sh [path/to/cyclebudget] [BUILDDIR]   (or: make lab-notes)
CB=${1:-./cyclebudget}
BUILDDIR=${2:-$(dirname "$CB")}
BENCH=$(dirname "$0")

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "# lab notes: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# host: $(uname -n), ${model:-unknown CPU}, $(nproc) CPUs, kernel $(uname -r)"
echo "# cyclebudget: $("$CB" --version 2>/dev/null | head -n 1)"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine moves every timing)"

# Each step prints its command first; a step that fails is reported and the
# next one still runs, so that one missing tool (perf, likwid, valgrind)
# does not hide the other figures.
step() {
	echo
	echo "\$ $*"
	"$@" || echo "(exit $?: $1 failed; its figures are missing above)"
}

step "$CB" calibrate --ceilings --no-store
step bash "$BENCH/csum.sh" "$CB"
step bash "$BENCH/mem.sh" "$CB"
step bash "$BENCH/ceilings.sh" "$CB"
step bash "$BENCH/csum-ceiling.sh" "$CB"
step bash "$BENCH/report.sh" "$CB"
step bash "$BENCH/merge.sh" "$CB"
step bash "$BENCH/markers.sh" "$BUILDDIR"
if command -v valgrind >/dev/null 2>&1; then
	step bash "$BENCH/sim-repeat.sh" "$CB"
else
	echo; echo "# run --sim: skipped, valgrind is not installed (apt-get install valgrind)"
fi
if [ "${LAB_NOTES_LONG:-0}" = 1 ]; then
	step bash "$BENCH/detection.sh" "$CB"
	step env RERUN=10 DELTAS=0.05 bash "$BENCH/detection.sh" "$CB" 0 40 30 8 2
	step env RERUN=10 bash "$BENCH/detection.sh" "$CB" 100 0 30 8 2
	step bash "$BENCH/detection-suite.sh" "$CB" 16 100 8 2
else
	echo; echo "# detection series: skipped (hours); LAB_NOTES_LONG=1 runs them"
fi
