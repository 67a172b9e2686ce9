#!/bin/bash
# bisect.sh — issue 31's bisect criterion: on a history of six commits of a
# small plugin where one commit adds a step of 10% or more to one case and
# the others change only comments, does `git bisect run` with
# `bisect-check --against-plugin` end at the right commit?  Prints
# right=K/N; asserts nothing.
#
#   bench/bisect.sh [CYCLEBUDGET] [N] [EXTRA_PCT] [PLUGIN_SOURCE]
#
# Each of the N bisects builds a fresh git repository in a temporary
# directory: commit 1 is PLUGIN_SOURCE (default bench/ab_plugin.c, variants
# "mine" and "ctl"; bench/callee_plugin.c is the shape whose "mine" is a
# wrapper and only its callee in the same object slows, bench/callee.sh),
# commits 2..6 each add a comment line, except the slow one (commit 2 + i
# mod 5 for bisect i, so that every position is tried) which sets
# EXTRA_PCT (default 10: "mine" does that much more work, about +11% at
# 1500 B warm).  The good build is made once, from commit 1, before
# `git bisect start <commit 6> <commit 1>; git bisect run`, whose script
# rebuilds the plugin and runs
#   cyclebudget bisect-check --plugin head.so --against-plugin good.so -s 1500 --mode warm -q
# (ab's defaults otherwise).  A bisect is right when git names the slow
# commit as the first bad one.
set -u
CB=${1:-./cyclebudget}
N=${2:-10}
PCT=${3:-10}
top=$(cd "$(dirname "$0")/.." && pwd)
SRC=${4:-$top/bench/ab_plugin.c}
case $CB in /*) ;; *) CB=$PWD/$CB ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CB_CEILINGS=model GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
unset CB_FAKE_CLOCK
cc=${CC:-cc}
right=0 t_all=0
for i in $(seq 1 "$N"); do
    R=$T/repo$i
    mkdir -p "$R"
    slow=$((2 + (i - 1) % 5))
    {
        echo "#define EXTRA_PCT 0"
        cat "$SRC"
    } >"$R/plugin.c"
    (cd "$R" && git init -q && git add plugin.c && git commit -qm c1) || exit 2
    want=""
    for k in 2 3 4 5 6; do
        if [ $k -eq $slow ]; then
            sed -i "1s/.*/#define EXTRA_PCT $PCT/" "$R/plugin.c"
        else
            echo "/* comment $k */" >>"$R/plugin.c"
        fi
        (cd "$R" && git commit -qam "c$k") || exit 2
        [ $k -eq $slow ] && want=$(cd "$R" && git rev-parse HEAD)
    done
    first=$(cd "$R" && git rev-list --max-parents=0 HEAD)
    (cd "$R" && git show "$first:plugin.c") >"$T/good.c"
    $cc -O2 -shared -fPIC -I"$top/include" -I"$top/bench" -o "$T/good.so" "$T/good.c" || exit 2
    cat >"$T/check.sh" <<EOS
#!/bin/sh
$cc -O2 -shared -fPIC -I"$top/include" -I"$top/bench" -o "$T/head.so" plugin.c || exit 125
exec "$CB" bisect-check --plugin "$T/head.so" --against-plugin "$T/good.so" -s 1500 --mode warm -q --db "$T/b$i.db"
EOS
    chmod +x "$T/check.sh"
    t0=$(date +%s)
    out=$(cd "$R" && git bisect start HEAD "$first" >/dev/null && git bisect run "$T/check.sh" 2>&1)
    t1=$(date +%s)
    t_all=$((t_all + t1 - t0))
    got=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit.*/\1/p' <<<"$out" | head -1)
    (cd "$R" && git bisect reset -q >/dev/null 2>&1)
    steps=$(grep -c '^bisect-check: ' <<<"$out")
    if [ "$got" = "$want" ]; then
        right=$((right + 1))
        echo "bisect $i: slow commit c$slow: right ($steps checks, $((t1 - t0)) s)"
    else
        echo "bisect $i: slow commit c$slow: WRONG (got ${got:-none}, $steps checks): $(grep '^bisect-check: ' <<<"$out" | tr '\n' ';')"
    fi
done
echo "right=$right/$N (EXTRA_PCT=$PCT, $(basename "$SRC"); $((t_all / (N > 0 ? N : 1))) s per bisect)"
