#!/bin/sh
# Every header must compile on its own (include what it uses).
# usage: tools/check-headers.sh  (from the repo root; skeletons must be built)
set -u
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cflags="-std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -Isrc -I.output/skel $(pkg-config --cflags libbpf libelf 2>/dev/null)"
for h in $(find src -name '*.h' | sort); do
	printf '#include "%s"\n' "${h#src/}" > "$tmp/t.c"
	cc $cflags -fsyntax-only "$tmp/t.c" 2>"$tmp/err" || { echo "header: $h does not compile alone"; cat "$tmp/err"; fail=1; }
done
for h in $(find include -name '*.h' | sort); do
	printf '#include <linux/types.h>\n#include "%s"\n' "${h#include/}" > "$tmp/t.c"
	cc $cflags -fsyntax-only "$tmp/t.c" 2>"$tmp/err" || { echo "header: $h does not compile alone"; cat "$tmp/err"; fail=1; }
done
[ $fail -eq 0 ] && echo "headers: all compile alone"
exit $fail
