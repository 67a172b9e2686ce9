#!/bin/sh
# ceilings.sh — cyclebudget's machine ceilings beside independent loops
# (issue 19).  Prints, for the load and store ceilings at L1, L2, L3 and DRAM
# (widest vector ISA), what `cyclebudget calibrate --ceilings` measured, what
# bench/loadloop.c measures on the same working sets (intrinsics, timed with
# CLOCK_MONOTONIC_RAW, not the TSC), and what likwid-bench's load_/store_
# kernels measure when likwid is installed (Debian: apt-get install likwid),
# each in bytes per TSC tick, with the ratio of each pair.  All three run
# pinned to the same CPU, one after the other.  Asserts nothing: timing
# figures belong here, not in make check.
#
# Usage: bench/ceilings.sh [path/to/cyclebudget] [cpu]
set -eu
CB=${1:-./cyclebudget}
CPU=${2:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PIN=""
command -v taskset >/dev/null 2>&1 && PIN="taskset -c $CPU"

${CC:-cc} -O2 -o "$T/loadloop" "$HERE/loadloop.c"
# Measured and printed, never stored: this is a comparison, not a calibration.
CB_CEILINGS= $PIN "$CB" calibrate --ceilings --no-store >"$T/cal"
cat "$T/cal"
tsc=$(sed -n 's/.*bytes per TSC tick at \([0-9.]*\) GHz.*/\1/p' "$T/cal")
vec=$(awk '$1 == "load" && $2 == "L1" && $5 != "scalar" {print $5; exit}' "$T/cal")
# "load L1 24 KiB avx512 172.51 ..." -> "load L1 24576 172.51"
awk -v isa="$vec" '($1 == "load" || $1 == "store") && $5 == isa {
    m = $4 == "MiB" ? 1048576 : $4 == "KiB" ? 1024 : 1
    print $1, $2, $3 * m, $6
}' "$T/cal" >"$T/cb"
sets=$(awk '$1 == "load" {print $3}' "$T/cb")
# shellcheck disable=SC2086
$PIN "$T/loadloop" $sets >"$T/ll"

likwid=$(command -v likwid-bench || true)
kern=$([ "$vec" = avx512 ] && echo _avx512 || { [ "$vec" = avx2 ] && echo _avx || echo _sse; })
echo
echo "ceilings side by side: bytes per TSC tick at $tsc GHz, widest ISA ($vec)"
printf '%-6s %-5s %10s %10s %10s %6s' ceiling level "set" cyclebudget loadloop ratio
[ -n "$likwid" ] && printf ' %10s %6s' likwid ratio
echo
while read -r kind level bytes cb; do
    ll=$(awk -v k="$kind" -v b="$bytes" -v g="$tsc" '$1 == k && $2 == b {printf "%.2f", $3 / g}' "$T/ll")
    printf '%-6s %-5s %10s %10.2f %10s %6s' "$kind" "$level" "$bytes" "$cb" "${ll:--}" \
        "$(awk -v a="$cb" -v b="$ll" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
    if [ -n "$likwid" ]; then
        # likwid's kB are 1000 bytes; its MByte/s are 10^6 bytes a second.
        # It times one window per call: the best of three, as the others
        # keep their best trial (DRAM: one).
        tries=3
        [ "$level" = DRAM ] && tries=1
        lw=$(for i in $(seq "$tries"); do
                 $PIN "$likwid" -t "$kind$kern" -W "N:$((bytes / 1000))kB:1" 2>/dev/null
             done | awk -v g="$tsc" '/^MByte\/s:/ {v = $2 * 1e6 / (g * 1e9); if (v > b) b = v}
                                     END {if (b > 0) printf "%.2f", b}')
        printf ' %10s %6s' "${lw:--}" \
            "$(awk -v a="$cb" -v b="$lw" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
    fi
    echo
done <"$T/cb"
echo "(ratio = cyclebudget / the other; the issue asks the L1 load ratio to be within 0.85..1.15)"
[ -n "$likwid" ] || echo "(likwid-bench not installed: apt-get install likwid adds its column)"
