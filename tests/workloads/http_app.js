// http_app.js FRAMEWORK PORTFILE LOG [KEY CERT] — an HTTP/1.1 server on
// 127.0.0.1 (FRAMEWORK express or fastify, from the npm directory in
// NODE_PATH), over TLS (node's https) when given a private key and a
// certificate (PEM files), whose routes behave in known ways:
//   GET /wait        waits 5 ms (a timer), then 200
//   GET /spin        runs 2 ms of synchronous JavaScript, then 200
//   GET /fail        500
//   GET /users/:id   200 at once (one route, many paths)
//   anything else    the framework's 404
// Each request is logged to LOG as "METHOD ROUTE STATUS START_UNIX_NS
// DUR_NS" (ROUTE folded as bpfspec folds it),
// timed from the server's 'request' event to its status line's write
// (see timed below): the truth bpfspec's http-server spec is judged
// against.  Writes "port N" to PORTFILE once it listens.
'use strict';
const http = require('http');
const https = require('https');
const fs = require('fs');

const [framework, portFile, logFile, keyFile, certFile] = process.argv.slice(2);
const tls = keyFile && certFile ? { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) } : null;

// The server of HANDLER: https with the key and certificate, else http.
function createServer(handler) {
	return tls ? https.createServer(tls, handler) : http.createServer(handler);
}
const log = fs.createWriteStream(logFile);
const origin = BigInt(Math.round(performance.timeOrigin * 1e6));

function spin(ms) {
	const end = performance.now() + ms;
	while (performance.now() < end);
}

// The route a request took, as bpfspec folds it.
function routeOf(url) {
	const path = url.split('?')[0];
	return /^\/users\/[0-9]+$/.test(path) ? '/users/:id' : path;
}

// Times every request around HANDLER, whatever the framework: from the
// server's 'request' event (its bytes were just read and parsed) to the
// moment its status line goes to the socket (net.Socket's _write or
// _writev: node may hold a response until the one before it on the
// connection has finished, so res.end() is not yet the write), logged
// once the response finished.
function timed(handler) {
	return (req, res) => {
		const entry = {
			t0: process.hrtime.bigint(),
			start: origin + BigInt(Math.round(performance.now() * 1e6)),
			dur: null,
		};
		const fd = req.socket._handle ? req.socket._handle.fd : -1;
		(req.socket.requests ||= []).push(entry);
		res.on('finish', () => {
			log.write(`${req.method} ${routeOf(req.url)} ${res.statusCode} ${entry.start} ${entry.dur} ${fd}\n`);
		});
		handler(req, res);
	};
}

// Whether CHUNK (a string or bytes) begins with a status line.
function statusLine(chunk) {
	const head = typeof chunk === 'string' ? chunk.slice(0, 7) : Buffer.from(chunk).toString('latin1', 0, 7);
	return head === 'HTTP/1.';
}

// The end of the oldest open request on SOCKET when FIRST begins a response.
function onSocket(socket) {
	const write = socket._write, writev = socket._writev;
	const mark = (first) => {
		if (!statusLine(first)) return;
		const entry = socket.requests && socket.requests.find((e) => e.dur === null);
		if (entry) entry.dur = process.hrtime.bigint() - entry.t0;
	};
	socket._write = function (chunk, ...rest) { mark(chunk); return write.call(this, chunk, ...rest); };
	socket._writev = function (chunks, ...rest) { mark(chunks[0].chunk); return writev.call(this, chunks, ...rest); };
}

function listen(server) {
	// over TLS the response goes to the TLS socket, not the TCP one
	server.on(tls ? 'secureConnection' : 'connection', onSocket);
	server.listen(0, '127.0.0.1', () => {
		fs.writeFileSync(portFile, `port ${server.address().port}\n`);
	});
}

if (framework === 'express') {
	const app = require('express')();
	app.get('/wait', (req, res) => setTimeout(() => res.send('waited'), 5));
	app.get('/spin', (req, res) => { spin(2); res.send('spun'); });
	app.get('/fail', (req, res) => res.status(500).send('failed'));
	app.get('/users/:id', (req, res) => res.send('user ' + req.params.id));
	listen(createServer(timed(app)));
} else if (framework === 'fastify') {
	let server;
	const app = require('fastify')({
		serverFactory: (handler) => (server = createServer(timed(handler))),
	});
	app.get('/wait', async () => { await new Promise((r) => setTimeout(r, 5)); return 'waited'; });
	app.get('/spin', async () => { spin(2); return 'spun'; });
	app.get('/fail', async (req, reply) => reply.code(500).send('failed'));
	app.get('/users/:id', async (req) => 'user ' + req.params.id);
	app.ready().then(() => listen(server));
} else {
	console.error('http_app.js: unknown framework ' + framework);
	process.exit(2);
}
