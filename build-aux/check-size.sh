#!/bin/sh
# check-size.sh — the house rule of issue 33: no C file over 600 lines and
# no function over 80 lines (from its opening brace to its closing one).
#
#   build-aux/check-size.sh [-q] [FILE-OR-DIR...]     (default: src/)
#
# Prints each breach as "FILE: N lines (max 600)" or
# "FILE:LINE: FUNC(): N lines (max 80)", and exits 1 if there is one.
# The function scan counts brace depth with comments, string and character
# literals blanked out; a block at depth 0 whose header has a '(' and no
# '=' is a function (struct, enum and initializer bodies are not).  Limits
# can be changed with CB_MAX_FILE_LINES / CB_MAX_FUNC_LINES.
quiet=0
[ "$1" = -q ] && { quiet=1; shift; }
[ $# -eq 0 ] && set -- src
maxfile=${CB_MAX_FILE_LINES:-600}
maxfunc=${CB_MAX_FUNC_LINES:-80}
# In a git checkout only the files git tracks (not generated ones such as
# src/store/db_sql.c); elsewhere (a tarball) every .c and .h.
if git rev-parse --git-dir >/dev/null 2>&1; then
    files=$(git ls-files -- "$@" | grep '\.[ch]$' | LC_ALL=C sort)
else
    files=$(find "$@" -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
fi
[ -n "$files" ] || { echo "check-size.sh: no C files under $*" >&2; exit 2; }
# shellcheck disable=SC2086
awk -v maxfile="$maxfile" -v maxfunc="$maxfunc" -v quiet="$quiet" '
function flush_file() {
    if (file != "" && fnr > maxfile) { print file ": " fnr " lines (max " maxfile ")"; bad++ }
}
FNR == 1 { flush_file(); file = FILENAME; depth = 0; incomment = 0; header = ""; fnr = 0 }
{
    fnr = FNR
    line = $0
    # blank comments, strings and chars so their braces do not count
    out = ""
    i = 1; n = length(line)
    while (i <= n) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (incomment) {
            if (c2 == "*/") { incomment = 0; i += 2 } else i++
            continue
        }
        if (c2 == "/*") { incomment = 1; i += 2; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "\047") {
            q = c; i++
            while (i <= n && substr(line, i, 1) != q) { if (substr(line, i, 1) == "\\") i++; i++ }
            i++; out = out q q; continue
        }
        out = out c; i++
    }
    if (out ~ /^[ \t]*#/) next
    for (j = 1; j <= length(out); j++) {
        c = substr(out, j, 1)
        if (c == "{") {
            if (depth == 0) {
                isfunc = (header ~ /\(/ && header !~ /=/)
                start = FNR
                name = header; sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name)
            }
            depth++
        } else if (c == "}") {
            depth--
            if (depth == 0) {
                if (isfunc && FNR - start + 1 > maxfunc) {
                    print file ":" start ": " name "(): " (FNR - start + 1) " lines (max " maxfunc ")"
                    bad++
                }
                header = ""; isfunc = 0
            }
        } else if (depth == 0) {
            if (c == ";") header = ""; else header = header c
        }
    }
    if (depth == 0) header = header " "
}
END {
    flush_file()
    if (!quiet) print (bad ? bad : "no") " breach" (bad == 1 ? "" : "es") " of " maxfile " lines a file, " maxfunc " a function" > "/dev/stderr"
    exit bad ? 1 : 0
}' $files
