#!/bin/sh
# bpf.sh — does compare find an XDP program made slower, and leave the same
# object alone?  `bpf run` timings inside the running kernel (docs/kernel.md,
# "bpf run").  Prints figures; asserts nothing.  Needs root and a build with
# libbpf and clang.
#
#   sh bench/bpf.sh [CYCLEBUDGET] [TRIALS]
#
# The planted change: examples/xdp/parse_pass.bpf.c built with -DEXTRA_PASS
# (one more pass over the IPv4 header).  Each trial has its own database:
# 3 runs of the base object (tag base), then one run of the planted one
# (tag head), then `compare base head --cases 'xdp/*'`: it should exit 1
# naming xdp/parse_pass.  Then TRIALS (default 20) A/A trials: 3 runs of
# the base object and one more of the same object, `compare` each: it
# should exit 0.  Every run is `bpf run -p xdp -m default --frame 64,1518`
# plus ARGS (default empty).
#
# Last lines: "planted: exit E (regressed rows)" and "aa: exit0=K/N".
set -u
CB=${1:-./cyclebudget}
TRIALS=${2:-20}
ARGS=${ARGS:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $CB in /*) ;; *) CB=$(cd "$(dirname "$CB")" && pwd)/$(basename "$CB") ;; esac
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
MA=$(gcc -print-multiarch 2>/dev/null || gcc -dumpmachine)
build() {  # build OUT [CFLAGS...]
    out=$1
    shift
    clang -O2 -g -target bpf -I/usr/include/"$MA" "$@" -c "$TOP/examples/xdp/parse_pass.bpf.c" \
        -o "$out" || { echo "bpf.sh: clang failed" >&2; exit 2; }
}
build "$W/base.o"
build "$W/slow.o" -DEXTRA_PASS
rec() {  # rec DB TAG OBJECT
    # shellcheck disable=SC2086
    "$CB" bpf run -q -p xdp -m default --frame 64,1518 --xdp "$3" --tag "$2" --db "$1" $ARGS \
        >/dev/null 2>>"$W/err" || { echo "bpf.sh: bpf run failed:" >&2; tail -3 "$W/err" >&2; exit 2; }
}
trial() {  # trial NAME HEAD-OBJECT: prints the compare's exit and its changed rows
    db="$W/$1.db"
    for i in 1 2 3; do rec "$db" base "$W/base.o"; done
    rec "$db" head "$2"
    "$CB" compare base head --cases 'xdp/*' --db "$db" >"$W/$1.out" 2>&1
    st=$?
    rows=$(grep -E "regressed|improved" "$W/$1.out" | grep -v "^#" | tr -s ' ' | head -3 | tr '\n' ';')
    echo "$st $rows"
}
uptime
t0=$(date +%s)
set -- $(trial planted "$W/slow.o")
echo "planted: exit $1 (${*#"$1"})"
sed 's/^/  /' "$W/planted.out" | head -20
zero=0
n=1
while [ "$n" -le "$TRIALS" ]; do
    set -- $(trial "aa$n" "$W/base.o")
    echo "aa $n: exit $1 ${*#"$1"}"
    [ "$1" = 0 ] && zero=$((zero + 1))
    n=$((n + 1))
done
echo "wall: $(( $(date +%s) - t0 )) s"
uptime
echo "planted: see above; aa: exit0=$zero/$TRIALS"
