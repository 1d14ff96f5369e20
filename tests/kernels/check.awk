# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Asserts one guest's "KM:" lines (tests/kernels/init.sh) and prints the
# kernel's summary. awk -v cfi_min=PCT -v wall=SECS -f check.awk SERIAL_LOG
function bad(msg) { printf "  [Failed %s]\n", msg; fail = 1 }
# the first line may follow the firmware's escape sequences
/KM: kernel / { sub(/.*KM: kernel /, ""); kernel = $1; printf "  kernel %s (btf %s)\n", $1, $5 }
/^KM:LA \[Success\] .* loads/ {
	sub(/^KM:LA \[Success\] /, ""); sub(/ loads.*/, ""); variant = $0; pass++
	order[++nv] = variant; maxi[variant] = 0
}
/^KM:LA \[Failed/ { sub(/^KM:LA /, ""); bad("load_all: " $0) }
/^KM:LA   [a-z_]+: processed [0-9]+ insns/ {
	if ($4 + 0 > maxi[variant]) maxi[variant] = $4 + 0
	if ($4 + 0 > top) top = $4 + 0
}
/^KM:LA [0-9]+ passed, [0-9]+ failed/ { la_pass = $2; la_fail = $4 }
/^KM: load_all_rc / { la_rc = $3; la_secs = $5 }
/^KM: cfi [a-z]+ total / { tot[$3] = $5; main[$3] = $7; fp[$3] = $9; st[$3] = $11; all[$3] = $13 }
/^KM: cfi_incomplete / { sub(/^KM: cfi_incomplete /, ""); inc[++ninc] = $0 }
/^KM: cfi_held_rc / { rc["held"] = $3 }
/^KM: cfi_all_rc / { rc["all"] = $3 }
/^KM: offcpu stacks / { off = $4 }
/^KM: offcpu_rc / { off_rc = $3 }
/^KM: kfuncs said / { ksaid = $4; kcounted = $6; kseen = 1 }
/^KM: locks stacks / { locks = $4 }
/^KM: locks_rc / { locks_rc = $3 }
/^KM:ERR / { sub(/^KM:ERR /, ""); printf "  stderr: %s\n", $0 }
/^KM: done/ { done = 1 }
# the workload's samples in its own code walked by CFI: >= cfi_min% reach main, >= @least of them
function cfi_check(k, what, least,   n, pct, extra) {
	n = tot[k]
	pct = n > 0 ? 100 * main[k] / n : 100
	extra = sprintf(" (%d samples of its main thread; apart: %d walked by FP before its table, %d in start-up/exit outside main)",
		all[k], fp[k], st[k])
	if (rc[k] != "0" || n < least || pct < cfi_min) {
		bad(sprintf("cfi: %s: exit %s, %d of %d samples reach main (%.1f%%; need >= %d%% of >= %d)%s",
			what, rc[k], main[k], n, pct, cfi_min, least, extra))
		fail_cfi = 1
	} else
		printf "  [Success] cfi: %s: %d of %d samples in the no-frame-pointer workload reach main (%.1f%%)%s\n",
			what, main[k], n, pct, extra
}
END {
	if (kernel == "") bad("the guest never reported (no KM: kernel line)")
	for (i = 1; i <= nv; i++)
		printf "  [Success] %-38s largest %6d insns processed\n", order[i], maxi[order[i]]
	if (la_rc != "0" || la_fail != "0" || nv == 0)
		bad(sprintf("load_all: exit %s, %d variants loaded, %s checks failed", la_rc, nv, la_fail))
	else
		printf "  load_all: %d variants load, largest %d insns (%s s)\n", nv, top, la_secs
	# held: every sample; -a: those walked by CFI (not the labelled FP walks)
	cfi_check("held", "record --unwind cfi -- CMD", 50)
	cfi_check("all", "record -a --unwind cfi", 50)
	if (fail_cfi)
		for (i = 1; i <= ninc; i++) printf "    e.g. %s\n", inc[i]
	if (off_rc != "0" || off + 0 == 0)
		bad(sprintf("record --off-cpu: exit %s, %d stacks", off_rc, off))
	else
		printf "  [Success] record --off-cpu: %d stacks\n", off
	# 6.1 lacks kfuncs 6.12 has: what is said is what -v and /metrics count
	if (!kseen || kcounted == "" || ksaid + 0 != kcounted + 0)
		bad(sprintf("kfuncs: %s pieces said left out, %s counted", ksaid, kcounted))
	else
		printf "  [Success] kfuncs: %d pieces left out for missing kfuncs, said and counted\n", ksaid
	if (locks_rc != "0" || locks + 0 == 0)
		bad(sprintf("locks: exit %s, %d stacks through take_queue_lock", locks_rc, locks))
	else
		printf "  [Success] locks: %d stacks through take_queue_lock\n", locks
	if (!done) bad("the guest did not finish")
	printf "  wall time %s s\n", wall
	exit fail
}
