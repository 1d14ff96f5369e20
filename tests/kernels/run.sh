#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Kernel matrix (issue 28): boot Debian 12's stock kernels under QEMU (TCG,
# no KVM needed) with a busybox initramfs holding this tree's load_all and
# hotcold, and check in each guest that
#   (a) every BPF variant loads (load_all; its 100,000-insn budget included),
#   (b) record --unwind cfi -- CMD and record -a --unwind cfi on a workload
#       built without frame pointers (tests/workloads/nofp/glibc_calls.c,
#       its 40-deep chain): >= 99% of its main thread's samples in its own
#       code reach main (details in init.sh),
#   (c) record --off-cpu and locks (tests/workloads/mutex.c) produce stacks.
# Kernels: the newest linux-image-6.1.0-*-amd64 (bookworm's stock kernel) and
# linux-image-6.12.*+deb12-amd64 (bookworm-backports/security) apt knows,
# downloaded once into $HC_KERNEL_CACHE (outside the clone, shared by every
# clone); without apt's answer the newest .deb of that series in the cache is
# used. The host's own kernel is not booted (its vmlinuz is not a file here:
# /boot is empty); the rest of the test suite covers it natively.
# The guest reports over the serial console in lines "KM: ..."; this script
# asserts them. usage: tests/kernels/run.sh [BUILD_DIR]   (default .output)
# env: HC_KERNEL_CACHE, HC_KERNELS ("6.1 6.12"), HC_KERNEL_TIMEOUT (s, per boot),
# HC_KERNEL_DEBUG: a shell command run in each guest instead of the checks
# (bpftool and the BPF objects are in /hc), output in $OUT/kernels/serial-*.log,
# e.g. HC_KERNEL_DEBUG='bpftool -d prog loadall /hc/oncpu.bpf.o /sys/fs/bpf/x'.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(cd "${1:-$ROOT/.output}" && pwd) || exit 1
CACHE=${HC_KERNEL_CACHE:-/var/cache/hotcold-kernels}
SERIES=${HC_KERNELS:-6.1 6.12}
BOOT_TIMEOUT=${HC_KERNEL_TIMEOUT:-150}
CFI_MIN=99		# % of the workload's on-CPU samples that must reach main

for t in qemu-system-x86_64 busybox dpkg-deb gcc; do
	command -v $t >/dev/null || { echo "check-kernels: needs $t (tools/quickstart.sh test installs it)" >&2; exit 1; }
done
# the initramfs holds busybox alone: the static build, with poweroff
! ldd "$(command -v busybox)" >/dev/null 2>&1 && busybox --list | grep -qx poweroff ||
	{ echo "check-kernels: needs a static busybox (busybox-static)" >&2; exit 1; }
for f in "$OUT/hotcold" "$OUT/tests/load_all" "$OUT/workloads/mutex"; do
	[ -x "$f" ] || { echo "check-kernels: $f missing (make all workloads $OUT/tests/load_all)" >&2; exit 1; }
done

LOGS=$OUT/kernels	# each guest's serial console, kept for a look after a failure
TMP=$(mktemp -d /tmp/hc-kernels.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$CACHE" "$LOGS" || exit 1

# deb_for SERIES: the .deb of the newest kernel of SERIES, downloaded if missing
deb_for() {
	local re pkg deb
	case $1 in
	6.1) re='^linux-image-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) re='^linux-image-6\.12\.[0-9]+\+deb12-amd64$' ;;
	*) echo "check-kernels: unknown series $1" >&2; return 1 ;;
	esac
	pkg=$(apt-cache search --names-only "$re" 2>/dev/null | awk '{ print $1 }' | sort -V | tail -1)
	if [ -n "$pkg" ]; then
		deb=$(ls "$CACHE/${pkg}_"*_amd64.deb 2>/dev/null | sort -V | tail -1)
		[ -n "$deb" ] || (cd "$CACHE" && apt-get download "$pkg" >"$TMP/apt.log" 2>&1) ||
			echo "check-kernels: apt-get download $pkg failed: $(tail -1 "$TMP/apt.log")" >&2
	fi
	# apt failed or knows no such kernel: the newest of the series in the cache
	deb=$(ls "$CACHE"/*.deb 2>/dev/null | while read -r f; do
		basename "$f" | cut -d_ -f1 | grep -Eq "$re" && echo "$f"; done | sort -V | tail -1)
	[ -n "$deb" ] || { echo "check-kernels: no $1 kernel (apt: '${pkg:-none}', cache $CACHE empty)" >&2; return 1; }
	echo "$deb"
}

# The guest's tools: built here, without frame pointers as t_unwind.sh does
gcc -O2 -fomit-frame-pointer -g -pthread "$ROOT/tests/workloads/nofp/glibc_calls.c" \
	-o "$TMP/glibc_calls" || exit 1

# build_initrd IMG: busybox, the binaries, their libraries and ld.so, /init
build_initrd() {
	local r=$TMP/root b l
	mkdir -p "$r"/{bin,sbin,proc,sys,dev,tmp,hc,lib64,etc} "$r/sys" || return 1
	cp "$(command -v busybox)" "$r/bin/busybox"
	for l in $("$r/bin/busybox" --list); do [ "$l" = busybox ] || ln -sf busybox "$r/bin/$l"; done
	cp "$OUT/hotcold" "$OUT/tests/load_all" "$OUT/workloads/mutex" "$TMP/glibc_calls" "$r/hc/"
	if [ -n "${HC_KERNEL_DEBUG:-}" ]; then
		cp "$(command -v bpftool || echo /usr/sbin/bpftool)" "$OUT"/bpf/*.bpf.o "$r/hc/"
		printf '%s\n' "$HC_KERNEL_DEBUG" >"$r/hc/debug.sh"
	fi
	for b in "$r"/hc/*; do ldd "$b"; done | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		sort -u | while read -r l; do
			mkdir -p "$r$(dirname "$l")"
			cp -L "$l" "$r$l"
		done
	# ld.so at its usrmerge path too
	[ -e "$r/lib64/ld-linux-x86-64.so.2" ] ||
		cp -L /lib64/ld-linux-x86-64.so.2 "$r/lib64/"
	cp "$ROOT/tests/kernels/init.sh" "$r/init"
	chmod +x "$r/init"
	(cd "$r" && find . | "$r/bin/busybox" cpio -o -H newc | gzip -1) >"$1"
}
build_initrd "$TMP/initrd.gz" || { echo "check-kernels: cannot build the initramfs" >&2; exit 1; }

fail=0
t_all=$(date +%s.%N)
# boot every guest at once: each spends most of its wall time in fixed-length
# recordings, so side by side they take about as long as one (2 x ~35 s
# before, one after another), and the test command stays under 15 minutes
booted=()
for s in $SERIES; do
	deb=$(deb_for "$s") || { fail=1; continue; }
	kdir=$TMP/k-$s
	mkdir -p "$kdir"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$kdir" --wildcards './boot/vmlinuz-*' ||
		{ echo "check-kernels: no vmlinuz in $deb" >&2; fail=1; continue; }
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -1)
	echo "== kernel $(basename "$deb" .deb) ($(basename "$vmlinuz"))" >"$TMP/head-$s"
	(
		t0=$(date +%s.%N)
		# thread=single: one host thread runs both vCPUs in turn. With a
		# thread per vCPU, a 6.12 guest died at boot (2.66 s, before init)
		# of "Oops: int3" in run_timer_softirq: a vCPU ran code the other had
		# just patched (text_poke_bp's int3) from its stale translation,
		# seen with the host's CPUs busy (make test runs this side by side
		# with builds). Also 1 host CPU a guest, not 2: 56 s for both alone.
		timeout "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg,thread=single -cpu max -m 2G -smp 2 \
			-kernel "$vmlinuz" -initrd "$TMP/initrd.gz" \
			-append "console=ttyS0 quiet panic=-1" -nographic -no-reboot \
			</dev/null >"$LOGS/serial-$s.log" 2>&1
		echo "$? $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')" \
			>"$TMP/rc-$s"
	) &
	booted+=("$s")
done
wait
for s in "${booted[@]}"; do
	cat "$TMP/head-$s"
	read -r rc wall <"$TMP/rc-$s"
	tr -d '\r' <"$LOGS/serial-$s.log" >"$TMP/km-$s"
	[ "$rc" -eq 124 ] && echo "  [Failed timeout after ${BOOT_TIMEOUT}s]"
	if ! awk -v cfi_min=$CFI_MIN -v wall="$wall" -f "$ROOT/tests/kernels/check.awk" "$TMP/km-$s"; then
		fail=1
		echo "  --- serial console (last 40 lines; all of it in $LOGS/serial-$s.log)"
		tail -40 "$TMP/km-$s" | sed 's/^/  | /'
	fi
done
echo "check-kernels: $(awk -v a="$t_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s in all"
exit $fail
