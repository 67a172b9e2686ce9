#!/bin/sh
# init.sh — /init of the initramfs that tests/inkernel/run.sh boots under
# qemu-system-x86_64 (TCG).  Runs the user-space models, the in-kernel
# collector and bpf run on the same emulated CPU, prints the report, then the
# store as base64 between markers for the host to cut out, and powers off.
export PATH=/bin LD_LIBRARY_PATH=/lib
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
cd /tmp
db=/tmp/inkernel.db
say() { echo "inkernel-guest: $*"; }
# The models the kernel's functions are set beside (report/inkernel.c):
# Linux 6.1's csum is kernel-2021.  Model ceilings: measuring the machine
# under TCG would only time the emulator, and the FPU estimate is then the
# model's fixed figures, said so in the report.
export CB_CEILINGS=model
cyclebudget run -p csum,csum_copy,copy,memset -V 'kernel-2021*,fused,movsb,unrolled,stosb,movq' \
    -s 64,1500 -m warm,cold --cold-bytes 4M --reps 3 --db $db -q; say "user-space bytes rc=$?"
cyclebudget run -p slab -V 'single,single+kflags,bulk-*' -s 256 -m warm --reps 3 --db $db -q
say "user-space slab rc=$?"
cyclebudget kernel run --module /cb_kmod.ko -s 64,1500 --cold-bytes 4M --reps 3 --db $db
say "kernel run rc=$?"
# The same kernel through BPF: csum through bpf_csum_diff and an XDP
# program in both modes (a build without libbpf says so and stores nothing).
if [ -f /parse_pass.bpf.o ]; then
    cyclebudget bpf run -s 64,256,512 --xdp /parse_pass.bpf.o --frame 64,1518 --reps 3 --db $db
    say "bpf run rc=$?"
    cyclebudget bpf run -p xdp --xdp /rewrite_csum.bpf.o --expect tx --frame 64 --reps 3 --db $db
    say "bpf run tx rc=$?"
fi
cyclebudget report latest --db $db
echo "inkernel-guest: store begins"
base64 $db
echo "inkernel-guest: store ends"
sync
poweroff -f
