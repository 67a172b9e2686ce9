#!/bin/bash
# detection-suite.sh — false alarms of compare on the whole default suite.
# Prints figures; asserts nothing.
#
#   bench/detection-suite.sh [CYCLEBUDGET] [RUNS] [SPLITS] [K] [THRESHOLD%] [DB]
#
# Records RUNS runs (default 12) of the default suite (`cyclebudget run`
# with no -p: every family's quick suite, warm and cold), pinned to CPU 0,
# of one binary, into DB (default: a temporary file; give a path to keep
# the runs and rerun the splits).  Then makes SPLITS (default 100) A/A
# compares: each draws K (default 5) of the runs for base and K others for
# head at random (a fixed seed per split) and runs `cyclebudget compare`
# with the defaults (Holm, alpha 0.01) at THRESHOLD (default 2).  Every
# split is a genuine A/A compare of the whole suite, but the splits share
# runs, so they are not independent tries: read the count as "how often"
# rather than a rate with an interval.  An existing DB with RUNS or more
# complete runs is reused as it is.  ROUNDS (default 1) is `run --rounds`
# (docs/measuring.md, "Rounds").
set -u
CB=${1:-./cyclebudget}
RUNS=${2:-12}
SPLITS=${3:-100}
K=${4:-5}
THR=${5:-2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB=${6:-$T/suite.db}
ROUNDS=${ROUNDS:-1}
unset CB_SYNTH_SLOWDOWN
q() { sqlite3 -batch -noheader "$DB" "$1"; }

have=0
[ -f "$DB" ] && have=$(q "select count(*) from runs where status = 'complete'")
if [ "$have" -gt 0 ]; then
    cpu=$(q "select cpu from runs where status = 'complete' order by id limit 1")
elif [ "${CPU:-auto}" != auto ]; then
    cpu=$CPU
else
    cpu=$("$CB" calibrate --smt 2>/dev/null | awk '$1 == "cpu" && $6 == "raw" && (best == "" || $8 < low) { best = $2; low = $8 }
        END { print (best == "" ? 0 : best) }')
fi
if [ "$have" -lt "$RUNS" ]; then
    for i in $(seq $((have + 1)) "$RUNS"); do
        s=$(date +%s)
        "$CB" run --rounds "$ROUNDS" --cpu "$cpu" --db "$DB" -q --tag suite ||
            { echo "run $i failed" >&2; exit 1; }
        echo "recorded run $i of $RUNS ($(($(date +%s) - s)) s)"
    done
fi
mapfile -t ids < <(q "select id from runs where status = 'complete' order by id")
[ "${#ids[@]}" -ge $((2 * K)) ] || { echo "need at least $((2 * K)) runs, have ${#ids[@]}" >&2; exit 1; }
ncases=$(q "select count(*) from cases where run_id = ${ids[0]}")

alarms=0 alarmed_cases=0 unsure=0 unchanged=0 errors=0 contended=0
for s in $(seq 1 "$SPLITS"); do
    # Shuffle the run ids with awk's seeded generator: split s is the same
    # every time.
    mapfile -t pick < <(printf '%s\n' "${ids[@]}" | awk -v seed="$s" 'BEGIN { srand(seed) }
        { print rand() "\t" $0 }' | sort -n | cut -f2 | head -n $((2 * K)))
    base=$(IFS=,; echo "${pick[*]:0:K}")
    head=$(IFS=,; echo "${pick[*]:K:K}")
    "$CB" compare "$base" "$head" --threshold "$THR" --db "$DB" >"$T/out" 2>&1
    case $? in
        0) ;;
        1) alarms=$((alarms + 1)); sed -n 's/ regressed$//p' "$T/out" | sed 's/^/  alarm: /' ;;
        *) errors=$((errors + 1)); head -3 "$T/out" ;;
    esac
    alarmed_cases=$((alarmed_cases + $(grep -c ' regressed$' "$T/out")))
    grep -q '^contention' "$T/out" && contended=$((contended + 1))
    unsure=$((unsure + $(grep -c '^[a-z_]*/.* unsure$' "$T/out")))
    unchanged=$((unchanged + $(grep -c ' unchanged$' "$T/out")))
done
total=$((SPLITS * ncases))
rounds=$(q "select max(1, count(distinct round)) from samples where case_id = (select min(id) from cases where run_id = ${ids[0]} and verdict = 'ok')")
echo "default suite: ${#ids[@]} runs of $ncases cases on CPU $cpu (rounds per case: ${rounds:-1}), $SPLITS random A/A splits of $K vs $K runs, threshold $THR%, Holm, alpha 0.01"
echo "splits with a false alarm: $alarms/$SPLITS; case verdicts: $alarmed_cases regressed, $unsure unsure, $unchanged unchanged of $total; errors $errors"
echo "splits in which compare left out samples taken on a shared core: $contended"
