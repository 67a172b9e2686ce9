#!/bin/bash
# store-scale.sh — does a command's cost grow with the store? (issue 33)
#
# Prints the wall time of `report latest` and of a one-case `run` on a small
# store (one small run, about 1 MB) and on a store of 40 default runs whose
# newest run is that same small run, so that both commands do the same work
# and only the store's size differs; and the bytes a default run costs.
#
# The default run is recorded once on the fake clock (CB_FAKE_CLOCK: every
# case of the default suite, its real code, a model of its cost), which stops
# each case after fewer batches than a measured run does; its sample rows are
# then repeated (seq + k * S) until the run holds about as many rows as a
# measured default run (371,736 on the reference host).  The other 39 runs
# are copies of it made with SQL (their own ids and UUIDs).  Needs about
# 1 GB under $CB_BENCH_DIR (default: a temporary directory) and minutes.
#   bench/store-scale.sh ./cyclebudget            (make bench-store)
#   CB_BENCH_RUNS=10 bench/store-scale.sh ...     a smaller big store
set -eu
CB=$(readlink -f "${1:-./cyclebudget}")
N=${CB_BENCH_RUNS:-40}
ROWS=${CB_BENCH_ROWS:-371736}     # sample rows of a measured default run
W=$(mktemp -d "${CB_BENCH_DIR:-${TMPDIR:-/tmp}}/store-scale.XXXXXX")
[ -n "${CB_BENCH_KEEP:-}" ] && echo "store-scale: keeping $W" || trap 'rm -rf "$W"' EXIT
export CB_FAKE_CLOCK=seed=1,noise=0.01 CB_CEILINGS=model NO_COLOR=1
q() { sqlite3 -batch -noheader "$1" "$2"; }
size() { stat -c %s "$1"; }
cols() {  # cols DB TABLE EXPR-FOR-COL...: the column list, and the select list with substitutions
    local db=$1 t=$2; shift 2
    local list sel
    list=$(q "$db" "select group_concat(name, ', ') from pragma_table_info('$t')")
    sel=$list
    for sub in "$@"; do sel=$(echo "$sel" | sed -E "s/(^|, )${sub%%=*}(,|$)/\1${sub#*=}\2/"); done
    echo "($list) SELECT $sel"
}
secs() {  # secs CMD...: the median wall time of 5 runs (after one to warm up), in seconds
    "$@" >/dev/null 2>&1 || true
    for i in 1 2 3 4 5; do
        local t0 t1
        t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
        echo $(( (t1 - t0) / 1000 ))
    done | sort -n | sed -n 3p | awk '{printf "%.3f", $1 / 1e6}'
}

echo "store-scale: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), $("$CB" --version 2>/dev/null | head -1)"
# --- one default run, widened to a measured run's rows ---
D=$W/default.db
"$CB" run --db "$D" -q >/dev/null 2>"$W/run.err" || { cat "$W/run.err" >&2; exit 1; }
have=$(q "$D" "select count(*) from samples")
S=$(q "$D" "select max(seq) + 1 from samples")
k=1
{
    echo "BEGIN;"
    while [ $(( have * (k + 1) )) -le "$ROWS" ]; do
        echo "INSERT INTO samples $(cols "$D" samples "seq=seq + $k * $S") FROM samples WHERE seq < $S;"
        k=$((k + 1))
    done
    echo "COMMIT; PRAGMA wal_checkpoint(TRUNCATE);"
} | sqlite3 -batch "$D" >/dev/null
rows=$(q "$D" "select count(*) from samples")
echo "default run: $(q "$D" "select count(*) from cases") cases, $have sample rows on the fake clock," \
     "repeated to $rows"
one=$(size "$D")
# Before and after 0012_lean_samples: the same run, vacuumed, with and
# without the samples_event index it dropped.
cp "$D" "$W/lean.db"; cp "$D" "$W/old.db"
q "$W/lean.db" "VACUUM" >/dev/null
q "$W/old.db" "CREATE INDEX IF NOT EXISTS samples_event ON samples (event_id); VACUUM" >/dev/null
echo "one default run, vacuumed: $(size "$W/lean.db") bytes at schema $(q "$D" "pragma user_version")," \
     "$(size "$W/old.db") with samples_event (schema 11 and before)"
rm -f "$W/lean.db" "$W/old.db"

# --- the small store: one small run ---
small=$W/small.db
"$CB" run -p synthetic,csum -s 64,1500,9000 -m warm,cold --reps 40 --db "$small" -q >/dev/null 2>&1
"$CB" report latest --db "$small" >/dev/null 2>&1   # checkpointed by its clean close

# --- the big store: N default runs, then the small run as the newest ---
big=$W/big.db
cp "$D" "$big"
E=$(q "$D" "select max(id) from events"); C=$(q "$D" "select max(id) from cases")
{
    echo "PRAGMA synchronous = OFF; BEGIN;"
    for k in $(seq 1 $((N - 1))); do
        echo "INSERT INTO runs $(cols "$D" runs "id=NULL" "uuid=NULL" "pid=pid + $k") FROM runs WHERE id = 1;"
        echo "INSERT INTO events $(cols "$D" events "id=id + $k * $E" "run_id=(SELECT max(id) FROM runs)") FROM events WHERE run_id = 1;"
        echo "INSERT INTO cases $(cols "$D" cases "id=id + $k * $C" "run_id=(SELECT max(id) FROM runs)") FROM cases WHERE run_id = 1;"
        echo "INSERT INTO samples $(cols "$D" samples "case_id=case_id + $k * $C" "event_id=event_id + $k * $E") FROM samples WHERE case_id <= $C;"
    done
    echo "COMMIT; PRAGMA wal_checkpoint(TRUNCATE);"
} | sqlite3 -batch "$big" >/dev/null
"$CB" merge "$small" --into "$big" -q
echo "big store: $(q "$big" "select count(*) from runs") runs, $(q "$big" "select count(*) from samples") sample rows," \
     "$(( $(size "$big") / 1048576 )) MiB; small store: $(( $(size "$small") / 1024 )) KiB"
per=$(( ($(size "$big") - one) / (N - 1) ))
echo "bytes per default run: $per ($(( per / 1048576 )) MiB; $(( per / rows )) per sample row)"

# --- the timings (after sync: the copies above leave the big file dirty in the page cache) ---
sync
rs=$(secs "$CB" report latest --db "$small"); rb=$(secs "$CB" report latest --db "$big")
echo "report latest: ${rs} s on the small store, ${rb} s on the big one ($(awk -v a="$rs" -v b="$rb" 'BEGIN{printf "%.2f", b / a}')x)"
one_case() { "$CB" run -p synthetic -s 1000 -m warm --reps 10 --db "$1" -q; }
us=$(secs one_case "$small"); ub=$(secs one_case "$big")
echo "run (one case): ${us} s on the small store, ${ub} s on the big one ($(awk -v a="$us" -v b="$ub" 'BEGIN{printf "%.2f", b / a}')x)"
