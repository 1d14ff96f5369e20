// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A JavaScript thread blocked for a whole recording (t_v8_blocked): the
 * main thread waits in sleepHere() (Atomics.wait, never notified), called
 * from outer(), run often enough first to be compiled. Its stack is walked
 * from another task at the stop (or an agent interval's end).
 *
 * usage: node blocked.js: "ready" on stdout, then blocks until killed.
 */
'use strict';
const fs = require('fs');
const cell = new Int32Array(new SharedArrayBuffer(4));

function sleepHere() {
	Atomics.wait(cell, 0, 0);
}

function outer(i, block) {
	if (block)
		sleepHere();
	return i * 7 + 1;
}

let s = 0;
for (let i = 0; i < 3000000; i++)
	s += outer(i, false);
/* synchronous: a write to a pipe would wait for the event loop, which never runs again */
fs.writeSync(1, `ready ${s > 0}\n`);
outer(0, true);
