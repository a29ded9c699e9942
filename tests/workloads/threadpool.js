// threadpool.js LOG FIFO... — libuv thread-pool work of a known shape,
// for tests/integration/test_threadpool.sh; run it with
// UV_THREADPOOL_SIZE=2.  Every piece of work is logged when it is done,
// one line "TAG SUBMIT_NS CALLBACK_NS" (process.hrtime, ns), the log
// written at exit:
//   calib   pbkdf2 jobs that size the others (about 20 ms each alone)
//   alone   5 jobs one after another: the pool idle, no queue
//   burst   6 bursts of 4 jobs at once: 2 run, 2 wait one job's length
//   open, read, stat, close   2 rounds of: the FIFOs opened (their
//           writers, tests/workloads/fifo_writer, answer each open at
//           once and write after a delay), then a read of each FIFO and
//           an fs.stat submitted together: two reads hold both threads
//           for the delay, the rest wait for them
// Ends with "JOB_NS N" (the median of the alone jobs) in the log.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const [logPath, ...fifos] = process.argv.slice(2);
const lines = [];
const now = () => process.hrtime.bigint();

// Runs one piece of work through CALL(cb) and logs it under TAG.
function work(tag, call) {
	return new Promise((resolve, reject) => {
		const t0 = now();
		call((err, value) => {
			const t1 = now();
			if (err) return reject(err);
			lines.push(`${tag} ${t0} ${t1}`);
			resolve({ ns: Number(t1 - t0), value });
		});
	});
}

const pbkdf2 = (tag, iterations) =>
	work(tag, (cb) => crypto.pbkdf2('password', 'salt', iterations, 32, 'sha256', cb));

async function main() {
	// Node's first half second has its own threads compiling and
	// collecting on the same CPUs: a job measured then is slower than the
	// same job later (node 24 in CI: 26 ms alone at start, 21 ms on the
	// pool in the bursts after), and the sizes below would not be the
	// bursts' truth.  The work starts once that has settled.
	await new Promise((r) => setTimeout(r, 500));
	let iterations = 20000;
	for (let i = 0; i < 3; i++) {
		const { ns } = await pbkdf2('calib', iterations);
		iterations = Math.max(1000, Math.round(iterations * 20e6 / ns));
	}
	const alone = [];
	for (let i = 0; i < 5; i++)
		alone.push((await pbkdf2('alone', iterations)).ns);
	alone.sort((a, b) => a - b);
	for (let b = 0; b < 6; b++) {
		await Promise.all([0, 1, 2, 3].map(() => pbkdf2('burst', iterations)));
		await new Promise((r) => setTimeout(r, 50));
	}
	for (let round = 0; round < 2; round++) {
		const fds = await Promise.all(fifos.map((f) =>
			work('open', (cb) => fs.open(f, 'r', cb))));
		await Promise.all([
			...fds.map(({ value: fd }) =>
				work('read', (cb) => fs.read(fd, Buffer.alloc(64), 0, 64, null, cb))),
			work('stat', (cb) => fs.stat('/', cb)),
		]);
		await Promise.all(fds.map(({ value: fd }) => work('close', (cb) => fs.close(fd, cb))));
	}
	lines.push(`JOB_NS ${alone[2]}`);
	fs.writeFileSync(logPath, lines.join('\n') + '\n');
}

main().catch((e) => { console.error(e); process.exit(1); });
