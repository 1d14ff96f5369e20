#!/bin/bash
# The agent's web view in headless Chromium: the index lists the intervals,
# an interval's flame graph renders, and a click zooms. The harness
# (flamegraph.html, file://) cannot script an http:// document, so the SVG
# the web view served is saved and driven from file://. Needs root (BPF).
# usage: tests/browser/agent.sh [PATH/TO/hotcold]
# exit:  0 pass, 1 fail, 77 skipped (no chromium, not root)
set -u
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -z "$CHROMIUM" ] && { echo "[Skipped chromium not installed]"; exit 77; }
[ "$(id -u)" != 0 ] && { echo "[Skipped not root]"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
HOTCOLD=$(realpath "${1:-./hotcold}")
TMP=$(mktemp -d /tmp/hotcold-browser-agent.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
pass=0 fail=0
ok() { echo "[Success] $*"; pass=$((pass + 1)); }
bad() { echo "[Failed $*]"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }
chrome() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMP/profile" --allow-file-access-from-files \
		--virtual-time-budget=5000 --window-size=1200,420 "$@" 2>>"$TMP/chromium.log"
}

"$HOTCOLD" agent -o "$TMP/hist" --interval 1s -F 99 --http 127.0.0.1:$PORT 2>"$TMP/agent.err" &
ag=$!
trap 'kill $ag 2>/dev/null; wait $ag 2>/dev/null; rm -rf "$TMP"' EXIT
# something to sample: a shell loop burns CPU in bash
( end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do :; done ) &
for _ in $(seq 1 100); do
	[ "$(grep -c 'agent: interval' "$TMP/agent.err")" -ge 3 ] && break
	sleep 0.1
done

chrome --dump-dom "http://127.0.0.1:$PORT/" > "$TMP/index.html"
rows=$(grep -c 'class="interval"' "$TMP/index.html")
[ "$rows" -ge 2 ] && ok "index lists $rows intervals" || bad "index rows: $rows ($(tail -2 "$TMP/agent.err"))"
link=$(grep -o 'href="/flame/[^"]*oncpu.svg"' "$TMP/index.html" | head -1 | cut -d'"' -f2)
[ -n "$link" ] || { bad "no flame graph link"; finish; }

ctype=$(curl -s -o "$TMP/fg.svg" -w '%{content_type}' "http://127.0.0.1:$PORT$link")
[ "$ctype" = image/svg+xml ] && ok "$link served as $ctype ($(wc -c < "$TMP/fg.svg") bytes)" ||
	bad "$link: content type '$ctype'"
cp "$here/flamegraph.html" "$TMP/h.html"
url="file://$TMP/h.html?svg=fg.svg&click=all&s=bash"
chrome --dump-dom "$url" > "$TMP/dom.html"
sed -n '/<pre id="result">/,/<\/pre>/p' "$TMP/dom.html" | sed -e 's/<[^>]*>//g' > "$TMP/result.txt"
get() { grep -F -m1 "$1=" "$TMP/result.txt" | cut -d= -f2-; }
[ "$(get done)" = 1 ] && [ -z "$(get error)" ] && [ "$(get frames)" -gt 1 ] &&
	ok "flame graph renders $(get frames) frames" ||
	bad "flame graph: done=$(get done) error=$(get error) frames=$(get frames)"
# zoom on the first frame under the root: it takes the full width
first=$(get names | tr '|' '\n' | grep -vx all | head -1)
url="file://$TMP/h.html?svg=fg.svg&click=$first&s=x"
chrome --dump-dom "$url" | sed -n '/<pre id="result">/,/<\/pre>/p' | sed -e 's/<[^>]*>//g' > "$TMP/result.txt"
[ -n "$(get full)" ] && [ "$(get zoom.width)" = "$(get full)" ] &&
	ok "click on '$first' zooms it to the full $(get full) px" ||
	bad "zoom on '$first': width $(get zoom.width), full $(get full), error $(get error)"
finish
