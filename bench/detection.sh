#!/bin/bash
# detection.sh — how often compare raises a false alarm, and how often it
# finds a planted slowdown.  Prints figures; asserts nothing.
#
#   bench/detection.sh [CYCLEBUDGET] [A/A-TRIES] [A/B-TRIES] [REPS] [RUNS] [THRESHOLDS]
#
# Suite: the synthetic family (a dependent add chain; CB_SYNTH_SLOWDOWN
# plants a slowdown of exactly that fraction), sizes 250, 1000 and 4000
# adds, warm, REPS samples per case (default 30), pinned to CPU $CPU: by
# default (CPU=auto) the one whose SMT meter reads lowest just before each
# try (`cyclebudget calibrate --smt`; the host's load on the sibling thread
# moves between vCPUs), both sides of a try on the same one.  Every
# try records RUNS base runs and RUNS head runs (default 16), interleaved
# (base, head, base, head, ... starting with the other side every other
# try), into a new database, and runs `cyclebudget compare base head` on it
# once per threshold in THRESHOLDS (percent, comma-separated; default 2,1)
# with the other defaults (Holm, alpha 0.01).  With RUNS >= 2 compare takes
# runs as the unit; RUNS=1 shows what one run per side gives.  A compare
# "alarms" when it exits 1.  Rates come with a 95% Wilson interval; CPU time
# is user+system of the whole try (all runs and compares), per try.  The
# last line of a series counts the tries in which compare left out runs
# measured on a shared core, and those with too few quiet runs to do so.
# LOG=FILE appends every compare's output (first threshold) for diagnosis.
# ROUNDS (default 1) is `run --rounds`: each run measures each case in that
# many rounds, REPS/ROUNDS samples each, with an idle pause of PAUSE ms
# (default 20) between them, so a run sees several host states (docs/measuring.md,
# "Rounds").
# RERUN=S makes each compare sequential, as a CI gate can be: after the RUNS
# runs a side, `compare --rerun --rerun-time S` records one more run a side
# of the undecided cases with each side's own command (--base-exec,
# --head-exec), until every case is decided or S seconds are spent.  Each
# threshold gets its own copy of the try's database, so one threshold's
# reruns never feed another's.  The CPU time then counts the recording and
# that threshold's reruns, and the runs a side are reported (mean, max).
# DELTAS (default 0.01,0.02,0.05,0.10) are the planted slowdowns; a count of
# 0 tries skips the A/A or the A/B series.
set -u
CB=${1:-./cyclebudget}
NAA=${2:-100}
NAB=${3:-40}
REPS=${4:-30}
RUNS=${5:-16}
THRESHOLDS=${6:-2,1}
ROUNDS=${ROUNDS:-1}
PAUSE=${PAUSE:-20}
RERUN=${RERUN:-}
DELTAS=${DELTAS:-0.01,0.02,0.05,0.10}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
unset CB_SYNTH_SLOWDOWN
IFS=, read -r -a THR <<<"$THRESHOLDS"

wilson() {  # wilson K N -> "lo..hi" in %
    awk -v k="$1" -v n="$2" 'BEGIN { z = 1.96; p = k / n; d = 1 + z*z/n;
        c = (p + z*z/(2*n)) / d; h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / d;
        lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1;
        printf "%.0f%%..%.0f%%", 100*lo, 100*hi }'
}

cpu_now() {  # user+system seconds of this shell's children so far
    times >"$T/times"
    awk 'NR == 2 { split($1, u, "m"); split($2, s, "m");
        printf "%.3f", u[1]*60 + u[2] + s[1]*60 + s[2] }' "$T/times" >"$T/cpu"
}

pick_cpu() {  # the CPU to pin this try to
    if [ "${CPU:-auto}" != auto ]; then
        echo "$CPU"
        return
    fi
    "$CB" calibrate --smt 2>/dev/null | awk '$1 == "cpu" && $6 == "raw" && (best == "" || $8 < low) { best = $2; low = $8 }
        END { print (best == "" ? 0 : best) }'
}

record() {  # record DELTA INDEX: RUNS runs a side, interleaved, into $T/t.db
    local db=$T/t.db delta=$1 i=$2
    rm -f "$db" "$db"-*
    local args="-p synthetic -s 250,1000,4000 -m warm --reps $REPS --rounds $ROUNDS"
    args="$args --round-pause $PAUSE --cpu $(pick_cpu) --db $db -q"
    for j in $(seq 1 "$RUNS"); do
        # Both sides get the variable, with values of the same length: the
        # environment's size moves the stack, and with it the timing of
        # some code (Mytkowicz et al., "Producing wrong data without doing
        # anything obviously wrong", ASPLOS 2009).
        if [ $(((i + j) % 2)) = 0 ]; then
            CB_SYNTH_SLOWDOWN=0.00 "$CB" run $args --tag base || return 2
            CB_SYNTH_SLOWDOWN=$delta "$CB" run $args --tag head || return 2
        else
            CB_SYNTH_SLOWDOWN=$delta "$CB" run $args --tag head || return 2
            CB_SYNTH_SLOWDOWN=0.00 "$CB" run $args --tag base || return 2
        fi
    done
}

compare() {  # compare K DELTA: compare the try at threshold K, with reruns when RERUN is set
    if [ -z "$RERUN" ]; then
        "$CB" compare base head --threshold "${THR[$1]}" --db "$T/t.db" >"$T/out" 2>&1
        return
    fi
    local st run="run --reps $REPS --rounds $ROUNDS --round-pause $PAUSE"
    cp "$T/t.db" "$T/r.db"
    "$CB" compare base head --threshold "${THR[$1]}" --db "$T/r.db" --rerun --rerun-time "$RERUN" \
        --base-exec "CB_SYNTH_SLOWDOWN=0.00 '$CB' $run" --head-exec "CB_SYNTH_SLOWDOWN=$2 '$CB' $run" \
        >"$T/out" 2>"$T/err"
    st=$?
    sqlite3 "$T/r.db" "select count(*) from runs where tag = 'rerun-base' and status = 'complete'" >"$T/added"
    [ "$st" = 2 ] && cat "$T/err" >&2
    return $st
}

series() {  # series LABEL DELTA N
    local label=$1 delta=$2 n=$3 errors=0 c0 c1 ck k st left=0 stuck=0
    local -a alarms unsure cpu added maxadd
    for k in "${!THR[@]}"; do alarms[$k]=0; unsure[$k]=0; cpu[$k]=0; added[$k]=0; maxadd[$k]=0; done
    cpu_now; c0=$(cat "$T/cpu")
    for i in $(seq 1 "$n"); do
        if ! record "$delta" "$i"; then
            errors=$((errors + 1))
            continue
        fi
        for k in "${!THR[@]}"; do
            cpu_now; ck=$(cat "$T/cpu")
            compare "$k" "$delta"
            st=$?
            cpu_now; cpu[$k]=$(awk -v a="${cpu[$k]}" -v b="$ck" -v c="$(cat "$T/cpu")" 'BEGIN { print a + c - b }')
            if [ -n "$RERUN" ]; then
                added[$k]=$((added[$k] + $(cat "$T/added")))
                [ "$(cat "$T/added")" -gt "${maxadd[$k]}" ] && maxadd[$k]=$(cat "$T/added")
            fi
            if [ "$k" = 0 ]; then
                grep -q '^contention   left out' "$T/out" && left=$((left + 1))
                grep -q '^contention   .* fewer quiet runs' "$T/out" && stuck=$((stuck + 1))
                [ -n "${LOG:-}" ] && { echo "== $label try $i"; cat "$T/out"; } >>"$LOG"
            fi
            case $st in
                1) alarms[$k]=$((alarms[$k] + 1)) ;;
                0) grep -q '^[a-z_]*/.* unsure$' "$T/out" && unsure[$k]=$((unsure[$k] + 1)) ;;
                *) errors=$((errors + 1)) ;;
            esac
        done
    done
    cpu_now; c1=$(cat "$T/cpu")
    local cmp_all
    cmp_all=$(awk -v s="${cpu[*]}" 'BEGIN { n = split(s, a, " "); for (i = 1; i <= n; i++) t += a[i]; print t }')
    for k in "${!THR[@]}"; do
        printf "%-20s threshold %s%%: %3d/%-3d = %5.1f%%  (95%% CI %s)  unsure in %d" \
            "$label" "${THR[$k]}" "${alarms[$k]}" "$n" \
            "$(awk -v a="${alarms[$k]}" -v n="$n" 'BEGIN{print 100*a/n}')" \
            "$(wilson "${alarms[$k]}" "$n")" "${unsure[$k]}"
        if [ -n "$RERUN" ]; then
            # this threshold's CPU: the try's recording plus its own compare and reruns
            printf "; CPU %.2f s per try, runs a side %.1f on average (at most %d)" \
                "$(awk -v a="$c0" -v b="$c1" -v all="$cmp_all" -v me="${cpu[$k]}" -v n="$n" 'BEGIN { print (b - a - all + me) / n }')" \
                "$(awk -v r="$RUNS" -v a="${added[$k]}" -v n="$n" 'BEGIN { print r + a / n }')" \
                "$((RUNS + maxadd[$k]))"
        fi
        echo
    done
    printf "%-20s errors %d, CPU %.2f s per try; shared core: runs left out in %d tries, too few quiet runs in %d\n" \
        "$label" "$errors" "$(awk -v a="$c0" -v b="$c1" -v n="$n" 'BEGIN{print (b-a)/n}')" "$left" "$stuck"
}

echo "detection power: synthetic 250/1000/4000 adds, warm, --reps $REPS --rounds $ROUNDS --round-pause $PAUSE, $RUNS run(s) per side interleaved${RERUN:+, then --rerun for up to $RERUN s}, CPU ${CPU:-auto}, Holm, alpha 0.01"
[ "$NAA" -gt 0 ] && series "A/A false alarms" 0.00 "$NAA"
[ "$NAB" -gt 0 ] || exit 0
IFS=, read -r -a DLIST <<<"$DELTAS"
for d in "${DLIST[@]}"; do
    series "A/B +$(awk -v d=$d 'BEGIN{print 100*d}')% detected" "$d" "$NAB"
done
