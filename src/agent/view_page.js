'use strict';
var KINDS = ['oncpu', 'offcpu', 'runq', 'lock'];
var NAME = { oncpu: 'on-CPU', offcpu: 'off-CPU', runq: 'run queue', lock: 'lock waits' };
var FLAG = { oncpu: 'on by default (--no-on-cpu turns it off)', offcpu: '--off-cpu',
	runq: '--runq', lock: '--locks' };
var NS = 'http://www.w3.org/2000/svg', LEFT = 110, W = 1080, LANE = 56, GAP = 14, TOP = 8;
var T = null, sel = null, selA = null, lanes = [], t0 = 0, t1 = 1, asked = 0;
function $(id) { return document.getElementById(id); }
function el(tag, attrs, parent) {
	var e = document.createElementNS(NS, tag);
	for (var k in attrs) e.setAttribute(k, attrs[k]);
	if (parent) parent.appendChild(e);
	return e;
}
function secs(k, v) { return k === 'oncpu' ? v * T.period_ns / 1e9 : v / 1e9; }
function fmt(k, v) {
	if (v === null || v === undefined) return 'not read yet';
	var s = secs(k, v).toFixed(3) + ' s';
	return k === 'oncpu' ? s + ' CPU (' + v + ' samples)' : s;
}
function hms(ms) { return new Date(ms).toISOString().substr(11, 8); }
function endOf(iv, i) {
	if (iv.end_ms) return iv.end_ms;
	var n = T.intervals[i + 1];
	return n ? n.start_ms : iv.start_ms + 1000;
}
function xOf(ms) { return LEFT + (ms - t0) / (t1 - t0) * W; }
function say(id, text) { $(id).textContent = text; }
function empty(text) {
	$('graph').style.display = 'none';
	$('graph').removeAttribute('src');
	$('empty').style.display = 'block';
	say('empty', text);
}
function draw(j) {
	T = j;
	var ivs = T.intervals, svg = $('timeline');
	if (!ivs.length) {
		svg.style.display = 'none';
		say('status', '');
		empty('No intervals yet: the agent writes one when each interval ends (--interval), ' +
		      'and this page lists them once written. Reload in a moment.');
		return;
	}
	lanes = KINDS.filter(function (k) { return ivs.some(function (iv) { return k in iv; }); });
	t0 = ivs[0].start_ms;
	t1 = Math.max(endOf(ivs[ivs.length - 1], ivs.length - 1), t0 + 1);
	var h = TOP + lanes.length * (LANE + GAP) + 20;
	svg.setAttribute('height', h);
	svg.setAttribute('viewBox', '0 0 ' + (LEFT + W + 10) + ' ' + h);
	lanes.forEach(function (k, li) {
		var y = TOP + li * (LANE + GAP), max = 0;
		ivs.forEach(function (iv) { if (iv[k]) max = Math.max(max, secs(k, iv[k])); });
		el('rect', { x: LEFT, y: y, width: W, height: LANE, class: 'lane' }, svg);
		el('text', { x: 4, y: y + 16, class: 'lname' }, svg).textContent = NAME[k];
		el('text', { x: 4, y: y + 32, class: 'lmax' }, svg).textContent =
			'max ' + max.toFixed(2) + ' s';
		ivs.forEach(function (iv, i) {
			if (!(k in iv)) return;
			var v = iv[k] ? secs(k, iv[k]) : 0, bh = max ? Math.max(v / max * (LANE - 4), v ? 1 : 0) : 0;
			var x = xOf(iv.start_ms), w = Math.max(xOf(endOf(iv, i)) - x - 1, 1);
			var r = el('rect', { x: x, y: y + LANE - bh, width: w, height: bh,
				class: 'bar ' + k + (iv[k] === null ? ' unknown' : ''), 'data-i': i, 'data-k': k }, svg);
			el('title', {}, r).textContent = iv.t + (iv.partial ? ' (partial)' : '') + ': ' + fmt(k, iv[k]);
		});
	});
	el('text', { x: LEFT, y: h - 4, class: 'axis' }, svg).textContent = hms(t0) + ' UTC';
	el('text', { x: LEFT + W, y: h - 4, class: 'axis end' }, svg).textContent = hms(t1) + ' UTC';
	el('rect', { id: 'brush', x: 0, y: TOP, width: 0, height: h - TOP - 20 }, svg);
	el('rect', { id: 'brushA', x: 0, y: TOP, width: 0, height: h - TOP - 20 }, svg);
	if (!T.complete)
		say('note', 'Older intervals are still being read (their bars are missing): reload for more.');
	say('status', ivs.length + ' intervals. Drag across the timeline to select a range.');
	brush(svg);
}
function pick(xa, xb) {	/* the intervals whose bars the dragged span touches */
	var lo = Math.min(xa, xb), hi = Math.max(xa, xb), first = -1, last = -1;
	T.intervals.forEach(function (iv, i) {
		if (xOf(endOf(iv, i)) > lo && xOf(iv.start_ms) <= hi) { if (first < 0) first = i; last = i; }
	});
	return first < 0 ? null : { from: first, to: last };
}
function brush(svg) {
	var x0 = null;
	function px(ev) { var b = svg.getBoundingClientRect(); return (ev.clientX - b.left) * svg.viewBox.baseVal.width / b.width; }
	svg.addEventListener('mousedown', function (ev) { x0 = px(ev); ev.preventDefault(); });
	svg.addEventListener('mousemove', function (ev) {
		if (x0 === null) return;
		var x = px(ev);
		$('brush').setAttribute('x', Math.min(x0, x));
		$('brush').setAttribute('width', Math.abs(x - x0));
	});
	window.addEventListener('mouseup', function (ev) {
		if (x0 === null) return;
		var r = pick(x0, px(ev));
		x0 = null;
		if (r) select(r);
	});
}
function sum(r, k) {
	var s = 0, known = true, any = false;
	for (var i = r.from; i <= r.to; i++) {
		var v = T.intervals[i][k];
		if (v === null) known = false;
		if (v) { s += v; any = true; }
	}
	return { total: s, known: known, any: any };
}
function rangeArg(r) { return T.intervals[r.from].t + '..' + T.intervals[r.to].t; }
function shade(id, r) {
	var a = xOf(T.intervals[r.from].start_ms), b = xOf(endOf(T.intervals[r.to], r.to));
	$(id).setAttribute('x', a);
	$(id).setAttribute('width', b - a);
}
function describe(r) {
	var k = $('kind').value, s = sum(r, k), n = r.to - r.from + 1;
	return n + ' interval' + (n > 1 ? 's' : '') + ', ' + hms(T.intervals[r.from].start_ms) + ' to ' +
		hms(endOf(T.intervals[r.to], r.to)) + ', ' + NAME[k] + ' ' + (s.known ? fmt(k, s.total) : 'not all read yet');
}
function select(r) {
	sel = r;
	document.querySelectorAll('.bar.sel').forEach(function (b) { b.classList.remove('sel'); });
	document.querySelectorAll('.bar').forEach(function (b) {
		var i = +b.getAttribute('data-i');
		if (i >= r.from && i <= r.to) b.classList.add('sel');
	});
	shade('brush', r);
	$('keepA').disabled = false;
	$('diff').disabled = !selA;
	say('status', (selA ? 'B: ' : 'Selected: ') + describe(r));
	show();
}
function query() {
	var p = $('filter').value, th = $('thread').value;
	return 'kind=' + $('kind').value + (p ? '&p=' + encodeURIComponent(p) : '') +
		(th ? '&th=' + encodeURIComponent(th) : '');
}
/* the controls in the page's own URL (?kind=&p=&th=&s=), so a reload or a link keeps them */
var CONTROLS = { kind: 'kind', p: 'filter', th: 'thread', s: 'search' };
function remember() {
	var q = [];
	for (var k in CONTROLS) {
		var v = $(CONTROLS[k]).value;
		if (v && !(k === 'kind' && v === 'oncpu')) q.push(k + '=' + encodeURIComponent(v));
	}
	history.replaceState(null, '', location.pathname + (q.length ? '?' + q.join('&') : ''));
}
function recall() {
	var q = new URLSearchParams(location.search);
	for (var k in CONTROLS) {
		var v = q.get(k);
		if (v !== null && (k !== 'kind' || KINDS.indexOf(v) >= 0)) $(CONTROLS[k]).value = v;
	}
}
/* what an empty answer means under the filters set */
function unmatched(where) {
	var p = $('filter').value, th = $('thread').value, w = [];
	if (p) w.push('processes matching /' + p + '/');
	if (th) w.push('threads matching /' + th + '/');
	return w.length ? 'No samples of ' + w.join(' and ') + ' ' + where + '.' : null;
}
/* document.body's data-loading is 1 while the newest answer is awaited (tests wait on it) */
function loading(on) { document.body.setAttribute('data-loading', on ? '1' : '0'); }
function load(url, why) {	/* fetch first: an empty or failed answer becomes a message, not a blank graph */
	var mine = ++asked;
	loading(true);
	say('graphinfo', 'loading...');
	fetch(url).then(function (resp) {
		return resp.text().then(function (body) { return { ok: resp.ok, body: body }; });
	}).then(function (a) {
		if (mine !== asked) return;	/* a later selection's answer is the one to show */
		loading(false);
		var m = /<g data-x="0" data-w="(\d+)"/.exec(a.body);
		if (!a.ok || !m) { say('graphinfo', ''); empty(a.ok ? why : a.body.trim()); return; }
		$('empty').style.display = 'none';
		var g = $('graph'), s = $('search').value;
		g.style.display = 'block';
		g.setAttribute('data-total', m[1]);
		g.src = url + (s ? '&s=' + encodeURIComponent(s) : '');	/* the second read hits the cache */
		say('graphinfo', 'graph total ' + m[1]);
	}).catch(function (e) {
		if (mine !== asked) return;
		loading(false);
		say('graphinfo', '');
		empty('Cannot reach the agent: ' + e.message);
	});
}
function show() {
	remember();
	if (!sel) return;
	var k = $('kind').value, s = sum(sel, k);
	if (!s.any && s.known) {
		asked++;
		loading(false);
		say('graphinfo', '');
		empty('No ' + NAME[k] + ' data in the selected range' + (lanes.indexOf(k) < 0 ?
			': this agent does not record it (' + FLAG[k] + ')' : ': nothing was recorded in these intervals') + '.');
		return;
	}
	load('/flame?' + query() + '&range=' + rangeArg(sel),
	     unmatched('in the selected range') || 'Nothing to draw in the selected range.');
}
function keepA() {
	selA = sel;
	shade('brushA', selA);
	say('status', 'A: ' + describe(selA) + '. Now select B.');
	say('astatus', 'A = ' + rangeArg(selA));
	$('diff').disabled = true;
}
function diff() {
	if (!selA || !sel) return;
	load('/diff?' + query() + '&a=' + rangeArg(selA) + '&b=' + rangeArg(sel),
	     unmatched('in the ranges') || 'Nothing to compare.');
}
$('kind').addEventListener('change', show);
$('filter').addEventListener('change', show);
$('thread').addEventListener('change', show);
$('search').addEventListener('change', show);
$('keepA').addEventListener('click', keepA);
$('diff').addEventListener('click', diff);
$('graph').addEventListener('load', function () {
	var d = $('graph').contentDocument, s = d && d.querySelector('svg');
	if (s) $('graph').style.height = (s.getAttribute('height') || 400) + 'px';
});
recall();
fetch('/timeline.json').then(function (r) {	/* a 503 (busy) says so in its text */
	return r.ok ? r.json() : r.text().then(function (t) { throw new Error(t.trim()); });
}).then(draw).catch(function (e) {
	say('status', '');
	empty('Cannot read the timeline: ' + e.message + ' (reload to retry)');
});
