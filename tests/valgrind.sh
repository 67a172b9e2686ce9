#!/bin/sh
# valgrind.sh — run cyclebudget ($CB_REAL) under memcheck, for
# `make check-valgrind`: any memory error or definite/indirect leak makes
# the command exit 1 (distinct from usage errors' 2), so the test fails.
# still-reachable blocks (libpfm4's tables, SQLite's caches at exit) are
# not leaks of ours and are not counted.
exec valgrind -q --error-exitcode=1 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    ${CB_VALGRIND_SUPP:+--suppressions="$CB_VALGRIND_SUPP"} "$CB_REAL" "$@"
