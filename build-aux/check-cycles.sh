#!/bin/sh
# check-cycles.sh — no circle between source files: file A "uses" file B when
# A's object leaves undefined a global symbol B's object defines (nm); a set
# of two files or more that reach each other through uses is a circle.
# Usage: check-cycles.sh SRCDIR BUILDDIR.  Prints each circle (its files, then
# the uses inside it) and exits 1 if there is one not allowed below.
#
# Allowed: store/db.c with its backends (db_sqlite.c, db_pg.c, db_pg_wait.c):
# db.c dispatches to the backend a store was opened with, and each backend
# calls db.c's shared helpers, one interface in several files.  And a family
# with its check, probes/NAME.c and probes/NAME_verify.c: the family's record
# names its verify function, which drives the family's model against its
# reference.
set -u
src=${1:-.}
bld=${2:-.}
allowed=" src/store/db.c src/store/db_sqlite.c src/store/db_pg.c src/store/db_pg_wait.c "
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for c in $(cd "$src" && find src probes -name '*.c' | sort); do
    d=$(dirname "$c"); b=$(basename "$c" .c)
    o=
    for cand in "$bld/$d/$b.o" "$bld/$d/.libs/$b.o" "$bld/$d"/*-"$b".o "$bld/$d"/.libs/*-"$b".o; do
        [ -f "$cand" ] && { o=$cand; break; }
    done
    [ -n "$o" ] || continue
    n=$((n + 1))
    nm -P "$o" 2>/dev/null | awk -v f="$c" '
        $2 ~ /^[TDBRCGSVW]$/ { print "D", $1, f }
        $2 ~ /^[Uw]$/ { print "U", $1, f }'
done >"$tmp/syms"
[ "$n" -gt 0 ] || { echo "check-cycles: no object found under $bld (build first)" >&2; exit 2; }
awk '
    $1 == "D" && !($2 in def) { def[$2] = $3 }
    $1 == "U" { use[++nu] = $3 " " $2 }
    END {
        no = 0
        for (i = 1; i <= nu; i++) {
            split(use[i], u, " ")
            if ((u[2] in def) && def[u[2]] != u[1]) {
                k = u[1] " " def[u[2]]
                if (k in sy) sy[k] = sy[k] "," u[2]; else { sy[k] = u[2]; ord[++no] = k }
            }
        }
        for (i = 1; i <= no; i++) print ord[i], sy[ord[i]]
    }' "$tmp/syms" >"$tmp/edges"
# Mutual reachability: a breadth-first walk from each file.
awk -v allowed="$allowed" '
    { out[$1] = out[$1] " " $2; why[$1, $2] = $3; node[$1] = 1; node[$2] = 1 }
    END {
        for (s in node) {
            delete q; delete got
            h = 1; t = 1; q[1] = s; got[s] = 1
            while (h <= t) {
                k = split(out[q[h++]], nx, " ")
                for (j = 1; j <= k; j++)
                    if (!(nx[j] in got)) { got[nx[j]] = 1; q[++t] = nx[j] }
            }
            for (x in got) reach[s, x] = 1
        }
        bad = 0
        for (s in node) {
            if (s in done) continue
            m = s; c = 1; members[1] = s
            for (x in node)
                if (x != s && ((s, x) in reach) && ((x, s) in reach)) members[++c] = x
            for (j = 1; j <= c; j++) done[members[j]] = 1
            if (c < 2) continue
            ok = 1; line = ""
            for (j = 1; j <= c; j++) {
                if (index(allowed, " " members[j] " ") == 0) ok = 0
                line = line " " members[j]
            }
            if (c == 2 && members[1] ~ /^probes\// && members[2] ~ /^probes\//) {
                a = members[1]; b = members[2]; sub(/\.c$/, "_verify.c", a); sub(/\.c$/, "_verify.c", b)
                if (a == members[2] || b == members[1]) ok = 1
            }
            print (ok ? "allowed circle:" : "circle:") line
            for (a = 1; a <= c; a++) for (b = 1; b <= c; b++)
                if ((members[a], members[b]) in why)
                    print "    " members[a] " -> " members[b] " (" why[members[a], members[b]] ")"
            if (!ok) bad = 1
        }
        exit bad
    }' "$tmp/edges"
