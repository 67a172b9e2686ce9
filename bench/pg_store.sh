#!/bin/bash
# pg_store.sh — the same work on an SQLite file and on PostgreSQL (a
# throw-away cluster, tests/pg.sh): recording runs one after another, 8
# collectors at once, merging the SQLite store into PostgreSQL (and again:
# nothing to add), and reading it back with report, compare and history.
# Fake-clock runs (CB_FAKE_CLOCK), so that the time is the store's and the
# process's, not a measurement's.  Prints the times; asserts nothing.
#   bench/pg_store.sh ./cyclebudget [RUNS-PER-COMMIT]
set -u
CB=$(readlink -f "${1:-./cyclebudget}")
N=${2:-10}
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/tests/pg.sh"
if ! cb_pg_start; then
    echo "no PostgreSQL: $CB_PG_WHY"
    exit 0
fi
T=$(mktemp -d)
trap 'cb_pg_stop; rm -rf "$T"' EXIT
export NO_COLOR=1 CB_CEILINGS=model
unset CB_SYNTH_SLOWDOWN CB_DB
pg_db() {
    "$cb_pg_bin/createdb" -h "$CB_PG_DIR" -p "${CB_PG_URL##*port=}" -U cb "$1" &&
        echo "postgresql://cb@/$1?${CB_PG_URL#*\?}"
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f s", b - a }'; }

R=$T/repo
git init -q "$R"
for i in 1 2 3 4; do
    echo "$i" >"$R/f"
    git -C "$R" add f
    git -C "$R" -c user.name=t -c user.email=t@example.org commit -q -m "commit $i"
done
c=()
for i in 1 2 3 4; do c[$i]=$(git -C "$R" rev-parse "HEAD~$((4 - i))"); done
rec() {  # rec DB SEED COMMIT-INDEX
    local slow=0
    [ "$3" -ge 3 ] && slow=3
    CB_FAKE_CLOCK=seed=$2,noise=0.01 CB_SYNTH_SLOWDOWN=$slow "$CB" run -p synthetic -s 1000,2000 \
        -m warm --reps 20 --cpu 0 --commit "${c[$3]}" --repo "$R" --db "$1" -q >/dev/null 2>&1
}

S=$T/s.db
P=$CB_PG_URL
echo "$((4 * N)) runs (2 cases, 20 samples each), one after another:"
for db in S P; do
    t0=$(now)
    for i in 1 2 3 4; do
        for k in $(seq 1 "$N"); do rec "${!db}" $((100 * i + k)) "$i"; done
    done
    printf '  %-10s %s\n' "$([ $db = S ] && echo SQLite || echo PostgreSQL)" "$(secs "$t0" "$(now)")"
done

echo "8 collectors at once, 5 runs each:"
C=$(pg_db cbmany)
for db in "$T/many.db" "$C"; do
    t0=$(now)
    for w in 1 2 3 4 5 6 7 8; do
        (for k in 1 2 3 4 5; do rec "$db" $((10 * w + k)) 1; done) &
    done
    wait
    el=$(secs "$t0" "$(now)")
    case $db in
    postgres*) n=$("$cb_pg_bin/psql" -X -A -t -q -d "$db" -c "select count(*) from runs where status = 'complete'")
               printf '  %-10s %s, %s of 40 runs complete\n' PostgreSQL "$el" "$n" ;;
    *) printf '  %-10s %s, %s of 40 runs complete\n' SQLite "$el" \
           "$(sqlite3 "$db" "select count(*) from runs where status = 'complete'")" ;;
    esac
done

M=$(pg_db cbmerge)
t0=$(now)
"$CB" merge "$S" --into "$M" -q >/dev/null 2>&1
echo "merge the SQLite store into an empty PostgreSQL database: $(secs "$t0" "$(now)")"
t0=$(now)
"$CB" merge "$S" --into "$M" -q >/dev/null 2>&1
echo "and again (every run's digest compared, nothing added): $(secs "$t0" "$(now)")"

for cmd in "report --format json" "compare ${c[1]},${c[2]} ${c[3]},${c[4]}" "history"; do
    echo "${cmd%% *}:"
    for db in S P M; do
        t0=$(now)
        "$CB" $cmd --db "${!db}" >/dev/null 2>&1
        printf '  %-22s %s\n' "$(case $db in S) echo SQLite ;; P) echo PostgreSQL ;; M) echo PostgreSQL, merged ;; esac)" \
            "$(secs "$t0" "$(now)")"
    done
done
