#!/bin/bash
# setup.sh — from a fresh Debian machine to a built cyclebudget, then one job:
#   ./setup.sh run     install what is missing, build, collect the default suite
#                      into ./cyclebudget.db and print the report
#   ./setup.sh check   install what is missing, build, run the whole test suite
#   ./setup.sh build   install what is missing and build
#   ./setup.sh deps    install what is missing, nothing more
# Extra arguments after run are passed to 'cyclebudget run'.
set -euo pipefail
cd "$(dirname "$0")"
job=${1:-run}
[ $# -gt 0 ] && shift

pkgs="build-essential autoconf automake libtool pkg-config libpfm4-dev libsqlite3-dev sqlite3 git libbpf-dev clang"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing:$missing" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo=sudo; else
        echo "setup: need root to install$missing (run as root, or install them yourself)" >&2; exit 1; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# Quiet but for errors: autoreconf's "installing ..." lines, configure's
# checks and make's progress go to a log, shown only when the step fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
quiet() {  # quiet STEP COMMAND...: run it, its output shown only if it fails
    local step=$1
    shift
    "$@" >"$log" 2>&1 && return 0
    local rc=$?
    tail -40 "$log" >&2
    echo "setup: $step failed (exit $rc); the lines above are the end of its output" >&2
    exit "$rc"
}
[ "$job" = deps ] && exit 0
[ -x configure ] || quiet autoreconf autoreconf -fi
[ -f Makefile ] || quiet configure ./configure ${CONFIGURE_FLAGS:-}
quiet make make -j"$(nproc)"

# Tally the TAP points of every test log: "N passed, N failed".
summary() {
    local pass=0 fail=0 skip=0 f
    for f in $(find tests -name '*.trs' 2>/dev/null); do
        pass=$((pass + $(grep -c '^:test-result: PASS' "$f" || true)))
        fail=$((fail + $(grep -c -E '^:test-result: (FAIL|ERROR|XPASS)' "$f" || true)))
        skip=$((skip + $(grep -c '^:test-result: SKIP' "$f" || true)))
    done
    echo "$pass passed, $fail failed, $skip skipped"
}

case $job in
run) exec ./cyclebudget run "$@" ;;
check)
    rc=0
    make -j"$(nproc)" check >/dev/null 2>&1 || rc=$?
    grep -h -E '^(not ok|ERROR|FAIL)' tests/*.log 2>/dev/null | head -40 || true
    # head, not cat | head: under pipefail cat's SIGPIPE ended the script
    # with 141 before the summary line.
    [ $rc -ne 0 ] && { echo "make check failed; see tests/*.log and test-suite.log" >&2; head -60 test-suite.log >&2 2>/dev/null || true; }
    summary
    exit $rc ;;
build) ;;
*) echo "usage: ./setup.sh [run|check|build|deps] [cyclebudget run options]" >&2; exit 2 ;;
esac
