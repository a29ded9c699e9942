// check_trace.mjs TRACE.json [--phases-log LOG] [--blocking-log LOG]
//
// Checks a Chrome Trace Event JSON file (bpfspec's -o trace) against the
// rules of the trace event format, as Perfetto UI and chrome://tracing
// read it:
//   - the file is a JSON object with a traceEvents array (displayTimeUnit,
//     when present, "ms" or "ns"; otherData an object of strings);
//   - every event is an object with a known ph, integer pid and tid, and a
//     string name; args, when present, an object;
//   - X: numeric ts and dur, both >= 0;  i: numeric ts, s one of g, p, t;
//     C: numeric ts and args of numbers only;  M: process_name or
//     thread_name with a string args.name, or *_sort_index with an integer
//     args.sort_index;  b/e: a cat and an id, each b closed by one e of the
//     same cat, id and name at or after it;
//   - per pid and tid, the X slices nest: sorted by start (the longer
//     first), none ends after the one around it;
//   - every thread with slices has a thread_name;
//   - the events of a thread are written in time order.
// With --phases-log (scripts/workloads/phases.js --log, the wall-clock
// start and length of each callback): each callback that ran inside the
// window has its phase's slice (timer: "timers" on the main thread, pid ==
// tid; immediate: "check" there; worker: "timers" on another thread)
// starting within 10 ms of it: none more than 5% shorter, three in four
// and the median within 5% of its length (a slice is rightly longer when
// the thread lost its CPU inside the phase but outside the callback).  With
// --blocking-log (tests/workloads/blocking_timers.js --log): each logged
// wait has futex slices on the main thread, inside its span and nested in
// a "timers" slice, whose lengths add up to no less than the timeout it
// asked for (20 ms) and no more than its span, 5% either way.  Wall clock to the trace's clock: otherData's
// window_start_unix_ns and window_start_clock_ns; spans within 100 ms of
// the window's ends are left out (their phase may begin before it or end
// after it), and with -i those within 100 ms of an interval's start (a
// call that ends in the hold before it is in no interval: docs/report.md).
// With --node-trace FILE (node's own --trace-events output, category
// node.environment, of the same process): each of node's RunTimers slices
// of 1 ms or more inside the window lies within a "timers" slice of the same
// thread: the two files share a clock, so merged they line up.
// Prints "measured:" lines and one "FAIL: ..." line per problem.  Exit
// status: 0 every check passed, 1 one failed, 2 the check could not run.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const file = argv[0];
const opt = (name) => {
	const i = argv.indexOf(name);
	return i > 0 ? argv[i + 1] : undefined;
};
if (!file || file.startsWith('--'))
	bail('usage: node check_trace.mjs TRACE.json [--phases-log LOG] [--blocking-log LOG]');

function bail(msg) {
	console.log(`FAIL: ${msg}`);
	process.exit(2);
}

const problems = [];
const fail = (msg) => {
	problems.push(msg);
	if (problems.length <= 40)
		console.log(`FAIL: ${msg}`);
};

let doc;
try {
	doc = JSON.parse(readFileSync(file, 'utf8'));
} catch (e) {
	bail(`${file}: ${e.message}`);
}
if (!doc || typeof doc !== 'object' || Array.isArray(doc) || !Array.isArray(doc.traceEvents))
	bail(`${file}: not an object with a traceEvents array`);
if ('displayTimeUnit' in doc && !['ms', 'ns'].includes(doc.displayTimeUnit))
	fail(`displayTimeUnit ${JSON.stringify(doc.displayTimeUnit)}: not "ms" or "ns"`);
const other = doc.otherData ?? {};
if (typeof other !== 'object' || Array.isArray(other) ||
	Object.values(other).some((v) => typeof v !== 'string'))
	fail('otherData is not an object of strings');

const isInt = (v) => Number.isInteger(v);
const isTime = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const events = doc.traceEvents;
const where = (i, e) => `traceEvents[${i}] (${e && e.ph} ${JSON.stringify(e && e.name)})`;
const METADATA = new Set(['process_name', 'thread_name', 'process_sort_index', 'thread_sort_index',
	'process_labels']);
const named = new Set(); // "pid tid" with a thread_name
const byThread = new Map(); // "pid tid" -> X slices [{ts, end, name, i}]
const lastTs = new Map(); // "pid tid" -> ts of the thread's last timed event
const open = new Map(); // "cat id name" -> b event
const counts = {};
events.forEach((e, i) => {
	if (!e || typeof e !== 'object' || Array.isArray(e)) {
		fail(`traceEvents[${i}]: not an object`);
		return;
	}
	counts[e.ph] = (counts[e.ph] || 0) + 1;
	if (!isInt(e.pid) || !isInt(e.tid))
		fail(`${where(i, e)}: pid and tid must be integers`);
	if (typeof e.name !== 'string')
		fail(`${where(i, e)}: name must be a string`);
	if ('args' in e && (typeof e.args !== 'object' || e.args === null || Array.isArray(e.args)))
		fail(`${where(i, e)}: args must be an object`);
	const thread = `${e.pid} ${e.tid}`;
	if (e.ph !== 'M') {
		if (!isTime(e.ts))
			fail(`${where(i, e)}: ts must be a number >= 0`);
		else if (e.ph !== 'C' && lastTs.has(thread) && e.ts < lastTs.get(thread))
			fail(`${where(i, e)}: ts ${e.ts} before the thread's previous event (${lastTs.get(thread)})`);
		if (e.ph !== 'C' && isTime(e.ts))
			lastTs.set(thread, e.ts);
	}
	switch (e.ph) {
	case 'X':
		if (!isTime(e.dur))
			fail(`${where(i, e)}: dur must be a number >= 0`);
		else {
			if (!byThread.has(thread))
				byThread.set(thread, []);
			// In whole nanoseconds, as the file writes them (µs with
			// three decimals): adding the doubles would make adjoining
			// slices overlap by a rounding error.
			const ts = Math.round(e.ts * 1000), dur = Math.round(e.dur * 1000);
			byThread.get(thread).push({ ts, end: ts + dur, dur, name: e.name, i, e });
		}
		break;
	case 'i':
	case 'I':
		if ('s' in e && !['g', 'p', 't'].includes(e.s))
			fail(`${where(i, e)}: s must be g, p or t`);
		break;
	case 'C':
		if (!e.args || Object.keys(e.args).length === 0 ||
			Object.values(e.args).some((v) => typeof v !== 'number' || !Number.isFinite(v)))
			fail(`${where(i, e)}: a counter's args must be numbers`);
		break;
	case 'M':
		if (!METADATA.has(e.name))
			fail(`${where(i, e)}: unknown metadata event`);
		else if (e.name.endsWith('_sort_index') ? !isInt(e.args?.sort_index)
			: e.name !== 'process_labels' && typeof e.args?.name !== 'string')
			fail(`${where(i, e)}: metadata without its args`);
		if (e.name === 'thread_name')
			named.add(thread);
		break;
	case 'b':
	case 'e': {
		if (typeof e.cat !== 'string' || !(typeof e.id === 'string' || isInt(e.id))) {
			fail(`${where(i, e)}: an async event needs a cat and an id`);
			break;
		}
		const key = `${e.cat} ${e.id} ${e.name}`;
		if (e.ph === 'b') {
			if (open.has(key))
				fail(`${where(i, e)}: async ${key} begun twice`);
			open.set(key, e);
		} else if (!open.has(key))
			fail(`${where(i, e)}: async ${key} ends without a begin`);
		else {
			if (e.ts < open.get(key).ts)
				fail(`${where(i, e)}: async ${key} ends before it begins`);
			open.delete(key);
		}
		break;
	}
	default:
		fail(`${where(i, e)}: phase ${JSON.stringify(e.ph)} is not one bpfspec writes or the format knows here`);
	}
});
for (const key of open.keys())
	fail(`async ${key} never ends`);

// Nesting per thread.
let slices = 0, maxDepth = 0;
for (const [thread, list] of byThread) {
	slices += list.length;
	if (!named.has(thread))
		fail(`thread ${thread} has slices and no thread_name`);
	list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
	const stack = [];
	for (const s of list) {
		while (stack.length && stack[stack.length - 1].end <= s.ts)
			stack.pop();
		const parent = stack[stack.length - 1];
		if (parent && s.end > parent.end) {
			fail(`thread ${thread}: ${s.name} [${s.ts}, ${s.end}] ns overlaps the end of ${parent.name} ` +
				`[${parent.ts}, ${parent.end}] ns: slices do not nest`);
			continue;
		}
		s.parent = parent;
		stack.push(s);
		maxDepth = Math.max(maxDepth, stack.length);
	}
}
console.log(`measured: ${file.replace(/.*\//, '')}: ${events.length} events (` +
	Object.entries(counts).map(([ph, n]) => `${n} ${ph}`).join(', ') +
	`), ${slices} slices on ${byThread.size} threads, nested ${maxDepth} deep`);

// The clock: wall-clock ns to the trace's microseconds.
const unix0 = BigInt(other.window_start_unix_ns ?? '0');
const clock0 = BigInt(other.window_start_clock_ns ?? '0');
const EDGE_NS = 100e6; // spans this close to the window's ends are not compared
const toTraceNs = (unixNs) => Number(BigInt(unixNs) - unix0 + clock0);
const windowNs = [Number(clock0), 0];
for (const e of events)
	if (e.ph === 'C' || e.ph === 'X')
		windowNs[1] = Math.max(windowNs[1], Math.round((e.ts + (e.dur || 0)) * 1000));
// With -i, the starts of the intervals after the first (the utilization
// counters' times, but the first and the last, the window's ends): the
// run held tracing for a few milliseconds before each (docs/report.md,
// duration_ns), and a call that ended then is in no interval.
const resumes = [...new Set(events.filter((e) => e.ph === 'C').map((e) => Math.round(e.ts * 1000)))]
	.sort((a, b) => a - b).slice(1, -1);
// Whether span S (ts, dur: ns) is well inside the window and away from
// every hold between intervals.
const awayFromEdges = (s) => s.ts > windowNs[0] + EDGE_NS && s.ts + s.dur < windowNs[1] - EDGE_NS &&
	!resumes.some((r) => r > s.ts - EDGE_NS && r < s.ts + s.dur + EDGE_NS);

// Each logged span (KIND START_UNIX_NS DUR_NS) of KINDS -> the slice NAME on
// the threads THREADOK(tid) accepts: matched by start (within 10 ms), length
// (see the rule below).
function compare(log, kinds, name, threadOk, label) {
	const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' '));
	const spans = lines.filter(([k]) => kinds.includes(k)).map(([k, start, dur]) =>
		({ kind: k, ts: toTraceNs(start), dur: Number(dur) }))
		// A phase runs on around its callback: one whose phase began before
		// the window or ends after it (or in a hold) has no slice.
		.filter(awayFromEdges);
	const candidates = [];
	for (const [thread, list] of byThread)
		if (threadOk(Number(thread.split(' ')[1])))
			for (const s of list)
				if (s.name === name)
					candidates.push(s);
	const errors = [];
	let missing = 0;
	for (const sp of spans) {
		let best = null;
		for (const c of candidates)
			if (Math.abs(c.ts - sp.ts) <= 10e6 && (!best || Math.abs(c.ts - sp.ts) < Math.abs(best.ts - sp.ts)))
				best = c;
		if (!best) {
			missing++;
			continue;
		}
		errors.push((best.dur - sp.dur) / sp.dur);
	}
	const within = errors.filter((x) => Math.abs(x) <= 0.05).length;
	const sorted = [...errors].sort((a, b) => a - b);
	const med = sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
	console.log(`measured: ${label}: ${spans.length} logged in the window, ${errors.length} matched a "${name}" ` +
		`slice, ${within} within 5% (median ${(med * 100).toFixed(2)}%, worst ` +
		`${sorted.length ? (Math.max(-sorted[0], sorted[sorted.length - 1]) * 100).toFixed(1) : '-'}%)`);
	if (spans.length === 0)
		fail(`${label}: nothing logged inside the window`);
	if (missing)
		fail(`${label}: ${missing} of ${spans.length} have no "${name}" slice starting within 10 ms`);
	// A slice holds its callback, so none may be shorter; it may rightly
	// be longer (the thread lost its CPU inside the phase but outside the
	// callback, which the log cannot show), so three in four within 5%
	// and the median.
	const short = errors.filter((x) => x < -0.05).length;
	if (short)
		fail(`${label}: ${short} slices more than 5% shorter than what they hold`);
	if (errors.length && within < 0.75 * errors.length)
		fail(`${label}: only ${within} of ${errors.length} slices within 5% of the logged length`);
	if (Math.abs(med) > 0.05)
		fail(`${label}: median error ${(med * 100).toFixed(2)}%, more than 5%`);
}

const pid = Number(other.pid);
const phasesLog = opt('--phases-log');
if (phasesLog) {
	compare(phasesLog, ['timer'], 'timers', (tid) => tid === pid, 'timer callbacks (40 ms) vs main-thread timers');
	compare(phasesLog, ['immediate'], 'check', (tid) => tid === pid, 'immediate callbacks (15 ms) vs check');
	compare(phasesLog, ['worker'], 'timers', (tid) => tid !== pid, 'worker callbacks vs worker timers');
}
const blockingLog = opt('--blocking-log');
if (blockingLog) {
	let outside = 0;
	// V8 may wake a waiting thread for an interrupt and wait again: one
	// Atomics.wait can be several futex calls.  Their time together can be
	// no shorter than the timeout asked for (the kernel's timed wait) and
	// no longer than the wait's span as JavaScript measured it; it is
	// longer than the timeout when the woken thread waits for a CPU.
	const waits = readFileSync(blockingLog, 'utf8').split('\n').filter((l) => l.startsWith('wait '))
		.map((l) => l.split(' ')).map(([, start, dur, want]) =>
			({ ts: toTraceNs(start), dur: Number(dur), want: Number(want) }))
		.filter(awayFromEdges);
	const futexes = byThread.get(`${pid} ${pid}`)?.filter((s) => s.name === 'futex') ?? [];
	const ratios = [];
	let outOfBounds = 0, none = 0;
	for (const w of waits) {
		const inside = futexes.filter((c) => c.ts >= w.ts - 1e6 && c.end <= w.ts + w.dur + 1e6);
		if (inside.length === 0) {
			none++;
			continue;
		}
		for (const c of inside)
			if (!c.parent || c.parent.name !== 'timers')
				outside++;
		const sum = inside.reduce((t, c) => t + c.dur, 0);
		ratios.push(sum / w.want - 1);
		if (sum < 0.95 * w.want || sum > 1.05 * w.dur)
			outOfBounds++;
	}
	ratios.sort((a, b) => a - b);
	const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
	console.log(`measured: Atomics.wait (20 ms timeout): ${waits.length} in the window, ${ratios.length} with futex ` +
		`slices, their time vs the timeout ${ratios.length ? `${pct(ratios[0])} to ${pct(ratios[ratios.length - 1])}, ` +
		`median ${pct(ratios[Math.floor(ratios.length / 2)])}` : '-'}; ${outOfBounds} outside [timeout - 5%, span + 5%]`);
	if (waits.length === 0)
		fail('no Atomics.wait logged inside the window');
	if (none)
		fail(`${none} waits have no futex slice`);
	if (outOfBounds)
		fail(`${outOfBounds} waits' futex time is shorter than their timeout or longer than their span (5% either way)`);
	compare(blockingLog, ['timer'], 'timers', (tid) => tid === pid, 'blocking timer callbacks vs timers');
	if (outside)
		fail(`${outside} futex slices are not nested in a timers slice`);
}

const nodeTrace = opt('--node-trace');
if (nodeTrace) {
	let theirs;
	try {
		theirs = JSON.parse(readFileSync(nodeTrace, 'utf8')).traceEvents;
	} catch (e) {
		bail(`${nodeTrace}: ${e.message}`);
	}
	const runs = (theirs || []).filter((e) => e.ph === 'X' && e.name === 'RunTimers' && e.dur >= 1000 &&
		e.ts * 1000 > windowNs[0] + 1e6 && (e.ts + e.dur) * 1000 < windowNs[1] - 1e6);
	const gaps = [];
	let outside = 0;
	for (const r of runs) {
		const ts = Math.round(r.ts * 1000), end = ts + Math.round(r.dur * 1000);
		const s = (byThread.get(`${r.pid} ${r.tid}`) || []).find((x) => x.name === 'timers' &&
			x.ts <= ts && end <= x.end);
		if (s)
			gaps.push((ts - s.ts) / 1000, (s.end - end) / 1000);
		else
			outside++;
	}
	gaps.sort((a, b) => a - b);
	console.log(`measured: node's RunTimers: ${runs.length} in the window, ${runs.length - outside} inside ` +
		`a timers slice of their thread (margins ${gaps.length ? gaps[0].toFixed(1) : '-'} to ` +
		`${gaps.length ? gaps[gaps.length - 1].toFixed(1) : '-'} us)`);
	if (runs.length === 0)
		fail(`${nodeTrace}: no RunTimers slice of 1 ms or more inside the window`);
	if (outside)
		fail(`${outside} of node's RunTimers slices are not inside a timers slice of their thread`);
}

if (problems.length) {
	console.log(`FAIL: ${file.replace(/.*\//, '')}: ${problems.length} problem(s)`);
	process.exit(1);
}
process.exit(0);
