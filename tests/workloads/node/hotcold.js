// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Two hot JavaScript functions with a known CPU split, for
// tests/integration/t_v8.sh: round() calls hotAlpha(2 N) then hotBeta(N),
// the same loop body in both, so hotAlpha gets ~2/3 of the work. Each
// call's CPU time is measured with process.cpuUsage() around it: the truth
// the profile is checked against. round() runs from setImmediate(), a few
// hundred times a second: too little work of its own for V8 to optimize it
// (and inline the two into it), while the loops inside them are optimized
// (on-stack replacement) in the first calls.
//
// A worker thread meanwhile blocks in awaitOrders(), in Atomics.wait() for
// 20 ms on a word nobody notifies, over and over: the off-CPU profile must
// name that function (another isolate of the same process). It takes next
// to no CPU from the main thread.
//
// With --http: the same work is an async HTTP handler instead. A server on
// 127.0.0.1 (its port printed as "port N") runs one round() per request,
// after an await, and answers; a load generator (wrk) drives it. Warm-up
// and the run count from the first request.
//
// usage: node hotcold.js [--http] WARMUP_S RUN_S TRUTH_FILE [STOP_FILE]
//   prints "ready" once WARMUP_S seconds have passed, then runs RUN_S more
//   seconds, or until STOP_FILE exists, and writes to TRUTH_FILE
//   "alpha_us beta_us alpha_calls beta_calls" (measured after "ready"
//   only). A profiler names JavaScript frames from the process's memory
//   when it writes its profile: the test stops us after that.
'use strict';
const fs = require('fs');
const http = require('http');
const { Worker } = require('worker_threads');

new Worker(`
const orders = new Int32Array(new SharedArrayBuffer(4));
function awaitOrders() { Atomics.wait(orders, 0, 0, 20); }
function loop() { awaitOrders(); setImmediate(loop); }
loop();
`, { eval: true }).unref();

const N = 1500000;
let sink = 0;

// a dependent chain V8 can neither vectorize nor drop (Math.imul: int32 wraps)
function hotAlpha(n) {
	let s = sink;
	for (let i = 0; i < n; i++) {
		s = (Math.imul(s, 1103515245) + i) | 0;
		s ^= s >>> 13;
	}
	return s;
}

function hotBeta(n) {
	let s = sink;
	for (let i = 0; i < n; i++) {
		s = (Math.imul(s, 1103515245) + i) | 0;
		s ^= s >>> 13;
	}
	return s;
}

const httpMode = process.argv[2] === '--http';
const [warmupS, runS, truthFile, stopFile] = process.argv.slice(httpMode ? 3 : 2);
const warmupMs = Number(warmupS) * 1000, runMs = Number(runS) * 1000;
let start = Date.now(), measuring = false;
let aUs = 0, bUs = 0, aCalls = 0, bCalls = 0;

function cpuUs() {
	const u = process.cpuUsage();

	return u.user + u.system;
}

// one unit of work, timed; false once the run is over (the truth is written)
function round() {
	let t0 = cpuUs();

	sink ^= hotAlpha(2 * N);
	let t1 = cpuUs();

	sink ^= hotBeta(N);
	let t2 = cpuUs();

	if (measuring) {
		aUs += t1 - t0;
		bUs += t2 - t1;
		aCalls++;
		bCalls++;
	}
	const now = Date.now();

	if (!measuring && now - start >= warmupMs) {
		measuring = true;
		start = now;
		process.stdout.write('ready\n');
	} else if (measuring && (now - start >= runMs || (stopFile && fs.existsSync(stopFile)))) {
		fs.writeFileSync(truthFile, `${aUs} ${bUs} ${aCalls} ${bCalls}\n`);
		return false;
	}
	return true;
}

async function handle(req, res) {
	await null;	// the handler goes on from a microtask, as real ones after their I/O
	if (!round()) {
		res.end('done\n');
		server.close();
		process.exit(0);
	}
	res.end('ok\n');
}

let server = null;

if (httpMode) {
	server = http.createServer((req, res) => {
		if (start === 0)
			start = Date.now();
		handle(req, res);
	});
	start = 0;
	server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${server.address().port}\n`));
} else {
	const loop = () => {
		if (round())
			setImmediate(loop);
	};
	setImmediate(loop);
}
