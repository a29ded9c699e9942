// stall_delay.js — a Node.js workload with a known blocking pattern that
// measures itself with perf_hooks.monitorEventLoopDelay(), for comparing
// that histogram with bpfspec's stall histogram (docs/serve-metrics.md,
// "Stalls and monitorEventLoopDelay").
//
// Every --period MS (default 100) a timer callback spins --spin MS
// (default 30) synchronously; the loop waits in epoll the rest of the
// time.  monitorEventLoopDelay({ resolution: --resolution MS, default 10 })
// is enabled from --after S seconds (default 2) for --seconds N (default
// 10); then the workload prints one JSON line of what it measured, and
// goes on until it is killed (SIGTERM, SIGINT):
//   { "start_unix_ns", "end_unix_ns", "spins", "resolution_ms",
//     "delay": { "count", "min_ns", "mean_ns", "max_ns", "stddev_ns",
//                "p50_ns", "p90_ns", "p99_ns", "over_25ms" } }
// over_25ms is the share of the delay samples above 25 ms, where the
// histogram's percentiles cross it.
// Usage: node stall_delay.js [--spin MS] [--period MS] [--resolution MS]
//                            [--after S] [--seconds N]
'use strict';

const { monitorEventLoopDelay, performance } = require('perf_hooks');

const args = process.argv.slice(2);
const num = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const spinMs = num('--spin', 30), periodMs = num('--period', 100);
const resolution = num('--resolution', 10), after = num('--after', 2), seconds = num('--seconds', 10);
if (!(spinMs > 0 && spinMs < periodMs) || !(resolution >= 1) || !(seconds > 0) || !(after >= 0))
	throw new Error('stall_delay.js: --spin below --period, --resolution >= 1, --seconds > 0');

const unixNs = () => Math.round((performance.timeOrigin + performance.now()) * 1e6);
let spins = 0, counting = false;

setInterval(() => {
	const end = performance.now() + spinMs;
	while (performance.now() < end);
	if (counting)
		spins++;
}, periodMs);

const h = monitorEventLoopDelay({ resolution });
let start = 0;
setTimeout(() => {
	start = unixNs();
	counting = true;
	h.enable();
	setTimeout(report, seconds * 1000);
}, after * 1000);

// The share of samples above MS milliseconds: the rank where the
// histogram's percentile crosses it, found by bisection.
function shareAbove(ms) {
	let lo = 0, hi = 100;
	if (h.max <= ms * 1e6)
		return 0;
	for (let i = 0; i < 40; i++) {
		const mid = (lo + hi) / 2;
		if (h.percentile(mid) > ms * 1e6)
			hi = mid;
		else
			lo = mid;
	}
	return Math.round((100 - hi) * 1e3) / 1e5;
}

function report() {
	h.disable();
	const end = unixNs();
	const r = Math.round;
	console.log(JSON.stringify({
		start_unix_ns: start, end_unix_ns: end, spins, resolution_ms: resolution,
		delay: { count: h.count, min_ns: h.min, mean_ns: r(h.mean), max_ns: h.max,
			 stddev_ns: r(h.stddev), p50_ns: h.percentile(50), p90_ns: h.percentile(90),
			 p99_ns: h.percentile(99), over_25ms: shareAbove(25) },
	}));
}
process.on('SIGTERM', () => process.exit(0));
