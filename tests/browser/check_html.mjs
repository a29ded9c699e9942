// check_html.mjs REPORT.html REPORT.json|REPORT.ndjson SCREENSHOT.png
//
// Loads an `-o html` report in a real browser (Debian's /usr/bin/chromium,
// driven by playwright-core from the npm registry, which scripts/setup.sh
// installs in /var/cache/bpfspec-npm; BPFSPEC_NPM_DIR overrides that
// directory, BPFSPEC_CHROMIUM the browser) and checks it against the report
// it was made from:
//   - nothing goes wrong while it loads: no console error or warning (a
//     Content-Security-Policy violation is one), no page error, and no
//     request but the page's own file:// URL (the context is offline too);
//   - its <meta http-equiv="Content-Security-Policy"> says default-src 'none'
//     and comes before any script, style or link;
//   - syscalls probes: the same per syscall (data-syscall, data-tid 0) for
//     the five slowest in total over the stream (a tie: by name);
//   - one report (a JSON object, or NDJSON of one line): per probe and
//     group with buckets, an <svg class="hist" data-probe data-tid> whose
//     <rect class="bar" data-lo-ns data-hi-ns data-count> are that group's
//     buckets, no more and no fewer;
//   - a stream (NDJSON, N > 1 reports, one per line): per probe name and
//     tid with buckets in any line, an <svg class="heatmap" data-probe
//     data-tid data-intervals="N"> whose <rect class="cell" data-interval
//     data-lo-ns data-hi-ns data-count> are exactly the non-empty buckets
//     of that group in each line I (from 0);
//   - every bar and cell is drawn (a box of non-zero size);
//   - hovering the first bar or cell shows #tip with that rect's count;
// With "-" for the report (a page a live run wrote with -o html -i), the
// heatmaps must be there and well formed, their content is not compared.
// then it takes a full-page screenshot (with the tooltip showing) and
// prints one "measured:" line.  Each problem is a line "FAIL: ...".
// Exit status: 0 when every check passed, 1 when one failed, 2 when the
// check could not run (usage, playwright-core or chromium missing).
//
// Run: NODE_PATH=/var/cache/bpfspec-npm/node_modules \
//        node tests/browser/check_html.mjs out.html out.json shot.png
// (NODE_PATH does not reach ES module imports: playwright-core is loaded
// with createRequire from the directories below.)

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const MAX_SHOWN = 8; // differences printed per figure
const TIMEOUT_MS = 90000; // the whole check

function die(msg) {
	console.log(`FAIL: ${msg}`);
	process.exit(2);
}

const [htmlArg, reportArg, shotArg] = process.argv.slice(2);
if (!htmlArg || !reportArg || !shotArg || process.argv.length > 5)
	die('usage: node check_html.mjs REPORT.html REPORT.json|REPORT.ndjson SCREENSHOT.png');

const npmDir = process.env.BPFSPEC_NPM_DIR || '/var/cache/bpfspec-npm';
const executablePath = process.env.BPFSPEC_CHROMIUM || '/usr/bin/chromium';

function loadPlaywright() {
	const require = createRequire(import.meta.url);
	const dirs = [path.join(npmDir, 'node_modules'),
		...(process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean)];
	let where;
	try {
		where = require.resolve('playwright-core', { paths: dirs });
	} catch {
		die(`cannot find playwright-core in ${dirs.join(', ')}: run scripts/setup.sh as root`);
	}
	const pw = require(where);
	const version = require(path.join(path.dirname(where), 'package.json')).version;
	return { chromium: pw.chromium, version };
}

// The report(s): a JSON object, or NDJSON (one report a line).
function readReports(file) {
	let text;
	try {
		text = readFileSync(file, 'utf8');
	} catch (e) {
		die(`cannot read ${file}: ${e.message}`);
	}
	if (!file.endsWith('.ndjson')) {
		try {
			const one = JSON.parse(text);
			if (one && typeof one === 'object' && !Array.isArray(one))
				return [one];
		} catch {
			// not one object: try lines
		}
	}
	const reps = [];
	text.split('\n').forEach((line, i) => {
		if (line.trim() === '')
			return;
		try {
			reps.push(JSON.parse(line));
		} catch (e) {
			die(`${file} line ${i + 1}: not JSON: ${e.message}`);
		}
	});
	if (reps.length === 0)
		die(`${file}: no report`);
	return reps;
}

const TOP_SYSCALLS = 5; // a syscalls probe's figures: its first (slowest) syscalls

// "probe\0tid\0syscall" -> Map("interval lo hi" -> count) of what the page
// must draw: each thread group with buckets, and for a syscalls probe the
// TOP_SYSCALLS slowest syscalls in total over the stream (tid 0: all
// threads).  A single report has interval 0 only.
function expectedFigures(reps) {
	const figs = new Map();
	const add = (key, interval, buckets) => {
		if (!Array.isArray(buckets) || buckets.length === 0)
			return;
		if (!figs.has(key))
			figs.set(key, new Map());
		const cells = figs.get(key);
		for (const b of buckets) {
			if (b.count === 0)
				continue;
			const k = `${interval} ${b.lo_ns} ${b.hi_ns}`;
			cells.set(k, (cells.get(k) || 0) + b.count);
		}
	};
	// The slowest in total over the stream (a tie: by name).
	const totals = new Map();
	for (const rep of reps)
		for (const p of rep.probes || [])
			for (const sc of Array.isArray(p.syscalls) ? p.syscalls : []) {
				if (!totals.has(p.name))
					totals.set(p.name, new Map());
				const t = totals.get(p.name);
				t.set(sc.syscall, (t.get(sc.syscall) || 0) + Number(sc.sum_ns));
			}
	const topSyscalls = new Map();
	for (const [probe, t] of totals)
		topSyscalls.set(probe, [...t.entries()]
			.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
			.slice(0, TOP_SYSCALLS).map(([name]) => name));
	reps.forEach((rep, interval) => {
		for (const p of rep.probes || []) {
			if (Array.isArray(p.syscalls)) {
				for (const sc of p.syscalls)
					if (topSyscalls.get(p.name).includes(sc.syscall))
						add(`${p.name}\x000\x00${sc.syscall}`, interval, sc.buckets);
				continue;
			}
			for (const g of p.groups || [])
				add(`${p.name}\0${g.tid}\0`, interval, g.buckets);
		}
	});
	return figs;
}

const figName = (key) => {
	const [probe, tid, syscall] = key.split('\0');
	return `probe ${JSON.stringify(probe)} ${syscall ? `syscall ${syscall}` : `tid ${tid}`}`;
};

// Hovers RECT as a person with a mouse would: at a whole CSS pixel inside
// it (the nearest to its centre) where the page's hit test finds the rect
// itself.  Playwright's locator.hover() aims at the exact centre, which in a
// heatmap cell about one pixel tall rounds onto the svg around it.
async function checkTooltip(page, rect, tip) {
	const count = await rect.getAttribute('data-count');
	if (await tip.isVisible())
		fail('#tip is visible before any hover');
	await rect.scrollIntoViewIfNeeded({ timeout: 5000 });
	const pt = await rect.evaluate((r) => {
		const b = r.getBoundingClientRect();
		const around = (lo, hi) => {
			const mid = (lo + hi) / 2, v = [];
			for (let x = Math.ceil(lo); x < hi; x++)
				v.push(x);
			return v.sort((p, q) => Math.abs(p - mid) - Math.abs(q - mid));
		};
		const box = `${b.width.toFixed(2)} x ${b.height.toFixed(2)} px`;
		for (const y of around(b.top, b.bottom))
			for (const x of around(b.left, b.right).slice(0, 8))
				if (document.elementFromPoint(x, y) === r)
					return { x, y, box };
		return { box };
	});
	if (pt.x === undefined) {
		fail(`the first bar/cell (${pt.box}) cannot be hovered: no whole pixel of it reaches the pointer`);
		return;
	}
	await page.mouse.move(pt.x, pt.y);
	try {
		await tip.waitFor({ state: 'visible', timeout: 2000 });
	} catch {
		fail(`#tip not visible after hovering the first bar/cell (${pt.box}, at ${pt.x},${pt.y})`);
	}
	const text = (await tip.textContent()) || '';
	console.log(`tooltip (first ${rectClass}, ${pt.box}): ${JSON.stringify(text)}`);
	const n = Number(count);
	const forms = [count, n.toLocaleString('en-US')];
	if (!forms.some((f) => new RegExp(`(^|[^0-9.,])${f.replace(/[.,]/g, '\\$&')}($|[^0-9.,])`).test(text)))
		fail(`#tip text does not hold the hovered rect's data-count ${count}`);
}

// "-" for the report: a page a live run wrote with -o html -i, whose
// reports were not kept; its heatmaps are checked for form, not content.
const reps = reportArg === '-' ? null : readReports(reportArg);
const stream = reps ? reps.length > 1 : true;
const N = reps ? reps.length : null;
const figClass = stream ? 'heatmap' : 'hist';
const rectClass = stream ? 'cell' : 'bar';
const expected = reps ? expectedFigures(reps) : null;
let expectedRects = 0;
for (const cells of (expected || new Map()).values())
	expectedRects += cells.size;

const problems = [];
const fail = (msg) => {
	problems.push(msg);
	console.log(`FAIL: ${msg}`);
};

const { chromium, version: pwVersion } = loadPlaywright();
const pageUrl = pathToFileURL(path.resolve(htmlArg)).href;

const guard = setTimeout(() => {
	console.log(`FAIL: not done after ${TIMEOUT_MS / 1000} s`);
	process.exit(1);
}, TIMEOUT_MS);

let browser;
const t0 = Date.now();
try {
	browser = await chromium.launch({
		executablePath,
		headless: true,
		// root needs --no-sandbox; the rest keeps chromium from reaching
		// for the network (updates, field trials) in a machine that has none.
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--no-first-run',
			'--disable-features=Translate,MediaRouter,OptimizationHints'],
	});
} catch (e) {
	die(`cannot launch ${executablePath} with playwright-core ${pwVersion}: ${e.message.split('\n')[0]}`);
}
const launchMs = Date.now() - t0;

let consoleErrors = 0, pageErrors = 0, requests = 0;
let summary;
try {
	const context = await browser.newContext({
		offline: true,
		serviceWorkers: 'block',
		viewport: { width: 1280, height: 800 },
	});
	// Nothing but the page itself may be fetched: every other request is
	// counted (page 'request') and aborted here.
	await context.route('**/*', (route) =>
		route.request().url() === pageUrl ? route.continue() : route.abort('blockedbyclient'));
	const page = await context.newPage();
	page.on('console', (msg) => {
		if (msg.type() !== 'error' && msg.type() !== 'warning')
			return;
		consoleErrors++;
		const loc = msg.location();
		const where = loc && loc.url ? ` (${path.basename(loc.url)}:${loc.lineNumber})` : '';
		fail(`console ${msg.type()}: ${msg.text()}${where}`);
	});
	page.on('pageerror', (err) => {
		pageErrors++;
		fail(`page error: ${err.message}`);
	});
	page.on('request', (req) => {
		if (req.url() === pageUrl)
			return;
		requests++;
		fail(`request: ${req.method()} ${req.url().slice(0, 200)} (${req.resourceType()})`);
	});
	page.on('websocket', (ws) => {
		requests++;
		fail(`websocket: ${ws.url()}`);
	});
	page.on('crash', () => fail('the page crashed'));

	const resp = await page.goto(pageUrl, { waitUntil: 'load', timeout: 30000 });
	if (resp && !resp.ok() && resp.status() !== 0)
		fail(`loading ${pageUrl}: status ${resp.status()}`);
	await page.waitForFunction(() => {
		const nav = performance.getEntriesByType('navigation')[0];
		return nav && nav.loadEventEnd > 0;
	}, null, { timeout: 10000 });
	const drawnMs = await page.evaluate(() => {
		const nav = performance.getEntriesByType('navigation')[0];
		return Math.round(nav.loadEventEnd - nav.startTime);
	});

	// The CSP meta: present, default-src 'none', before what it governs.
	const csp = await page.evaluate(() => {
		const metas = [...document.querySelectorAll('meta[http-equiv]')]
			.filter((m) => m.httpEquiv.toLowerCase() === 'content-security-policy');
		if (metas.length === 0)
			return { found: false };
		const m = metas[0];
		const first = document.querySelector('script, style, link');
		return {
			found: true,
			content: m.content,
			inHead: m.parentElement === document.head,
			beforeAll: !first || !!(m.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING),
		};
	});
	if (!csp.found)
		fail('no <meta http-equiv="Content-Security-Policy">');
	else {
		if (!/(^|;)\s*default-src\s+'none'\s*(;|$)/.test(csp.content))
			fail(`Content-Security-Policy has no default-src 'none': ${JSON.stringify(csp.content)}`);
		if (!csp.inHead || !csp.beforeAll)
			fail('the Content-Security-Policy meta is not in <head> before every script, style and link');
	}

	// The figures as drawn.
	const drawn = await page.evaluate(({ figClass, rectClass }) => {
		const out = { figs: [], other: [] };
		const other = figClass === 'hist' ? 'heatmap' : 'hist';
		for (const svg of document.querySelectorAll(`svg.${other}`))
			out.other.push({ probe: svg.getAttribute('data-probe'), tid: svg.getAttribute('data-tid'),
				rects: svg.querySelectorAll('rect.bar, rect.cell').length });
		for (const svg of document.querySelectorAll(`svg.${figClass}`)) {
			const rects = [];
			for (const r of svg.querySelectorAll(`rect.${rectClass}`)) {
				const box = r.getBoundingClientRect();
				rects.push({
					interval: r.getAttribute('data-interval'),
					lo: r.getAttribute('data-lo-ns'),
					hi: r.getAttribute('data-hi-ns'),
					count: r.getAttribute('data-count'),
					drawn: box.width > 0 && box.height > 0,
				});
			}
			out.figs.push({ probe: svg.getAttribute('data-probe'), tid: svg.getAttribute('data-tid'),
				syscall: svg.getAttribute('data-syscall') || '',
				intervals: svg.getAttribute('data-intervals'), rects });
		}
		return out;
	}, { figClass, rectClass });

	for (const o of drawn.other)
		if (o.rects > 0)
			fail(`an svg.${figClass === 'hist' ? 'heatmap' : 'hist'} (probe ${JSON.stringify(o.probe)} tid ${o.tid}, ` +
				`${o.rects} rects) in the page of ${stream ? `a stream of ${N} reports` : 'one report'}`);

	const intRe = /^(0|[1-9][0-9]*)$/;
	const seen = new Set();
	let drawnRects = 0, undrawn = 0, countsDiffer = false;
	for (const f of drawn.figs) {
		const key = `${f.probe}\0${f.tid}\0${f.syscall}`;
		const name = `svg.${figClass} of ${figName(key)}`;
		drawnRects += f.rects.length;
		if (seen.has(key)) {
			fail(`${name}: drawn twice`);
			continue;
		}
		seen.add(key);
		if (stream && N !== null && f.intervals !== String(N))
			fail(`${name}: data-intervals="${f.intervals}", the stream has ${N}`);
		if (!expected && !intRe.test(f.intervals ?? ''))
			fail(`${name}: data-intervals="${f.intervals}" is not a number`);
		const want = expected ? (expected.get(key) || new Map()) : new Map();
		if (expected && !expected.has(key) && f.rects.length === 0)
			continue; // an empty figure for a group with no buckets
		if (expected && !expected.has(key)) {
			fail(`${name}: ${f.rects.length} ${rectClass}s, the report has no buckets for it`);
			continue;
		}
		const got = new Map();
		const diffs = [];
		for (const r of f.rects) {
			if (!r.drawn)
				undrawn++;
			const interval = stream ? r.interval : '0';
			const bad = ['lo', 'hi', 'count'].filter((a) => !intRe.test(r[a] ?? ''));
			if (stream && !intRe.test(interval ?? ''))
				bad.push('interval');
			if (bad.length) {
				diffs.push(`rect.${rectClass} with bad data-${bad.join(', data-')}: ${JSON.stringify(r)}`);
				continue;
			}
			const k = `${interval} ${r.lo} ${r.hi}`;
			if (got.has(k))
				diffs.push(`${k.replace(/^(\S+) (\S+) (\S+)$/, stream ? 'interval $1 [$2, $3)' : '[$2, $3)')} drawn twice`);
			got.set(k, Number(r.count));
		}
		const label = (k) => {
			const [i, lo, hi] = k.split(' ');
			return stream ? `interval ${i} [${lo}, ${hi}) ns` : `[${lo}, ${hi}) ns`;
		};
		for (const [k, c] of expected ? want : []) {
			if (!got.has(k))
				diffs.push(`missing ${label(k)} count ${c}`);
			else if (got.get(k) !== c) {
				countsDiffer = true;
				diffs.push(`${label(k)}: count ${got.get(k)} drawn, ${c} in the report`);
			}
		}
		for (const [k, c] of expected ? got : [])
			if (!want.has(k))
				diffs.push(`extra ${label(k)} count ${c} (not in the report)`);
		if (diffs.length) {
			fail(`${name}: ${diffs.length} difference(s) from the report (${f.rects.length} drawn, ${want.size} expected):`);
			for (const d of diffs.slice(0, MAX_SHOWN))
				console.log(`      ${d}`);
			if (diffs.length > MAX_SHOWN)
				console.log(`      ... and ${diffs.length - MAX_SHOWN} more`);
		}
	}
	if (!expected && drawnRects === 0)
		fail(`no rect.${rectClass} in the page of a live run`);
	if (!expected)
		expectedRects = drawnRects;
	for (const key of (expected || new Map()).keys())
		if (!seen.has(key))
			fail(`no svg.${figClass} for ${figName(key)} (${expected.get(key).size} buckets in the report)`);
	if (undrawn)
		fail(`${undrawn} ${rectClass}(s) of size zero (not drawn)`);

	// The tooltip of the first bar or cell.
	const first = page.locator('rect.bar, rect.cell').first();
	const tip = page.locator('#tip');
	if (await tip.count() !== 1)
		fail(`${await tip.count()} elements #tip`);
	else if (await first.count() === 0) {
		if (expectedRects > 0)
			fail('no rect.bar or rect.cell to hover');
		else
			console.log('tooltip: not checked (the report has no buckets to draw)');
	} else {
		try {
			await checkTooltip(page, first, tip);
		} catch (e) {
			fail(`tooltip check stopped: ${e.message.split('\n')[0]}`);
		}
	}

	await page.screenshot({ path: shotArg, fullPage: true });

	const figs = stream ? 'heatmaps' : 'histograms';
	const rects = stream ? 'cells' : 'bars';
	summary = `html ${path.basename(htmlArg)}: ${drawn.figs.length} ${figs}, ${drawnRects} ${rects}` +
		(!expected ? ' (not compared: no report given)' : drawnRects === expectedRects ? ' (= the report\'s buckets)' : ` (the report has ${expectedRects} buckets)`) +
		`, counts ${countsDiffer ? 'differ' : 'equal'}, ${consoleErrors} console errors, ${pageErrors} page errors, ` +
		`${requests} requests, drawn in ${drawnMs} ms (chromium ${browser.version()} launched in ${launchMs} ms, ` +
		`playwright-core ${pwVersion})`;
	await context.close();
} catch (e) {
	fail(`check stopped: ${e.message.split('\n')[0]}`);
} finally {
	await browser.close();
	clearTimeout(guard);
}

if (problems.length) {
	if (summary)
		console.log(`seen: ${summary}`);
	console.log(`FAIL: ${path.basename(htmlArg)}: ${problems.length} problem(s)`);
	process.exit(1);
}
console.log(`measured: ${summary}`);
process.exit(0);
