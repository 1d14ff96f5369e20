// The agent's timeline as a person uses it (driven by tests/browser/timeline.sh):
// drag across the bars, click one, change kind and filter, keep a range as A
// and diff it against B, with real mouse events in headless Chromium. Each
// merged graph's total (its root frame's weight) must equal the sum of the
// selected intervals' totals in /timeline.json: the same stored data.
// usage: node timeline.js CHROMIUM URL TMPDIR FILTER_PROCESS
//        node timeline.js CHROMIUM URL TMPDIR --empty   (an agent with no interval yet)
// env:   TL_THREADS="PID TID_A TID_B" of tests/workloads/threads, TL_SCHED its
//        schedstat log (timeline.sh): the thread filter's checks
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { launch } = require('./cdp.js');
const [chromium, base, tmp, proc] = process.argv.slice(2);
// node 18+ has fetch

async function runEmpty() {
	const br = launch(chromium, `${tmp}/profile-empty`, 1240, 500);
	const p = await br.page();
	try {
		await p.goto(`${base}/`);
		const e = await until(p, `(() => { const e = document.getElementById('empty');
			return getComputedStyle(e).display !== 'none' && e.textContent; })()`, 'the empty state');
		const bars = await p.eval(`document.querySelectorAll('.bar').length`);
		check(/^No intervals yet/.test(e) && bars === 0, `before the first interval the page says so: '${e}'`,
			`'${e}', ${bars} bars`);
		await p.screenshot(`${tmp}/no-intervals.png`);
	} finally {
		br.close();
	}
}
let pass = 0, fail = 0;
const ok = (m) => { console.log(`[Success] ${m}`); pass++; };
const bad = (m) => { console.log(`[Failed ${m}]`); fail++; };
const check = (c, m, why) => (c ? ok(m) : bad(`${m}: ${why}`));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(p, expr, what, ms = 15000) {
	for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
		const v = await p.eval(expr);
		if (v) return v;
	}
	throw new Error(`timed out waiting for ${what}`);
}

// What the page shows after a selection: the graph (its root's weight,
// title, the root's children) or the empty state's text.
const SHOWN = `(() => {
	const g = document.getElementById('graph'), e = document.getElementById('empty');
	if (document.body.getAttribute('data-loading') !== '0') return null;	/* an answer pending */
	if (getComputedStyle(e).display !== 'none') return { empty: e.textContent };
	const d = g.contentDocument, root = d && d.querySelector('#frames > g');
	if (g.style.display !== 'block' || !root || d.readyState !== 'complete' || !d.location.href.startsWith(g.src) ||
	    d.documentElement.hasAttribute('data-forgotten')) return null;
	return { total: +root.getAttribute('data-w'), name: root.querySelector('title').textContent.split('\\n')[0],
		title: d.getElementById('title').textContent, subtitle: d.getElementById('subtitle').textContent,
		matched: d.getElementById('matched').textContent,
		children: [...d.querySelectorAll('#frames > g')].filter((f) =>
			f.querySelector('rect').getAttribute('y') === root.querySelector('rect').getAttribute('y') - 16 + '')
			.map((f) => f.querySelector('title').textContent.split('\\n')[0]) };
})()`;

async function shown(p, what) {
	return until(p, SHOWN, what);
}

// Forget what is shown, so SHOWN waits for the answer to the next action:
// the graph's document is marked, and the next one (a navigation makes a
// new document, even to the same URL) is not. It used to navigate the
// frame to about:blank and wait for it, which once waited 15 s in vain in
// CI (session 11, run 11; not reproduced in 2 runs under 3 CPU hogs): the
// test's own step, not the page's, so it no longer depends on one.
async function forget(p) {
	await p.eval(`(() => { const d = document.getElementById('graph').contentDocument;
		if (d && d.documentElement) d.documentElement.setAttribute('data-forgotten', '1');
		document.getElementById('empty').style.display = 'none'; return 1; })()`);
}

// Set a control's value as typing would, and fire its change event.
async function setControl(p, id, value) {
	await forget(p);
	await p.eval(`(() => { const e = document.getElementById(${JSON.stringify(id)});
		e.value = ${JSON.stringify(value)}; e.dispatchEvent(new Event('change')); return 1; })()`);
}

// Centre of a bar (on-CPU lane) or of an element, in page pixels.
async function box(p, sel) {
	return p.eval(`(() => { const r = document.querySelector(${JSON.stringify(sel)}).getBoundingClientRect();
		return { l: r.left, r: r.right, t: r.top, b: r.bottom, x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 }; })()`);
}

async function selected(p) {
	return p.eval(`[...document.querySelectorAll('.bar.oncpu.sel')].map((b) => +b.getAttribute('data-i'))`);
}

const sum = (T, from, to, k) => T.intervals.slice(from, to + 1).reduce((s, iv) => s + (iv[k] || 0), 0);

async function dragRange(p, from, to) {
	const a = await box(p, `.bar.oncpu[data-i="${from}"]`), b = await box(p, `.bar.oncpu[data-i="${to}"]`);
	const lane = await box(p, '.lane');
	await forget(p);
	await p.drag(a.l + 1, lane.y, b.r - 1, lane.y);
}

// The frames (names) the graph draws.
async function frames(p) {
	return p.eval(`[...document.getElementById('graph').contentDocument.querySelectorAll('#frames > g title')]
		.map((t) => t.textContent.split('\\n')[0])`);
}

// A stored pprof (gzip'd profile.proto) read here, apart from the agent's reader: each sample's
// first value (on-CPU: samples) and labels. Only the fields needed: sample (2) with its values (2)
// and labels (3: key 1, str 2, num 3), the string table (6).
function pprofSamples(gz) {
	const b = zlib.gunzipSync(gz);
	const varint = (st) => { let v = 0, m = 1, c; do { c = b[st.p++]; v += (c & 0x7f) * m; m *= 128; } while (c & 0x80); return v; };
	function fields(from, to, fn) {
		for (const st = { p: from }; st.p < to;) {
			const key = varint(st), f = Math.floor(key / 8), w = key & 7;
			if (w === 0) fn(f, w, varint(st));
			else if (w === 2) { const n = varint(st); fn(f, w, st.p, st.p + n); st.p += n; }
			else if (w === 1) st.p += 8;
			else if (w === 5) st.p += 4;
			else throw new Error(`wire type ${w}`);
		}
	}
	const strs = [], raw = [];
	fields(0, b.length, (f, w, x, y) => {
		if (f === 6) strs.push(b.toString('utf8', x, y));
		if (f === 2 && w === 2) raw.push([x, y]);
	});
	return raw.map(([x, y]) => {
		const sa = { value: null };
		fields(x, y, (f, w, u, v) => {
			if (f === 2 && w === 2 && sa.value === null) sa.value = varint({ p: u });
			else if (f === 2 && w === 0 && sa.value === null) sa.value = u;
			else if (f === 3 && w === 2) {
				let k = 0, sv = 0, num = 0;
				fields(u, v, (lf, lw, n) => { if (lf === 1) k = n; if (lf === 2) sv = n; if (lf === 3) num = n; });
				sa[strs[k]] = sv ? strs[sv] : num;
			}
		});
		return sa;
	});
}

// CPU ns of worker-a and worker-b at @ms, interpolated in the schedstat log.
function cpuAt(log, ms) {
	for (let i = 1; i < log.length; i++) {
		if (log[i][0] < ms) continue;
		const [t0, a0, b0] = log[i - 1], [t1, a1, b1] = log[i], f = (ms - t0) / Math.max(t1 - t0, 1);
		return [a0 + f * (a1 - a0), b0 + f * (b1 - b0)];
	}
	return null;
}

// th= on the selected range @from..@to: tests/workloads/threads' worker-b alone, its share
// against /proc's truth, each thread's total as the stored pprofs say (read here, apart), the
// workload's threads adding up to its process. Other processes named 'threads' with threads
// named worker-a and worker-b (t_threads of a run alongside) are told apart by TID.
async function threadChecks(p, T, from, to) {
	const [pid, ta, tb] = process.env.TL_THREADS.split(' ').map(Number);
	const S = [];
	for (let i = from; i <= to; i++) {
		const r = await fetch(`${base}/pprof?t=${T.intervals[i].t}&kind=oncpu`);
		S.push(...pprofSamples(Buffer.from(await r.arrayBuffer())));
	}
	const want = (f) => S.filter(f).reduce((n, sa) => n + sa.value, 0);
	await setControl(p, 'filter', '^threads$');
	const all = (await shown(p, 'the threads process')).total;
	check(all === want((sa) => sa.comm === 'threads'),
		`process filter ^threads$ (folded files) ${all} samples = the stored pprofs' samples of processes 'threads'`,
		`${all} vs ${want((sa) => sa.comm === 'threads')}`);
	await setControl(p, 'filter', '');
	const tot = {};
	for (const [k, re] of [['name', '^worker-b$'], ['a', `^worker-a-${ta}$`], ['b', `-${tb}$`], ['main', `^threads-${pid}$`]]) {
		await setControl(p, 'thread', re);
		const g = await shown(p, `the graph of threads /${re}/`);
		tot[k] = g.empty ? 0 : g.total;
		if (k !== 'name') continue;
		const names = await frames(p);
		check(g.children.length === 1 && g.children[0] === 'threads' && names.includes('burn_in_b') &&
			!names.includes('burn_in_a') && /threads matching \/\^worker-b\$\//.test(g.subtitle),
			`thread filter ^worker-b$: only process 'threads', burn_in_b and not burn_in_a (${g.total} samples; '${g.subtitle}')`,
			`children ${g.children}, burn_in_b ${names.includes('burn_in_b')}, burn_in_a ${names.includes('burn_in_a')}, subtitle '${g.subtitle}'`);
		const url = await p.eval(`new URLSearchParams(location.search).get('th')`);
		check(url === '^worker-b$', `the page's URL keeps the thread filter: ?th=${url}`, `th=${url}`);
		await p.screenshot(`${tmp}/thread.png`);
	}
	const exp = { name: want((sa) => sa.thread_name === 'worker-b'), a: want((sa) => sa.tid === ta),
		b: want((sa) => sa.tid === tb), main: want((sa) => sa.tid === pid) };
	check(JSON.stringify(tot) === JSON.stringify(exp),
		`graph totals = the stored pprofs' (read apart): ^worker-b$ ${tot.name}, worker-a-${ta} ${tot.a}, -${tb} ${tot.b}, main ${tot.main}`,
		`graphs ${JSON.stringify(tot)}, pprofs ${JSON.stringify(exp)}`);
	const proc = want((sa) => sa.pid === pid);
	check(proc > 0 && tot.a + tot.b + tot.main === proc,
		`worker-a ${tot.a} + worker-b ${tot.b} + main ${tot.main} samples = the workload's process ${proc}, exactly`,
		`${tot.a} + ${tot.b} + ${tot.main} != ${proc}`);
	// the truth: each thread's CPU time over the range (schedstat, interpolated)
	const log = fs.readFileSync(process.env.TL_SCHED, 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number));
	const t0 = T.intervals[from].start_ms, t1 = T.intervals[to].end_ms;
	const c0 = cpuAt(log, t0), c1 = cpuAt(log, t1);
	if (!c0 || !c1) {
		bad(`no schedstat truth for ${t0}..${t1} (log ${log.length ? log[0][0] + '..' + log[log.length - 1][0] : 'empty'})`);
	} else {
		const da = c1[0] - c0[0], db = c1[1] - c0[1], truth = db / (da + db), share = tot.b / (tot.a + tot.b);
		// samples land on a thread in proportion to its CPU time: the count's binomial spread
		// (4 sigma over the a + b samples), plus each of the two range edges, where a sample
		// can fall in the neighbouring interval (up to ~100 ms of both threads' CPU: the
		// agent's ring polling) as a share of the range's length
		const tol = 4 * Math.sqrt(truth * (1 - truth) / (tot.a + tot.b)) + 2 * 0.1 / ((t1 - t0) / 1000);
		check(Math.abs(share - truth) <= tol,
			`worker-b's share of the two workers' samples ${(100 * share).toFixed(1)}% vs its CPU time share ${(100 * truth).toFixed(1)}% from /proc (tolerance ${(100 * tol).toFixed(1)} points)`,
			`share ${share.toFixed(3)} vs truth ${truth.toFixed(3)}, tolerance ${tol.toFixed(3)}`);
	}
	await setControl(p, 'thread', '^no-such-thread$');
	let g = await shown(p, 'the empty thread state');
	check(g.empty && /^No samples of threads matching \/\^no-such-thread\$\/ in the selected range/.test(g.empty),
		`a thread filter matching nothing says so: '${g.empty}'`, JSON.stringify(g));
	await setControl(p, 'thread', '(');
	g = await shown(p, 'a bad thread expression');
	check(g.empty && /^bad th= expression/.test(g.empty), `a bad thread expression says so: '${g.empty}'`, JSON.stringify(g));
	await setControl(p, 'thread', '');
}

async function run() {
	const br = launch(chromium, `${tmp}/profile`, 1240, 900);
	const p = await br.page();
	try {
		await p.goto(`${base}/`);
		await until(p, `!/loading/.test(document.getElementById('status').textContent)`, 'the timeline');
		// the intervals the page drew: /timeline.json read now may have more at its end
		const drawn = await p.eval(`[...document.querySelectorAll('.bar')].map((b) => +b.getAttribute('data-i'))`);
		const T = await p.eval(`fetch('/timeline.json').then((r) => r.json())`);
		const n = Math.max(...drawn) + 1;
		T.intervals = T.intervals.slice(0, n);
		const first = await p.eval(`document.querySelector('.bar[data-i="0"] title').textContent`);
		const kinds = { oncpu: 'on-CPU', offcpu: 'off-CPU', runq: 'run queue', lock: 'lock waits' };
		const wantLanes = Object.keys(kinds).filter((k) => T.intervals.some((iv) => k in iv)).map((k) => kinds[k]).join(',');
		const bars = await p.eval(`document.querySelectorAll('.bar.oncpu').length`);
		const lanes = await p.eval(`[...document.querySelectorAll('.lname')].map((e) => e.textContent).join(',')`);
		check(n >= 6 && first.startsWith(T.intervals[0].t) && bars === T.intervals.filter((iv) => 'oncpu' in iv).length &&
			lanes === wantLanes && /on-CPU,off-CPU/.test(lanes),
			`timeline draws ${n} intervals, ${bars} on-CPU bars, lanes ${lanes}`,
			`${bars} on-CPU bars for ${n} intervals, lanes '${lanes}' (want '${wantLanes}'), first '${first}'`);
		if (n < 6) return;

		// 1. drag across intervals 1..4: the merged graph is exactly their sum
		await dragRange(p, 1, 4);
		let sel = await selected(p), g = await shown(p, 'the merged graph');
		let want = sum(T, 1, 4, 'oncpu');
		check(sel.join() === '1,2,3,4', `dragging over bars 1..4 selects intervals ${sel.join()}`, `want 1,2,3,4`);
		check(g.name === 'all' && g.total === want,
			`merged on-CPU graph of 4 intervals: total ${g.total} samples = sum of the intervals in /timeline.json (${T.intervals.slice(1, 5).map((iv) => iv.oncpu).join('+')})`,
			`graph total ${g.total} (root '${g.name}'), JSON sum ${want}`);
		check(/4 of 4 intervals/.test(g.subtitle), `subtitle says what was merged: '${g.subtitle}'`, 'no interval count');
		await p.screenshot(`${tmp}/range.png`);

		// 2. the same range, off-CPU: nanoseconds, same equality
		await setControl(p, 'kind', 'offcpu');
		g = await shown(p, 'the off-CPU graph');
		want = sum(T, 1, 4, 'offcpu');
		check(g.total === want, `off-CPU graph of the range: ${g.total} ns = the intervals' sum`, `graph ${g.total}, JSON ${want}`);
		await setControl(p, 'kind', 'oncpu');

		// 3. a click (no drag) on one bar selects that interval alone
		const c = await box(p, `.bar.oncpu[data-i="${n - 2}"]`), lane = await box(p, '.lane');
		await forget(p);
		await p.click(c.x, lane.y);
		sel = await selected(p);
		g = await shown(p, 'one interval');
		check(sel.join() === `${n - 2}` && g.total === T.intervals[n - 2].oncpu,
			`a click on bar ${n - 2} shows that interval: ${g.total} samples`, `selected ${sel}, total ${g.total}, JSON ${T.intervals[n - 2].oncpu}`);

		// 4. filter by process, server-side; search in the graph
		await dragRange(p, 1, n - 2);
		const all = (await shown(p, 'the whole range')).total;
		await setControl(p, 'filter', `^${proc}$`);
		await setControl(p, 'search', 'hot_loop');
		g = await shown(p, 'the filtered graph');
		check(g.total > 0 && g.total < all && g.children.length === 1 && g.children[0] === proc,
			`filter ^${proc}$: only that process (${g.total} of ${all} samples)`, `children ${g.children}, total ${g.total} of ${all}`);
		check(/^Matched: [1-9][0-9.]*%$/.test(g.matched),
			`search 'hot_loop' highlights: ${g.matched}`, `matched '${g.matched}'`);
		await p.screenshot(`${tmp}/filter.png`);
		await setControl(p, 'search', '');
		await setControl(p, 'filter', '^no-such-process$');
		g = await shown(p, 'the empty state');
		check(g.empty && /No samples of processes matching/.test(g.empty), `a filter matching nothing says so: '${g.empty}'`, JSON.stringify(g));
		await p.screenshot(`${tmp}/empty-filter.png`);
		await setControl(p, 'filter', '');
		if (process.env.TL_THREADS) await threadChecks(p, T, 1, n - 2);
		await setControl(p, 'kind', 'lock');
		g = await shown(p, 'the empty kind');
		check(g.empty && /does not record it \(--locks\)/.test(g.empty), `a kind not recorded says why: '${g.empty}'`, JSON.stringify(g));
		await setControl(p, 'kind', 'oncpu');

		// 5. diff: keep 1..2 as A, select 3..4 as B, click diff
		await dragRange(p, 1, 2);
		await shown(p, 'range A');
		const ka = await box(p, '#keepA');
		await p.click(ka.x, ka.y);
		await dragRange(p, 3, 4);
		await shown(p, 'range B');
		await forget(p);
		const d = await box(p, '#diff');
		await p.click(d.x, d.y);
		g = await shown(p, 'the diff');
		want = sum(T, 3, 4, 'oncpu');
		check(g.title === 'Differential Flame Graph' && g.total === want,
			`diff of A (1..2) against B (3..4) renders, sized by B: ${g.total} samples`, `title '${g.title}', total ${g.total}, B sum ${want}`);
		await p.screenshot(`${tmp}/diff.png`);

		// 6. the controls live in the page's URL: a link with them sets them
		await p.goto(`${base}/?kind=offcpu&p=%5Ehotloop%24&th=%5Eworker-b%24`);
		const kept = await until(p, `document.getElementById('kind').value === 'offcpu' &&
			[document.getElementById('filter').value, document.getElementById('thread').value]`, 'the controls from the URL');
		check(kept[0] === '^hotloop$' && kept[1] === '^worker-b$', `a URL's ?kind=&p=&th= set the controls: ${kept}`, `${kept}`);
	} finally {
		br.close();
	}
}

(proc === '--empty' ? runEmpty() : run()).catch((e) => bad(`${e.message}`)).finally(() => {
	console.log(`${pass} passed, ${fail} failed`);
	process.exit(fail ? 1 : 0);
});
