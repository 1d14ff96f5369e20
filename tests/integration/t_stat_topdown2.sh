#!/bin/bash
# stat: top-down level 2 where the CPU counts it (Intel PERF_METRICS with the
# level-2 metrics, AMD Zen 4/5, Arm with STALL_*_MEM). On such a machine a
# run of tests/workloads/split gets each level-1 category split in two halves
# that add up to it (the split itself depends on the CPU: not asserted).
# Without a hardware PMU nothing can be counted: skipped, with the reason;
# the formulas are unit-tested from recorded counts (test_topdown2) and the
# event plans from fake sysfs trees (test_counters_pmu).
. "$(dirname "$0")/lib.sh"

have_cpu_pmu || skip "top-down level 2: no hardware PMU on this machine (unit-tested: test_topdown2, test_counters_pmu)"

"$HOTCOLD" stat --json -- "$WL/split" 1 "$TMP/t" >"$TMP/s.json" 2>"$TMP/err" ||
	bad "stat: $(cat "$TMP/err")"
python3 - "$TMP/s.json" <<'PY' >"$TMP/out"
import json, sys
t = json.load(open(sys.argv[1]))["topdown"]
if t.get("status") != "ok":
    print("skip level 1: %s" % t.get("status")); sys.exit()
if "level2" not in t:
    print("skip %s" % t.get("level2_status")); sys.exit()
l2 = t["level2"]
pairs = [("retiring", "light_ops", "heavy_ops"), ("bad_speculation", "br_mispredict", "machine_clears"),
         ("frontend_bound", "fetch_latency", "fetch_bandwidth"), ("backend_bound", "memory_bound", "core_bound")]
bad = [p for p in pairs if l2[p[1]] is not None and abs(l2[p[1]] + l2[p[2]] - t[p[0]]) > 1e-4]
print("ok" if not bad else "bad %s" % bad)
PY
case "$(cat "$TMP/out")" in
ok) ok "level 2: each measured pair adds up to its level-1 category" ;;
skip*) skip "top-down level 2: $(cut -d' ' -f2- "$TMP/out")" ;;
*) bad "level 2: $(cat "$TMP/out")" ;;
esac
finish
