// blocking_timers.js — a Node.js workload that blocks its event loop in a
// system call: every 100 ms a timer callback busy-waits 5 ms, waits 20 ms
// in Atomics.wait (a futex wait of the main thread, inside libuv's timers
// phase) and busy-waits 5 ms more.
// With --log FILE, a line per span is appended to FILE: "timer START_UNIX_NS
// DURATION_NS" for each callback and "wait START_UNIX_NS DURATION_NS
// TIMEOUT_NS" for each wait: the wall time each really took and, for a
// wait, the timeout it asked for (the kernel's timed futex wait, which the
// wait's span holds together with V8's own work around it, and any time
// the thread waited for a CPU after it); a callback's lines are written by
// the next callback, inside its own span (as scripts/workloads/phases.js
// does).
// Usage: node blocking_timers.js [--log FILE] [--seconds N]
'use strict';

const { performance } = require('perf_hooks');
const fs = require('fs');

const args = process.argv.slice(2);
const logFile = args.includes('--log') ? args[args.indexOf('--log') + 1] : null;
const seconds = args.includes('--seconds') ? Number(args[args.indexOf('--seconds') + 1]) : 0;
const logFd = logFile ? fs.openSync(logFile, 'a') : null;
const cell = new Int32Array(new SharedArrayBuffer(4));

function busy(ms) {
	const end = performance.now() + ms;
	while (performance.now() < end);
}

const unixNs = (t) => Math.round((performance.timeOrigin + t) * 1e6);
let pending = '';

setInterval(() => {
	const t0 = performance.now();
	if (logFd !== null && pending) {
		fs.writeSync(logFd, pending);
		pending = '';
	}
	busy(5);
	const w0 = performance.now();
	Atomics.wait(cell, 0, 0, 20);
	const w1 = performance.now();
	busy(5);
	const t1 = performance.now();
	pending += `wait ${unixNs(w0)} ${Math.round((w1 - w0) * 1e6)} 20000000\n` +
		`timer ${unixNs(t0)} ${Math.round((t1 - t0) * 1e6)}\n`;
}, 100);
if (seconds > 0)
	setTimeout(() => process.exit(0), seconds * 1000).unref();
process.on('SIGTERM', () => process.exit(0));
