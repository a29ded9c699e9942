// http_hello.js — a Node.js HTTP hello-world for the overhead rows of
// scripts/bench.sh: every request gets "hello\n".  Prints "listening PORT"
// once it accepts connections.  Usage: node http_hello.js PORT
'use strict';

const http = require('http');

const port = Number(process.argv[2] || 8080);
const server = http.createServer((req, res) => {
	res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 6 });
	res.end('hello\n');
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${port}`));
process.on('SIGTERM', () => process.exit(0));
