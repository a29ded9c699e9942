// phases.js — a Node.js workload whose event-loop phases are known.
//
// Every 100 ms a timer callback busy-waits 40 ms (--timer-ms MS: MS
// instead, below 100), then schedules a
// setImmediate callback that busy-waits 15 ms.  Per 100 ms the main loop
// thus spends 40 ms in the timers phase, 15 ms in the check phase and the
// rest waiting in poll.  With --worker, a worker_thread runs its own loop:
// a timer every 50 ms that busy-waits 2 ms (--worker-busy MS: MS instead).
// With --exec MS, each timer callback first runs `sleep` for MS ms with
// child_process.spawnSync, which runs a libuv loop of its own on the main
// thread, inside its timers phase, and busy-waits the rest of its 40 ms
// (--timer-ms; longer when the child took longer).
// With --stats FILE, the main thread writes how many timer and immediate
// callbacks it ran to FILE when it exits (the truth tests compare with).
// With --log FILE, each callback's line is appended to FILE:
// "timer|immediate|worker START_UNIX_NS DURATION_NS" (worker: the
// worker_thread's 2 ms timer callbacks; a line is written by the next
// callback of its thread, see record()), the wall time each really
// took (a busy-wait is stretched when the CPU is taken away at its end:
// host steal, a busier thread), so tests judge a tracer's figures
// against what happened rather than against the plan.
// With --elu (and --log), the main thread also logs what Node.js itself
// measures of its loop, performance.eventLoopUtilization()'s running
// totals: "elu UNIX_NS IDLE_NS ACTIVE_NS", read as each timer callback
// begins (the loop has just left its wait) and as each setImmediate
// callback ends (it is about to wait again), so that between two
// samples the loop was either busy or idle throughout and a test can
// interpolate the totals at any instant (tests/lib.sh node_elu).
// With --pool, the main thread also gives libuv's thread pool some work
// every 100 ms: a crypto.pbkdf2 (about 10 ms on an idle core), a read of this file and a
// stat of it (what `bpfspec run threadpool` shows in the README).
// With --http, the main thread also serves HTTP on 127.0.0.1 (GET
// /orders/ID answers after a 20 ms timer, /health at once, anything else
// 404) to a client process of its own (http_client.js: a request every
// 20 ms), what `bpfspec run http-server` shows in the README.
// Arguments it does not know are ignored (tests add a word to a
// workload's command line for a process selector to find).
// Usage: node phases.js [--worker] [--worker-busy MS] [--exec MS] [--timer-ms MS]
//                       [--seconds N] [--stats FILE] [--log FILE] [--elu] [--pool] [--http]
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
const workerBusy = args.includes('--worker-busy') ? Number(args[args.indexOf('--worker-busy') + 1]) : 2;
const execMs = args.includes('--exec') ? Number(args[args.indexOf('--exec') + 1]) : 0;
const timerMs = args.includes('--timer-ms') ? Number(args[args.indexOf('--timer-ms') + 1]) : 40;
if (!(timerMs > 0 && timerMs < 100))
	throw new Error('--timer-ms takes a number of milliseconds above 0 and below 100');
const logFd = logFile ? require('fs').openSync(logFile, 'a') : null;

// The log is kept so that a callback's logged time covers as much of its
// phase as it can: the record is taken as the callback's last act (its
// end stamp, then two stores into a preallocated array: no allocation,
// no system call), and records are written out by the next callback,
// inside its own logged time.  The host can take the CPU away at any
// instant; time taken outside the logged span but inside the phase is
// time a tracer rightly reports and the log cannot show, so that span
// is kept to a few microseconds.  A test reading the log waits for a
// record of a kind that began after its window: every callback of that
// thread before it has then been written.  At exit the main thread
// writes what it holds; a worker_thread's last record is lost then (the
// tests read worker records while the workload runs).
const KINDS = ['timer', 'immediate', 'worker'];
const pending = new Float64Array(3 * 64);
let npending = 0;
const eluOn = logFd !== null && args.includes('--elu');
const elus = new Float64Array(3 * 64);
let nelus = 0;

// Notes performance.eventLoopUtilization()'s totals (ms) as of now.
function sampleElu() {
	if (!eluOn || nelus === 64)
		return;
	const t = performance.now(), u = performance.eventLoopUtilization();
	elus[3 * nelus] = t;
	elus[3 * nelus + 1] = u.idle;
	elus[3 * nelus++ + 2] = u.active;
}

// Notes that a callback of KINDS[KIND] began at performance.now() T0 and
// ends now.
function record(kind, t0) {
	const t1 = performance.now();
	if (logFd === null || npending === 64)
		return;
	pending[3 * npending] = kind;
	pending[3 * npending + 1] = t0;
	pending[3 * npending++ + 2] = t1;
}

// Appends the noted callbacks to the log: "KIND START_UNIX_NS DUR_NS",
// and the noted utilization totals: "elu UNIX_NS IDLE_NS ACTIVE_NS".
function flush() {
	if (npending === 0 && nelus === 0)
		return;
	const ns = (ms) => Math.round(ms * 1e6);
	let text = '';
	for (let i = 0; i < npending; i++) {
		const t0 = pending[3 * i + 1], t1 = pending[3 * i + 2];
		text += `${KINDS[pending[3 * i]]} ${ns(performance.timeOrigin + t0)} ${ns(t1 - t0)}\n`;
	}
	for (let i = 0; i < nelus; i++)
		text += `elu ${ns(performance.timeOrigin + elus[3 * i])} ${ns(elus[3 * i + 1])} ` +
			`${ns(elus[3 * i + 2])}\n`;
	npending = 0;
	nelus = 0;
	require('fs').writeSync(logFd, text);
}
// Work for libuv's thread pool (--pool): crypto, a file read, a stat.
function givePoolWork() {
	const fs = require('fs');
	require('crypto').pbkdf2('demo', 'salt', 50000, 32, 'sha256', () => {});
	fs.readFile(__filename, () => {});
	fs.stat(__filename, () => {});
}

// An HTTP server for http_client.js, which it starts (--http).
function serveHttp() {
	const http = require('http');
	const server = http.createServer((req, res) => {
		if (req.url.startsWith('/orders/'))
			setTimeout(() => res.end('order\n'), 20);
		else if (req.url === '/health')
			res.end('ok\n');
		else {
			res.statusCode = 404;
			res.end('not found\n');
		}
	});
	server.listen(0, '127.0.0.1', () => {
		const client = require('child_process').spawn(process.execPath,
			[require('path').join(__dirname, 'http_client.js'), String(server.address().port)],
			{ stdio: 'ignore' });
		process.on('exit', () => client.kill());
	});
}

let timerCalls = 0;
let immediateCalls = 0;

if (!isMainThread) {
	setInterval(() => {
		const t0 = performance.now();
		flush();
		busy(workerBusy);
		record(2, t0);
	}, 50);
} else {
	setInterval(() => {
		sampleElu();
		const t0 = performance.now();
		flush();
		timerCalls++;
		if (execMs > 0) {
			require('child_process').spawnSync('sleep', [String(execMs / 1000)]);
			busy(Math.max(0, timerMs - (performance.now() - t0)));
		} else {
			busy(timerMs);
		}
		setImmediate(() => {
			const t1 = performance.now();
			flush();
			immediateCalls++;
			busy(15);
			record(1, t1);
			sampleElu();
		});
		record(0, t0);
	}, 100);
	if (statsFile)
		process.on('exit', () => require('fs').writeFileSync(statsFile,
			`timer_callbacks=${timerCalls}\nimmediate_callbacks=${immediateCalls}\n`));
	if (args.includes('--worker'))
		new Worker(__filename, { argv: args });
	if (args.includes('--pool'))
		setInterval(givePoolWork, 100);
	if (args.includes('--http'))
		serveHttp();
	if (seconds > 0)
		setTimeout(() => process.exit(0), seconds * 1000).unref();
	process.on('SIGTERM', () => process.exit(0));
	process.on('exit', flush);
}
