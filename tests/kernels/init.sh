#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# /init of the kernel matrix's initramfs (tests/kernels/run.sh): mounts what
# hotcold reads, runs the checks, reports "KM: ..." lines on the serial
# console for the host to assert, and powers off. busybox sh.
export PATH=/bin:/sbin:/hc
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
mount -t bpf bpf /sys/fs/bpf
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
exec >/dev/console 2>&1
ip link set lo up 2>/dev/null
up() { cut -d' ' -f1 /proc/uptime; }
km() { echo "KM: $*"; }

km kernel "$(uname -r)" cpus "$(nproc)" btf "$([ -e /sys/kernel/btf/vmlinux ] && echo yes || echo no)"
if [ -e /hc/debug.sh ]; then	# HC_KERNEL_DEBUG (run.sh): that instead of the checks
	sh /hc/debug.sh
	poweroff -f
fi
t=$(up)
load_all >/tmp/la.out 2>&1
km load_all_rc $? secs "$(awk -v a="$t" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
sed 's/^/KM:LA /' /tmp/la.out

# (b) CFI on the workload's 40-deep chain without frame pointers: of the
# samples of its main thread (--per-thread: the workload's lowest TID) in its
# own code (stage_deep, deep_NN, leaf_burn), >= 99% must reach main. Samples
# in the C runtime's start-up before main or its exit after it (ld.so, libc
# init, exit_group tearing the stack down) are counted apart.
# 1. record --unwind cfi -- CMD: the command is held at its entry point until
#    its tables are published: every sample is walked by CFI.
# 2. record -a --unwind cfi on it already running: -a cannot hold a command;
#    its table is built when first seen, its samples putting it first in
#    the builder's queue; samples meanwhile are walked by frame pointer and
#    labelled so by hotcold ("[frame-pointer walk: no CFI table yet]"):
#    counted apart. Under TCG a table costs 10-20x its native time (libc's
#    2.8 s), and the guest's share of the host falls with the host's load:
#    with two busy loops on the host, the tables the workload needed came
#    3.9 s in, and the workload ran 0.33 s of CPU in 5 s (163 samples, 44
#    by CFI, run 1 of session 15 none in 5 s). 10 s leaves it >= 6 s after
#    such a wait, ~190 samples at that share against the 50 asked. -v: the
#    table build times, printed with the check.
cfi_count() {	# FOLDED TAG
	awk -v tag="$2" -F';' '$1 ~ /^glibc_calls-[0-9]+$/ {
		tid = substr($1, 13) + 0; if (!min || tid < min) min = tid
		line[NR] = $0; t[NR] = tid }
		END {
		for (i in line) {
			if (t[i] != min) continue
			l = line[i]; n = l; sub(/.* /, "", n); n += 0; all += n
			if (l ~ /no CFI table yet/) fp += n
			else if (l !~ /;(stage_deep|deep_[0-9]+|leaf_burn)(;| )/) out += n
			else {
				tot += n
				if (l ~ /;main;/) ok += n
				else if (bad++ < 6) print "KM: cfi_incomplete " tag " " l
			}
		}
		printf "KM: cfi %s total %d main %d fp_no_table %d outside %d all %d\n", tag, tot, ok, fp, out, all }' "$1"
}
cd /tmp
t=$(up)
hotcold record --unwind cfi --per-thread -F 499 -o /tmp/held.folded -- glibc_calls 2000 /tmp 40 2>/tmp/held.err
km cfi_held_rc $? secs "$(awk -v a="$t" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
cfi_count /tmp/held.folded held
grep -i 'stacks by FP\|unmapped\|error\|warn\|has no\|refused' /tmp/held.err | head -5 | sed 's/^/KM:ERR /'
t=$(up)
glibc_calls 12000 /tmp 40 &
wl=$!
sleep 0.5
hotcold record -v -a --unwind cfi --per-thread -F 499 -d 10 -o /tmp/cfi.folded 2>/tmp/cfi.err
rc=$?
kill $wl 2>/dev/null
wait $wl
km cfi_all_rc $rc secs "$(awk -v a="$t" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
cfi_count /tmp/cfi.folded all
grep '^unwind:\|^record:' /tmp/cfi.err | sed 's/^/KM:ERR /'

# (c) off-CPU and lock waits produce stacks
t=$(up)
hotcold record -v --off-cpu -a -d 2 -o /tmp/off.folded 2>/tmp/off.err
km offcpu_rc $? secs "$(awk -v a="$t" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
km offcpu stacks "$(grep -vc '^#' /tmp/off.folded)"
# every piece said to be left out for a missing kfunc is counted (-v, /metrics)
km kfuncs said "$(grep -c 'this kernel has no' /tmp/off.err)" counted \
	"$(sed -n 's/.* \([0-9][0-9]*\) parts left out: this kernel lacks their kfuncs.*/\1/p' /tmp/off.err | tail -1)"
grep -v '^  ' /tmp/off.err | grep -i 'cannot\|error\|without\|warn\|has no\|refused' | head -5 |
	sed 's/^/KM:ERR /'
t=$(up)
hotcold locks --user-only -n 5 -o /tmp/locks.txt -- mutex 2 200 1 /tmp/truth 2>/tmp/locks.err
km locks_rc $? secs "$(awk -v a="$t" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
km locks stacks "$(grep -c ';take_queue_lock;' /tmp/locks.txt)"
grep -i 'cannot\|error\|without\|warn\|has no\|refused' /tmp/locks.err | head -5 | sed 's/^/KM:ERR /'
km done
sync
poweroff -f
