// phases.js — a Node.js workload whose event-loop phases are known.
//
// Every 100 ms a timer callback busy-waits 40 ms, then schedules a
// setImmediate callback that busy-waits 15 ms.  Per 100 ms the main loop
// thus spends 40 ms in the timers phase, 15 ms in the check phase and the
// rest waiting in poll.  With --worker, a worker_thread runs its own loop:
// a timer every 50 ms that busy-waits 2 ms.
// With --stats FILE, the main thread writes how many timer and immediate
// callbacks it ran to FILE when it exits (the truth tests compare with).
// Usage: node phases.js [--worker] [--seconds N] [--stats FILE]
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
let timerCalls = 0;
let immediateCalls = 0;

if (!isMainThread) {
	setInterval(() => busy(2), 50);
} else {
	setInterval(() => {
		timerCalls++;
		busy(40);
		setImmediate(() => {
			immediateCalls++;
			busy(15);
		});
	}, 100);
	if (statsFile)
		process.on('exit', () => require('fs').writeFileSync(statsFile,
			`timer_callbacks=${timerCalls}\nimmediate_callbacks=${immediateCalls}\n`));
	if (args.includes('--worker'))
		new Worker(__filename);
	if (seconds > 0)
		setTimeout(() => process.exit(0), seconds * 1000).unref();
	process.on('SIGTERM', () => process.exit(0));
}
