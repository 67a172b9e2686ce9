#!/bin/bash
# verdicts.sh — the regression verdicts, protocol by protocol (issues 31
# and 40): for each of
#   one    one run a side, then `compare`, against the store's between-run
#          noise floor: FLOOR runs of the base's bytes (default 3) are
#          recorded first, as docs/regressions.md says to, and every A/A
#          run joins it (bench/aa-pairs.sh, when present, gives the A/A rate
#          of default runs in its own way and is run too)
#   five   5 runs a side, interleaved (base, head, ...), then `compare`
#          (runs as the unit)
#   ab     `cyclebudget ab BASE.so HEAD.so`: both builds in one process,
#          paired round by round
# it prints the false-alarm rate over PAIRS A/A pairs (exit 1 with nothing
# changed), the detection rate of planted +3%, +5%, +10% and +20% changes
# over TRIALS tries each (exit 1), refusals (exit 2) beside them, and the
# median wall time of one verdict (every run it needs and the compare).
# On three clocks:
#   fake   on the fake clock (CB_FAKE_CLOCK, noise=0.02 within a run; the
#          change planted exactly: scale=1.0X for a run protocol's HEAD runs,
#          head=1.0X for ab), every figure reproducible on any host;
#   real   on this machine's clock, with a real slowed plugin:
#          bench/ab_plugin.c's "mine" loading EXTRA_PCT% more words (3, 5,
#          10 and 20); the last lines say what each reads as (ab's estimate);
#   preload  (x86-64; run protocols only) glibc's memcpy slowed from
#          outside the binary: HEAD runs under LD_PRELOAD of
#          bench/memcpy_slow.c built with ADDS=3, 5, 10 and 20 dependent
#          register adds per call (the columns; 20 is issue 40's wrapper),
#          case copy/glibc/1500/warm; what each reads as is printed too.
# The case is csum/mine/1500/warm otherwise.  Each protocol's verdicts
# share one store, as a CI job's history would (so that a noise floor can
# learn).  Then the shapes of issue 48 (SHAPES, default "callee hoststate
# family"), each printing false alarms, detections and the share decided:
#   callee     a +10% change in a callee behind a same-object PLT call
#              (bench/callee.sh, TRIALS tries, no bisects): exit 1 with a
#              plain `regressed`, never placement or "the same code"
#   hoststate  one side measured in a host state (the fake clock's host=1.7,
#              HEAD other code by scale=1.0001; csum/adc-1chain/1500/warm,
#              which compare --rerun can measure): false alarms (exit 1) over
#              PAIRS pairs, and the share `compare --rerun` then decides
#   family     the whole csum family, this binary on both sides (the same
#              code: what a comment-only commit gives): FLOOR runs, then
#              1 against 1 and FLOOR against 1, each the share decided and
#              the cases regressed; then `--rerun --rerun-time RERUN_TIME`
#              (default 300) and its wall time
# Then bench/winners.sh (how often identical runs name the same winners,
# PAIRS pairs) and, in full mode, bench/placement.sh.  TABLE=0 leaves the
# protocol table out, EXTRAS=0 the scripts after the shapes.  Prints
# figures; asserts nothing.
#
#   bench/verdicts.sh [CYCLEBUDGET] [quick|full]
#
# quick (the default; a few minutes on an idle 2-CPU VM): PAIRS=4 TRIALS=2;
# full: PAIRS=20 TRIALS=10.  PAIRS, TRIALS, FLOOR, CLOCKS ("fake real
# preload"), PROTOCOLS ("one five ab") and CPU (the --cpu of the run
# protocols; default 0, as runs left to choose their own CPU are refused
# across CPUs by builds without issue 31's pinning rule) may be set in the
# environment.
set -u
CB=${1:-./cyclebudget}
MODE=${2:-quick}
case $CB in /*) ;; *) CB=$PWD/$CB ;; esac
if [ "$MODE" = full ]; then PAIRS=${PAIRS:-20} TRIALS=${TRIALS:-10}; else PAIRS=${PAIRS:-4} TRIALS=${TRIALS:-2}; fi
CLOCKS=${CLOCKS:-fake real preload}
FLOOR=${FLOOR:-3}
DELTAS="3 5 10 20"
PROTOCOLS=${PROTOCOLS:-one five ab}
CPU=${CPU:-0}
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CB_CEILINGS=model NO_COLOR=1
unset CB_FAKE_CLOCK CB_DB
cc=${CC:-cc}
for p in 0 $DELTAS; do
    $cc -O2 -shared -fPIC -I"$top/include" -DEXTRA_PCT=$p -o "$T/p$p.so" "$top/bench/ab_plugin.c" ||
        { echo "verdicts: cannot build bench/ab_plugin.c" >&2; exit 2; }
done
for p in $DELTAS; do
    $cc -O2 -shared -fPIC -DADDS=$p -o "$T/m$p.so" "$top/bench/memcpy_slow.c" -ldl 2>/dev/null ||
        { CLOCKS=$(echo " $CLOCKS " | sed 's/ preload / /'); echo "verdicts: no preload rows (bench/memcpy_slow.c is x86-64)"; break; }
done
extra() { echo "$1"; }
now() { date +%s.%N; }
seed=100

# side CLOCK DELTA SIDE: the plugin and the CB_FAKE_CLOCK value of one side
# of a run protocol (DELTA in percent, 0 for A/A; the head side is slowed).
fake_spec() {  # fake_spec DELTA-FACTOR
    seed=$((seed + 1))
    echo "seed=$seed,noise=0.02${1:+,scale=$1}"
}
one_run() {  # one_run CLOCK DB TAG SO [SCALE]; preload: SO is the LD_PRELOAD (or "")
    if [ "$1" = preload ]; then
        LD_PRELOAD=$4 "$CB" run -p copy -V glibc -s 1500 -m warm --cpu "$CPU" --tag "$3" --db "$2" -q \
            >/dev/null 2>&1
    elif [ "$1" = fake ]; then
        CB_FAKE_CLOCK=$(fake_spec "${5:-}") "$CB" run --plugin "$4" -p csum -V mine -s 1500 -m warm \
            --cpu "$CPU" --tag "$3" --db "$2" -q >/dev/null 2>&1
    else
        "$CB" run --plugin "$4" -p csum -V mine -s 1500 -m warm --cpu "$CPU" --tag "$3" --db "$2" -q \
            >/dev/null 2>&1
    fi
}
# verdict PROTO CLOCK DB I DELTA: one verdict's exit status, its time in $T/t
verdict() {
    local proto=$1 clock=$2 db=$3 i=$4 d=$5 head=$T/p$(extra "$5").so scale="" rc k
    [ "$d" != 0 ] && scale=$(awk -v d="$d" 'BEGIN { printf "%.2f", 1 + d / 100 }')
    [ "$clock" = fake ] && head=$T/p0.so
    local base=$T/p0.so cases='csum/mine/*'
    if [ "$clock" = preload ]; then
        base="" head="" cases='copy/glibc/*'
        [ "$d" != 0 ] && head=$T/m$d.so
    fi
    local t0
    t0=$(now)
    case $proto in
    one | five)
        local n=1
        [ "$proto" = five ] && n=5
        for k in $(seq 1 $n); do
            one_run "$clock" "$db" "a$i" "$base"
            one_run "$clock" "$db" "b$i" "$head" "$scale"
        done
        "$CB" compare "a$i" "b$i" --db "$db" --cases "$cases" >"$T/out" 2>&1
        rc=$?
        ;;
    ab)
        if [ "$clock" = fake ]; then
            seed=$((seed + 1))
            CB_FAKE_CLOCK="seed=$seed,noise=0.02${scale:+,head=$scale}" "$CB" ab "$T/p0.so" "$T/p0.so" \
                -V mine -s 1500 -m warm -q --db "$db" >"$T/out" 2>&1
        else
            "$CB" ab "$T/p0.so" "$head" -V mine -s 1500 -m warm -q --db "$db" >"$T/out" 2>&1
        fi
        rc=$?
        ;;
    esac
    awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }' >>"$T/t"
    return $rc
}
med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "-" }'; }

# What a real planted change reads as: the extra work's own call and loop
# cost a few percent beyond its share, and more on a loaded host.
measured() {  # measured EXTRA_PCT: the median over 3 ab verdicts of mine's head/base
    for k in 1 2 3; do
        "$CB" ab "$T/p0.so" "$T/p$1.so" -V mine -s 1500 -m warm -q --db "$T/cal.db" --format json 2>/dev/null |
            sed -n 's/.*"ratio":\([0-9.]*\).*/\1/p'
    done | sort -g | sed -n 2p | awk '{ printf "%+.1f%%", 100 * ($1 - 1) }'
}
# What ADDS dependent adds read as: compare's change of one preloaded run
# against one plain one, 3 runs a side (runs as the unit).
measured_preload() {  # measured_preload ADDS
    local db=$T/calp$1.db
    for k in 1 2 3; do
        one_run preload "$db" base ""
        one_run preload "$db" head "$T/m$1.so"
    done
    "$CB" compare base head --db "$db" --cases 'copy/glibc/1500/warm' --format json 2>/dev/null |
        sed -n 's/.*"change_pct":\(-\{0,1\}[0-9.]*\).*/\1/p' | awk '{ printf "%+.1f%%", $1 }'
}
SHAPES=${SHAPES-callee hoststate family}
RERUN_TIME=${RERUN_TIME:-300}
[ "${TABLE:-1}" = 0 ] && CLOCKS=""
echo "verdicts.sh $MODE: $PAIRS A/A pairs, $TRIALS tries per planted change; case csum/mine/1500/warm"
echo "$(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-7s %-5s %-16s %-10s %-10s %-10s %-10s %s\n' clock proto "false alarms" "+3%" "+5%" "+10%" "+20%" \
    "s/verdict"
for clock in $CLOCKS; do
    for proto in $PROTOCOLS; do
        [ "$clock" = preload ] && [ "$proto" = ab ] && continue
        db=$T/$clock-$proto.db
        : >"$T/t"
        fa=0 ref=0
        # The floor one run a side is judged against: the base's bytes,
        # recorded FLOOR times before any pair.
        if [ "$proto" = one ]; then
            for k in $(seq 1 "$FLOOR"); do
                one_run "$clock" "$db" "floor" "$([ "$clock" = preload ] || echo "$T/p0.so")"
            done
        fi
        for i in $(seq 1 "$PAIRS"); do
            verdict "$proto" "$clock" "$db" "aa$i" 0
            case $? in 1) fa=$((fa + 1)) ;; 2) ref=$((ref + 1)) ;; esac
        done
        cols=("$fa/$PAIRS${ref:+ r$ref}")
        [ "$ref" = 0 ] && cols=("$fa/$PAIRS")
        for d in $DELTAS; do
            hit=0 r2=0
            for i in $(seq 1 "$TRIALS"); do
                verdict "$proto" "$clock" "$db" "d$d-$i" "$d"
                case $? in 1) hit=$((hit + 1)) ;; 2) r2=$((r2 + 1)) ;; esac
            done
            c="$hit/$TRIALS"
            [ "$r2" != 0 ] && c="$c r$r2"
            cols+=("$c")
        done
        printf '%-7s %-5s %-16s %-10s %-10s %-10s %-10s %s\n' "$clock" "$proto" "${cols[0]}" "${cols[1]}" \
            "${cols[2]}" "${cols[3]}" "${cols[4]}" "$(med <"$T/t")"
    done
done
echo "(K/N: exit 1 in K of N verdicts; rN: N refused, exit 2)"
case " $CLOCKS " in
*" real "*) echo "real clock: EXTRA_PCT=3 reads $(measured 3), 5 reads $(measured 5), 10 reads $(measured 10)," \
    "20 reads $(measured 20) (ab's estimate, median of 3; the planted columns)" ;;
esac
case " $CLOCKS " in
*" preload "*) echo "preload: 3 adds read $(measured_preload 3), 5 read $(measured_preload 5), 10 read" \
    "$(measured_preload 10), 20 read $(measured_preload 20) (compare, 3 runs a side; the planted columns)" ;;
esac
# share DB-OUT-JSON: "decided/total regressed R" of a compare --format json
share() {
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["cases"]
dec = sum(c["verdict"] != "unsure" for c in d)
print("%d/%d decided (%.0f%%), %d regressed, %d same code" % (dec, len(d), 100.0 * dec / max(len(d), 1),
      sum(c["verdict"] == "regressed" for c in d), sum(c.get("same_code", False) for c in d)))' "$1" 2>/dev/null ||
        echo "no verdict"
}
for shape in $SHAPES; do
    case $shape in
    callee)
        echo "shape callee (bench/callee.sh, $TRIALS tries, +10% in the callee only):"
        [ -f "$top/bench/callee.sh" ] && bash "$top/bench/callee.sh" "$CB" "$TRIALS" 0 10 | sed 's/^/  /'
        ;;
    hoststate)
        db=$T/state.db fa=0 dec=0 t0=$(now)
        for i in $(seq 1 "$PAIRS"); do
            CB_FAKE_CLOCK=seed=$((seed += 1)) "$CB" run -p csum -V adc-1chain -s 1500 -m warm \
                --tag "sa$i" --db "$db" -q >/dev/null 2>&1
            CB_FAKE_CLOCK=seed=$((seed += 1)),scale=1.0001,host=1.7 "$CB" run -p csum -V adc-1chain \
                -s 1500 -m warm --tag "sb$i" --state-tries 1 --db "$db" -q >/dev/null 2>&1
            "$CB" compare "sa$i" "sb$i" --db "$db" >/dev/null 2>&1
            [ $? = 1 ] && fa=$((fa + 1))
            CB_FAKE_CLOCK=seed=$((seed += 1)) "$CB" compare "sa$i" "sb$i" --db "$db" --rerun --rerun-time 60 \
                --format json >"$T/sj" 2>/dev/null
            grep -q '"unsure":0' "$T/sj" && ! grep -q '"verdict":"regressed"' "$T/sj" && dec=$((dec + 1))
        done
        echo "shape hoststate (fake clock, HEAD 1.7x slowed by the host): false alarms $fa/$PAIRS;" \
            "decided by --rerun, none regressed: $dec/$PAIRS ($(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.0f", a - b }') s)"
        ;;
    family)
        db=$T/family.db
        for k in $(seq 1 "$FLOOR"); do "$CB" run -p csum --cpu "$CPU" --tag fam-hist --db "$db" -q >/dev/null 2>&1; done
        "$CB" run -p csum --cpu "$CPU" --tag fam-a --db "$db" -q >/dev/null 2>&1
        "$CB" run -p csum --cpu "$CPU" --tag fam-b --db "$db" -q >/dev/null 2>&1
        "$CB" compare fam-a fam-b --db "$db" --format json >"$T/f1" 2>/dev/null
        echo "shape family (csum, this binary both sides, $FLOOR runs first): 1 v 1: $(share "$T/f1")"
        "$CB" compare fam-hist fam-b --db "$db" --format json >"$T/f3" 2>/dev/null
        echo "  $FLOOR v 1: $(share "$T/f3")"
        t0=$(now)
        "$CB" compare fam-a fam-b --db "$db" --rerun --rerun-time "$RERUN_TIME" --format json >"$T/fr" 2>/dev/null
        echo "  1 v 1 --rerun --rerun-time $RERUN_TIME: $(share "$T/fr") in" \
            "$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.0f", a - b }') s"
        # The same without code identity: what the timing alone decides.
        cp "$db" "$T/nohash.db"
        sqlite3 "$T/nohash.db" "UPDATE cases SET code_hash = NULL" 2>/dev/null &&
            "$CB" compare fam-a fam-b --db "$T/nohash.db" --format json >"$T/fn" 2>/dev/null &&
            echo "  1 v 1, code hashes removed (timing alone): $(share "$T/fn")" &&
            "$CB" compare fam-hist fam-b --db "$T/nohash.db" --format json >"$T/fn3" 2>/dev/null &&
            echo "  $FLOOR v 1, code hashes removed (timing alone): $(share "$T/fn3")"
        ;;
    esac
done
echo "shapes done: load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "${EXTRAS:-1}" = 0 ] && exit 0
if [ -f "$top/bench/aa-pairs.sh" ]; then
    echo "bench/aa-pairs.sh (one run a side, this build's defaults, no --cpu):"
    bash "$top/bench/aa-pairs.sh" "$CB" "$PAIRS"
fi
if [ -f "$top/bench/winners.sh" ]; then
    echo "bench/winners.sh:"
    bash "$top/bench/winners.sh" "$CB" "$PAIRS"
fi
# placement.sh builds two trees of this repository (its own arguments): full only.
if [ "$MODE" = full ] && [ -f "$top/bench/placement.sh" ]; then
    echo "bench/placement.sh:"
    (cd "$top" && bash bench/placement.sh)
fi
