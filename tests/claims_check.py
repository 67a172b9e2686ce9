#!/usr/bin/env python3
"""claims_check.py — every claim the outputs make, held against the data.

Called by tests/claims.test with the directory where it wrote each
command's output for a set of fake-clock stores (one run, several runs of
the same bytes, one size, a partial path, an all-unsure compare).  Each
claim is checked against what it came from: the CSV and the stores read
with sqlite3, and the rules docs/reports.md and docs/budget.md state.
Prints "checked CLAIM N" for each claim and "bad CLAIM: what" for each
contradiction; claims.test asserts none.

Usage: claims_check.py DIR CYCLEBUDGET
"""
import csv
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TIE_SPAN = 0.10     # docs/reports.md: a tie spans at most 10% above the first
MARGIN = 0.02       # ... and variants under 2% apart are never ranked
D, CB = sys.argv[1], os.path.abspath(sys.argv[2])
checked, bad = {}, []


def claim(name, ok, what=""):
    checked[name] = checked.get(name, 0) + 1
    if not ok:
        bad.append("%s: %s" % (name, what))


def read(name):
    with open(os.path.join(D, name), encoding="utf-8") as f:
        return f.read()


def csv_rows(name):
    """The CSV's measured cases, by (probe, size, mode) then variant."""
    groups = {}
    for r in csv.DictReader(read(name).replace("\r", "").splitlines()):
        if r["verdict"] != "ok" or not r["ns_per_op"]:
            continue
        key = (r["probe"], int(r["size"]), r["mode"])
        groups.setdefault(key, {})[r["variant"]] = r
    return groups


def figure(row, by_time):
    return float(row["ns_per_op"] if by_time else row["cycles_median"])


# ---- the text report: order, ties, not separated ----
def text_groups(text):
    """Each group of the text report: (probe, size, mode), its rows
    (variant, cyc, ns) in order, its tie names and its not-separated."""
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^(\S+)  (\d+) (\S+)  (warm|cold)  \(per ", line)
        if m:
            cur = {"key": m.group(1, 2, 4), "rows": [], "tied": [], "unsep": []}
            out.append(cur)
            continue
        if cur is None:
            continue
        if line.startswith("  variant ") or not line.startswith("  "):
            if not line.strip():
                cur = None
            continue
        t = line.split()
        if t[0] == "=":
            cur["tied"] = t[4:]
            cur["tie_cont"] = True
        elif t[0] == "?":
            cur["unsep"] = re.findall(r"(\S+) \((\d+\.\d+)x\)", line)
            cur["unsep_first"] = t[4].rstrip(":")
            cur["tie_cont"] = False
        elif line.startswith("    no claim between"):
            cur["tie_cont"] = False
        elif line.startswith("    ") and cur.get("tie_cont") and "(" not in line:
            cur["tied"] += t
        elif line.startswith("    ") and "x)" in line:
            cur["unsep"] += re.findall(r"(\S+) \((\d+\.\d+)x\)", line)
        elif len(t) >= 10 and t[1] not in ("BAD", "skipped") and re.match(r"^[0-9.]+$", t[1]):
            cur["rows"].append((t[0], float(t[1]), float(t[8])))
            cur["tie_cont"] = False
    return out


def check_text_report(txt, csvname, what):
    text = read(txt)
    by_time = "\nranked  by TSC time" in text
    rows = csv_rows(csvname)
    for g in text_groups(text):
        key = (g["key"][0], int(g["key"][1]), g["key"][2])
        figs = [r[2] if by_time else r[1] for r in g["rows"]]
        claim("best first is monotone", figs == sorted(figs),
              "%s %s: rows %s" % (what, key, [(r[0], f) for r, f in zip(g["rows"], figs)]))
        if not g["rows"] or key not in rows:
            continue
        first = g["rows"][0][0]
        f0 = figure(rows[key][first], by_time)
        if g["tied"]:
            claim("a tie names the first", g["tied"][0] == first, "%s %s: %s" % (what, key, g["tied"]))
        for v in g["tied"][1:]:
            f = figure(rows[key][v], by_time)
            claim("a tie spans at most 10% of the first", f <= f0 * (1 + TIE_SPAN) * 1.0005,
                  "%s %s: %s %.4g tied with %s %.4g" % (what, key, v, f, first, f0))
        for v, ratio in g["unsep"]:
            f = figure(rows[key][v], by_time)
            claim("not separated only beyond the tie's span", f > f0 * (1 + TIE_SPAN) * 0.9995 and
                  abs(f / f0 - float(ratio)) < 0.006, "%s %s: %s %.4g (%sx) against %s %.4g"
                  % (what, key, v, f, ratio, first, f0))
        named = set(g["tied"]) | {v for v, _ in g["unsep"]}
        for v, r in rows[key].items():
            if v != first and figure(r, by_time) < f0 * (1 + MARGIN) * 0.9995:
                claim("under 2% apart is never ranked", v in named,
                      "%s %s: %s %.4g within 2%% of %s %.4g yet neither tied nor unseparated"
                      % (what, key, v, figure(r, by_time), first, f0))


def check_size_tables(txt, csvname, what):
    """'tie at SIZE (within noise): A B' under the size table: each within
    the span of the first, by the figure the table ranks on."""
    text = read(txt)
    by_time = "\nranked  by TSC time" in text
    rows = csv_rows(csvname)
    probe = mode = None
    for line in text.splitlines():
        m = re.match(r"^(\S+) (warm|cold): bytes per ", line)
        if m:
            probe, mode = m.group(1, 2)
        m = re.match(r"^  tie at (\d+) (B|KiB|MiB) \(within noise\):(.*)$", line)
        if m and probe:
            size = int(m.group(1)) * {"B": 1, "KiB": 1024, "MiB": 1 << 20}[m.group(2)]
            names = m.group(3).split()
            g = rows.get((probe, size, mode), {})
            f0 = figure(g[names[0]], by_time)
            for v in names[1:]:
                claim("a tie spans at most 10% of the first", figure(g[v], by_time) <= f0 * 1.1005,
                      "%s size table %s %d: %s" % (what, probe, size, v))


def check_run_summary(out, csvname, what):
    """run's closing summary: the best is the lowest ranked figure of its
    group; a 'tie:' within the span, 'not separated:' beyond it."""
    text = read(out)
    by_time = "runner-up (ns/op)" in text
    rows = csv_rows(csvname)
    for line in text.splitlines():
        m = re.match(r"^(\S+) +(\d+) (B|KiB|MiB) (warm|cold) +(\S+) +[0-9.]+ +([0-9.]+)", line)
        if not m:
            continue
        size = int(m.group(2)) * {"B": 1, "KiB": 1024, "MiB": 1 << 20}[m.group(3)]
        g = rows.get((m.group(1), size, m.group(4)))
        if not g:
            continue
        best = m.group(5)
        low = min(g, key=lambda v: figure(g[v], by_time))
        claim("the summary's best is the lowest ranked figure",
              figure(g[best], by_time) <= figure(g[low], by_time) * 1.0005,
              "%s: %s best %s, %s lower" % (what, m.group(1, 2, 4), best, low))
        t = re.search(r"  (tie|not separated): (\S+) \(", line)
        if t:
            f, f0 = figure(g[t.group(2)], by_time), figure(g[best], by_time)
            within = f <= f0 * (1 + TIE_SPAN) * 1.0005
            claim("a tie spans at most 10% of the first", within == (t.group(1) == "tie"),
                  "%s: %s %s %.4g against %s %.4g" % (what, t.group(1), t.group(2), f, best, f0))


# ---- the HTML page: every "first" ordering is monotone in what it draws ----
def check_html(name, what):
    page = read(name)
    for svg in re.findall(r'<svg class="chart budget".*?</svg>', page, re.S):
        vals = [float(x) for x in re.findall(r"<title>[^<:]*: ([0-9.]+) cycles/op", svg)]
        claim("best first is monotone", vals == sorted(vals), "%s budget chart %s" % (what, vals))
    for svg in re.findall(r'<svg class="chart bars[^"]*".*?</svg>', page, re.S):
        vals = [float(x) for x in re.findall(r'<text class="val"[^>]*>([0-9.e+-]+)</text>', svg)]
        claim("best first is monotone", vals == sorted(vals, reverse=True), "%s bars %s" % (what, vals))
    return page


def check_glance(html_name, txt, what):
    """At a glance names the text report's first of each group."""
    page = read(html_name)
    firsts = {}
    for g in text_groups(read(txt)):
        if g["rows"]:
            firsts[(g["key"][0], g["key"][1] + " B", g["key"][2])] = g["rows"][0][0]
    for svg in re.findall(r'<svg class="chart summary".*?</svg>', page, re.S):
        for size, mode, var in re.findall(r'<text class="lab"[^>]*>(\d+ B) (warm|cold) <tspan class="var">([^<]*)',
                                          svg):
            keys = [k for k in firsts if k[1] == size and k[2] == mode and firsts[k] == var]
            claim("At a glance names the text report's best", keys != [],
                  "%s: %s %s %s not a first row" % (what, size, mode, var))


# ---- shares: a share names its frames and is cycles over their budget ----
def check_path_lines(out, db, run, what):
    text = read(out)
    ghz = sqlite3.connect(os.path.join(D, db)).execute("SELECT core_ghz FROM runs WHERE id = ?",
                                                         (run,)).fetchone()[0]
    for line in text.splitlines():
        m = re.match(r"^path (\S+) +(\d+) B: +([0-9.]+) cycles, +([0-9.]+)% of (\d+)G's budget for "
                     r"(\d+) (?:MTU )?frames? (?:of |\()(\d+) B\)? \(([0-9.]+) cycles\)$", line)
        if line.startswith("path ") and " B: " in line and "no total" not in line:
            claim("a share names its frame", m is not None, "%s: %s" % (what, line))
        if not m:
            continue
        cyc, pct, gbps, frames, frame, bc = (float(m.group(3)), float(m.group(4)), float(m.group(5)),
                                             int(m.group(6)), int(m.group(7)), float(m.group(8)))
        size = int(m.group(2))
        want_frame = max(64, size + 18) if size <= 1500 else 1518
        claim("a share names its frame", frame == want_frame, "%s: %d B charged to %d" % (what, size, frame))
        want_bc = frames * (frame + 20) * 8 / gbps * ghz
        claim("a share's budget is its frame's", abs(bc - want_bc) < 0.06, "%s: %s vs %.2f" % (what, line, want_bc))
        claim("a share is cycles over its frame's budget", abs(100 * cyc / bc - pct) < 0.06,
              "%s: %s (100 x %.1f / %.1f = %.2f)" % (what, line, cyc, bc, 100 * cyc / bc))


def check_budget_path(out, what, partial):
    text = read(out)
    bc = re.search(r"^  (?:headroom|budget) at 10G: .*?([0-9.]+) cycles? (?:for|of ([0-9.]+) for)", text, re.M)
    m10 = re.search(r"^ +10G +([0-9.]+) ", text, re.M)
    b10 = float(m10.group(1))
    claim("a share names its frame", re.search(r"charged to (1 frame of \d+ B|\d+ MTU frames)", text) is not None,
          "%s: no frame named" % what)
    for line in text.splitlines():
        m = re.match(r"^  (\S+) +\S+ .*? +([0-9.]+) +\[[0-9.]+, [0-9.]+\] +([0-9.]+)%", line)
        if m:
            claim("a share is cycles over its frame's budget", abs(100 * float(m.group(2)) / b10 - float(m.group(3))) < 0.06,
                  "%s: %s (budget %.1f)" % (what, line, b10))
    if partial:
        claim("a partial path is never a total", re.search(r"^  total +[0-9]", text, re.M) is None,
              "%s: a total printed" % what)
        claim("a partial path is never a verdict", re.search(r"(  fits|OVER by|headroom at)", text) is None,
              "%s: a verdict printed" % what)
    del bc


# ---- compare: every unsure row says what would decide it ----
DECIDES = re.compile(r"(\d+ more (quiet )?runs? a side needed|more runs? a side|--rerun|\d+ s more|rerun)")


def check_unsure():
    text = read("u.txt")
    rows = [l for l in text.splitlines() if re.match(r"^\S+/\S+/\d+/(warm|cold) ", l)]
    for l in rows:
        if " unsure" in l:
            claim("an unsure row says what would decide it", DECIDES.search(l) is not None, "text: " + l)
    md = [l for l in read("u.md").splitlines() if l.startswith("| `") and "unsure" in l]
    for l in md:
        claim("an unsure row says what would decide it", DECIDES.search(l) is not None, "markdown: " + l)
    j = json.loads(read("u.json"))
    for c in j["cases"]:
        if c["verdict"] == "unsure":
            says = c.get("says") or ""
            claim("an unsure row says what would decide it",
                  (c.get("more_runs_a_side") or 0) > 0 or DECIDES.search(says) is not None,
                  "json: %s %s" % (c["case"], says))
    for m in re.findall(r'<skipped message="([^"]*)"', read("u.junit")):
        claim("an unsure row says what would decide it", DECIDES.search(m) is not None, "junit: " + m)
    claim("the compare is all unsure", len(rows) > 0 and all(" unsure" in l for l in rows),
          "text: %d rows, %d unsure" % (len(rows), sum(" unsure" in l for l in rows)))


# ---- a path with a step missing: never a total, never a verdict ----
def check_partial_path():
    claim("a partial path is never a total",
          re.search(r"^path rx +1500 B: no total: \d+ of 6 steps", read("p2.run"), re.M) is not None
          and re.search(r"^path rx .*cycles", read("p2.run"), re.M) is None, "run's summary: " + read("p2.run")[-300:])
    check_budget_path("p2.budget", "budget --path rx --run 2", True)
    h = read("p.history")
    claim("a partial path is never a total", re.search(r"^ +2 .* no total ", h, re.M) is not None, "history: " + h)
    page = read("p2.html")
    claim("a partial path is never a total", re.search(r"rx: RX to a socket[^<]*<span class=\"pill\">no total", page)
          is not None or "rx: RX" not in page, "HTML: rx's card")
    j = json.loads(read("p.compare.json"))
    claim("a partial path is never a verdict", all(not p["path"].startswith("rx/") for p in j.get("paths", [])),
          "compare json: %s" % j.get("paths"))
    for f in ("p.compare.txt", "p.compare.md"):
        claim("a partial path is never a verdict", re.search(r"rx/1500/user", read(f)) is None, f)


# ---- every default --help names is the one used ----
def help_defaults(cmd):
    """(option, value) for each option whose --help paragraph names a
    plain default: '(default: X)', '(default X)' or 'X (default)'."""
    text = subprocess.run([CB, cmd, "--help"], capture_output=True, text=True).stdout
    paras, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^ {2,6}(?:-\w, )?(--[a-z][-a-z]*)(?: ([A-Z][A-Z0-9,]*))?(?:\s+(.*))?$", line)
        if m:
            cur = [m.group(1), m.group(2), m.group(3) or ""]
            paras.append(cur)
        elif cur and line.startswith(" " * 20):
            cur[2] += " " + line.strip()
        else:
            cur = None
    out = []
    for opt, val, help_ in paras:
        if val is None:
            continue
        m = re.search(r"\(default:? ([^\s);,]+)[);,]", help_) or re.search(r"(?:^|[:;,(] ?)(\w+) \(default\)", help_)
        if m and m.group(1).startswith("$"):
            # "(default: $CB_DB, else ./cyclebudget.db)": with the variable
            # unset (as check_defaults runs), the value after "else".
            m = re.search(r"\(default: \$\w+[^)]*?else ([^\s);,]+)[);,]", help_)
        if m:
            out.append((opt, m.group(1), help_))
    return out


def check_defaults():
    runs = {
        "report": [["report", "1"], ["report", "1", "--format", "csv"]],
        "budget": [["budget", "--path", "rx", "--run", "1"], ["budget", "--ghz", "3"]],
        "history": [["history"]],
        "compare": [["compare", "base", "head"]],
    }
    stores = {"report": "one.db", "budget": "path.db", "history": "h.db", "compare": "u.db"}
    env = dict(os.environ)
    env.pop("CB_DB", None)
    for cmd, invocations in runs.items():
        for opt, val, help_ in help_defaults(cmd):
            tried = 0
            for args in invocations:
                # An option whose help names where its default does not
                # hold ("without --path: ...") is not tried there.
                if opt in args or ("without --path" in help_ and "--path" not in args):
                    continue
                with tempfile.TemporaryDirectory() as wd:
                    shutil.copy(os.path.join(D, stores[cmd]), os.path.join(wd, "cyclebudget.db"))
                    a = subprocess.run([CB] + args, cwd=wd, env=env, capture_output=True, text=True)
                    b = subprocess.run([CB] + args + [opt, val], cwd=wd, env=env, capture_output=True, text=True)
                if b.returncode == 2 and a.returncode != 2 and "go with --path" in b.stderr:
                    continue   # an option of --path's, not of this form
                tried += 1
                claim("every default --help names is the one used",
                      (a.returncode, a.stdout) == (b.returncode, b.stdout),
                      "%s %s: '%s %s' changes the output (exit %d vs %d)" %
                      (cmd, " ".join(args[1:]), opt, val, a.returncode, b.returncode))
            checked.setdefault("defaults tried", 0)
            checked["defaults tried"] += tried


def main():
    check_text_report("one.txt", "one.csv", "one run")
    check_size_tables("one.txt", "one.csv", "one run")
    check_run_summary("one.run", "one.csv", "one run's summary")
    check_html("one.html", "one run")
    check_glance("one.html", "one.txt", "one run")
    check_path_lines("one.run", "one.db", 1, "one run's summary")
    check_text_report("runs.txt", "runs.csv", "runs as the unit")
    check_run_summary("runs.run", "runs.csv", "the third run's summary")
    check_html("runs.html", "runs as the unit")
    check_text_report("size.txt", "size.csv", "one size")
    check_html("size.html", "one size")
    check_glance("size.html", "size.txt", "one size")
    check_path_lines("p1.run", "path.db", 1, "a whole path's run")
    check_budget_path("p1.budget", "budget --path rx --run 1", False)
    check_partial_path()
    check_unsure()
    check_defaults()
    for k in sorted(checked):
        print("checked %s %d" % (k, checked[k]))
    for b in bad:
        print("bad " + b)


main()
