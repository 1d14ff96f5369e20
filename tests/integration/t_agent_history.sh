#!/bin/bash
# The history directory cannot be turned against the root agent:
# - a --dir writable by others, or owned by another user, is refused (exit 1,
#   a message naming the reason) and nothing is written into it;
# - in a directory of ours, entries under our names planted by someone else
#   (symlinks to /etc/shadow and to a root-only file, a hard link to
#   /etc/shadow, another user's files and temporary) are never served nor
#   deleted: every web-view endpoint is queried and no answer carries a byte
#   of them, and they are all still there after retention deleted the
#   agent's own older intervals. A listed file swapped for a symlink while
#   the agent runs is not followed either.
. "$(dirname "$0")/lib.sh"
export TMP

port=$((20000 + ($$ + 7) % 10000))
now=$(date -u +%s)
stamp() { date -u -d "@$(( now - $1 ))" +%Y%m%dT%H%M%S.000Z; }

# --- refused directories
mkdir -m 0777 "$TMP/open"
chmod 0777 "$TMP/open"
# a refused directory ends the agent at once; one accepted runs until the timeout
timeout -s TERM 5 "$HOTCOLD" agent --interval 1s -o "$TMP/open" 2>"$TMP/err-open"
rc=$?
[ $rc -eq 1 ] && grep -q "refusing history directory.*writable by others" "$TMP/err-open" &&
	ok "a directory writable by others is refused (exit 1)" ||
	bad "world-writable dir: exit $rc: $(head -2 "$TMP/err-open")"
[ -z "$(ls -A "$TMP/open")" ] && ok "nothing written into it" || bad "wrote $(ls "$TMP/open")"
mkdir -m 0750 "$TMP/theirs"
chown nobody "$TMP/theirs"
timeout -s TERM 5 "$HOTCOLD" agent --interval 1s -o "$TMP/theirs" 2>"$TMP/err-theirs"
rc=$?
[ $rc -eq 1 ] && grep -q "refusing history directory.*owned by another user" "$TMP/err-theirs" &&
	ok "a directory of another user is refused (exit 1)" ||
	bad "foreign dir: exit $rc: $(head -2 "$TMP/err-theirs")"

# --- planted entries in a directory of ours
h=$TMP/hist
mkdir -m 0750 "$h"
printf 'ROOTONLY-SECRET-%s\n' $$ > "$TMP/rootonly"
printf 'main;ROOTONLYFRAME 1000000\n' | gzip > "$TMP/rootonly.gz"
chmod 0600 "$TMP/rootonly" "$TMP/rootonly.gz"
ln -s /etc/shadow "$h/$(stamp 30)-counters.json"
ln -s "$TMP/rootonly" "$h/$(stamp 30)-oncpu.pb.gz"
ln -s "$TMP/rootonly.gz" "$h/$(stamp 30)-oncpu.folded.gz"
ln /etc/shadow "$h/$(stamp 20)-runq.pb.gz" 2>/dev/null || true
printf 'main;FOREIGNFRAME 5\n' | gzip > "$h/$(stamp 20)-oncpu.folded.gz"
printf 'FOREIGN' > "$h/$(stamp 20)-lock.pb.gz.tmp.abcdef"
chown nobody "$h/$(stamp 20)-oncpu.folded.gz" "$h/$(stamp 20)-lock.pb.gz.tmp.abcdef"
(cd "$h" && ls -A | sort) > "$TMP/planted"
shadow_sum=$(md5sum < /etc/shadow)

"$HOTCOLD" agent --counters --interval 1s --max-intervals 3 -o "$h" --http 127.0.0.1:$port \
	2>"$TMP/err" &
agent=$!
cleanup_hooks+=("kill $agent 2>/dev/null")
for _ in $(seq 200); do grep -q 'writing every' "$TMP/err" && break; sleep 0.05; done
sleep 3.5
# swap the newest counters file the agent wrote for a link to the root-only file
swapped=$(cd "$h" && ls -- *-counters.json 2>/dev/null | grep -v "$(stamp 30)" | tail -1)
if [ -n "$swapped" ]; then
	rm -f "$h/$swapped"
	ln -s "$TMP/rootonly" "$h/$swapped"
fi
python3 - "$port" "$(stamp 30)" "$(stamp 20)" "${swapped%-counters.json}" > "$TMP/pages" <<'PY'
import os, sys, urllib.request, urllib.error
port, s30, s20, sw = sys.argv[1:5]
tmp = os.environ["TMP"]
paths = [f"/counters?t={sw}", "/", f"/counters?t={s30}", f"/pprof?t={s30}&kind=oncpu", f"/pprof?t={s20}&kind=runq",
         f"/pprof?t={s20}&kind=oncpu", f"/flame/{s30}/oncpu.svg",
         f"/flame/{s20}/oncpu.svg", "/flame?kind=oncpu&minutes=10", "/debug/pprof/profile?seconds=600",
         "/diff?kind=oncpu&minutes=1"]
for i, p in enumerate(paths):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{p}", timeout=20) as r:
            body, code = r.read(), r.status
    except urllib.error.HTTPError as e:
        body, code = e.read(), e.code
    print(f"{code} {len(body)} {p}", flush=True)
    with open(f"{tmp}/body-{i}", "wb") as f:
        f.write(body)
PY
kill -TERM $agent
wait $agent
rc=$?
[ $rc -eq 0 ] && ok "agent over a planted directory: exit 0" || bad "agent: exit $rc: $(tail -2 "$TMP/err")"
grep -q '^200 .* /$' "$TMP/pages" && ok "the web view answered ($(wc -l < "$TMP/pages") pages)" ||
	bad "web view: $(head -3 "$TMP/pages" | tr '\n' ' ')"
leak=0
shadow_line=$(head -1 /etc/shadow)
for f in "$TMP"/body-*; do
	# gzip'd answers (pprof) are searched unpacked too
	{ cat "$f"; zcat -f "$f" 2>/dev/null; } |
		grep -a -q -e "ROOTONLY" -e "FOREIGNFRAME" -e "FOREIGN" -F -e "$shadow_line" && leak=1
done
[ $leak -eq 0 ] && ok "no page carries a byte of a planted or linked file" ||
	bad "a page served planted content: $(grep -l -a -e ROOTONLY -e FOREIGN "$TMP"/body-* | head -2)"
grep -q "^404 .*counters?t=$(stamp 30)" "$TMP/pages" && ok "/counters through a symlink to /etc/shadow: 404" ||
	bad "/counters via symlink: $(grep "counters?t=$(stamp 30)" "$TMP/pages")"
if [ -n "$swapped" ]; then
	grep -q "^[45][0-9][0-9] .*counters?t=${swapped%-counters.json}" "$TMP/pages" &&
		ok "a listed file swapped for a symlink: not served" ||
		bad "swapped file: $(grep "counters?t=${swapped%-counters.json}" "$TMP/pages")"
fi
lost=0
while read -r n; do [ -e "$h/$n" ] || [ -L "$h/$n" ] || { lost=1; echo "gone: $n"; }; done < "$TMP/planted"
[ $lost -eq 0 ] && ok "all $(wc -l < "$TMP/planted") planted entries still there" || bad "a planted entry was deleted"
[ "$(md5sum < /etc/shadow)" = "$shadow_sum" ] && [ -s "$TMP/rootonly" ] && ok "link targets untouched" ||
	bad "a link target changed"
n=$(grep -c "ignoring '" "$TMP/err")
[ "$n" -ge 5 ] && ok "$n planted entries reported as ignored" || bad "$n 'ignoring' lines: $(head -3 "$TMP/err")"
own=$(grep -c '' "$h/index.jsonl")
[ "$own" -ge 1 ] && [ "$own" -le 3 ] && ok "retention kept $own of the agent's own intervals (max 3)" ||
	bad "index has $own intervals"
finish
