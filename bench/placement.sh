#!/bin/bash
# placement.sh — issue 40's placement false alarms: two builds of this
# repository that differ only by an unrelated edit in src/report/, each run
# RUNS times (interleaved A B A B ...), then `compare a b`.  Prints the exit
# status, the cases called changed (regressed/improved) and those labelled
# placement; asserts nothing.
#
#   bench/placement.sh [REV] [RUNS] [ARGS...]
#
# RUNS 0 builds the two copies and prints only where the edit moved the
# probe functions.
# EDIT=code (the default) is the edit below; EDIT=comment adds a comment
# to src/report/report.c instead (a comment-only commit: the binary's
# build-id and nothing the probes run changes).  After the RUNS x RUNS
# compare it also prints the last run of b against the last of a (one run
# a side, the earlier runs as history), and that pair judged with
# `compare --rerun --rerun-time RERUN_TIME` (default 300), each side's
# new runs recorded by its own build: the share decided and the wall time.
# REV (default HEAD) is archived twice into a temporary directory (git
# archive: the committed tree, no local edits); copy B gets one more
# function in src/report/run_load.c (a few hundred bytes of code never
# called, which moves everything linked after it, as issue 40's
# report-only commit did).  Each copy is built with
# `./configure -q && make`.  RUNS defaults to 3; ARGS to "-p csum"
# (every csum variant at its 8 sizes, warm and cold: the family of issue
# 40's case); "quick" for the whole quick suite (no -p), or any run options.  Run it for the
# commit before a placement change and after it to see its effect:
#   bench/placement.sh d7aa1ac; bench/placement.sh HEAD
set -u
REV=${1:-HEAD}
RUNS=${2:-3}
shift 2 2>/dev/null || shift $#
ARGS=${*:--p csum}
[ "$ARGS" = quick ] && ARGS=""
top=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export CB_CEILINGS=model
unset CB_FAKE_CLOCK
for side in a b; do
    mkdir -p "$W/$side"
    git -C "$top" archive "$REV" | tar -x -C "$W/$side" || exit 2
done
EDIT=${EDIT:-code}
RERUN_TIME=${RERUN_TIME:-300}
if [ "$EDIT" = comment ]; then
    printf '\n/* bench/placement.sh: a comment-only edit. */\n' >>"$W/b/src/report/report.c"
else
    cat >>"$W/b/src/report/report.c" <<'EOC'

/* bench/placement.sh: an unrelated edit that moves the code linked after it. */
__attribute__((used, noinline)) int cb_report_placement_pad(const char *s, int n);
__attribute__((used, noinline)) int cb_report_placement_pad(const char *s, int n)
{
    int acc = 0;
    for (int i = 0; i < n && s[i]; i++)
        acc = acc * 31 + s[i] * (i % 7 == 3 ? 5 : 3) - (acc >> 11);
    return acc ^ n;
}
EOC
fi
for side in a b; do
    (cd "$W/$side" && autoreconf -fi >/dev/null 2>&1 && ./configure -q >/dev/null 2>&1 &&
        make -j2 >/dev/null 2>"$W/build-$side.log") ||
        { echo "placement: cannot build copy $side of $REV:" >&2; tail -5 "$W/build-$side.log" >&2; exit 2; }
done
DB=$W/p.db
cd "$W" || exit 2
for i in $(seq 1 "$RUNS"); do
    for side in a b; do
        # shellcheck disable=SC2086
        "$W/$side/cyclebudget" run $ARGS --tag "$side" --db "$DB" -q >/dev/null 2>>"$W/err" ||
            { echo "placement: run $side$i failed:" >&2; tail -3 "$W/err" >&2; exit 2; }
    done
done
if [ "$RUNS" -eq 0 ]; then   # the link only: where the edit moved the probes
    touch "$W/cmp" "$W/cmp.json"
fi
"$W/b/cyclebudget" compare a b --db "$DB" >"$W/cmp" 2>&1
rc=$?
"$W/b/cyclebudget" compare a b --db "$DB" --format json >"$W/cmp.json" 2>/dev/null
rows() { grep -E '^[a-z_]+/[^ ]+ .* (regressed|improved)( \(placement\))?$' "$W/cmp"; }
changed=$(rows | grep -vc '(placement)$')
placed=$(rows | grep -c '(placement)$')
moved=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
ch = [abs(c["change_pct"]) for c in d["cases"] if c.get("change_pct") is not None]
print("%d of %d cases moved by more than 3%% (%d by more than 5%%); median |change| %.2f%%" % (
    sum(x > 3 for x in ch), len(ch), sum(x > 5 for x in ch), sorted(ch)[len(ch) // 2] if ch else float("nan")))' "$W/cmp.json" 2>/dev/null)
# Where the link put each probe function, from the binaries' symbol tables:
# how many sit elsewhere mod 64 and mod 4096 in copy b.
syms() { nm "$1" | awk '$2 ~ /^[tT]$/ && $3 ~ /^(csum|copy|memset|cb_csum|cb_copy|cb_memset)_/ { print $3, $1 }' | sort; }
addrs=$(join <(syms "$W/a/cyclebudget") <(syms "$W/b/cyclebudget") | python3 -c 'import sys
n = m64 = m4k = 0
for line in sys.stdin:
    _, a, b = line.split()
    a, b, n = int(a, 16), int(b, 16), n + 1
    m64 += a % 64 != b % 64
    m4k += a % 4096 != b % 4096
print("%d probe functions: %d at another address mod 64, %d mod 4096" % (n, m64, m4k))')
rows | head -40
echo "rev=$(git -C "$top" rev-parse --short "$REV") edit=$EDIT args='$ARGS' runs=${RUNS}x$RUNS"
echo "link: $addrs"
echo "timing: ${moved:-n/a}"
tail -1 "$W/cmp" | sed 's/^/summary: /'
echo "compare exit=$rc changed=$changed labelled-placement=$placed"
[ "$RUNS" -ge 1 ] || exit 0
# share JSON: "decided/total, regressed R, same code S" of a compare --format json
share() {
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["cases"]
dec = sum(c["verdict"] != "unsure" for c in d)
print("%d/%d decided, %d regressed, %d improved, %d same code" % (dec, len(d),
      sum(c["verdict"] == "regressed" for c in d), sum(c["verdict"] == "improved" for c in d),
      sum(c.get("same_code", False) for c in d)))' "$1" 2>/dev/null || echo "no verdict"
}
last() { sqlite3 -batch -noheader "$DB" "SELECT max(id) FROM runs WHERE tag = '$1'"; }
ra=$(last a) rb=$(last b)
"$W/b/cyclebudget" compare "$ra" "$rb" --db "$DB" --format json >"$W/one.json" 2>/dev/null
echo "1 v 1 (run $ra against run $rb, exit $?): $(share "$W/one.json")"
t0=$(date +%s.%N)
# shellcheck disable=SC2086
"$W/b/cyclebudget" compare "$ra" "$rb" --db "$DB" --format json --rerun --rerun-time "$RERUN_TIME" \
    --base-exec "$W/a/cyclebudget run $ARGS" --head-exec "$W/b/cyclebudget run $ARGS" \
    >"$W/rerun.json" 2>/dev/null
rc=$?
echo "1 v 1 --rerun --rerun-time $RERUN_TIME (exit $rc): $(share "$W/rerun.json") in" \
    "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.0f", a - b }') s"
echo "host: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
