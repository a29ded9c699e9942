// http_load.js PORT AMOUNT [warm] [tls] — AMOUNT requests from autocannon (from the
// npm directory in NODE_PATH) over 8 keep-alive connections, 700 a second
// (the 2-core host keeps some CPU: the app is not preempted between its
// read and its 'request' event, which the app's own log cannot see), cycling
// through /wait, /spin, /fail, /missing, /users/1, /users/22?x=1 and
// /users/333; then hostile requests on fresh connections: a request line
// of 8 KB, bytes that are not UTF-8, terminal escapes and quotes in the
// path, a method-like prefix on bytes that are not HTTP, and HTTP/2's
// client preface.  With tls, all of it over TLS (https; the server's
// certificate is not checked: the test makes a self-signed one), 400 a
// second: TLS costs the client and the server more CPU, and at 700 the
// host preempted the app between its SSL_read and its 'request' event
// in about 1% of the requests (up to 6 ms), which its log cannot see.
// Prints autocannon's totals.
'use strict';
const autocannon = require('autocannon');
const net = require('net');
const tls = require('tls');

const [port, amount] = process.argv.slice(2, 4).map(Number);
const warm = process.argv.slice(4).includes('warm');
const secure = process.argv.slice(4).includes('tls');
const paths = ['/wait', '/spin', '/fail', '/missing', '/users/1', '/users/22?x=1', '/users/333'];

function hostile(bytes) {
	return new Promise((resolve) => {
		const s = secure
			? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => s.end(bytes))
			: net.connect(port, '127.0.0.1', () => s.end(bytes));
		s.on('data', () => {});
		s.on('error', resolve);
		s.on('close', resolve);
		setTimeout(() => { s.destroy(); resolve(); }, 300);
	});
}

autocannon({
	url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`,
	connections: 8,
	overallRate: secure ? 400 : 700,
	amount,
	requests: paths.map((path) => ({ method: 'GET', path })),
}, async (err, res) => {
	if (err) throw err;
	console.log(`load: ${res.requests.total} requests, ${res.non2xx} non-2xx, ${res.errors} errors`);
	if (warm) return;
	await hostile(Buffer.concat([Buffer.from('GET /h/' + 'a'.repeat(8192) + ' HTTP/1.1\r\nHost: x\r\n\r\n')]));
	await hostile(Buffer.concat([Buffer.from('GET /h/'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
				     Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
	await hostile(Buffer.from('GET /h/\x1b[31mred\x1b]0;title\x07"q" HTTP/1.1\r\nHost: x\r\n\r\n'));
	await hostile(Buffer.from('GET-NOT-HTTP \x00\x01\x02 binary\r\n'));
	await hostile(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
});
