#!/bin/bash
# callee.sh — a regression behind a same-object call: bench/callee_plugin.c's
# "mine" is a static wrapper calling cbb_callee (a global function of the
# same .so, through the PLT) and only the callee is made EXTRA_PCT% slower.
# The code identity must tell the two builds apart (codehash.h), so that
# the change is judged as a change of code, not excused as placement nor
# skipped as "the same code".  Prints, each over TRIALS tries:
#   hashes     the stored code_hash of csum/mine in each build (sqlite3)
#   reads      what the planted change reads as: ab's estimate, the median
#              of 3
#   3v3        `compare` of 3 runs of the good build against 3 of the slow
#              one: exit 1 and a plain `regressed` (not placement)
#   1v1+hist   HIST runs of the good build first (the store's history,
#              default 3), then one run a side: exit 1 and `regressed`
#   bisect     bench/bisect.sh over six commits of that plugin, the slow one
#              moving (right=K/N)
# SHAPE=3v3 or SHAPE=1v1 runs that shape alone; COMPARE_ARGS are added to
# each compare (e.g. "--run-quantile 0.5").
# Asserts nothing.  SRC=bench/ab_plugin.c runs the same with the change in
# the variant itself (the control: what the verdicts give this host when
# the code identity is not in question).
#
#   bench/callee.sh [CYCLEBUDGET] [TRIALS] [BISECTS] [EXTRA_PCT]
#
# Defaults: 3 trials, 20 bisects, EXTRA_PCT 15, which reads as about +10%
# at 1500 B on an Intel Xeon KVM guest (10 reads +5%: the extra loop's cost
# is not its share of the words).  About 10 minutes on a loaded 2-vCPU VM,
# mostly the bisects (BISECTS=0 leaves them out).
set -u
COMPARE_ARGS=${COMPARE_ARGS:-}
CB=${1:-./cyclebudget}
TRIALS=${2:-3}
BISECTS=${3:-20}
PCT=${4:-15}
top=$(cd "$(dirname "$0")/.." && pwd)
case $CB in /*) ;; *) CB=$PWD/$CB ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CB_CEILINGS=model NO_COLOR=1
unset CB_FAKE_CLOCK
CPU=${CPU:-0}
cc=${CC:-cc}
SRC=${SRC:-$top/bench/callee_plugin.c}
for p in 0 "$PCT"; do
    $cc -O2 -shared -fPIC -I"$top/include" -DEXTRA_PCT="$p" -o "$T/p$p.so" "$SRC" ||
        { echo "callee: cannot build $SRC" >&2; exit 2; }
done
run() {  # run DB TAG SO
    "$CB" run --plugin "$3" -p csum -V mine -s 1500 -m warm --cpu "$CPU" --tag "$2" --db "$1" -q >/dev/null 2>&1
}
echo "plugin: $(basename "$SRC"), EXTRA_PCT=$PCT; host: $(uname -m), $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); $(uptime | sed 's/.*load/load/')"

run "$T/h.db" good "$T/p0.so"
run "$T/h.db" slow "$T/p$PCT.so"
h=$(sqlite3 "$T/h.db" "SELECT r.tag || ' ' || IFNULL(c.code_hash, 'NULL') FROM cases c JOIN runs r ON r.id = c.run_id
                        WHERE c.variant = 'mine' ORDER BY r.id" | tr '\n' ' ')
echo "hashes: $h(they must differ)"
r=$(for k in 1 2 3; do
    "$CB" ab "$T/p0.so" "$T/p$PCT.so" -V mine -s 1500 -m warm -q --db "$T/ab.db" --format json 2>/dev/null |
        sed -n 's/.*"ratio":\([0-9.]*\).*/\1/p'
done | sort -g | sed -n 2p)
echo "reads: ${r:+$(awk -v r="$r" 'BEGIN { printf "%+.1f%%", 100 * (r - 1) }')} (ab, median of 3; EXTRA_PCT=$PCT)"

verdict() {  # verdict NAME HIST N: HIST good runs first, then N a side; prints exit and mine's verdict
    local db=$T/$1.db k
    rm -f "$db"
    for k in $(seq 1 "$2"); do run "$db" hist "$T/p0.so"; done
    for k in $(seq 1 "$3"); do
        run "$db" base "$T/p0.so"
        run "$db" head "$T/p$PCT.so"
    done
    "$CB" compare base head --db "$db" --cases 'csum/mine/*' $COMPARE_ARGS >"$T/out" 2>&1
    local rc=$?
    echo "$rc $(grep -E '^csum/mine/' "$T/out" | head -1 | sed 's/  */ /g')"
}
HIST=${HIST:-3}
shapes=("3v3 0 3" "1v1+hist $HIST 1")
case ${SHAPE:-both} in 3v3) shapes=("${shapes[0]}") ;; 1v1) shapes=("${shapes[1]}") ;; esac
for shape in "${shapes[@]}"; do
    set -- $shape
    got=0
    for i in $(seq 1 "$TRIALS"); do
        v=$(verdict "$1-$i" "$2" "$3")
        echo "$1 try $i: exit ${v%% *}: ${v#* }"
        [[ ${v%% *} = 1 && $v =~ regressed$ ]] && got=$((got + 1))
    done
    echo "$1: exit 1 with a plain regressed in $got/$TRIALS (EXTRA_PCT=$PCT in the callee only)"
done
[ "$BISECTS" -gt 0 ] && "$top/bench/bisect.sh" "$CB" "$BISECTS" "$PCT" "$SRC"
echo "done: $(uptime | sed 's/.*load/load/')"
