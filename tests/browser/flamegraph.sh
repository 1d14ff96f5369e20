#!/bin/bash
# The flame graph as a person uses it: render a known profile with the real
# binary, open the SVG in headless Chromium (through flamegraph.html), click a
# frame and check the zoom, search and check the shown match percentage
# against the folded data, and take a screenshot.
# usage: tests/browser/flamegraph.sh [PATH/TO/hotcold]   (default ./hotcold)
# env:   FG_SHOT=FILE.png keeps the screenshot (zoomed on "compute", search on)
# exit:  0 pass, 1 fail, 77 skipped (no chromium)
set -u
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	echo "[Skipped chromium not installed: apt-get install chromium (tools/quickstart.sh test does)]"
	exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
HOTCOLD=$(realpath "${1:-./hotcold}")
TMP=$(mktemp -d /tmp/hotcold-browser.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok() { echo "[Success] $*"; pass=$((pass + 1)); }
bad() { echo "[Failed $*]"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

[ -x "$HOTCOLD" ] || { bad "no hotcold binary at $HOTCOLD (run make)"; finish; }

# Recursion (compute;compute), a frame in three subtrees (do_read), kernel
# frames, and a C++ name that needs XML escaping. Total 1000.
cat > "$TMP/known.folded" <<'EOF'
app;main;parse<std::vector<int>&, "q'">;lexer 150
app;main;parse<std::vector<int>&, "q'">;do_read;vfs_read_[k] 100
app;main;compute;do_read 75
app;main;compute;hash 300
app;main;compute;compute;hash 125
app;worker;do_read;vfs_read_[k] 50
app;worker;idle 200
EOF
CLICK_PATH="app;main;compute"
SEARCHES=("^compute$" "^(hash|idle)$" "do_read")

# Percentage of the total whose stack has a frame (suffix stripped) matching $2.
expected_pct() {
	awk -v re="$2" '{
		n = $NF; line = $0; sub(/[ \t]+[0-9]+[ \t]*$/, "", line)
		k = split(line, fr, ";"); hit = 0
		for (i = 1; i <= k; i++) { f = fr[i]; sub(/(_\[[kjiw]\])+$/, "", f); if (f ~ re) hit = 1 }
		t += n; if (hit) m += n
	} END { printf "%.2f", 100 * m / t }' "$1"
}

# Every frame drawn: "all" plus each distinct stack prefix, one name a line,
# sorted; with a path argument, only its ancestors and its subtree (a zoom).
expected_frames() {
	awk -v z="${2:-}" '{
		line = $0; sub(/[ \t]+[0-9]+[ \t]*$/, "", line)
		k = split(line, fr, ";"); p = ""
		for (i = 1; i <= k; i++) { p = p (i > 1 ? ";" : "") fr[i]; name[p] = fr[i] }
	} END {
		print "all"
		for (p in name)
			if (z == "" || index(z ";", p ";") == 1 || index(p ";", z ";") == 1) {
				f = name[p]; sub(/(_\[[kjiw]\])+$/, "", f); print f
			}
	}' "$1" | LC_ALL=C sort
}

chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile" --allow-file-access-from-files \
		--virtual-time-budget=5000 --window-size=1200,420 "$@" 2>>"$TMP/chromium.log"
}

# 1. render with the real binary
if "$HOTCOLD" flamegraph "$TMP/known.folded" -o "$TMP/fg.svg" 2>"$TMP/render.err"; then
	ok "hotcold flamegraph rendered $(wc -c < "$TMP/fg.svg") bytes"
else
	bad "hotcold flamegraph failed: $(cat "$TMP/render.err")"
	finish
fi

cp "$here/flamegraph.html" "$TMP/h.html"
query="svg=fg.svg&click=compute"
for s in "${SEARCHES[@]}"; do
	query="$query&s=$(printf '%s' "$s" | od -An -tx1 | tr -d ' \n' | sed 's/../%&/g')"
done
url="file://$TMP/h.html?$query"
chrome --dump-dom "$url" > "$TMP/dom.html"
# the result block, HTML entities undone; lines are key=value
sed -n '/<pre id="result">/,/<\/pre>/p' "$TMP/dom.html" |
	sed -e 's/<[^>]*>//g' -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e 's/&amp;/\&/g' \
	> "$TMP/result.txt"
get() { grep -F -m1 "$1=" "$TMP/result.txt" | cut -d= -f2-; }

if [ "$(get done)" != 1 ] || [ -n "$(get error)" ]; then
	bad "harness did not finish: $(get error) (chromium log: $(tail -2 "$TMP/chromium.log"))"
	finish
fi

# 2. structure as drawn by the browser
want=$(expected_frames "$TMP/known.folded" | wc -l)
[ "$(get frames)" = "$want" ] && ok "browser shows $want frames, one per distinct stack prefix" ||
	bad "browser shows $(get frames) frames, expected $want"
tmpl=$(head -1 "$TMP/known.folded" | cut -d';' -f3)
get names | tr '|' '\n' | grep -qxF "$tmpl" && ok "escaped C++ name reads back as $tmpl" ||
	bad "C++ name not read back intact: $(get names)"

# 3. click to zoom: the clicked frame takes the full width, siblings hidden
full=$(get full)
[ "$(get zoom.width)" = "$full" ] && ok "clicked frame 'compute' widens to the full $full px" ||
	bad "clicked frame is $(get zoom.width) px wide after zoom, expected $full"
within() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 0.5 && d >= -0.5) }'; }
within "$(get zoom.bbox)" "$full" && ok "and is drawn $(get zoom.bbox) px wide on screen" ||
	bad "drawn $(get zoom.bbox) px wide on screen, expected $full"
want=$(expected_frames "$TMP/known.folded" "$CLICK_PATH" | paste -sd, -)
[ "$(get zoom.visible)" = "$want" ] && ok "only ancestors and descendants stay visible: $want" ||
	bad "visible after zoom: $(get zoom.visible), expected $want"
[ "$(get zoom.dimmed)" = "all,app,main" ] && ok "ancestors all,app,main dimmed at full width" ||
	bad "dimmed after zoom: $(get zoom.dimmed), expected all,app,main"
# hash directly under compute: 300 of compute's 500
hw=$(grep -F 'zoom.w[hash@' "$TMP/result.txt" | cut -d= -f2 | sort -n | tail -1)
ew=$(awk -v f="$full" 'BEGIN { printf "%.2f", f * 300 / 500 }')
[ "$hw" = "$ew" ] && ok "child 'hash' rescaled to 300/500 of the width ($hw px)" ||
	bad "child 'hash' is $hw px after zoom, expected $ew"
[ "$(get unzoom.shown)" = true ] && case "$(get reset.width)" in *restored*) true;; *) false;; esac &&
	[ "$(get reset.visible)" = "$(get frames)" ] &&
	ok "Reset Zoom shows all $(get frames) frames at their widths again" ||
	bad "reset zoom: button shown=$(get unzoom.shown), width $(get reset.width), visible $(get reset.visible)"

# 4. search: the shown percentage is the share of stacks with a matching frame
for s in "${SEARCHES[@]}"; do
	want="Matched: $(expected_pct "$TMP/known.folded" "$s")%"
	got=$(get "match[$s]")
	[ "$got" = "$want" ] && ok "search '$s' shows '$got' ($(get "highlighted[$s]") frames highlighted)" ||
		bad "search '$s' shows '$got', expected '$want'"
done
want="Matched: $(expected_pct "$TMP/known.folded" "${SEARCHES[0]}")%"
[ "$(get urlsearch)" = "$want" ] && ok "?s= in the URL searches on load: $want" ||
	bad "?s= search shows '$(get urlsearch)', expected '$want'"

# 5. a screenshot of the final state (zoomed on compute, last search on)
chrome --screenshot="$TMP/shot.png" "$url" > /dev/null
if [ -s "$TMP/shot.png" ] && [ "$(head -c 8 "$TMP/shot.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]; then
	ok "screenshot taken ($(wc -c < "$TMP/shot.png") bytes PNG)"
	[ -n "${FG_SHOT:-}" ] && cp "$TMP/shot.png" "$FG_SHOT"
else
	bad "no screenshot (chromium log: $(tail -2 "$TMP/chromium.log"))"
fi
finish
