// exec_sync_server.js — an HTTP server whose handler blocks the event
// loop in a child process: each request runs execSync(COMMAND) (default
// 'sleep 0.03') before it answers.  libuv runs a loop of its own on the
// main thread until the child exits (inside the outer loop's poll phase,
// where HTTP handlers run), so the server is stuck for the child's whole
// life.  The handler logs each call as the wall clock saw it; GET /log
// answers with the log so far, one line a call: "START_UNIX_NS DUR_NS"
// (performance.timeOrigin + now, in ns).  The port it listens on (an
// ephemeral one, loopback) is written to PORTFILE.
// Usage: node exec_sync_server.js PORTFILE [COMMAND]
'use strict';

const http = require('http');
const fs = require('fs');
const { execSync } = require('child_process');
const { performance } = require('perf_hooks');

const [portFile, command = 'sleep 0.03'] = process.argv.slice(2);
if (!portFile) {
	console.error('usage: node exec_sync_server.js PORTFILE [COMMAND]');
	process.exit(2);
}
const nowNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
const calls = [];

const server = http.createServer((req, res) => {
	if (req.url === '/log') {
		res.end(calls.join('\n') + (calls.length ? '\n' : ''));
		return;
	}
	const start = nowNs();
	execSync(command);
	calls.push(`${start} ${nowNs() - start}`);
	res.end('ok\n');
});
server.listen(0, '127.0.0.1', () => {
	fs.writeFileSync(portFile, `${server.address().port}\n`);
});
