#!/bin/sh
# check-commits.sh — every commit after BASE has a subject of at most 72
# characters, so that `git log --oneline` can be read (HACKING.md, "Commits").
#
#   build-aux/check-commits.sh [BASE [HEAD]]
#
# BASE defaults to 6b10d0a, the last commit of main written before the rule;
# HEAD to HEAD.  Prints each breach as "HASH: N characters: SUBJECT" and exits
# 1 if there is one.  Outside a git checkout (a tarball: make distcheck) or
# where BASE is not in the history (a shallow clone) there is nothing to
# check: it says so and exits 0.  CB_MAX_SUBJECT changes the limit.
base=${1:-6b10d0a319251221b890d1be836f25e65f241df5}
head=${2:-HEAD}
max=${CB_MAX_SUBJECT:-72}
if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check-commits: skipped: not a git checkout (a release tarball has no history to check)"
    exit 0
fi
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "check-commits: skipped: the base commit $base is not in this clone (shallow?): fetch it to check"
    exit 0
fi
if ! git merge-base --is-ancestor "$base" "$head" 2>/dev/null; then
    echo "check-commits: $head does not descend from $base: give the base to check from" >&2
    exit 2
fi
# Subjects are counted in characters, not bytes: UTF-8 continuation bytes
# (0x80-0xbf) are not counted (any awk, any locale).
git log --format='%h%x09%s' "$base..$head" | LC_ALL=C awk -F '\t' -v max="$max" '
{
    s = substr($0, length($1) + 2)
    t = s
    c = length(s) - gsub(/[\200-\277]/, "", t)
    if (c > max) { print $1 ": " c " characters (max " max "): " s; bad++ }
    n++
}
END {
    if (bad) print bad " of " n " subjects over " max " characters: reword them (git rebase -i) before landing" > "/dev/stderr"
    exit bad ? 1 : 0
}'
