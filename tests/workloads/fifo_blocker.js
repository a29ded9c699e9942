// fifo_blocker.js — a Node.js workload whose timer callback does two
// things an SRE would want told apart: every 100 ms it busy-waits
// (--busy MS, default 20: on-CPU JavaScript in spinHot) and then reads a
// FIFO with fs.readFileSync, whose writer (tests/workloads/fifo_writer.c,
// another process) answers after about 15 ms: the main thread sleeps in
// read(2) inside libuv's timers phase.
// With --log FILE, lines are appended to FILE for each callback:
// "busy START_UNIX_NS DURATION_NS", "read START_UNIX_NS DURATION_NS" and
// "timer START_UNIX_NS DURATION_NS", the wall time each part took as the
// workload measured it (a callback's lines are written by the next one,
// inside its own span, as blocking_timers.js does).
// Usage: node fifo_blocker.js --fifo PATH [--busy MS] [--log FILE] [--seconds N]
'use strict';

const { performance } = require('perf_hooks');
const fs = require('fs');

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const fifo = opt('--fifo', null);
const busyMs = Number(opt('--busy', 20));
const logFile = opt('--log', null);
const seconds = Number(opt('--seconds', 0));
if (!fifo) {
	console.error('usage: node fifo_blocker.js --fifo PATH [--busy MS] [--log FILE] [--seconds N]');
	process.exit(2);
}
const logFd = logFile ? fs.openSync(logFile, 'a') : null;

function spinHot(ms) {
	const end = performance.now() + ms;
	let x = 0;
	while (performance.now() < end)
		x++;
	return x;
}

const unixNs = (t) => Math.round((performance.timeOrigin + t) * 1e6);
const span = (kind, a, b) => `${kind} ${unixNs(a)} ${Math.round((b - a) * 1e6)}\n`;
let pending = '';

setInterval(() => {
	const t0 = performance.now();
	if (logFd !== null && pending) {
		fs.writeSync(logFd, pending);
		pending = '';
	}
	const b0 = performance.now();
	spinHot(busyMs);
	const r0 = performance.now();
	fs.readFileSync(fifo);
	const r1 = performance.now();
	pending += span('busy', b0, r0) + span('read', r0, r1) + span('timer', t0, r1);
}, 100);
if (seconds > 0)
	setTimeout(() => process.exit(0), seconds * 1000).unref();
process.on('SIGTERM', () => process.exit(0));
