#!/bin/bash
# make install: what the systemd unit and the README expect lands under
# DESTDIR/PREFIX; every man page renders without warnings; the bash
# completion completes commands and each command's options, and its option
# lists (generated from --help) match the parser and the man pages.
. "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$(dirname "$HOTCOLD")

inst() {	# inst DESTDIR [make args]
	local d=$1; shift
	make --no-print-directory -C "$repo" O="$out" DESTDIR="$d" "$@" install >"$TMP/make.log" 2>&1 ||
		{ bad "make install $*: $(tail -5 "$TMP/make.log")"; return 1; }
}

st=$TMP/stage
if inst "$st"; then
	unit=$st/usr/local/lib/systemd/system/hotcold-agent.service
	exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
	conf=$(sed -n 's/^ExecStart=.*--config \([^ ]*\).*/\1/p' "$unit")
	if [ "$exe" = /usr/local/bin/hotcold ] && [ -x "$st$exe" ] && [ -f "$st$conf" ] &&
	   "$st$exe" --version | grep -q '^hotcold ' &&
	   "$st$exe" agent --config "$st$conf" -h >/dev/null 2>"$TMP/e"; then
		ok "unit's ExecStart $exe installed, its config $conf installed and accepted"
	else
		bad "unit expects '$exe' and '$conf': $(ls -R "$st" | head -30) $(cat "$TMP/e" 2>/dev/null)"
	fi
	for f in usr/local/share/man/man1/hotcold.1 usr/local/share/bash-completion/completions/hotcold \
		 usr/local/share/doc/hotcold/README.md usr/local/share/doc/hotcold/docs/agent.md \
		 usr/local/share/doc/hotcold/agent.conf.example; do
		[ -f "$st/$f" ] || bad "missing $f"
	done
	# an administrator's config survives a reinstall
	echo "interval = 5m" >"$st/etc/hotcold/agent.conf"
	inst "$st" && grep -q '5m' "$st/etc/hotcold/agent.conf" && ok "reinstall keeps /etc/hotcold/agent.conf" ||
		bad "reinstall overwrote the config"
fi

# another PREFIX: the unit follows it
if inst "$TMP/opt" PREFIX=/opt/hc; then
	grep -q '^ExecStart=/opt/hc/bin/hotcold agent' "$TMP/opt/opt/hc/lib/systemd/system/hotcold-agent.service" &&
	   [ -x "$TMP/opt/opt/hc/bin/hotcold" ] && ok "PREFIX=/opt/hc: ExecStart=/opt/hc/bin/hotcold" ||
		bad "PREFIX=/opt/hc: $(grep ExecStart "$TMP/opt/opt/hc/lib/systemd/system/hotcold-agent.service")"
fi

# man pages: each renders, no warnings from groff (man-db's --warnings)
n=0
for p in "$st"/usr/local/share/man/man1/*.1; do
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=all -l "$p" 2>&1 >/dev/null)
	txt=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$p" 2>/dev/null)
	if [ -z "$w" ] && grep -q '^NAME' <<<"$txt" && grep -q '^EXIT STATUS' <<<"$txt"; then n=$((n + 1))
	else bad "man -l $(basename "$p"): ${w:-no NAME/EXIT STATUS}"; fi
done
cmds=$("$HOTCOLD" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$n" -eq $(( $(wc -w <<<"$cmds") + 1 )) ] && ok "man -l: $n pages render without warnings" ||
	bad "$n pages rendered for $(wc -w <<<"$cmds") commands + hotcold(1)"

# completion: source it, set COMP_WORDS/COMP_CWORD, call the function
comp=$st/usr/local/share/bash-completion/completions/hotcold
complete_at() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hotcold; echo "${COMPREPLY[*]}"' _ "$comp" "$@"; }
check() {	# check "WORDS..." EXPECTED-WORD
	local got; got=$(complete_at $1)
	[[ " $got " == *" $2 "* ]] && ok "complete '$1' -> $2 (of: $got)" || bad "complete '$1': '$got', want $2"
}
check "hotcold rec" record
check "hotcold fl" flamegraph
check "hotcold record --off" --off-cpu
check "hotcold record -p 1 --max-s" --max-stacks
check "hotcold stat --per" --per-process
check "hotcold locks --verb" --verbose
check "hotcold agent --http-t" --http-token-file
check "hotcold record --format s" svg
check "hotcold locks --sort m" max
check "hotcold report --kind off" offcpu
check "hotcold agent --http-token-file /us" /usr
got=$(complete_at hotcold record --frob)
[ -z "$got" ] && ok "no completion for a non-option" || bad "completed --frob: $got"

# the lists cannot drift: every completed option is known to its parser (the
# table drives getopt_long), and each man page's OPTIONS are what its table
# generates (tools/gen-man.sh --check), so they list every option
for c in $cmds; do
	var=_hotcold_opts_$c
	opts=$(bash -c '. "$1"; echo "${!2}"' _ "$comp" "$var")
	unknown= undoc=
	for o in $opts; do
		case $o in --*) ;; *) continue;; esac
		# a value-taking option eats the first --zz; the second is then the unknown one
		"$HOTCOLD" $c $o --zz-not-an-option --zz-not-an-option >/dev/null 2>"$TMP/e" </dev/null
		grep -Eq "(unknown|unrecognized) option '?$o'?" "$TMP/e" && unknown+=" $o"
		grep -q -- "\\\\fB$(sed 's/-/\\\\-/g' <<<"$o")" "$repo/man/hotcold-$c.1" || undoc+=" $o"
	done
	[ -z "$unknown$undoc" ] && ok "$c: $(wc -w <<<"$opts") options: parser, completion and man page agree" ||
		bad "$c: unknown to parser:$unknown; not in man page:$undoc"
done
"$repo/tools/gen-man.sh" "$HOTCOLD" --check "$repo"/man/*.1 2>"$TMP/e" &&
	ok "man pages' OPTIONS are what the option tables generate" || bad "$(cat "$TMP/e")"
# negative control: a page edited by hand (an option dropped) is caught
mkdir -p "$TMP/man"
sed '/^\\fB\\-\\-json\\fR$/,+1d' "$repo/man/hotcold-report.1" >"$TMP/man/hotcold-report.1"
! "$repo/tools/gen-man.sh" "$HOTCOLD" --check "$TMP/man/hotcold-report.1" 2>/dev/null &&
	! cmp -s "$TMP/man/hotcold-report.1" "$repo/man/hotcold-report.1" &&
	ok "control: a man page missing --json is reported stale" || bad "control: stale page not caught"
# README and docs/: every relative link names a file that exists
links_broken() {	# links_broken FILE.md...: the relative links that resolve to nothing
	local md l
	for md in "$@"; do
		for l in $(grep -o '](\([^)#]*\)' "$md" | sed 's/^](//' | grep -v '^[a-z]*:'); do
			[ -e "$(dirname "$md")/$l" ] || echo "$(basename "$md"):$l"
		done
	done
}
broken=$(links_broken "$repo"/README.md "$repo"/docs/*.md)
n=$(cat "$repo"/README.md "$repo"/docs/*.md | grep -o '](' | wc -l)
[ -z "$broken" ] && [ "$n" -gt 20 ] && ok "README and docs/: $n links, every relative one resolves" ||
	bad "README/docs links ($n): broken: $broken"
printf 'see [x](nope.md) and [y](links.md)\n' >"$TMP/links.md"
[ "$(links_broken "$TMP/links.md")" = "links.md:nope.md" ] && ok "control: a link to a missing page is caught" ||
	bad "control: links_broken gave '$(links_broken "$TMP/links.md")'"

# negative control: a made-up option trips both checks above
for c in record agent; do
	"$HOTCOLD" $c --frobnicate --zz-not-an-option --zz-not-an-option >/dev/null 2>"$TMP/e" </dev/null
	grep -Eq "(unknown|unrecognized) option '?--frobnicate'?" "$TMP/e" &&
	   ! grep -q -- '\\fB\\-\\-frobnicate' "$repo/man/hotcold-$c.1" &&
	   ok "control: $c --frobnicate is caught as unknown and undocumented" || bad "control $c: $(cat "$TMP/e")"
done
finish
