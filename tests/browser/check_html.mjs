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
//   - span probes: the same per row (data-row "STAGE LABEL", data-tid 0),
//     every row of every report;
//   - http probes: the same per route (data-row "METHOD ROUTE", data-tid
//     0), every route of every report (pages of more than 20 routes
//     draw the slowest only: their figures are not checked);
//   - one report (a JSON object, or NDJSON of one line): per probe and
//     group with buckets, an <svg class="hist" data-probe data-tid> whose
//     <rect class="bar" data-lo-ns data-hi-ns data-count> are that group's
//     buckets, no more and no fewer;
//   - a stream (NDJSON, N > 1 reports, one per line): per probe name and
//     tid with buckets in any line, a <figure class="heatmap" data-probe
//     data-tid data-intervals="N"> whose packed data-cells (decoded here,
//     independently of the page's script) are exactly the non-empty
//     buckets of that group in each line I (from 0), with the bounds of
//     data-row-lo-ns and data-row-hi-ns;
//   - and its canvases (side by side past 8192 intervals), as the page's
//     script drew them, have one pixel per
//     interval and row: coloured (a colour of the legend) where there is
//     a cell and transparent where there is none, the colour's level never
//     lower for a larger count, the largest count in the darkest;
//   - per utilization probe and thread, a <figure class="util"> (above the
//     thread's own heatmap, and above its heatmaps of other probes) whose
//     data-busy is each interval's utilization in thousandths (plus one, 0
//     when the thread is not in it) and whose canvas is coloured where
//     there is a value;
//   - every bar, heatmap and strip is drawn (a box of non-zero size);
//   - hovering the first bar, or the first cell of the first heatmap, shows
//     #tip with its count;
// With "-" for the report (a page a live run wrote with -o html -i), the
// heatmaps must be there and well formed (data and canvas agree), their
// content is not compared with a report.
// then it takes a full-page screenshot (with the tooltip showing) and
// prints one "measured:" line.  Each problem is a line "FAIL: ...".
// Exit status: 0 when every check passed, 1 when one failed, 2 when the
// check could not run (usage, playwright-core or chromium missing).
// Several pages: more triples after the first; chromium is launched once,
// each page gets a fresh context and a "page: NAME" line before its own.
//
// Run: NODE_PATH=/var/cache/bpfspec-npm/node_modules \
//        node tests/browser/check_html.mjs out.html out.json shot.png [...]
// (NODE_PATH does not reach ES module imports: playwright-core is loaded
// with createRequire from the directories below.)

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const MAX_SHOWN = 8; // differences printed per figure
const TIMEOUT_MS = 90000; // the whole check, per page

function die(msg) {
	console.log(`FAIL: ${msg}`);
	process.exit(2);
}

const pageArgs = process.argv.slice(2);
if (pageArgs.length === 0 || pageArgs.length % 3 !== 0)
	die('usage: node check_html.mjs REPORT.html REPORT.json|REPORT.ndjson|- SCREENSHOT.png [MORE TRIPLES...]');

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
	const TOP_ROUTES = 20;
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
	// An http probe's routes over the stream: the page draws the
	// TOP_ROUTES slowest (by the p99 of the requests of every interval),
	// so routes are checked when there are no more than that.
	const routes = new Map();
	for (const rep of reps)
		for (const p of rep.probes || [])
			for (const r of p.kind === 'http' ? p.routes || [] : []) {
				if (!routes.has(p.name))
					routes.set(p.name, new Set());
				routes.get(p.name).add(`${r.method} ${r.route}`);
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
			for (const r of p.kind === 'span' ? p.rows || [] : [])
				add(`${p.name}\x000\x00${spanRow(r)}`, interval, r.buckets);
			for (const r of p.kind === 'http' ? p.routes || [] : [])
				if (routes.get(p.name).size <= TOP_ROUTES)
					add(`${p.name}\x000\x00${r.method} ${r.route}`, interval, r.buckets);
			for (const g of p.groups || [])
				add(`${p.name}\0${g.tid}\0`, interval, g.buckets);
		}
	});
	return figs;
}

// The text form (gen/util/safe.h) of the bytes of a string the traced
// process controls: TEXT as JSON holds it, or HEX, its exact bytes, when
// it is not UTF-8.  Printable characters as they are, '\\' doubled, a
// control byte or a byte of invalid UTF-8 as \xNN, a character a terminal
// gives no column (C1 controls, format characters, combining marks, line
// and paragraph separators, unassigned code points) as \uNNNN or
// \UNNNNNNNN.  What the page shows, and its data-row says.
const NO_COLUMN = /^[\p{Cc}\p{Cf}\p{Mn}\p{Me}\p{Zl}\p{Zp}\p{Cn}]$/u;
function textForm(text, hex) {
	const bytes = hex ? Buffer.from(hex, 'hex') : Buffer.from(text, 'utf8');
	const hex2 = (b) => `\\x${b.toString(16).padStart(2, '0')}`;
	let out = '';
	for (let i = 0; i < bytes.length;) {
		const b = bytes[i];
		const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
		let ch = null;
		if (n > 1 && i + n <= bytes.length) {
			try {
				ch = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + n));
			} catch {
				ch = null;
			}
			if (ch && [...ch].length !== 1)
				ch = null;
		}
		if (n === 1) {
			out += b < 0x20 || b === 0x7f ? hex2(b) : b === 0x5c ? '\\\\' : String.fromCharCode(b);
			i++;
		} else if (!ch) {
			out += hex2(b);
			i++;
		} else {
			const cp = ch.codePointAt(0);
			out += !NO_COLUMN.test(ch) ? ch : cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}`
				: `\\u${cp.toString(16).padStart(4, '0')}`;
			i += n;
		}
	}
	return out;
}

// A span probe's row as its figure's data-row says it: "STAGE LABEL",
// "total" for whole spans, "-" for no label, a label in its text form.
const spanRow = (r) => `${r.stage ?? 'total'} ${r.label == null ? '-' : textForm(r.label, r.label_hex)}`;

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

// Hovers cell F.rects[0] of the FIG-th heatmap's canvas at its centre, as
// a person with a mouse would, and checks that #tip shows its count.
async function checkCellTooltip(page, tip, fig, f) {
	const c = f.rects[0];
	if (await tip.isVisible())
		fail('#tip is visible before any hover');
	const figure = page.locator('figure.heatmap').nth(fig);
	const pt = await figure.evaluate((f, { i, row, rows }) => {
		// The canvas holding interval I, and the cell's centre on it.
		const el = [...f.querySelectorAll('canvas.cells')].find((c) =>
			Number(c.getAttribute('data-first')) <= i && i < Number(c.getAttribute('data-first')) + c.width);
		if (!el)
			return { hit: false, box: 'no canvas holds it' };
		el.scrollIntoView({ block: 'center', inline: 'start' });
		const b = el.getBoundingClientRect(), first = Number(el.getAttribute('data-first'));
		const x = b.left + (i - first + 0.5) * b.width / el.width, y = b.top + (row + 0.5) * b.height / rows;
		return { x, y, hit: document.elementFromPoint(x, y) === el,
			box: `${(b.width / el.width).toFixed(2)} x ${(b.height / rows).toFixed(2)} px` };
	}, { i: Number(c.interval), row: c.row, rows: Number(f.rows) });
	if (!pt.hit) {
		fail(`the first cell (${pt.box}) cannot be hovered: the canvas is not what the pointer finds at its centre`);
		return;
	}
	await page.mouse.move(pt.x, pt.y);
	try {
		await tip.waitFor({ state: 'visible', timeout: 2000 });
	} catch {
		fail(`#tip not visible after hovering the first cell (${pt.box}, at ${pt.x.toFixed(1)},${pt.y.toFixed(1)})`);
		return;
	}
	const text = (await tip.textContent()) || '';
	console.log(`tooltip (first cell, ${pt.box}): ${JSON.stringify(text)}`);
	if (!text.includes(`count ${c.count}\n`) || !text.startsWith(`interval ${Number(c.interval) + 1} `))
		fail(`#tip does not show interval ${Number(c.interval) + 1} and count ${c.count} of the hovered cell`);
}

const intRe = /^(0|[1-9][0-9]*)$/;

// The numbers of a packed data attribute (render_html_charts.c): unsigned
// varints in base64.  Throws on a malformed one.
function unpack(text) {
	if (typeof text !== 'string' || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
		throw new Error(`not base64: ${JSON.stringify(String(text).slice(0, 40))}`);
	const out = [];
	let v = 0, scale = 1, open = false;
	for (const b of Buffer.from(text, 'base64')) {
		v += (b & 127) * scale;
		open = (b & 128) !== 0;
		if (open) {
			scale *= 128;
		} else {
			out.push(v);
			v = 0;
			scale = 1;
		}
	}
	if (open)
		throw new Error('the last number is cut short');
	return out;
}

// A heatmap F's cells from its data, as {interval, row, lo, hi, count,
// drawn, level}; checks its canvas against them (PROBLEM(msg) for each
// problem).
function heatmapCells(f, problem) {
	const n = Number(f.intervals), rows = Number(f.rows);
	if (!intRe.test(f.intervals ?? '') || !intRe.test(f.rows ?? '') || rows === 0) {
		problem(`data-intervals="${f.intervals}", data-rows="${f.rows}"`);
		return [];
	}
	const lo = (f.rowLo || '').split(','), hi = (f.rowHi || '').split(',');
	if (lo.length !== rows || hi.length !== rows)
		problem(`${lo.length} and ${hi.length} row bounds for ${rows} rows`);
	if (f.canvasW !== n || f.canvasH !== rows)
		problem(`its canvas is ${f.canvasW} x ${f.canvasH} pixels, not one per interval and row (${n} x ${rows})`);
	if (!f.drawn)
		problem('a canvas of it is not drawn (a box of size zero, or rows unlike the others)');
	let v;
	try {
		v = unpack(f.cells);
	} catch (e) {
		problem(`data-cells: ${e.message}`);
		return [];
	}
	const cells = [];
	let k = 0;
	for (let i = 0; i < n && k < v.length; i++) {
		const m = v[k++];
		for (let j = 0, row = -1; j < m; j++) {
			row += v[k++] + 1;
			const count = v[k++];
			if (count === undefined || !(row < rows)) {
				problem(`data-cells: interval ${i}, cell ${j}: past the end or the last row`);
				return cells;
			}
			const pix = f.mask[row * n + i];
			cells.push({ interval: String(i), row, lo: lo[row], hi: hi[row], count: String(count),
				drawn: pix !== undefined && pix !== '.', level: pix });
		}
		if (i === n - 1 && k !== v.length)
			problem(`data-cells: ${v.length - k} numbers past the last interval`);
	}
	let coloured = 0, foreign = 0;
	for (const ch of f.mask) {
		coloured += ch !== '.';
		foreign += ch === '?';
	}
	const drawn = cells.filter((c) => c.drawn);
	if (coloured > drawn.length)
		problem(`${coloured - drawn.length} coloured pixel(s) where there is no cell`);
	if (foreign)
		problem(`${foreign} pixel(s) of a colour not in the legend`);
	const byCount = drawn.filter((c) => c.level !== '?').sort((a, b) => Number(a.count) - Number(b.count));
	for (let t = 1; t < byCount.length; t++)
		if (byCount[t].level < byCount[t - 1].level && byCount[t].count !== byCount[t - 1].count) {
			problem(`count ${byCount[t].count} is drawn lighter (${byCount[t].level}) than count ` +
				`${byCount[t - 1].count} (${byCount[t - 1].level})`);
			break;
		}
	const top = byCount[byCount.length - 1];
	if (top && (top.count !== f.maxCount || top.level !== 'i'))
		problem(`the largest count drawn is ${top.count} in level ${top.level}; data-max-count is ` +
			`${f.maxCount}, which should be the darkest (i)`);
	return cells;
}

// The utilization strips: each interval's busy share as the report has it
// (when there is one), and a coloured pixel where there is a value.
function checkStrips(strips) {
	const want = new Map(); // "probe\0tid" -> [per interval: 0 or thousandths + 1]
	const seen = new Set(); // a strip may be drawn above several heatmaps
	reps?.forEach((rep, i) => {
		for (const p of rep.probes || [])
			for (const g of p.kind === 'utilization' ? p.groups || [] : []) {
				const key = `${p.name}\0${g.tid}`;
				if (!want.has(key))
					want.set(key, new Array(reps.length).fill(0));
				want.get(key)[i] = Math.round(Math.min(1, Math.max(0, g.utilization)) * 1000) + 1;
			}
	});
	for (const u of strips) {
		const key = `${u.probe}\0${u.tid}`, name = `figure.util of probe ${JSON.stringify(u.probe)} tid ${u.tid}`;
		let busy;
		try {
			busy = unpack(u.busy);
		} catch (e) {
			fail(`${name}: data-busy: ${e.message}`);
			continue;
		}
		if (!u.drawn)
			fail(`${name}: a canvas of it is not drawn (a box of size zero)`);
		if (u.mask.length !== busy.length || busy.some((b, i) => (b !== 0) !== (u.mask[i] === '#')))
			fail(`${name}: its canvas (${u.mask.length} pixels) is not coloured exactly where data-busy has a value`);
		if (reps && (!want.has(key) || want.get(key).join() !== busy.join()))
			fail(`${name}: data-busy ${busy.slice(0, 8).join(',')}... is not the report's ` +
				`${(want.get(key) || []).slice(0, 8).join(',')}...`);
		seen.add(key);
	}
	if (stream)
		for (const key of [...want.keys()].filter((k) => !seen.has(k)))
			fail(`no figure.util for probe ${JSON.stringify(key.split('\0')[0])} tid ${key.split('\0')[1]}`);
}

// "-" for the report: a page a live run wrote with -o html -i, whose
// reports were not kept; its heatmaps are checked for form, not content.
// Per page (checkPage sets them; the functions above read them).
let reps, stream, N, rectClass, expected, expectedRects, problems;
const fail = (msg) => {
	problems.push(msg);
	console.log(`FAIL: ${msg}`);
};

const { chromium, version: pwVersion } = loadPlaywright();

const guard = setTimeout(() => {
	console.log(`FAIL: not done after ${TIMEOUT_MS / 1000} s`);
	process.exit(1);
}, TIMEOUT_MS * (pageArgs.length / 3));

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

// checkPage — one page: its triple's checks, in the browser launched
// once for all of them.  Prints FAIL lines and one measured: (or seen:)
// line; returns whether every check passed.
async function checkPage(htmlArg, reportArg, shotArg) {
	reps = reportArg === '-' ? null : readReports(reportArg);
	stream = reps ? reps.length > 1 : true;
	N = reps ? reps.length : null;
	rectClass = stream ? 'cell' : 'bar';
	expected = reps ? expectedFigures(reps) : null;
	expectedRects = 0;
	for (const cells of (expected || new Map()).values())
		expectedRects += cells.size;
	problems = [];
	const pageUrl = pathToFileURL(path.resolve(htmlArg)).href;

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

		// The figures as drawn: a histogram's rects; a heatmap's packed data
		// and its canvas as a mask of one character per pixel ('.'
		// transparent, 'a' to 'i' the legend's colours h0 to h8, '?' another).
		const drawn = await page.evaluate(({ stream }) => {
			const out = { figs: [], other: 0, util: [] };
			const rgba = (d, p) => `${d[p]},${d[p + 1]},${d[p + 2]},${d[p + 3]}`;
			// The figure's canvases (side by side, each from its data-first
			// interval) as one mask, row by row: { w, h, mask, drawn }.
			const mask = (fig, colours) => {
				const parts = [...fig.querySelectorAll('canvas.cells')];
				const w = parts.reduce((t, c) => t + c.width, 0), h = parts.length ? parts[0].height : 0;
				const chars = new Array(w * h).fill('?');
				let drawn = parts.length > 0;
				for (const c of parts) {
					const b = c.getBoundingClientRect(), first = Number(c.getAttribute('data-first'));
					drawn = drawn && b.width > 0 && b.height > 0 && c.height === h;
					if (c.width === 0 || c.height === 0 || c.height !== h)
						continue;
					const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
					for (let y = 0; y < c.height; y++)
						for (let x = 0; x < c.width; x++) {
							const p = (y * c.width + x) * 4, k = y * w + first + x;
							if (d[p + 3] === 0) {
								chars[k] = '.';
								continue;
							}
							const level = colours.indexOf(rgba(d, p));
							chars[k] = level < 0 ? '?' : String.fromCharCode(97 + level);
						}
				}
				return { w, h, mask: chars.join(''), drawn };
			};
			if (stream)
				out.other = document.querySelectorAll('svg.hist rect.bar').length;
			else
				out.other = document.querySelectorAll('figure.heatmap, figure.util').length;
			for (const fig of document.querySelectorAll('figure.heatmap')) {
				const colours = [...fig.querySelectorAll('.legend .swatch')].map((sw) => {
					const m = getComputedStyle(sw).backgroundColor.match(/\d+/g).map(Number);
					return `${m[0]},${m[1]},${m[2]},255`;
				});
				const a = (n) => fig.getAttribute(`data-${n}`);
				const m = mask(fig, colours);
				out.figs.push({ probe: a('probe'), tid: a('tid'), syscall: a('syscall') || a('row') || '',
					intervals: a('intervals'), rows: a('rows'), maxCount: a('max-count'),
					rowLo: a('row-lo-ns'), rowHi: a('row-hi-ns'), cells: a('cells'),
					canvasW: m.w, canvasH: m.h, drawn: m.drawn, mask: m.mask });
			}
			for (const fig of document.querySelectorAll('figure.util')) {
				const m = mask(fig, []);
				out.util.push({ probe: fig.getAttribute('data-probe'), tid: fig.getAttribute('data-tid'),
					busy: fig.getAttribute('data-busy'), drawn: m.drawn,
					mask: m.mask.replace(/[^.]/g, '#') });
			}
			if (!stream)
				for (const svg of document.querySelectorAll('svg.hist')) {
					const rects = [];
					for (const r of svg.querySelectorAll('rect.bar')) {
						const box = r.getBoundingClientRect();
						rects.push({ lo: r.getAttribute('data-lo-ns'), hi: r.getAttribute('data-hi-ns'),
							count: r.getAttribute('data-count'), drawn: box.width > 0 && box.height > 0 });
					}
					out.figs.push({ probe: svg.getAttribute('data-probe'), tid: svg.getAttribute('data-tid'),
						syscall: svg.getAttribute('data-syscall') || svg.getAttribute('data-row') || '',
						intervals: svg.getAttribute('data-intervals'), rects });
				}
			return out;
		}, { stream });

		if (drawn.other > 0)
			fail(stream ? `${drawn.other} histogram bars in the page of a stream of ${N} reports`
				: `${drawn.other} heatmaps or strips in the page of one report`);
		// A heatmap's cells as rects (interval, bounds, count, drawn), from its
		// data; its canvas's problems go to DIFFS.
		for (const f of stream ? drawn.figs : [])
			f.rects = heatmapCells(f, (msg) => fail(`figure.heatmap of ${figName(`${f.probe}\0${f.tid}\0${f.syscall}`)}: ${msg}`));
		checkStrips(drawn.util);

		const seen = new Set();
		let drawnRects = 0, undrawn = 0, countsDiffer = false;
		for (const f of drawn.figs) {
			const key = `${f.probe}\0${f.tid}\0${f.syscall}`;
			const name = `${stream ? 'figure.heatmap' : 'svg.hist'} of ${figName(key)}`;
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
					diffs.push(`${rectClass} with bad data-${bad.join(', data-')}: ${JSON.stringify(r)}`);
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
			fail(`no ${rectClass} in the page of a live run`);
		if (!expected)
			expectedRects = drawnRects;
		for (const key of (expected || new Map()).keys())
			if (!seen.has(key))
				fail(`no ${stream ? 'figure.heatmap' : 'svg.hist'} for ${figName(key)} (${expected.get(key).size} buckets in the report)`);
		if (undrawn)
			fail(stream ? `${undrawn} cell(s) not drawn (a transparent pixel in the canvas)`
				: `${undrawn} bar(s) of size zero (not drawn)`);

		// The tooltip of the first bar, or of the first heatmap's first cell.
		const tip = page.locator('#tip');
		const firstFig = drawn.figs.findIndex((f) => f.rects.length > 0);
		if (await tip.count() !== 1)
			fail(`${await tip.count()} elements #tip`);
		else if (firstFig < 0) {
			if (expectedRects > 0)
				fail(`no ${rectClass} to hover`);
			else
				console.log('tooltip: not checked (the report has no buckets to draw)');
		} else {
			try {
				if (stream)
					await checkCellTooltip(page, tip, firstFig, drawn.figs[firstFig]);
				else
					await checkTooltip(page, page.locator('svg.hist rect.bar').first(), tip);
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
	}

	if (problems.length) {
		if (summary)
			console.log(`seen: ${summary}`);
		console.log(`FAIL: ${path.basename(htmlArg)}: ${problems.length} problem(s)`);
		return false;
	}
	console.log(`measured: ${summary}`);
	return true;
}

let allPassed = true;
for (let k = 0; k < pageArgs.length; k += 3) {
	if (pageArgs.length > 3)
		console.log(`page: ${path.basename(pageArgs[k])}`);
	if (!await checkPage(pageArgs[k], pageArgs[k + 1], pageArgs[k + 2]))
		allPassed = false;
}
await browser.close();
clearTimeout(guard);
process.exit(allPassed ? 0 : 1);

