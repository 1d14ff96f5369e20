#!/bin/sh
# Regenerate vmlinux/<arch>/vmlinux_<kver>.h from a BTF file (default: the
# running kernel's) and point vmlinux.h at it.
# usage: tools/gen-vmlinux.sh [BTF_FILE [ARCH [KVER]]]
set -eu
btf=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')}
kver=${3:-$(uname -r | cut -d. -f1-2)}
dir=$(dirname "$0")/../vmlinux/$arch
mkdir -p "$dir"
bpftool btf dump file "$btf" format c > "$dir/vmlinux_$kver.h"
ln -sf "vmlinux_$kver.h" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux_$kver.h from $btf"
