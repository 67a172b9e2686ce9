#!/bin/bash
# run.sh CYCLEBUDGET — the in-kernel collector end to end (issue 45,
# docs/kernel.md), for `make check-inkernel` and .ci/run's inkernel stage:
#   1. a Debian 6.1 kernel's headers (apt-get install linux-headers-6.1.0-N-amd64)
#      and its image (apt-get download linux-image-6.1.0-N-amd64-unsigned),
#      cached in $CB_INKERNEL_CACHE (default /var/cache/cb-inkernel);
#   2. kmod/ built against those headers (the build `kernel run` does);
#   3. that kernel booted under qemu-system-x86_64 (TCG, -cpu max, -m 512) with a
#      busybox-static initramfs holding cyclebudget, its libraries, the .ko and
#      the XDP example; inside, tests/inkernel/init.sh runs the user-space
#      models, `kernel run --module` and `bpf run`, prints the report and the
#      store in base64;
#   4. here: the store cut out of the console and checked: every case verified
#      and measured with its samples, labelled in-kernel and emulated, the
#      report showing each case beside its model, in text and HTML.
# Timings under TCG mean nothing; what is checked is the path.  Every
# emulator step has a timeout.  Exit 0 passed, 1 failed, 77 cannot run here.
set -uo pipefail
cb=${1:?usage: run.sh PATH/TO/cyclebudget}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${CB_INKERNEL_CACHE:-/var/cache/cb-inkernel}
work=$(mktemp -d /tmp/cb-inkernel.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; fails=$((fails + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
skip() { echo "inkernel: SKIP: $*"; exit 77; }

[ "$(uname -m)" = x86_64 ] || skip "needs an x86_64 host (Debian amd64 packages)"
need=""
command -v qemu-system-x86_64 >/dev/null || need="$need qemu-system-x86"
command -v cpio >/dev/null || need="$need cpio"
[ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q static || need="$need busybox-static"
command -v sqlite3 >/dev/null || need="$need sqlite3"
command -v file >/dev/null || need="$need file"
if [ -n "$need" ]; then
    [ "$(id -u)" = 0 ] || skip "missing$need and not root to install them"
    apt-get install -y -qq $need >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq $need >/dev/null; } ||
        skip "could not install$need"
fi
mkdir -p "$cache"

# The kernel: a cached image whose headers are installed, else the newest
# 6.1 ABI apt offers both of.
pick_abi() {
    local deb abi
    for deb in $(ls -1 "$cache"/linux-image-6.1.0-*-amd64-unsigned_*.deb 2>/dev/null | sort -V -r); do
        abi=$(basename "$deb" | sed -n 's/^linux-image-\(6\.1\.0-[0-9]*\)-amd64-unsigned_.*/\1/p')
        [ -d "/usr/src/linux-headers-$abi-amd64" ] && { echo "$abi"; return; }
    done
    apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' 2>/dev/null |
        sed -n 's/^linux-image-\(6\.1\.0-[0-9]*\)-amd64-unsigned .*/\1/p' | sort -V | tail -1
}
abi=$(pick_abi)
[ -n "$abi" ] || { apt-get update -qq 2>/dev/null; abi=$(pick_abi); }
[ -n "$abi" ] || skip "apt knows no linux-image-6.1.0-N-amd64-unsigned (a Debian 12 source list is needed)"
kdir=/usr/src/linux-headers-$abi-amd64
if [ ! -f "$kdir/Makefile" ]; then
    [ "$(id -u)" = 0 ] || skip "linux-headers-$abi-amd64 is not installed and this is not root"
    timeout 300 apt-get install -y -qq "linux-headers-$abi-amd64" >/dev/null || skip "could not install linux-headers-$abi-amd64"
fi
deb=$(ls -1 "$cache"/linux-image-$abi-amd64-unsigned_*.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
    (cd "$cache" && timeout 300 apt-get download -q "linux-image-$abi-amd64-unsigned" >/dev/null 2>&1) ||
        skip "could not download linux-image-$abi-amd64-unsigned"
    deb=$(ls -1 "$cache"/linux-image-$abi-amd64-unsigned_*.deb | tail -1)
fi
echo "inkernel: Linux $abi-amd64 (headers $kdir, image $(basename "$deb"))"

# The module, built as `kernel run` builds it.
mkdir -p "$work/kmod" && cp "$top"/kmod/Kbuild "$top"/kmod/cb_kmod.c "$top"/kmod/cb_kmod_uapi.h "$work/kmod/"
check "kmod/ builds against linux-headers-$abi-amd64, warning-free" sh -c \
    "timeout 300 make -C '$kdir' M='$work/kmod' modules >'$work/kbuild.log' 2>&1 && ! grep -q 'warning:' '$work/kbuild.log' ||
     { tail -20 '$work/kbuild.log'; exit 1; }"
[ -f "$work/kmod/cb_kmod.ko" ] || { echo "inkernel: no module built"; exit 1; }

# The initramfs: busybox, cyclebudget and its libraries, the module, /init.
mkdir -p "$work/img" "$work/root/bin" "$work/root/lib" "$work/root/lib64" "$work/root"/{proc,sys,dev,tmp}
dpkg-deb -x "$deb" "$work/img"
vmlinuz=$(ls "$work"/img/boot/vmlinuz-* | head -1)
cp /bin/busybox "$work/root/bin/busybox"
for a in sh mount poweroff base64 sync cat ls echo; do ln -sf busybox "$work/root/bin/$a"; done
cp "$cb" "$work/root/bin/cyclebudget"
ldd "$cb" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
    case $lib in */ld-linux*) cp -L "$lib" "$work/root/lib64/" ;; *) cp -L "$lib" "$work/root/lib/" ;; esac
done
cp -L /lib64/ld-linux-x86-64.so.2 "$work/root/lib64/" 2>/dev/null
cp "$work/kmod/cb_kmod.ko" "$work/root/cb_kmod.ko"
bpfobj=$(dirname "$cb")/examples/xdp/parse_pass.bpf.o
[ -f "$bpfobj" ] && cp "$bpfobj" "${bpfobj%parse_pass.bpf.o}rewrite_csum.bpf.o" "$work/root/"
cp "$here/init.sh" "$work/root/init" && chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$work/init.cpio.gz")

# Boot it; TCG (nested KVM hung at boot on this kind of host).
t0=$SECONDS
timeout 420 qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 1 -nographic -no-reboot \
    -kernel "$vmlinuz" -initrd "$work/init.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1 loglevel=3" >"$work/console.log" 2>&1
qrc=$?
echo "inkernel: qemu exited $qrc after $((SECONDS - t0)) s"
sed -n '/inkernel-guest: store begins/q;p' "$work/console.log" | tr -d '\r' | grep -v '^\s*$' | tail -80
check "the guest booted and ran kernel run to its end" grep -q 'inkernel-guest: kernel run rc=0' "$work/console.log"
tr -d '\r' <"$work/console.log" | sed -n '/inkernel-guest: store begins/,/inkernel-guest: store ends/p' |
    sed '1d;$d' | base64 -d >"$work/inkernel.db" 2>/dev/null
db=$work/inkernel.db
q() { sqlite3 "$db" "$1" 2>/dev/null; }
check "the store came back out of the guest" test "$(q 'select count(*) from runs')" -ge 3
run=$(q "select max(id) from runs where source = 'in-kernel'")
check "an in-kernel run is stored (source 'in-kernel')" test -n "$run"
run=${run:-0}
check "... complete" test "$(q "select status from runs where id = $run")" = complete
check "... labelled emulated, so compare draws no verdict from it" test -n "$(q "select emulated from runs where id = $run")"
check "... its build names the module's source hash and the kernel" \
    test "$(q "select b.version like 'cb_kmod ________________%' and b.compiler = 'linux $abi-amd64' from runs r join builds b on b.id = r.build_id where r.id = $run")" = 1
cases="select count(*) from cases where run_id = $run"
check "... no case BAD or skipped" test "$(q "$cases and verdict <> 'ok'")" = 0
for v in csum/csum_partial csum_copy/csum_partial_copy_nocheck copy/memcpy memset/memset; do
    n=$(q "$cases and probe || '/' || variant = '$v' and verdict = 'ok'
           and (select count(*) from samples s join events e on e.id = s.event_id
                where s.case_id = cases.id and e.name = 'tsc' and s.value is not null) = 3")
    check "... $v verified and measured, 3 samples each, at 64 and 1500 B, warm and cold ($n cases)" test "$n" = 4
done
n=$(q "$cases and probe = 'slab' and verdict = 'ok' and exists (select 1 from samples where case_id = cases.id)")
check "... kmem_cache_alloc+free and the bulk APIs at 1..250 objects verified and measured ($n)" test "$n" = 10
n=$(q "$cases and probe = 'fpu' and verdict = 'ok' and exists (select 1 from samples where case_id = cases.id)")
check "... kernel_fpu_begin/end, first use (in the kernel, and with the exit) and in a batch, verified and measured ($n)" test "$n" = 3
n=$(q "$cases and probe = 'page_pool' and verdict = 'ok' and exists (select 1 from samples where case_id = cases.id)")
check "... page_pool alloc and recycle verified and measured ($n)" test "$n" = 1
check "... cycles: counted, or unsupported with the reason (never a 0 made up)" test "$(q "select
    (supported = 1 and not exists (select 1 from samples where event_id = events.id and value is null))
    or (supported = 0 and length(why) > 20 and not exists (select 1 from samples where event_id = events.id
        and value is not null)) from events where run_id = $run and name = 'cycles'")" = 1
"$cb" report "$run" --db "$db" >"$work/report.txt" 2>&1
check "report: the in-kernel section sets csum_partial beside kernel-2021" \
    grep -qE '^  csum +1500 warm  csum_partial +[0-9.]+  kernel-2021 +[0-9.]+ +[-+][0-9]+%' "$work/report.txt"
check "report: ... and kmem_cache_alloc_bulk-16 beside bulk-16" \
    grep -qE 'kmem_cache_alloc_bulk-16 +[0-9.]+  bulk-16 +[0-9.]+ +[-+][0-9]+%' "$work/report.txt"
check "report: the FPU's first use beside the XSAVEC estimate" grep -q 'first use: kernel_fpu_begin-first' "$work/report.txt"
check "report: ... and with the exit beside the estimate's whole first use" grep -q 'first use with the exit: kernel_fpu_begin-first+exit [0-9]' "$work/report.txt"
check "report: says EMULATED" grep -q EMULATED "$work/report.txt"
sed -n '/^in the kernel/,$p' "$work/report.txt" | head -60
"$cb" report "$run" --db "$db" --format html >"$work/report.html" 2>&1
check "report --format html: the in-kernel table with csum_partial and its model" sh -c \
    "grep -q 'class=\"sortable inkernel\"' '$work/report.html' && grep -q '<td>csum_partial</td>' '$work/report.html'"
"$cb" report "$run" --db "$db" --format json >"$work/report.json" 2>&1
check "report --format json: the same rows, csum_partial beside kernel-2021 with its error" sh -c \
    "grep -qE '\"kernel_function\": \"csum_partial\", \"kernel_ticks\": [0-9.e+]+, \"model\": \"kernel-2021\", \"model_ticks\": [0-9.e+]+, \"error_pct\": -?[0-9.e+-]+' '$work/report.json'"
# bpf run on Debian's 6.1: csum through bpf_csum_diff, the XDP example in
# both modes (live frames: page_pool), beside the user-space models.
if [ -f "$bpfobj" ]; then
    check "the guest ran bpf run to its end" grep -q 'inkernel-guest: bpf run rc=0' "$work/console.log"
    brun=$(q "select min(id) from runs where source = 'bpf'")   # the first: csum and parse_pass
    check "a bpf run is stored (source 'bpf'), complete" test "$(q "select status from runs where id = ${brun:-0}")" = complete
    brun=${brun:-0}
    bc="select count(*) from cases where run_id = $brun and verdict = 'ok' and (select count(*) from samples s
        join events e on e.id = s.event_id where s.case_id = cases.id and e.name = 'tsc' and s.value is not null) = 3"
    check "... csum through bpf_csum_diff verified and measured at 64, 256, 512 B" \
        test "$(q "$bc and probe = 'csum' and variant = 'bpf_csum_diff'")" = 3
    check "... parse_pass at 64 and 1518 B in the default mode" test "$(q "$bc and variant = 'parse_pass'")" = 2
    check "... and with live frames (page_pool, the action carried out)" test "$(q "$bc and variant = 'parse_pass+live'")" = 2
    check "... the empty program beside each case" test "$(q "$bc and probe = 'bpf_empty'")" = 7
    n=$(q "select count(*) from cases where variant like 'rewrite_csum%' and verdict = 'ok'")
    grep -q 'inkernel-guest: bpf run tx rc=0' "$work/console.log" || n="$n (rc not 0)"
    check "rewrite_csum (XDP_TX, its IPv4 checksum right) verified and measured in both modes ($n)" test "$n" = 2
    "$cb" report "$brun" --db "$db" >"$work/bpf.txt" 2>&1
    # Under emulation the program's cost can fall below the empty's noise:
    # then the report reads <=empty (tests/bpf.test checks that rendering).
    check "report: bpf_csum_diff at 64 B beside kernel-2021, with the empty program's cost" \
        grep -qE '^  csum +64 warm  bpf_csum_diff +([0-9.]+|<=empty) +[0-9.]+ +[-0-9.]+  kernel-2021 +[0-9.]+ +([-+][0-9]+%|-) ' "$work/bpf.txt"
    sed -n '/^in the kernel through/,$p' "$work/bpf.txt" | head -20
fi
[ -n "${CB_INKERNEL_KEEP:-}" ] && cp "$db" "$work/report.txt" "$work/report.html" "$work/console.log" "$CB_INKERNEL_KEEP/" 2>/dev/null
echo "inkernel: $fails failed"
[ "$fails" = 0 ]
