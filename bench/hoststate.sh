#!/bin/bash
# hoststate.sh — is a run the host slowed found slowed, and does measuring
# again within the run bring the between-run spread back?  (docs/measuring.md,
# "The host's state".)
#
# N identical runs (default 12) of
#   run -p csum,copy -V 'adc-1chain,avx2,glibc,movsb' -s 1500,4096 -m warm,cold
# each twice, one after the other under the same conditions: once judged but
# never measured again (--state-tries 1, store "before"), once as a run
# measures by default (up to 3 tries a case, store "after").  A co-runner is
# imposed on some of them: SPIN (run numbers) a busy loop on the measuring
# CPU, MEM a memory-bandwidth hog (two 256 MiB buffers copied back and forth)
# on the other CPU, VEC vector adds on the other CPU.  Then it prints, per
# run, the co-runner, the load average, the state each run was judged in and
# the ns/op of csum/avx2/4096/warm and copy/glibc/1500/warm; then:
#   truly slowed   a "before" run whose warm SIMD or copy case (csum/avx2,
#                  copy/glibc, copy/movsb, copy/avx2) read >= 1.3x that case's
#                  quiet figure: the low quartile of its N "before" figures
#   missed, false  truly slowed runs not judged slowed (the run or that
#                  case), and runs judged slowed that were not truly slowed
#   spread         the two cases' between-run range (max/min - 1) of ns/op:
#                  before; before, cases judged quiet only; after re-measuring;
#                  after, cases kept quiet only; then, after re-measuring,
#                  the range of estimated cycles (every run, and the runs
#                  whose case clock agreed with the run's), the ns/op of
#                  those runs and their clocks: how much of the ns/op range
#                  is the core clock the host chose
# With PLANT=1 it then compares, 5 times, one plain run against one with
# bench/memcpy_slow.c (ADDS=20) preloaded, on the "after" store (its runs are
# the floor), and counts the tries that find copy/glibc/1500/warm regressed;
# and one plain run against another (A/A): cases regressed or improved.
#
#   bench/hoststate.sh [N]            SPIN="3 8" MEM="5 11" VEC="" CPU=1 PLANT=0 KEEP=
#
# KEEP=DIR keeps the two stores there (before.db, after.db), to read each
# run's reference readings (runs.ref_*) afterwards, and each store's runs'
# stderr (before.err, after.err: their summary lines).
#
# The machine this project runs on is shared: other work makes the host
# "slowed" at times on its own, so the load average is printed beside each
# run.  Each run takes 10-60 s (longer when cases are measured again).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
CB=${CYCLEBUDGET:-$top/cyclebudget}
N=${1:-12}
SPIN=${SPIN-"3 8"}
MEM=${MEM-"5 11"}
VEC=${VEC-}
CPU=${CPU:-1}
OTHER=${OTHER:-$((CPU == 0 ? 1 : 0))}
PLANT=${PLANT:-0}
T=$(mktemp -d)
hog=
KEEP=${KEEP:-}
cleanup() {
    [ -n "$hog" ] && kill "$hog" 2>/dev/null && wait "$hog" 2>/dev/null
    [ -n "$KEEP" ] && mkdir -p "$KEEP" && cp "$T"/before.* "$T"/after.* "$KEEP"/ 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
[ "$(uname -m)" = x86_64 ] || { echo "hoststate: names x86-64 variants; this is $(uname -m)"; exit 0; }
cc=${CC:-cc}
$cc -O2 -o "$T/corunner" "$top/bench/corunner.c" || exit 1
export CB_CEILINGS=off
CMD=(run -p csum,copy -V 'adc-1chain,avx2,glibc,movsb' -s 1500,4096 -m warm,cold --cpu "$CPU")
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

start_hog() {  # start_hog RUN: the co-runner of run RUN, named in $co (no subshell: $hog is its pid)
    hog= co=none
    if in_list "$1" "$SPIN"; then
        "$T/corunner" "$CPU" spin >/dev/null 2>&1 & hog=$! co=spin@cpu$CPU
    elif in_list "$1" "$MEM"; then
        "$T/corunner" "$OTHER" mem 256 >/dev/null 2>&1 & hog=$! co=mem@cpu$OTHER
    elif in_list "$1" "$VEC"; then
        "$T/corunner" "$OTHER" vec >/dev/null 2>&1 & hog=$! co=vec@cpu$OTHER
    fi
}
stop_hog() {
    [ -n "$hog" ] && kill "$hog" 2>/dev/null && wait "$hog" 2>/dev/null
    hog=
}

echo "hoststate: $N runs x 2 of: cyclebudget ${CMD[*]}"
echo "hoststate: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs; co-runners: spin on runs [$SPIN], mem on [$MEM], vec on [$VEC]"
: >"$T/cond"
for i in $(seq "$N"); do
    start_hog "$i"
    sleep 0.5
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$CB" "${CMD[@]}" --state-tries 1 --tag "r$i" --db "$T/before.db" >/dev/null 2>>"$T/before.err" ||
        echo "run $i (before) failed" >&2
    "$CB" "${CMD[@]}" --tag "r$i" --db "$T/after.db" >/dev/null 2>>"$T/after.err" ||
        echo "run $i (after) failed" >&2
    stop_hog
    echo "$i $co $load $(cut -d' ' -f1 /proc/loadavg)" >>"$T/cond"
    echo "hoststate: run $i done (co-runner $co, load $load)" >&2
done
for s in before after; do
    for i in $(seq "$N"); do
        "$CB" report --db "$T/$s.db" "r$i" --format csv -o "$T/$s-$i.csv" 2>>"$T/err"
    done
done

python3 - "$T" "$N" <<'EOF'
import csv, sys
T, N = sys.argv[1], int(sys.argv[2])
cond = {int(l.split()[0]): l.split()[1:] for l in open(T + "/cond")}
TWO = [("csum", "avx2", "4096", "warm"), ("copy", "glibc", "1500", "warm")]
def simd_copy(k):
    return k[3] == "warm" and (k[0], k[1]) in (("csum", "avx2"), ("copy", "glibc"), ("copy", "movsb"), ("copy", "avx2"))
def load(s):
    runs = []
    for i in range(1, N + 1):
        rows = list(csv.DictReader(open("%s/%s-%d.csv" % (T, s, i))))
        runs.append({(r["probe"], r["variant"], r["size"], r["mode"]): r for r in rows})
    return runs
def ns(r): return float(r["ns_per_op"]) if r["ns_per_op"] else float("nan")
def q25(v):
    v = sorted(v); p = 0.25 * (len(v) - 1); lo = int(p)
    return v[lo] + (p - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])
def rng(v):
    v = [x for x in v if x == x]
    return "%5.1f%% (%d runs)" % (100 * (max(v) / min(v) - 1), len(v)) if len(v) > 1 else "   -"
B, A = load("before"), load("after")
keys = [k for k in B[0] if simd_copy(k)]
quiet = {k: q25([ns(r[k]) for r in B]) for k in keys}
print("\nrun co-runner     load   before: state            %-22s after: state     %-22s tries>1" % ("ns csum/avx2/4096 copy/glibc/1500", "ns (same)"))
missed = false = truly_n = 0
for i in range(N):
    b, a = B[i], A[i]
    worst = max(ns(b[k]) / quiet[k] for k in keys)
    truly = worst >= 1.3
    marked_cases = [k for k in keys if b[k]["host_state"] == "slowed"]
    rstate = "slowed" if any(r["host_state"] == "slowed" for r in b.values()) else "quiet"
    marked = rstate == "slowed" or bool(marked_cases)
    truly_n += truly; missed += truly and not marked; false += marked and not truly
    def st(run):
        s = [r for r in run.values() if r["host_state"] == "slowed"]
        if not s: return "quiet"
        w = max(s, key=lambda r: float(r["host_state_ratio"]))
        return "%d slowed %.2fx %s" % (len(s), float(w["host_state_ratio"]), w["host_state_ref"])
    tries = sum(1 for r in a.values() if r["tries"] and int(r["tries"]) > 1)
    c = cond[i + 1]
    print("%3d %-13s %5s  %-23s %8.2f %8.2f  x%.2f   %-16s %8.2f %8.2f %6d" % (
        i + 1, c[0], c[1], st(b), ns(b[TWO[0]]), ns(b[TWO[1]]), worst, st(a), ns(a[TWO[0]]), ns(a[TWO[1]]), tries))
print("\ntruly slowed (a warm SIMD/copy case >= 1.3x its low quartile over the %d before-runs): %d of %d runs" % (N, truly_n, N))
print("found slowed: missed %d, false %d" % (missed, false))
for k in TWO:
    name = "/".join(k)
    print("\n%s ns/op, between-run range:" % name)
    print("  before (every run, no re-measure)     %s" % rng([ns(r[k]) for r in B]))
    print("  before, cases judged quiet only       %s" % rng([ns(r[k]) for r in B if r[k]["host_state"] != "slowed"]))
    print("  after re-measuring (every run)        %s" % rng([ns(r[k]) for r in A]))
    print("  after, cases kept quiet only          %s" % rng([ns(r[k]) for r in A if r[k]["host_state"] != "slowed"]))
    # ns/op is TSC time, so it moves with the core clock the host runs the
    # case at; estimated cycles divide that clock out (where the case's own
    # clock agreed: clock_used "case").  Their ranges side by side say how
    # much of the ns/op range is the clock.
    cyc = lambda r: float(r["cycles_median"]) if r["cycles_median"] else float("nan")
    own = [r for r in A if r[k]["clock_used"] == "case"]
    print("  after, cycles (estimated), every run  %s" % rng([cyc(r[k]) for r in A]))
    print("  after, cycles, the case's own clock   %s" % rng([cyc(r[k]) for r in own]))
    print("  after, ns/op, the same runs           %s" % rng([ns(r[k]) for r in own]))
    g = [float(r[k]["clock_ghz"]) for r in own if r[k]["clock_ghz"]]
    if g:
        print("  after, the case's own clock, GHz      %.2f-%.2f" % (min(g), max(g)))
EOF

[ "$PLANT" = 1 ] || exit 0
$cc -O2 -shared -fPIC -DADDS=20 -o "$T/slow.so" "$top/bench/memcpy_slow.c" -ldl || exit 1
found=0
for k in 1 2 3 4 5; do
    "$CB" "${CMD[@]}" --tag "pb$k" --db "$T/after.db" >/dev/null 2>>"$T/err"
    LD_PRELOAD=$T/slow.so "$CB" "${CMD[@]}" --tag "ph$k" --db "$T/after.db" >/dev/null 2>>"$T/err"
    "$CB" compare "pb$k" "ph$k" --db "$T/after.db" --format json >"$T/c$k.json" 2>>"$T/err"
    v=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([c for c in d["cases"] if c["case"] == "copy/glibc/1500/warm"][0]["verdict"])' "$T/c$k.json")
    echo "planted memcpy +20 adds, try $k: copy/glibc/1500/warm $v (load $(cut -d' ' -f1 /proc/loadavg))"
    [ "$v" = regressed ] && found=$((found + 1))
done
echo "planted memcpy slowdown found one run a side: $found of 5"
"$CB" compare pb1 pb2 --db "$T/after.db" --format json >"$T/aa.json" 2>>"$T/err"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
moved = [c["case"] + " " + c["verdict"] for c in d["cases"] if c["verdict"] in ("regressed", "improved")]
print("same binary against itself (pb1 vs pb2): %d cases regressed or improved %s" % (len(moved), moved))' "$T/aa.json"
