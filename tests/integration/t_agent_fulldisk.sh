#!/bin/bash
# The index on a full disk: the history on a small tmpfs with no byte budget,
# so only ENOSPC frees space. Full by inodes (11: the root, the index, three
# intervals of three files): a new interval's files take the inodes of the
# oldest one, and the index's temporary finds none left, as a disk where the
# interval fits but the index does not (c406441 left the index stale there). While it runs, index.jsonl never lists a file that is
# not on disk (sampled every 0.2 s); at the end it lists exactly the files
# there, every line parses, and the full disk cost old intervals (logged),
# not the agent's run (exit 0, a recent interval kept). Then the same by
# bytes (64 KiB).
. "$(dirname "$0")/lib.sh"

disk=$TMP/disk
mkdir -m 0750 "$disk"

# index_vs_disk MODE: "subset" (index ⊆ disk) or "equal"
index_vs_disk() {
	python3 - "$disk" "$1" <<'PY'
import json, os, sys
d, mode = sys.argv[1:3]
listed = set()
try:
    text = open(os.path.join(d, "index.jsonl")).read()
except FileNotFoundError:
    text = ""
for line in text.splitlines():
    listed |= {f["name"] for f in json.loads(line)["files"]}
ondisk = {n for n in os.listdir(d) if n.endswith((".pb.gz", ".folded.gz", ".json"))}
missing = listed - ondisk
extra = ondisk - listed if mode == "equal" else set()
if missing or extra:
    print(f"listed but missing: {sorted(missing)[:3]}, on disk but not listed: {sorted(extra)[:3]}")
    sys.exit(1)
print(len(listed))
PY
}
# full_disk OPTIONS: the agent for 6 s on a tmpfs mounted with OPTIONS
full_disk() {
	mount -t tmpfs -o "$1,mode=0750" hc-fulldisk "$disk" || skip "cannot mount a tmpfs"
	cleanup_hooks+=("umount '$disk' 2>/dev/null")
	"$HOTCOLD" agent --counters --interval 1s --max-bytes 0 -o "$disk" 2>"$TMP/err" &
	agent=$!
	cleanup_hooks+=("kill $agent 2>/dev/null")
	for _ in $(seq 200); do grep -q 'writing every' "$TMP/err" && break; sleep 0.05; done
	bad_samples=0 samples=0
	end=$((SECONDS + 6))
	while [ $SECONDS -lt $end ]; do
		out=$(index_vs_disk subset) || { bad_samples=$((bad_samples + 1)); echo "$out"; }
		samples=$((samples + 1))
		sleep 0.2
	done
	kill -TERM $agent
	wait $agent
	rc=$?
	[ $rc -eq 0 ] && ok "exit 0 on a full disk" || bad "exit $rc: $(tail -2 "$TMP/err")"
	[ $bad_samples -eq 0 ] && ok "index never listed a missing file ($samples samples)" ||
		bad "$bad_samples of $samples samples listed missing files"
	n=$(index_vs_disk equal) && ok "at the end the index lists exactly the $n files on disk" ||
		bad "at the end: $n"
	grep -q "cannot write.*index.jsonl" "$TMP/err" && bad "index not written: $(grep -m1 'index.jsonl' "$TMP/err")"
	full=$(grep -c 'disk full' "$TMP/err")
	[ "$full" -ge 1 ] && ok "$full intervals deleted for space: $(grep -m1 'disk full' "$TMP/err")" ||
		bad "the disk never filled ($(df -k "$disk" | tail -1))"
	last=$(tail -1 "$disk/index.jsonl" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["end_ms"])' 2>/dev/null)
	now_ms=$(($(date +%s%3N)))
	[ -n "$last" ] && [ $((now_ms - last)) -lt 4000 ] && ok "the newest interval is kept ($((now_ms - last)) ms old)" ||
		bad "newest interval end '$last' vs now $now_ms"
	umount "$disk"
}

echo "# full by inodes"
full_disk size=1m,nr_inodes=11
echo "# full by bytes"
full_disk size=64k
finish
