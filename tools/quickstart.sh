#!/bin/bash
# The README's two commands:
#   sudo tools/quickstart.sh profile   install what is missing, build, profile the
#                                      whole system for 10 s -> hotcold.folded
#   sudo tools/quickstart.sh test      install what is missing, build, run all tests
# Exit status: that of the step that failed, else 0.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages and why (see README "Dependencies").
PKGS=(
	make gcc pkg-config	# build
	clang			# compiles bpf/*.bpf.c to BPF (CO-RE)
	bpftool			# BPF object linking and skeleton generation
	libbpf-dev		# loading BPF, ring buffer, perf-event attach
	libelf-dev		# ELF symbol tables, build-ids, program headers
	zlib1g-dev		# .gnu_debuglink CRC32; later gzip for pprof
	libdw-dev		# elfutils: CFI (.eh_frame) for the unwinder
	libiberty-dev		# C++/Rust demangling
	libmicrohttpd-dev	# the agent's local web view (hotcold agent --http)
	liblzma-dev		# MiniDebugInfo: xz-compressed symbols in .gnu_debugdata
	libdebuginfod-dev	# debug files by build-id from DEBUGINFOD_URLS servers (header; .so.1 dlopen()ed)
	libcapstone-dev		# disassembly for hotcold annotate
	libcurl4-openssl-dev	# the agent pushing to Pyroscope (hotcold agent --push): HTTP(S), multipart
)
TEST_PKGS=(
	python3			# JSON output checks in the integration tests
	libcmocka-dev		# unit tests
	g++ binutils		# ELF fixtures built at test time (C++, objcopy, nm)
	libc6-dbg		# libc's local symbols by build-id (symbolizer tests)
	chromium		# headless browser: clicks and searches flame graphs (tests/browser)
	nodejs			# t_v8: JavaScript frames named from its v8dbg_* table; drives Chromium over its DevTools pipe: the agent's timeline (tests/browser/timeline.sh)
	golang-go		# `go tool pprof`, the reference pprof reader (tests/golden/pprof_check.sh)
	linux-perf		# perf record --call-graph dwarf: t_unwind's independent reference
	libclang-rt-14-dev	# libFuzzer + ASan/UBSan runtimes for `make fuzz` / `make fuzz-smoke`
	strace			# t_output_errors: the output file is fsync'ed before its rename
	e2fsprogs		# t_agent_slowdisk: mkfs.ext4 for the loop-device disk it freezes (fsfreeze: util-linux)
	wrk			# t_http_load: load test of the agent's web view on loopback
	dpkg-dev		# dpkg-buildflags: Debian's hardening flags for `make check-hardened`
	libasan8 libubsan1	# gcc 12's ASan/UBSan runtimes for `make check-asan` (gcc pulls them in too)
	postgresql		# real servers under the agent (t_real_servers): PostgreSQL + pgbench,
	nginx-light		# nginx + wrk (wrk above),
	redis-server redis-tools	# Redis + redis-benchmark
	lld			# t_lld: LLD-linked executables and libraries (clang -fuse-ld=lld)
	rustc			# t_lld: a Rust release build linked by LLD
	xz-utils		# MiniDebugInfo fixtures (.gnu_debugdata is xz)
	debuginfod curl		# t_debuginfod: Debian's server on loopback, readiness probe
	man-db			# t_install: `man -l` renders each installed man page without warnings
	python3.11 python3.11-dbg gdb	# t_python: Debian's interpreter; its debug info checks the offsets table (gdb)
	qemu-system-x86 busybox-static	# make check-kernels: Debian's 6.1/6.12 kernels booted under TCG, busybox initramfs
	openjdk-17-jdk-headless	# t_hotspot: a stock JVM (java, javac) whose JIT frames are named from its vmStructs
)

install_missing() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "quickstart: installing ${missing[*]}" >&2
	if [ "$(id -u)" != 0 ]; then
		echo "quickstart: need root to install packages (run with sudo)" >&2
		exit 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

jobs=$(nproc 2>/dev/null || echo 2)
case "${1:-}" in
profile)
	install_missing "${PKGS[@]}"
	make -j"$jobs" >&2
	echo "quickstart: profiling the whole system for 10 s" >&2
	./hotcold record -a -d 10 -o hotcold.folded
	;;
test)
	install_missing "${PKGS[@]}" "${TEST_PKGS[@]}"
	# Every test runs the binary as a distribution builds it: Debian's
	# hardening flags (stack protector, relro/now, PIE) with
	# _FORTIFY_SOURCE=3, so an overflow the fortified libc catches fails the
	# tests instead of a user's restart (make check-asan adds -O1 with dpkg's
	# _FORTIFY_SOURCE=2, under ASan + UBSan).
	eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
	export CPPFLAGS="$CPPFLAGS -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3"
	make -j"$jobs" all workloads >&2
	make test HARDENED_MAIN=1
	;;
*)
	echo "usage: $0 profile|test" >&2
	exit 2
	;;
esac
