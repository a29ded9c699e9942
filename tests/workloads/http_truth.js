// http_truth.js REPORT LOG — bpfspec's http-server report (JSON) against
// what http_app.js logged of the same requests ("METHOD ROUTE STATUS
// START_UNIX_NS DUR_NS"), per route the app serves: bpfspec's count at
// least 99% of the logged requests that began in the report's window and
// never more; its p50 and p99 within ±10% (or 1 ms) of the log's
// (nearest rank); every status code as the app sent it; the id route one
// series.  Prints a "measured:" line per figure; exits 1 on any miss.
'use strict';
const fs = require('fs');

const [reportFile, logFile] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
const probe = report.probes.find((p) => p.kind === 'http');
const ws = BigInt(report.window_start_unix_ns);
const we = ws + BigInt(report.duration_ns);
const routes = ['/wait', '/spin', '/fail', '/missing', '/users/:id'];
let failed = 0;

function check(ok, what) {
	console.log(`measured: ${what}  ${ok ? 'ok' : 'OUT OF RANGE'}`);
	if (!ok) failed++;
}

// The nearest-rank percentile Q of SORTED, and the samples one rank
// below and above it.
function rank(sorted, q) {
	const i = Math.max(0, Math.ceil(q * sorted.length) - 1);
	return [sorted[Math.max(0, i - 1)], sorted[i], sorted[Math.min(sorted.length - 1, i + 1)]];
}

const logged = {};
for (const line of fs.readFileSync(logFile, 'latin1').split('\n')) {
	const [method, route, status, start, dur] = line.split(' ');
	if (method !== 'GET' || !routes.includes(route)) continue;
	const t = BigInt(start);
	if (t < ws || t >= we) continue;
	(logged[route] ||= { durs: [], codes: {} }).durs.push(Number(dur) / 1e6);
	logged[route].codes[status] = (logged[route].codes[status] || 0) + 1;
}

for (const route of routes) {
	const truth = logged[route];
	const row = probe.routes.find((r) => r.method === 'GET' && r.route === route);
	if (!truth || !row) {
		check(false, `${route}: logged ${truth ? truth.durs.length : 0}, reported ${row ? row.count : 'no row'}`);
		continue;
	}
	const n = truth.durs.length;
	check(row.count >= Math.ceil(0.99 * n) && row.count <= n,
	      `${route.padEnd(11)} count ${row.count} of ${n} logged`);
	const sorted = truth.durs.sort((a, b) => a - b);
	for (const [q, key] of [[0.5, 'p50_ns'], [0.99, 'p99_ns']]) {
		const [lo, want, hi] = rank(sorted, q), got = row[key] / 1e6;
		const tol = Math.max(0.1 * want, 1);
		check(got >= lo - tol && got <= hi + tol,
		      `${route.padEnd(11)} ${key.slice(0, 3)} ${got.toFixed(3)} ms, log ${want.toFixed(3)} ms (${lo.toFixed(3)}-${hi.toFixed(3)}, ±${tol.toFixed(3)})`);
	}
	const codes = {};
	for (const s of row.statuses) codes[s.code] = s.count;
	const same = Object.keys(truth.codes).every((c) => codes[c] >= 0.99 * truth.codes[c] &&
							       codes[c] <= truth.codes[c]) &&
		     Object.keys(codes).every((c) => c in truth.codes);
	check(same, `${route.padEnd(11)} status ${JSON.stringify(codes)}, log ${JSON.stringify(truth.codes)}`);
}
const idRows = probe.routes.filter((r) => r.route.startsWith('/users/'));
check(idRows.length === 1, `/users/ routes: ${idRows.map((r) => r.route).join(', ')} (one: /users/:id)`);
check(probe.routes.length <= 51, `${probe.routes.length} routes (at most 50 and "other")`);
process.exit(failed ? 1 : 0);
