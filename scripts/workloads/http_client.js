// http_client.js PORT — the demo's HTTP client: over two keep-alive
// connections, a GET every 20 ms to 127.0.0.1:PORT, in turn /orders/1,
// /orders/2, /health, /orders/3 and /missing (phases.js --http serves
// them).  It exits when its parent does (phases.js starts it).
'use strict';
const http = require('http');

const port = Number(process.argv[2]);
const parent = process.ppid;
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
const paths = ['/orders/1', '/orders/2', '/health', '/orders/3', '/missing'];
let next = 0;

setInterval(() => {
	const path = paths[next++ % paths.length];
	http.get({ host: '127.0.0.1', port, path, agent }, (res) => res.resume()).on('error', () => {});
}, 20);
setInterval(() => {
	try {
		process.kill(parent, 0);
	} catch {
		process.exit(0);
	}
}, 500);
