// fs_loop.js — reads one file with fs.readFile, one read after the other,
// for a few seconds: each readFile runs its openat, statx, read and close
// on libuv's thread pool, never on the main thread.
//
// The loop starts on SIGUSR2 (time for a tracer to attach; without the
// signal it starts after --delay seconds) and runs --seconds seconds,
// with a 1 ms timer between reads.  With --stats FILE it writes the number
// of completed readFile calls to FILE when it exits.
// Usage: node fs_loop.js FILE [--seconds N] [--delay N] [--stats FILE]
'use strict';

const fs = require('fs');

const args = process.argv.slice(2);
const file = args[0];
const opt = (name, dflt) => args.includes(name) ? args[args.indexOf(name) + 1] : dflt;
const seconds = Number(opt('--seconds', 3));
const delay = Number(opt('--delay', 60));
const statsFile = opt('--stats', null);
const size = fs.statSync(file).size;
let done = 0;
let started = false;

function start() {
	if (started)
		return;
	started = true;
	clearTimeout(fallback);
	const end = Date.now() + seconds * 1000;
	const next = () => fs.readFile(file, (err, data) => {
		if (err || data.length !== size) {
			console.error(`fs_loop: readFile ${file}: ${err || `${data.length} bytes, expected ${size}`}`);
			process.exit(1);
		}
		done++;
		if (Date.now() < end)
			setTimeout(next, 1);
		else
			process.exit(0);
	});
	next();
}

if (statsFile)
	process.on('exit', () => fs.writeFileSync(statsFile, `readfile_calls=${done}\n`));
process.on('SIGUSR2', start);
const fallback = setTimeout(start, delay * 1000);
