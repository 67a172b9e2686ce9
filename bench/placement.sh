#!/bin/bash
# placement.sh — issue 40's placement false alarms: two builds of this
# repository that differ only by an unrelated edit in src/report/, each run
# RUNS times (interleaved A B A B ...), then `compare a b`.  Prints the exit
# status, the cases called changed (regressed/improved) and those labelled
# placement; asserts nothing.
#
#   bench/placement.sh [REV] [RUNS] [ARGS...]
#
# REV (default HEAD) is archived twice into a temporary directory (git
# archive: the committed tree, no local edits); copy B gets one more
# function in src/report/report.c (a few hundred bytes of code never
# called, which moves everything linked after it, as issue 40's
# report-only commit did).  Each copy is built with
# `./configure -q && make cyclebudget`.  RUNS defaults to 3; ARGS to "-p csum"
# (every csum variant at its 8 sizes, warm and cold: the family of issue
# 40's case; give "-p csum,copy,memset" or more for a wider net).  Run it for the
# commit before a placement change and after it to see its effect:
#   bench/placement.sh d7aa1ac; bench/placement.sh HEAD
set -u
REV=${1:-HEAD}
RUNS=${2:-3}
shift 2 2>/dev/null || shift $#
ARGS=${*:--p csum}
top=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export CB_CEILINGS=model
unset CB_FAKE_CLOCK
for side in a b; do
    mkdir -p "$W/$side"
    git -C "$top" archive "$REV" | tar -x -C "$W/$side" || exit 2
done
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
for side in a b; do
    (cd "$W/$side" && autoreconf -fi >/dev/null 2>&1 && ./configure -q >/dev/null 2>&1 &&
        make -j2 cyclebudget >/dev/null 2>"$W/build-$side.log") ||
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
"$W/b/cyclebudget" compare a b --db "$DB" >"$W/cmp" 2>&1
rc=$?
changed=$(grep -cE ' (regressed|improved)' "$W/cmp")
placed=$(grep -c 'placement' "$W/cmp")
cases=$(sqlite3 "$DB" "SELECT COUNT(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.tag = 'a' AND c.verdict = 'ok'" 2>/dev/null)
same=$(sqlite3 "$DB" "SELECT COUNT(DISTINCT a.probe || a.variant) FROM cases a JOIN runs ra ON ra.id = a.run_id AND ra.tag = 'a'
    JOIN cases b ON b.probe = a.probe AND b.variant = a.variant JOIN runs rb ON rb.id = b.run_id AND rb.tag = 'b'
    WHERE a.code_hash IS NOT NULL AND a.code_hash = b.code_hash" 2>/dev/null)
addr=$(sqlite3 "$DB" "SELECT COUNT(DISTINCT a.probe || a.variant) FROM cases a JOIN runs ra ON ra.id = a.run_id AND ra.tag = 'a'
    JOIN cases b ON b.probe = a.probe AND b.variant = a.variant JOIN runs rb ON rb.id = b.run_id AND rb.tag = 'b'
    WHERE a.code_addr IS NOT NULL AND a.code_addr <> b.code_addr" 2>/dev/null)
grep -E ' (regressed|improved)|placement' "$W/cmp" | head -40
echo "rev=$(git -C "$top" rev-parse --short "$REV") args='$ARGS' runs=${RUNS}x$RUNS case-runs-a=${cases:-?}"
echo "variants with the same code hash on both sides: ${same:-n/a}; at another address mod 4096: ${addr:-n/a}"
echo "compare exit=$rc changed=$changed labelled-placement=$placed"
