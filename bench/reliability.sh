#!/bin/bash
# bench/reliability.sh — the reliability battery of docs/reliability.md,
# re-run from one script: it prints what was tried, how many, and how many
# failed, part by part, and exits 1 when any failed.
#
#   bench/reliability.sh [FUZZ_SECONDS]        (default 180 s per fuzz target)
#
# Run it from a built tree (./cyclebudget).  Parts that need what this
# machine lacks (root for the loop-mounted ext4, a PostgreSQL server, clang
# for fuzzing, an older commit to build) say SKIP and why.  Knobs:
#   KILLS=N      collectors killed per signal (default 50: 150 in all)
#   WRITERS=N ROUNDS=N   concurrent collectors (default 8 x 4; PostgreSQL x 2)
#   OLD_COMMIT=REV       the older cyclebudget whose store is upgraded
#                        (default 42d5dad, schema 11); OLD_BIN=PATH skips the build
#   ATTACKS=N    tries of each plugin attack and marker abuse (default 3)
#   SKIP=LIST    parts to leave out: kills,writers,pg,upgrade,badinput,diskfull,
#                sanitizers,fuzz,plugins,io
# It is long (the sanitizer and old builds, FUZZ_SECONDS x 5 targets): it is
# a bench script, not part of make check.
set -u
FUZZ_SECONDS=${1:-180}
TOP=$(cd "$(dirname "$0")/.." && pwd)
CB=${CYCLEBUDGET:-$TOP/cyclebudget}
KILLS=${KILLS:-50}
WRITERS=${WRITERS:-8}
ROUNDS=${ROUNDS:-4}
OLD_COMMIT=${OLD_COMMIT:-42d5dad}
ATTACKS=${ATTACKS:-3}
SKIP=${SKIP:-}
W=$(mktemp -d /tmp/cb-reliability.XXXXXX)
trap 'rm -rf "$W"' EXIT
export NO_COLOR=1
unset CB_DB
TOTAL_TRIED=0 TOTAL_FAILED=0
q() { sqlite3 -batch -noheader -cmd '.timeout 20000' "$1" "$2"; }
skip() { case ",$SKIP," in *,"$1",*) return 0 ;; esac; return 1; }
say() {  # say PART TRIED FAILED WHAT
    printf '%-11s %6s tried %4s failed  %s\n' "$1" "$2" "$3" "$4"
    TOTAL_TRIED=$((TOTAL_TRIED + $2))
    TOTAL_FAILED=$((TOTAL_FAILED + $3))
}
skipped() { printf '%-11s SKIP: %s\n' "$1" "$2"; }
# TAP totals of a test script's log: "PASS FAIL"; the failures themselves
# go to stderr, so that a run says what failed after its files are gone.
tap_counts() {
    grep -A2 '^not ok ' "$1" | head -30 | sed "s|^|#   $(basename "$1"): |" >&2
    echo "$(grep -c '^ok ' "$1") $(grep -c '^not ok ' "$1")"
}
echo "# cyclebudget reliability battery, $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg); fuzz: ${FUZZ_SECONDS} s per target"

# --- kills: SIGKILL, SIGINT, SIGTERM at random moments of a run ---------
# After each: the store is sound, no run is left 'running' once a writer has
# opened it, no killed run is counted complete, and every complete run whole.
part_kills() {
    local db=$W/kill.db tried=0 failed=0 sig i pid delay
    "$CB" run -p csum -V ref,adc-1chain -s 64,1500 -m warm --reps 20 --db "$db" -q 2>/dev/null
    local whole
    whole=$(q "$db" "select count(*) from cases where run_id = 1")
    RANDOM=${CB_CRASH_SEED:-$$}
    for sig in KILL INT TERM; do
        for i in $(seq 1 "$KILLS"); do
            "$CB" run -p csum -V ref,adc-1chain -s 64,1500 -m warm --reps 20 --db "$db" -q \
                --tag "k$sig$i" >/dev/null 2>&1 &
            pid=$!
            delay=$((RANDOM % 600))
            sleep "$(printf '0.%03d' "$delay")"
            kill -s "$sig" "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            tried=$((tried + 1))
            # The next writer reaps what SIGKILL left running.
            "$CB" run -p csum -V ref -s 64 -m warm --reps 3 --db "$db" -q --tag reaper >/dev/null 2>&1
            local bad
            bad=$(q "$db" "select (select count(*) from runs where status = 'running')
                  + (select count(*) from runs r where r.status = 'complete' and r.tag like 'k%'
                     and (select count(*) from cases c where c.run_id = r.id) <> $whole)")
            if [ "$(q "$db" "pragma quick_check")" != ok ] || [ "$bad" != 0 ]; then
                failed=$((failed + 1))
                echo "#   kill -$sig after 0.$delay s left the store unsound or a run wrong"
            fi
        done
    done
    say kills "$tried" "$failed" "collectors killed (SIGKILL, SIGINT, SIGTERM x $KILLS): store sound, none left running, no killed run complete"
}

# --- concurrent writers ---------------------------------------------------
writers_on() {  # writers_on DB-OR-URL ROUNDS: "tried failed locked"
    local db=$1 rounds=$2 r j failed=0 locked=0 tried=0
    for r in $(seq 1 "$rounds"); do
        for j in $(seq 1 "$WRITERS"); do
            "$CB" run -p csum -V ref -s 64,1500 -m warm --reps 10 --db "$db" -q --tag "w$r" \
                --cpu $((j % $(nproc))) >"$W/w$j.out" 2>"$W/w$j.err" &
        done
        # Readers meanwhile: a report must see complete runs only.
        for j in $(seq 1 10); do "$CB" report w$r --db "$db" >/dev/null 2>&1; done
        wait
        for j in $(seq 1 "$WRITERS"); do
            tried=$((tried + 1))
            grep -q "database is locked" "$W/w$j.err" && locked=$((locked + 1))
            [ -s "$W/w$j.err" ] && grep -qv "pinned to CPU" "$W/w$j.err" && failed=$((failed + 1))
        done
    done
    echo "$tried $failed $locked"
}
part_writers() {
    local db=$W/conc.db res n
    res=$(writers_on "$db" "$ROUNDS")
    set -- $res
    n=$(q "$db" "select count(*) from runs where status = 'complete'")
    local lost=$(($1 - n))
    say writers "$1" "$(($2 + lost))" "SQLite collectors, $WRITERS at once x $ROUNDS rounds: $n runs complete, $3 'database is locked', $lost lost"
}
part_pg() {
    # shellcheck disable=SC1091
    . "$TOP/tests/pg.sh"
    if ! cb_pg_start; then
        skipped pg "${CB_PG_WHY:-no PostgreSQL server to start}"
        return
    fi
    local res
    res=$(writers_on "$CB_PG_URL" 2)
    set -- $res
    local n
    n=$(psql -Atq "$CB_PG_URL" -c "select count(*) from runs where status = 'complete'" 2>/dev/null || echo 0)
    local lost=$(($1 - n))
    say pg "$1" "$(($2 + lost))" "PostgreSQL collectors, $WRITERS at once x 2 rounds: $n complete, $3 locked, $lost lost"
    cb_pg_stop
}

# --- the upgrade from an older schema ----------------------------------
# An older binary records runs; this one opens the store (migrating it) and
# every run, case, sample count and UUID must be as the old one left them;
# the old binary must then refuse the new store without touching it.
part_upgrade() {
    local old=${OLD_BIN:-}
    if [ -z "$old" ]; then
        if ! git -C "$TOP" rev-parse -q --verify "$OLD_COMMIT^{commit}" >/dev/null; then
            skipped upgrade "no commit $OLD_COMMIT in this tree (OLD_BIN=PATH to give a binary)"
            return
        fi
        git -C "$TOP" worktree add -q --detach "$W/old" "$OLD_COMMIT" 2>/dev/null &&
        (cd "$W/old" && autoreconf -fi >/dev/null 2>&1 && ./configure -q >/dev/null 2>&1 &&
         nice make -j2 >/dev/null 2>&1) || {
            skipped upgrade "cannot build $OLD_COMMIT"
            git -C "$TOP" worktree remove --force "$W/old" 2>/dev/null
            return
        }
        old=$W/old/cyclebudget
    fi
    local db=$W/up.db i
    for i in 1 2 3; do
        CB_FAKE_CLOCK=seed=$i,noise=0.01 "$old" run -p csum -V ref,adc-1chain -s 64,1500 -m warm \
            --reps 10 --db "$db" -q --tag "old$i" >/dev/null 2>&1
    done
    local sel="select r.id, r.uuid, r.tag, r.status, count(distinct c.id), count(s.rowid),
               group_concat(distinct c.variant) from runs r left join cases c on c.run_id = r.id
               left join samples s on s.case_id = c.id group by r.id order by r.id"
    local before v0 failed=0
    v0=$(q "$db" "pragma user_version")
    before=$(q "$db" "$sel" 2>/dev/null | md5sum)
    "$CB" report --db "$db" >/dev/null 2>&1 || failed=$((failed + 1))
    [ "$(q "$db" "$sel" 2>/dev/null | md5sum)" = "$before" ] || failed=$((failed + 1))
    [ "$(q "$db" "pragma quick_check")" = ok ] || failed=$((failed + 1))
    local h
    h=$(md5sum <"$db")
    "$old" report --db "$db" >/dev/null 2>&1 && failed=$((failed + 1))   # must refuse it
    [ "$(md5sum <"$db")" = "$h" ] || failed=$((failed + 1))
    say upgrade 5 "$failed" "a schema-$v0 store ($OLD_COMMIT, 3 runs) to schema $(q "$db" "pragma user_version"): rows the same, sound, the old binary refuses it untouched"
    [ -d "$W/old" ] && git -C "$TOP" worktree remove --force "$W/old" 2>/dev/null
}

# --- bad input: every command through bad values and unusable files ------
part_badinput() {
    local t pass fail tried=0 failed=0
    for t in badinput faults outputs children; do
        (cd "$TOP" && CYCLEBUDGET=$CB TOP_SRCDIR=$TOP bash "tests/$t.test") >"$W/$t.tap" 2>&1
        set -- $(tap_counts "$W/$t.tap")
        tried=$((tried + $1 + $2))
        failed=$((failed + $2))
    done
    say badinput "$tried" "$failed" "checks of bad options, values, --db files and -o outputs (badinput, faults, outputs, children .test)"
}

# --- disk full: a loop-mounted ext4 of 1 KiB blocks ----------------------
part_diskfull() {
    (cd "$TOP" && CYCLEBUDGET=$CB TOP_SRCDIR=$TOP bash tests/diskfull.test) >"$W/df.tap" 2>&1
    if grep -q '^1\.\.0 # SKIP' "$W/df.tap"; then
        skipped diskfull "$(sed -n 's/^1\.\.0 # SKIP //p' "$W/df.tap")"
        return
    fi
    set -- $(tap_counts "$W/df.tap")
    say diskfull "$(($1 + $2))" "$2" "checks on a nearly full ext4 (4 KiB and 1 KiB blocks, 8-160 KiB free, every command, a fresh store)"
}

# --- sanitizers: a separate ASan + UBSan build, the same tests ----------
part_sanitizers() {
    local b=$W/san
    mkdir -p "$b"
    if ! (cd "$b" && "$TOP/configure" -q --enable-sanitizers >/dev/null 2>&1 &&
          nice make -j2 >/dev/null 2>&1); then
        # An in-tree build cannot also be built out of tree: copy the sources.
        rm -rf "$b"
        git -C "$TOP" worktree add -q --detach "$b" HEAD 2>/dev/null &&
        (cd "$b" && autoreconf -fi >/dev/null 2>&1 && ./configure -q --enable-sanitizers \
            >/dev/null 2>&1 && nice make -j2 >/dev/null 2>&1) || {
            skipped sanitizers "cannot build with --enable-sanitizers"
            return
        }
    fi
    local tried=0 failed=0 t
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    for t in faults outputs children; do
        (cd "$TOP" && CYCLEBUDGET=$b/cyclebudget TOP_SRCDIR=$TOP bash "tests/$t.test") >"$W/san-$t.tap" 2>&1
        set -- $(tap_counts "$W/san-$t.tap")
        tried=$((tried + $1 + $2))
        failed=$((failed + $2))
        grep -q "ERROR: AddressSanitizer\|runtime error:" "$W/san-$t.tap" && failed=$((failed + 1))
    done
    say sanitizers "$tried" "$failed" "checks with every command under ASan+UBSan (faults, outputs, children .test)"
    git -C "$TOP" worktree remove --force "$b" 2>/dev/null
}

# --- fuzzing: each libFuzzer target for FUZZ_SECONDS --------------------
part_fuzz() {
    local b=$W/fuzz
    if ! command -v clang >/dev/null; then
        skipped fuzz "no clang (apt-get install clang)"
        return
    fi
    git -C "$TOP" worktree add -q --detach "$b" HEAD 2>/dev/null &&
    (cd "$b" && autoreconf -fi >/dev/null 2>&1 && ./configure -q CC=clang --enable-fuzzing \
        >/dev/null 2>&1 && nice make -j2 >/dev/null 2>&1) || {
        skipped fuzz "cannot build with CC=clang --enable-fuzzing"
        return
    }
    local tried=0 failed=0 runs=0 t n
    for t in "$b"/fuzz/fuzz_*; do
        local name
        name=$(basename "$t")
        case $name in *.*) continue ;; esac
        [ -x "$t" ] || continue
        mkdir -p "$W/corpus-$name"
        (cd "$W" && nice "$t" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
            "$W/corpus-$name" "$b/fuzz/corpus/${name#fuzz_}" >"$W/$name.log" 2>&1)
        local rc=$?
        tried=$((tried + 1))
        if [ $rc -ne 0 ] || grep -q "ERROR: libFuzzer\|SUMMARY: " "$W/$name.log"; then
            failed=$((failed + 1))
            echo "#   $name: $(grep -m1 'ERROR\|SUMMARY' "$W/$name.log")"
        fi
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/$name.log" | tail -1)
        runs=$((runs + ${n:-0}))
    done
    say fuzz "$tried" "$failed" "libFuzzer targets x $FUZZ_SECONDS s: $runs executions in all"
    git -C "$TOP" worktree remove --force "$b" 2>/dev/null
}

# --- plugins and markers: hostile code in a run, on the real clock --------
# Each attack of tests/fixtures/plugin/attacks.c beside ref: the run ends by
# itself, complete, exit 0, with ref measured, the attack BAD for its reason
# and no case stored twice.  A looping plugin under SIGINT/SIGTERM: 130
# within a second, the run aborted, the timing child gone.  A variant wrong
# at 3000 B only, at -s 3000: BAD.  Markers from 4 threads: refused with
# -EPERM, the run complete with every pass of its own thread.  ulimit -f and
# ulimit -v: the run says so and ends as it should.
attack_once() {  # attack_once VARIANT REGEX: 0 when the run came through
    local db=$W/atk-$1.db
    rm -f "$db"
    CB_PLUGIN_STALL=3 timeout -k 10 300 "$CB" run --plugin "$W/atk.so" -p csum -V "ref,$1" -s 1500 -m warm \
        --max-time 0.05 --db "$db" -q >/dev/null 2>"$W/atk.err" || return 1
    [ "$(q "$db" "select status from runs")" = complete ] || return 1
    [ "$(q "$db" "select count(*) = count(distinct variant) from cases")" = 1 ] || return 1
    [ "$(q "$db" "select verdict from cases where variant = 'ref'")" = ok ] || return 1
    q "$db" "select verdict || ': ' || detail from cases where variant = '$1'" | grep -Eq "^bad: $2"
}
timer_of() {  # timer_of PID: its child in a process group of its own (from /proc)
    local f s me st ppid pgrp
    for f in /proc/[0-9]*/stat; do
        s=$(cat "$f" 2>/dev/null) || continue
        me=${s%% *}
        read -r st ppid pgrp _ <<<"${s##*) }"
        [ "$ppid" = "$1" ] && [ "$pgrp" = "$me" ] && echo "$me"
    done
}
interrupt_once() {  # interrupt_once SIGNAL: 0 when 130 came within a second
    local db=$W/int.db pid timer= t0 ms
    rm -f "$db"
    "$CB" run --plugin "$W/atk.so" -p csum -V atk-loop -s 1500 -m warm --db "$db" -q \
        >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        timer=$(timer_of "$pid" | head -1)
        [ -n "$timer" ] && break
        sleep 0.1
    done
    t0=$(date +%s%N)
    kill -"$1" "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
    ms=$((($(date +%s%N) - t0) / 1000000))
    kill -9 "$pid" 2>/dev/null
    wait "$pid"
    local rc=$?
    INT_MS="$INT_MS $ms"
    [ -n "$timer" ] && [ "$rc" = 130 ] && [ "$ms" -le 1000 ] &&
        [ "$(q "$db" "select status from runs")" = aborted ] && ! kill -0 "$timer" 2>/dev/null
}
part_plugins() {
    local tried=0 failed=0 i a v re
    cc -O2 -shared -fPIC -I"$TOP/include" -I"$TOP/examples/plugin" -o "$W/atk.so" \
        "$TOP/tests/fixtures/plugin/attacks.c" 2>"$W/cc.err" ||
        { skipped plugins "the attack plugin does not build: $(head -1 "$W/cc.err")"; return; }
    local attacks=(
        "atk-abort|crashed while being timed \(signal 6"
        "atk-segv|crashed while being timed \(signal 11"
        "atk-exit0|exited while being timed \(exit status 0\)"
        "atk-fork|forked a process while being timed"
        "atk-loop|did not return while being timed"
        "atk-alarm|set an alarm while being timed"
        "atk-sigint|changed the handling of SIGINT while being timed"
        "atk-locale|changed the locale while being timed")
    [ "$(nproc)" -gt 1 ] && attacks+=("atk-affinity|changed its CPU affinity while being timed")
    for a in "${attacks[@]}"; do
        v=${a%%|*} re=${a#*|}
        for i in $(seq 1 "$ATTACKS"); do
            tried=$((tried + 1))
            attack_once "$v" "$re" || { failed=$((failed + 1)); echo "#   $v, try $i: $(tail -1 "$W/atk.err")"; }
        done
    done
    INT_MS=
    for a in INT TERM; do
        for i in $(seq 1 "$ATTACKS"); do
            tried=$((tried + 1))
            interrupt_once "$a" || { failed=$((failed + 1)); echo "#   SIG$a during a looping plugin, try $i"; }
        done
    done
    tried=$((tried + 1))
    rm -f "$W/w3.db"
    "$CB" run --plugin "$W/atk.so" -p csum -V ref,wrong3000 -s 3000 -m warm --max-time 0.05 \
        --db "$W/w3.db" -q >/dev/null 2>&1
    [ "$(q "$W/w3.db" "select verdict from cases where variant = 'wrong3000'")" = bad ] ||
        { failed=$((failed + 1)); echo "#   wrong3000 at -s 3000 was not BAD"; }
    local so=$TOP/.libs
    if [ -f "$so/libcyclebudget.so" ]; then
        cc -O2 -pthread -I"$TOP/include" -o "$W/abuse" "$TOP/tests/fixtures/markers/abuse.c" \
            -L"$so" -lcyclebudget
        for i in $(seq 1 "$ATTACKS"); do
            tried=$((tried + 1))
            rm -f "$W/m.db"
            LD_LIBRARY_PATH=$so CYCLEBUDGET_DB=$W/m.db timeout 120 "$W/abuse" >"$W/m.out" 2>/dev/null
            grep -q "^threads: zero=0 eperm=1600 other=0$" "$W/m.out" && grep -q "^close=0$" "$W/m.out" &&
                grep -q "^main-failures=0$" "$W/m.out" &&
                [ "$(q "$W/m.db" "select status from runs")" = complete ] &&
                [ "$(q "$W/m.db" "select count(distinct seq) from samples s join cases c on c.id = s.case_id where c.variant = 'main'")" = 200 ] ||
                { failed=$((failed + 1)); echo "#   markers from 4 threads, try $i: $(tr '\n' ' ' <"$W/m.out")"; }
        done
    fi
    tried=$((tried + 2))
    rm -f "$W/f.db" "$W/v.db"
    "$CB" run -p csum -V ref -s 64 -m warm --max-time 0.02 --db "$W/f.db" -q 2>/dev/null
    local lim=$(( $(stat -c %s "$W/f.db") / 1024 + 8 ))
    (ulimit -f "$lim"; "$CB" run -p csum,copy -s 64,1500 -m warm --reps 50 --db "$W/f.db" -q >/dev/null 2>&1)
    [ $? = 1 ] && [ "$(q "$W/f.db" "select status from runs where id = 2")" = aborted ] ||
        { failed=$((failed + 1)); echo "#   ulimit -f: not exit 1 with the run aborted"; }
    (ulimit -v 60000; "$CB" run -p csum -V ref -s 64,1500 -m cold --max-time 0.02 --db "$W/v.db" -q >/dev/null 2>"$W/v.err")
    [ $? = 1 ] && grep -q "ulimit -v" "$W/v.err" ||
        { failed=$((failed + 1)); echo "#   ulimit -v: not exit 1 saying ulimit -v"; }
    say plugins "$tried" "$failed" "plugin attacks x $ATTACKS (abort, segv, exit0, fork, loop, alarm, SIGINT, locale, affinity) beside ref, SIGINT/SIGTERM on a looping plugin (ms to exit:$INT_MS), wrong at 3000 B, markers from 4 threads, ulimit -f, ulimit -v"
}

# --- io: what reaches a terminal, a file or a server; every store wait ----
# The tests of docs/reliability.md's "Text from outside", "A write that
# fails", "Secrets" and the rest (termesc, writefail, secrets, waits,
# check_refs, locale .test), then the waits timed: a writer stopped
# (SIGSTOP) while holding SQLite's write lock, against run and merge (each
# must end by itself, exit 1, within 10 s and a margin) and SIGINT (130
# within a second); a PostgreSQL cluster stopped whole (connect: 10 s),
# its backends stopped under a merge (CB_PG_TIMEOUT=5: the statement's
# wait ends), and SIGINT to run in each.
io_timed() {  # io_timed MAXSEC CMD...: IO_S (seconds), IO_RC; 0 when it ended in MAXSEC
    local max=$1 t0
    shift
    t0=$(date +%s%N)
    timeout 120 "$@" >/dev/null 2>"$W/io.err"
    IO_RC=$?
    IO_S=$(awk -v n=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", n / 1e9 }')
    awk -v s="$IO_S" -v m="$max" 'BEGIN { exit !(s <= m) }'
}
io_sigint() {  # io_sigint CMD...: IO_MS; 0 when SIGINT gave 130 within a second
    local pid t0
    "$@" >/dev/null 2>"$W/io.err" &
    pid=$!
    sleep 1.5
    t0=$(date +%s%N)
    kill -INT "$pid" 2>/dev/null
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
    IO_MS=$((($(date +%s%N) - t0) / 1000000))
    kill -9 "$pid" 2>/dev/null
    wait "$pid"
    local rc=$?
    [ "$rc" = 130 ] && [ "$IO_MS" -le 1000 ]
}
part_io() {
    local t tried=0 failed=0 i c run=(run -p synthetic -s 64 -m warm --reps 5 --cpu 0 -q)
    for t in termesc writefail secrets waits check_refs locale; do
        (cd "$TOP" && CYCLEBUDGET=$CB TOP_SRCDIR=$TOP bash "tests/$t.test") >"$W/$t.tap" 2>&1
        set -- $(tap_counts "$W/$t.tap")
        tried=$((tried + $1 + $2))
        failed=$((failed + $2))
    done
    say io-tests "$tried" "$failed" "checks of termesc, writefail, secrets, waits, check_refs, locale .test"
    tried=0 failed=0
    local db=$W/lock.db sq_s= int_ms=
    export CB_FAKE_CLOCK=seed=1,noise=0.01
    "$CB" "${run[@]}" --db "$db" 2>/dev/null
    cp "$db" "$W/src.db"
    mkfifo "$W/lockctl"
    sqlite3 "$db" <"$W/lockctl" >/dev/null 2>&1 &
    local holder=$!
    exec 5>"$W/lockctl"
    echo "begin immediate; delete from acks;" >&5
    sleep 0.5
    kill -STOP "$holder"
    for c in run merge; do
        for i in $(seq 1 "$ATTACKS"); do
            tried=$((tried + 1))
            if [ "$c" = run ]; then io_timed 13 "$CB" "${run[@]}" --db "$db"
            else io_timed 13 "$CB" merge "$W/src.db" --into "$db"; fi
            local ok=$?
            sq_s="$sq_s $IO_S"
            [ "$ok" = 0 ] && [ "$IO_RC" = 1 ] && grep -q 'locked' "$W/io.err" ||
                { failed=$((failed + 1)); echo "#   $c against a stopped lock holder: exit $IO_RC after $IO_S s: $(tail -1 "$W/io.err")"; }
            tried=$((tried + 1))
            if [ "$c" = run ]; then io_sigint "$CB" "${run[@]}" --db "$db"
            else io_sigint "$CB" merge "$W/src.db" --into "$db"; fi || {
                failed=$((failed + 1)); echo "#   SIGINT to $c waiting for the lock: not 130 within 1 s ($IO_MS ms)"; }
            int_ms="$int_ms $IO_MS"
        done
    done
    kill -CONT "$holder"
    exec 5>&-
    wait "$holder"
    say io-sqlite "$tried" "$failed" "run and merge x $ATTACKS against a writer stopped holding the lock: ended by itself in s:$sq_s (docs: 10 s); SIGINT, ms to exit 130:$int_ms"
    if ! (. "$TOP/tests/pg.sh"; cb_pg_find) >/dev/null 2>&1 || ! "$TOP/tests/test_db" --backends | grep -q postgresql; then
        skipped io-pg "no PostgreSQL server or no libpq build"
        unset CB_FAKE_CLOCK
        return
    fi
    (
        . "$TOP/tests/pg.sh"
        cb_pg_start || { skipped io-pg "$CB_PG_WHY"; exit 0; }
        trap 'kill -CONT $stopped 2>/dev/null; cb_pg_stop' EXIT
        tried=0 failed=0 pg_s= pg_ms=
        local url=$CB_PG_URL pm kids stopped
        "$CB" merge "$W/src.db" --into "$url" >/dev/null 2>&1
        pm=$(head -1 "$CB_PG_DIR/data/postmaster.pid")
        kids=$(pgrep -P "$pm" | tr '\n' ' ')
        stopped="$pm $kids"
        kill -STOP $stopped
        for i in $(seq 1 "$ATTACKS"); do
            tried=$((tried + 2))
            io_timed 13 "$CB" report --db "$url"
            local ok=$?
            pg_s="$pg_s $IO_S"
            [ "$ok" = 0 ] && [ "$IO_RC" = 1 ] && grep -q 'no answer' "$W/io.err" ||
                { failed=$((failed + 1)); echo "#   report, cluster stopped: exit $IO_RC after $IO_S s: $(tail -1 "$W/io.err")"; }
            io_sigint "$CB" "${run[@]}" --db "$url" || {
                failed=$((failed + 1)); echo "#   SIGINT to run connecting to a stopped cluster: $IO_MS ms"; }
            pg_ms="$pg_ms $IO_MS"
        done
        kill -CONT $stopped
        # Backends stopped under a merge already talking to them.
        local big=$W/big.db st_s=
        "$CB" run -p synthetic -s "$(seq -s, 64 64 4096)" -m warm,cold --reps 5 --cpu 0 -q --db "$big" 2>/dev/null
        for i in $(seq 1 "$ATTACKS"); do
            tried=$((tried + 1))
            psql -q "$url" -c "drop schema public cascade; create schema public" >/dev/null 2>&1
            CB_PG_TIMEOUT=5 "$CB" merge "$big" --into "$url" >/dev/null 2>"$W/io.err" &
            local mpid=$! t0
            sleep 1
            kids=$(pgrep -P "$pm" | tr '\n' ' ')
            t0=$(date +%s%N)
            kill -STOP $kids
            wait "$mpid"
            local rc=$?
            local s
            s=$(awk -v n=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f", n / 1e9 }')
            kill -CONT $kids
            st_s="$st_s $s"
            [ "$rc" != 0 ] && grep -q 'no answer from the PostgreSQL server in 5 s' "$W/io.err" &&
                awk -v s="$s" 'BEGIN { exit !(s <= 8) }' ||
                { failed=$((failed + 1)); echo "#   merge, backends stopped: exit $rc after $s s: $(tail -1 "$W/io.err")"; }
        done
        say io-pg "$tried" "$failed" "cluster stopped x $ATTACKS: report gave up in s:$pg_s (connect: 10 s), SIGINT to run, ms to 130:$pg_ms; backends stopped under merge (CB_PG_TIMEOUT=5), s to give up:$st_s"
        echo "$tried $failed" >"$W/io-pg.counts"
    )
    if [ -f "$W/io-pg.counts" ]; then
        set -- $(cat "$W/io-pg.counts")
        TOTAL_TRIED=$((TOTAL_TRIED + $1))
        TOTAL_FAILED=$((TOTAL_FAILED + $2))
    fi
    unset CB_FAKE_CLOCK
}

for p in kills writers pg upgrade badinput diskfull sanitizers fuzz plugins io; do
    if skip "$p"; then
        skipped "$p" "left out (SKIP)"
    else
        "part_$p"
    fi
done
echo "# total: $TOTAL_TRIED tried, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" -eq 0 ]
