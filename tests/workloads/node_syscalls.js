// node_syscalls.js — a Node.js workload that exercises every bundled
// syscall spec, every 50 ms until it is stopped (SIGTERM):
//   file-io:     fs.readFile of FILE (openat, statx, read, close on the
//                thread pool)
//   net-connect: net.connect to a closed port on 127.0.0.1 (socket and a
//                non-blocking connect: EINPROGRESS, then ECONNREFUSED)
//   memory:      a 64 MiB Buffer, dropped and collected: glibc serves
//                allocations over 32 MiB with mmap and returns them with
//                munmap whatever its dynamic threshold
//   syscall-latency: all of the above, and the event loop's own calls.
// It writes "port N" (the closed port) to PORT_FILE before it starts, and
// with TICK_LOG, the wall-clock time (ms since the epoch) of every tick,
// one per line, as it starts the tick.
// Usage: node --expose-gc node_syscalls.js FILE PORT_FILE [TICK_LOG]
'use strict';

const fs = require('fs');
const net = require('net');

const [file, portFile, tickLog] = process.argv.slice(2);
const tickFd = tickLog ? fs.openSync(tickLog, 'w') : -1;
if (typeof gc !== 'function') {
	console.error('node_syscalls.js: run with node --expose-gc');
	process.exit(2);
}

function tick(port) {
	if (tickFd >= 0)
		fs.writeSync(tickFd, `${Date.now()}\n`);
	fs.readFile(file, (err) => {
		if (err) {
			console.error(`node_syscalls.js: ${err}`);
			process.exit(1);
		}
	});
	net.connect(port, '127.0.0.1').on('error', () => {});
	let big = Buffer.alloc(64 * 1024 * 1024);
	big[big.length - 1] = 1;
	big = null;
	gc();
}

// A closed port: listen on port 0, note the port, close.
const srv = net.createServer().listen(0, '127.0.0.1', () => {
	const port = srv.address().port;
	srv.close(() => {
		fs.writeFileSync(portFile, `port ${port}\n`);
		setInterval(() => tick(port), 50);
	});
});
process.on('SIGTERM', () => process.exit(0));
