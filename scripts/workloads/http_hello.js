// http_hello.js — a Node.js HTTP hello-world for the overhead rows of
// scripts/bench.sh: every request gets "hello\n".  Prints "listening PORT"
// once it accepts connections.  With --fs, each request first stats this
// file and reads it through libuv's thread pool (two pieces of pool work
// per request, as a server that serves files does).  With --busy MS, each
// request first runs render (JavaScript, MS ms on the CPU), for the stack
// sampler's rows (scripts/bench/stack_walk.sh).
// Usage: node http_hello.js PORT [--fs | --busy MS]
'use strict';

const http = require('http');

const port = Number(process.argv[2] || 8080);
const fs = require('fs');
const withFs = process.argv.includes('--fs');
const busyAt = process.argv.indexOf('--busy');
const busyMs = busyAt > 0 ? Number(process.argv[busyAt + 1]) : 0;

function render(ms) {
	const t = Date.now();
	let x = 0;
	while (Date.now() - t < ms)
		for (let i = 0; i < 1000; i++)
			x += Math.sqrt(i + x % 7);
	return x;
}

function hello(res) {
	res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 6 });
	res.end('hello\n');
}

const server = http.createServer((req, res) => {
	if (busyMs > 0)
		render(busyMs);
	if (!withFs)
		return hello(res);
	fs.stat(__filename, (err) => {
		if (err)
			throw err;
		fs.readFile(__filename, (err2) => {
			if (err2)
				throw err2;
			hello(res);
		});
	});
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${port}`));
process.on('SIGTERM', () => process.exit(0));
