// phases.js — a Node.js workload whose event-loop phases are known.
//
// Every 100 ms a timer callback busy-waits 40 ms, then schedules a
// setImmediate callback that busy-waits 15 ms.  Per 100 ms the main loop
// thus spends 40 ms in the timers phase, 15 ms in the check phase and the
// rest waiting in poll.  With --worker, a worker_thread runs its own loop:
// a timer every 50 ms that busy-waits 2 ms.
// With --stats FILE, the main thread writes how many timer and immediate
// callbacks it ran to FILE when it exits (the truth tests compare with).
// With --log FILE, each callback appends a line to FILE:
// "timer|immediate|worker START_UNIX_NS DURATION_NS" (worker: the
// worker_thread's 2 ms timer callbacks), the wall time each really
// took (a busy-wait is stretched when the CPU is taken away at its end:
// host steal, a busier thread), so tests judge a tracer's figures
// against what happened rather than against the plan.
// Usage: node phases.js [--worker] [--seconds N] [--stats FILE] [--log FILE]
'use strict';

const { Worker, isMainThread } = require('worker_threads');

const { performance } = require('perf_hooks');

// Busy-waits MS milliseconds of wall time.  performance.now() allocates
// nothing, so no garbage collection runs inside the wait and stretches it.
function busy(ms) {
	const end = performance.now() + ms;
	while (performance.now() < end);
}

const args = process.argv.slice(2);
const seconds = args.includes('--seconds') ? Number(args[args.indexOf('--seconds') + 1]) : 0;
const statsFile = args.includes('--stats') ? args[args.indexOf('--stats') + 1] : null;
const logFile = args.includes('--log') ? args[args.indexOf('--log') + 1] : null;
const logFd = logFile ? require('fs').openSync(logFile, 'a') : null;

// Appends KIND's callback that began at performance.now() T0 to the log.
function logged(kind, t0) {
	if (logFd === null)
		return;
	const t1 = performance.now();
	const start = Math.round((performance.timeOrigin + t0) * 1e6);
	require('fs').writeSync(logFd, `${kind} ${start} ${Math.round((t1 - t0) * 1e6)}\n`);
}
let timerCalls = 0;
let immediateCalls = 0;

if (!isMainThread) {
	setInterval(() => {
		const t0 = performance.now();
		busy(2);
		logged('worker', t0);
	}, 50);
} else {
	setInterval(() => {
		const t0 = performance.now();
		timerCalls++;
		busy(40);
		setImmediate(() => {
			const t1 = performance.now();
			immediateCalls++;
			busy(15);
			logged('immediate', t1);
		});
		logged('timer', t0);
	}, 100);
	if (statsFile)
		process.on('exit', () => require('fs').writeFileSync(statsFile,
			`timer_callbacks=${timerCalls}\nimmediate_callbacks=${immediateCalls}\n`));
	if (args.includes('--worker'))
		new Worker(__filename, { argv: args });
	if (seconds > 0)
		setTimeout(() => process.exit(0), seconds * 1000).unref();
	process.on('SIGTERM', () => process.exit(0));
}
