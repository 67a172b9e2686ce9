#!/bin/busybox sh
# guest.sh — /init of the PMU stage's VM (tests/pmu/run.sh packs it with
# busybox, cyclebudget and the test programs).  It only runs things and
# prints what they said between "@@begin NAME" and "@@end NAME RC" lines on
# the console; every check is made on the host, from that text and from the
# stores sent back (gzip | base64 between the same markers).
/bin/busybox --install -s /bin
export PATH=/bin LD_LIBRARY_PATH=/lib64 HOME=/tmp NO_COLOR=1 CB_CEILINGS=off
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t devtmpfs dev /dev 2>/dev/null
cd /cb || exit 1
mode=$(sed -n 's/.*cbmode=\([a-z]*\).*/\1/p' /proc/cmdline)

begin() { echo "@@begin $1"; }
end() { echo "@@end $1 $2"; }
# step NAME CMD...: run it, its output framed
step() {
    n=$1
    shift
    s0=$(cut -d' ' -f1 /proc/uptime)
    begin "$n"
    "$@" 2>&1
    end "$n" $?
    echo "@@time $n $s0 $(cut -d' ' -f1 /proc/uptime)"
}
send() {  # send NAME FILE: a file back to the host
    begin "$1"
    gzip -c "$2" | base64
    end "$1" $?
}
# As an ordinary user: perf_event_paranoid 2 then makes cyclebudget count
# user space only (exclude_kernel), so an interrupt's kernel instructions
# are not in a batch and the counts repeat exactly.
mkdir -p /etc
echo 'cb:x:1000:1000::/tmp:/bin/sh' >/etc/passwd
echo 'cb:x:1000:' >/etc/group
user() { su -p -s /bin/sh cb -c "cd /cb && $*"; }

pmu=/sys/bus/event_source/devices/armv8_pmuv3
echo 2 >/proc/sys/kernel/perf_event_paranoid
# user-space counter reads (arm64, Linux 5.17+); absent: read() and the reason
[ -e /proc/sys/kernel/perf_user_access ] && echo 1 >/proc/sys/kernel/perf_user_access
# rotate multiplexed groups every millisecond (of the emulated clock)
[ -e $pmu/perf_event_mux_interval_ms ] && echo 1 >$pmu/perf_event_mux_interval_ms

begin kernel
uname -r
echo "perf_user_access=$(cat /proc/sys/kernel/perf_user_access 2>/dev/null || echo absent)"
for f in $pmu/events/*; do echo "event ${f##*/} $(cat "$f")"; done
grep -m1 'CPU part' /proc/cpuinfo
dmesg | grep -i 'hw perfevents'
end kernel 0

if [ "$mode" = unit ]; then
    # make check-unit's programs on a real arm64 kernel.  test_race compiles
    # a program: no compiler here, and it says so.
    export TOP_SRCDIR=/cb CYCLEBUDGET=/cb/cyclebudget CB_EMULATED="qemu-system-aarch64 TCG (PMU stage)"
    for t in tests/test_*; do
        step "unit ${t#tests/}" "$t"
    done
else
    # Labelled as what it is; the checks read counts, which emulation keeps.
    export CB_EMULATED="qemu-system-aarch64 TCG -icount shift=0 (PMU stage)"
    step list-events ./cyclebudget list events
    # The synthetic chain: 3 instructions an add (add, subs, b.ne), at two
    # sizes; the stored counts, not the text, are what the host checks.
    S="-p synthetic -s 1000,4000 -m warm --reps 5 -q --db /tmp/a.db"
    step run-a user ./cyclebudget run $S -e cycles,instructions,cache-misses --tag a
    step run-aa user ./cyclebudget run $S -e cycles,instructions,cache-misses --tag aa
    # Planted: 1% more adds, 10 at size 1000 (30 instructions), 40 at 4000.
    step run-b user env CB_SYNTH_SLOWDOWN=0.01 ./cyclebudget run $S -e cycles,instructions,cache-misses --tag b
    step report-a user ./cyclebudget report a --db /tmp/a.db
    step compare-aa user ./cyclebudget compare a aa --metric instructions --db /tmp/a.db
    step compare-ab user ./cyclebudget compare a b --metric instructions --db /tmp/a.db
    # Multiplexed: a second group of six in the same task context takes
    # the counters in turns with the run's group of five (hog.c).
    step run-mux user ./hog 6 ./cyclebudget run -p synthetic -s 100000 -m warm --reps 8 -q --db /tmp/m.db \
        -e cycles,instructions,STALL_BACKEND,STALL_FRONTEND,INST_RETIRED --tag mux
    step report-mux user ./cyclebudget report mux --db /tmp/m.db
    step pmu-check user env CB_EMULATED=qemu-system-aarch64-TCG ./pmu_check
    send store-a /tmp/a.db
    send store-m /tmp/m.db
fi
echo "@@done"
echo o >/proc/sysrq-trigger
poweroff -f
