# lib.sh — TAP helpers for the shell integration tests.
tap_n=0
tap_fail=0
ok() {  # ok CONDITION-EXIT-STATUS DESCRIPTION
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $tap_n - $2"
    else
        echo "not ok $tap_n - $2"
        tap_fail=$((tap_fail + 1))
    fi
}
is() {  # is GOT WANT DESCRIPTION
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', want '$2'"; fi
}
contains() {  # contains FILE PATTERN DESCRIPTION
    if grep -qE -- "$2" "$1"; then ok 0 "$3"; else ok 1 "$3"; echo "#   '$2' not in:"; sed 's/^/#   /' "$1" | head -20; fi
}
done_testing() {
    echo "1..$tap_n"
    [ "$tap_fail" -eq 0 ]
}
