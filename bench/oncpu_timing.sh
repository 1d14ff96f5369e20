#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# bench/oncpu_timing.sh — where oncpu_sample's time goes, section by
# section (issue 15): timing builds (BPF_DEFS=-DHC_ONCPU_TIMING, map
# oncpu_timing) of one or more trees record two CPU-bound processes of
# tests/workloads/nofp/glibc_calls.c at depth 40 (46 user frames, no frame
# pointers) with --unwind=cfi at 999 Hz; the arms alternate for --rounds.
# Per arm and round: ns per call of each path (every section includes one
# more clock read, ~20-40 ns), the emitted path's sum and the ticks of a
# target that sample nothing per sample (dithering). The user stack is split
# into its steps (lib/ustack.bpf.h's USTACK_MARK): the process lookup and the
# walker's init, the walk, its flags and stats, the Python frames.
#   make O=/tmp/hc-timing BPF_DEFS=-DHC_ONCPU_TIMING /tmp/hc-timing/hotcold
#   flock /tmp/hotcold-bench.lock bench/oncpu_timing.sh [--rounds N] /tmp/hc-timing/hotcold [OTHER...]
# NODITHER=1 in the environment: record --no-dither (every target tick a sample).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
. bench/lib.sh
ROUNDS=2
[ "${1:-}" = --rounds ] && { ROUNDS=$2; shift 2; }
[ $# -ge 1 ] || { echo "usage: $0 [--rounds N] TIMING_HOTCOLD..." >&2; exit 2; }
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)
TMP=$(mktemp -d /tmp/hc-timing-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -g -pthread -fomit-frame-pointer tests/workloads/nofp/glibc_calls.c -o "$TMP/glibc_calls" ||
	exit 1

one() {	# $1: hotcold; prints one table row
	local a b hc id
	"$TMP/glibc_calls" 9000 "$TMP" 40 >/dev/null 2>&1 & a=$!
	"$TMP/glibc_calls" 9000 "$TMP" 40 >/dev/null 2>&1 & b=$!
	sleep 0.5
	"$1" record -p $a,$b --unwind=cfi -e cpu-clock -F 999 -d 6 ${NODITHER:+--no-dither} \
		-o "$TMP/t.folded" 2>"$TMP/t.err" &
	hc=$!
	sleep 5
	id=$("$BPFTOOL" map show | awk -F: '/ oncpu_timing / { print $1 }' | tail -1)
	[ -n "$id" ] && "$BPFTOOL" -j map dump id "$id" > "$TMP/t.json"
	wait $hc
	kill $a $b 2>/dev/null
	wait $a $b 2>/dev/null
	[ -n "$id" ] || { echo "| $1 | no oncpu_timing map: not a timing build? |"; return; }
	python3 - "$TMP/t.json" "$1" <<'PY'
import json, struct, sys
N = 11	# the sections of bpf/oncpu.bpf.c's TM_* enum; then ns[N], cnt[N], prev
ns, cnt = [0] * N, [0] * N
for e in json.load(open(sys.argv[1])):
    for v in e["values"]:
        b = bytes(int(x, 16) for x in v["value"])
        vals = struct.unpack("<%dQ" % (2 * N), b[:16 * N])
        for i in range(N):
            ns[i] += vals[i]
            cnt[i] += vals[N + i]
per = [ns[i] / cnt[i] if cnt[i] else 0 for i in range(N)]
em = cnt[2]
print("| %s | %s | %.0f | %.2f |" % (sys.argv[2], " | ".join("%.0f" % p for p in per),
      sum(per[2:]), cnt[1] / em if em else 0))
PY
}

echo "| binary | filtered | target tick, no sample | decide | header | kernel stack | user stack (mark only) | tail | user stack: process lookup, init | walk | flags, stats | Python | emitted path | no-sample ticks per sample |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
alternate timing "$ROUNDS" one "$@"
