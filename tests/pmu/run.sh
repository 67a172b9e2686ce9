#!/bin/bash
# tests/pmu/run.sh — the PMU stage (issue 42): cyclebudget's hardware-counter
# path on a real kernel.  Cross-builds cyclebudget and its test programs for
# aarch64, packs them with busybox into an initramfs, boots Debian's arm64
# kernel under qemu-system-aarch64 (-cpu neoverse-n1: the kernel's
# armv8_pmuv3 driver on qemu's emulated PMU; -icount shift=0: one
# instruction a nanosecond, so that counts are exact and repeat), runs the
# tool inside, and checks what it printed and stored here on the host.
# A second VM, at the same time, runs make check-unit's programs on that
# kernel, but for those tests/pmu/qemu-user.list leaves to qemu-user (the
# arm64 stage).  Nothing here is a timing: the clock is emulated.
#
#   usage: tests/pmu/run.sh            (or: make check-pmu; .ci/run pmu)
# One TAP line per check, then "N passed, N failed"; exit 0 when all pass,
# 1 when one fails, 77 when what it needs cannot be had (not root to install
# it), saying what.
#   CB_PMU_CACHE   downloads and the cross build (default ~/.cache/cyclebudget-pmu)
#   CB_PMU_BUILD   an aarch64 build tree to use as it is (.ci/run's arm64 stage's)
#   CB_PMU_KEEP=1  keep the VMs' console logs in $CB_PMU_CACHE/last/
#   CB_PMU_VMS     which VMs to boot (default "pmu unit"; the checks of one left out fail)
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${CB_PMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cyclebudget-pmu}
BOOT_TIMEOUT=${CB_PMU_TIMEOUT:-150}   # the PMU VM's; the unit VM's is a minute longer
mkdir -p "$CACHE" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
t0=$SECONDS
say() { echo "# $*"; }
since() { echo "$((SECONDS - t0)) s"; }

need_pkgs() {  # what is missing, as package names
    local miss=""
    command -v qemu-system-aarch64 >/dev/null || miss="$miss qemu-system-arm"
    command -v aarch64-linux-gnu-gcc >/dev/null || miss="$miss gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
    command -v cpio >/dev/null || miss="$miss cpio"
    command -v sqlite3 >/dev/null || miss="$miss sqlite3"
    [ -e /usr/lib/aarch64-linux-gnu/libpfm.so ] || miss="$miss libpfm4-dev:arm64"
    [ -e /usr/lib/aarch64-linux-gnu/libsqlite3.so ] || miss="$miss libsqlite3-dev:arm64"
    echo "$miss"
}
tools() {
    local miss
    miss=$(need_pkgs)
    [ -z "$miss" ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP the PMU stage needs$miss (and dpkg --add-architecture arm64): install them as root"
        exit 77
    fi
    say "installing$miss"
    dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $miss >/dev/null ||
        { echo "Bail out! apt-get install$miss failed"; exit 1; }
}

# Debian's newest 6.1 arm64 kernel and busybox-static:arm64, fetched once
# with apt-get download and unpacked into the cache.
fetch() {
    local k bbdeb kdeb
    if [ ! -s "$CACHE/vmlinuz" ] || [ ! -x "$CACHE/busybox" ]; then
        k=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$' | awk '{print $1}' | sort -V | tail -1)
        if [ -z "$k" ]; then
            apt-get update -qq 2>/dev/null
            k=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-arm64-unsigned$' | awk '{print $1}' | sort -V | tail -1)
        fi
        [ -n "$k" ] || { echo "Bail out! no linux-image-6.1.0-*-arm64-unsigned in the apt lists (dpkg --add-architecture arm64; apt-get update)"; exit 1; }
        (cd "$T" && timeout 300 apt-get download -q "$k" busybox-static:arm64 >/dev/null 2>&1) ||
            { echo "Bail out! apt-get download $k busybox-static:arm64 failed"; exit 1; }
        kdeb=$(ls "$T"/linux-image-*.deb) bbdeb=$(ls "$T"/busybox-static_*.deb)
        rm -rf "$T/x" && dpkg-deb -x "$kdeb" "$T/x" && cp "$T"/x/boot/vmlinuz-* "$CACHE/vmlinuz" &&
            echo "$k" >"$CACHE/kernel" || exit 1
        rm -rf "$T/x" && dpkg-deb -x "$bbdeb" "$T/x" && cp "$T/x/bin/busybox" "$CACHE/busybox" || exit 1
        rm -rf "$T/x" "$kdeb" "$bbdeb"
    fi
    say "kernel $(cat "$CACHE/kernel"), busybox-static:arm64 (cached in $CACHE) at $(since)"
}

# The cross build: the working tree (tracked and untracked files, not the
# ignored ones) copied with its mtimes into the cache, so that a rerun
# rebuilds only what changed.
build() {
    if [ -n "${CB_PMU_BUILD:-}" ]; then
        B=$CB_PMU_BUILD
        say "using the aarch64 build in $B"
    else
        B=$CACHE/build
        mkdir -p "$B"
        if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
            (cd "$SRC" && git ls-files -co --exclude-standard -z | tar --null -c -T -) | tar -x -C "$B" || exit 1
        else
            (cd "$SRC" && tar -c --exclude=./.git .) | tar -x -C "$B" || exit 1
        fi
        (cd "$B" && { [ -x configure ] || autoreconf -fi >/dev/null 2>&1; } &&
            { [ -f Makefile ] || PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig \
                ./configure -q --host=aarch64-linux-gnu >/dev/null 2>&1; }) ||
            { echo "Bail out! configure --host=aarch64-linux-gnu failed in $B"; exit 1; }
    fi
    (cd "$B" && make -j"$(nproc)" >"$T/make.log" 2>&1 && make -j"$(nproc)" check TESTS= bench/pmu_check >>"$T/make.log" 2>&1) ||
        { tail -20 "$T/make.log"; echo "Bail out! the aarch64 build failed in $B"; exit 1; }
    aarch64-linux-gnu-gcc -O2 -Wall -Wextra -o "$T/hog" "$SRC/tests/pmu/hog.c" || exit 1
    say "aarch64 build done at $(since)"
}

# The initramfs: busybox, the loader and libraries the programs name, the
# programs (stripped), and guest.sh as /init.
libs_of() {  # the DT_NEEDED closure of the given ELF files
    local todo="$*" seen="" f l p
    while [ -n "$todo" ]; do
        set -- $todo
        f=$1
        shift
        todo="$*"
        for l in $(aarch64-linux-gnu-readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            case " $seen " in *" $l "*) continue ;; esac
            for p in /usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib; do
                if [ -e "$p/$l" ]; then
                    seen="$seen $l"
                    echo "$p/$l"
                    todo="$todo $(readlink -f "$p/$l")"
                    break
                fi
            done
        done
    done
}
pack() {
    local R=$T/root f
    mkdir -p "$R"/{bin,lib,lib64,proc,sys,tmp,dev,cb/tests,cb/db}
    cp "$CACHE/busybox" "$R/bin/busybox"
    cp "$SRC/tests/pmu/guest.sh" "$R/init" && chmod 755 "$R/init"
    cp "$B/cyclebudget" "$B/bench/pmu_check" "$T/hog" "$R/cb/"
    local skip
    skip=$(grep -v '^#' "$SRC/tests/pmu/qemu-user.list" | tr '\n' ' ')
    for f in "$B"/tests/test_*; do
        case " $skip " in *" tests/${f##*/} "*) continue ;; esac
        [ -x "$f" ] && [ -f "$f" ] && aarch64-linux-gnu-readelf -h "$f" 2>/dev/null | grep -q AArch64 && cp "$f" "$R/cb/tests/"
    done
    cp -r "$SRC/tests/fixtures" "$R/cb/tests/"
    aarch64-linux-gnu-strip "$R"/cb/cyclebudget "$R"/cb/pmu_check "$R"/cb/hog "$R"/cb/tests/test_* 2>/dev/null
    for f in $(libs_of "$R"/cb/cyclebudget "$R"/cb/tests/test_* "$R"/cb/hog); do
        cp -L "$f" "$R/lib64/"
    done
    local ld=/lib/ld-linux-aarch64.so.1
    [ -e "$ld" ] || ld=/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1
    cp -L "$ld" "$R/lib/ld-linux-aarch64.so.1" || exit 1
    (cd "$R" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$T/init.cpio.gz" || exit 1
    say "initramfs $(($(stat -c %s "$T/init.cpio.gz") / 1024)) KiB ($(ls "$R"/cb/tests | grep -c '^test_') unit programs) at $(since)"
}

boot() {  # boot MODE OUT EXTRA-QEMU-ARGS...: one VM, to its poweroff or the timeout
    local mode=$1 out=$2
    shift 2
    local limit=$BOOT_TIMEOUT
    [ "$mode" = unit ] && limit=$((BOOT_TIMEOUT + 60))
    timeout "$limit" qemu-system-aarch64 -M virt -cpu neoverse-n1 -m 1024 -nographic -no-reboot \
        -kernel "$CACHE/vmlinuz" -initrd "$T/init.cpio.gz" "$@" \
        -append "console=ttyAMA0 quiet panic=-1 cbmode=$mode" </dev/null 2>&1 | tr -d '\r' >"$out"
    echo "${PIPESTATUS[0]}" >"$out.rc"
}

tools
fetch
build
pack
say "booting two VMs: the PMU checks (-icount shift=0, one CPU thread) and the unit tests (-smp 2)"
VMS=${CB_PMU_VMS:-pmu unit}
: >"$T/pmu.log" >"$T/unit.log"
case " $VMS " in *" pmu "*) boot pmu "$T/pmu.log" -smp 2 -icount shift=0 & ;; esac
case " $VMS " in *" unit "*) boot unit "$T/unit.log" -smp 2 ;; esac
wait
say "both VMs done at $(since) (qemu exit: pmu $(cat "$T/pmu.log.rc"), unit $(cat "$T/unit.log.rc"))"
if [ "${CB_PMU_KEEP:-}" = 1 ]; then
    mkdir -p "$CACHE/last" && cp "$T"/*.log "$CACHE/last/"
fi
. "$SRC/tests/pmu/check.sh"
