#!/bin/sh
# clock-stability.sh — does a case's estimated-cycle figure hold still when
# its time does?  (issue 32.)  On a host without PMU cycles every "cycles"
# figure is TSC time times an estimated core clock; an estimate that adds
# noise time does not have makes cycles a worse figure than nanoseconds.
#
# Runs `cyclebudget run -p csum -s 64,1500,4096 -m warm,cold` twice into a
# throw-away database and prints, over the cases measured in both runs:
#   - the share of cases whose estimated cycles moved by at most their TSC
#     time's move plus 1 percentage point (|dcyc%| <= |dtsc%| + 1);
#   - the share whose clock used is within 3% of the run's clock, or that
#     the report flags (a case's `clock` in the JSON; runs from before the
#     per-case clock have none: their implied clock, never flagged);
#   - the implied clock (cycles per op / ns per op) across cases:
#     min / median / max GHz, for each run.
# Asserts nothing: timing figures belong here, not in make check.  On a
# shared or loaded host the figures move; say the load with them.
#
# Usage: bench/clock-stability.sh [path/to/cyclebudget] [extra run options]
set -eu
CB=${1:-./cyclebudget}
[ $# -gt 0 ] && shift
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for i in 1 2; do
    CB_CEILINGS=off "$CB" run --db "$T/s.db" -q -p csum -s 64,1500,4096 -m warm,cold "$@" >/dev/null
done
"$CB" report --db "$T/s.db" --format json 1 2 >"$T/r.json"
python3 - "$T/r.json" <<'PY'
import json, sys, statistics as st
runs = json.load(open(sys.argv[1]))["runs"]
def cases(r):
    out = {}
    for c in r["cases"]:
        if c["cycles"] is None or not c.get("ns_per_op"):
            continue
        k = (c["variant"], c["size"], c["mode"])
        ghz = c["cycles"]["median"] / c["ns_per_op"]
        clk = c.get("clock")
        used = clk["ghz"] if clk and clk.get("used") == "case" else (r["clocks"]["core_ghz"] if clk else ghz)
        out[k] = dict(cyc=c["cycles"]["median"], ns=c["ns_per_op"], implied=ghz, used=used,
                      flagged=bool(clk and clk.get("flagged")))
    return out, r["clocks"]["core_ghz"]
(a, ga), (b, gb) = cases(runs[0]), cases(runs[1])
keys = sorted(set(a) & set(b))
ok1 = ok2 = 0
for k in keys:
    dc = abs(b[k]["cyc"] / a[k]["cyc"] - 1) * 100
    dt = abs(b[k]["ns"] / a[k]["ns"] - 1) * 100
    ok1 += dc <= dt + 1
    for x, g in ((a[k], ga), (b[k], gb)):
        ok2 += 0.5 * (abs(x["used"] / g - 1) <= 0.03 or x["flagged"])
n = len(keys)
print("cases measured in both runs: %d; run clocks %.3f and %.3f GHz" % (n, ga, gb))
print("|d cycles| <= |d time| + 1 pp: %d of %d = %.0f%%" % (ok1, n, 100.0 * ok1 / n))
print("clock used within 3%% of the run's, or flagged: %.0f%%" % (100.0 * ok2 / n))
for i, (c, g) in enumerate(((a, ga), (b, gb)), 1):
    v = sorted(x["implied"] for x in c.values())
    fl = sum(x["flagged"] for x in c.values())
    print("run %d implied clock across cases: min %.2f median %.2f max %.2f GHz; %d flagged"
          % (i, v[0], st.median(v), v[-1], fl))
worst = sorted(keys, key=lambda k: -(abs(b[k]["cyc"] / a[k]["cyc"] - 1) - abs(b[k]["ns"] / a[k]["ns"] - 1)))[:5]
print("largest excess moves (variant size mode: d time %, d cycles %):")
for k in worst:
    print("  %-14s %5d %-4s %+6.1f %+6.1f" % (k[0], k[1], k[2], (b[k]["ns"] / a[k]["ns"] - 1) * 100,
                                             (b[k]["cyc"] / a[k]["cyc"] - 1) * 100))
PY
