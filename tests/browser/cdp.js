// A small Chrome DevTools Protocol client over --remote-debugging-pipe
// (fds 3 and 4, messages NUL-terminated JSON), so a test can script an
// http:// page with real mouse events and screenshots using nothing but
// Node and Debian's chromium. No third-party code.
'use strict';
const { spawn } = require('child_process');

function launch(chromium, userDir, width, height) {
	const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
		'--disable-background-networking', '--disable-component-update', '--disable-sync',
		'--remote-debugging-pipe', `--user-data-dir=${userDir}`,
		`--window-size=${width},${height}`, 'about:blank'];
	const proc = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
	const toChrome = proc.stdio[3], fromChrome = proc.stdio[4];
	let nextId = 1, buf = Buffer.alloc(0);
	const waiting = new Map(), listeners = [];
	let stderr = '';
	proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
	fromChrome.on('data', (chunk) => {
		buf = Buffer.concat([buf, chunk]);
		let end;
		while ((end = buf.indexOf(0)) >= 0) {
			const msg = JSON.parse(buf.subarray(0, end).toString('utf8'));
			buf = buf.subarray(end + 1);
			if (msg.id && waiting.has(msg.id)) {
				const w = waiting.get(msg.id);
				waiting.delete(msg.id);
				if (msg.error) w.reject(new Error(`${w.method}: ${msg.error.message}`));
				else w.resolve(msg.result);
			} else if (msg.method) {
				listeners.forEach((l) => l(msg));
			}
		}
	});
	function send(method, params = {}, sessionId) {
		const id = nextId++;
		const msg = { id, method, params };
		if (sessionId) msg.sessionId = sessionId;
		toChrome.write(JSON.stringify(msg) + '\0');
		return new Promise((resolve, reject) => waiting.set(id, { resolve, reject, method }));
	}
	function once(method, sessionId, timeoutMs = 15000) {
		return new Promise((resolve, reject) => {
			const t = setTimeout(() => reject(new Error(`timeout waiting for ${method}`)), timeoutMs);
			const l = (msg) => {
				if (msg.method === method && (!sessionId || msg.sessionId === sessionId)) {
					clearTimeout(t);
					listeners.splice(listeners.indexOf(l), 1);
					resolve(msg.params);
				}
			};
			listeners.push(l);
		});
	}
	async function page() {
		const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
		const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
		const s = (m, p) => send(m, p, sessionId);
		await s('Page.enable');
		await s('Runtime.enable');
		await s('Emulation.setDeviceMetricsOverride',
			{ width, height, deviceScaleFactor: 1, mobile: false });
		return {
			send: s,
			async goto(url) {
				const loaded = once('Page.loadEventFired', sessionId);
				await s('Page.navigate', { url });
				await loaded;
			},
			async eval(expr) {	// an expression, awaited if a promise; its JSON value
				const r = await s('Runtime.evaluate',
					{ expression: expr, awaitPromise: true, returnByValue: true });
				if (r.exceptionDetails)
					throw new Error(`${expr}: ${r.exceptionDetails.exception ?
						r.exceptionDetails.exception.description : r.exceptionDetails.text}`);
				return r.result.value;
			},
			async mouse(type, x, y) {
				await s('Input.dispatchMouseEvent', { type, x, y, button: 'left',
					buttons: type === 'mouseReleased' ? 0 : 1, clickCount: 1 });
			},
			async drag(x0, y0, x1, y1, steps = 8) {
				await this.mouse('mouseMoved', x0, y0);
				await this.mouse('mousePressed', x0, y0);
				for (let i = 1; i <= steps; i++)
					await this.mouse('mouseMoved', x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps);
				await this.mouse('mouseReleased', x1, y1);
			},
			async click(x, y) {
				await this.mouse('mousePressed', x, y);
				await this.mouse('mouseReleased', x, y);
			},
			async screenshot(file) {
				const { data } = await s('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
				require('fs').writeFileSync(file, Buffer.from(data, 'base64'));
			},
		};
	}
	function close() {
		try { toChrome.write(JSON.stringify({ id: nextId++, method: 'Browser.close' }) + '\0'); } catch (e) { /* gone */ }
		setTimeout(() => proc.kill('SIGKILL'), 2000).unref();
	}
	return { send, page, close, proc, log: () => stderr };
}

module.exports = { launch };
