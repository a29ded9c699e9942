#!/usr/bin/env bash
# demo.sh BPFSPEC — starts the bundled node demo app, traces it with the
# loop-why spec for 5 seconds and prints the report: each libuv phase's
# time, where it went (on-CPU, waiting for a CPU, blocked in syscalls) and
# the JavaScript that ran in the slow ones; then the threadpool spec for 3
# seconds: the app gives libuv's thread pool a pbkdf2, a file read and a
# stat every 100 ms (--pool), each timed from its submit on the loop
# thread to its callback (queue wait, run, callback delay); then the
# http-server spec for 3 seconds: the app serves HTTP to a client process
# of its own (--http: a request every 20 ms), each request timed from its
# first bytes read to its status line written, per route.  Node runs with
# no flag, as a production service does: the JavaScript frames are named
# from V8's heap (docs/spec.md, "Stacks"); it runs in a directory of its
# own, removed at the end.
set -eu
bpfspec=${1:-build/bpfspec}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/bpfspec-demo.XXXXXX")
(cd "$dir" && exec node "$here/workloads/phases.js" --worker --pool --http) &
app=$!
trap 'kill $app 2>/dev/null; wait $app 2>/dev/null || true; rm -rf "$dir"' EXIT
sleep 1
echo "demo: node app (pid $app): 40 ms timer callback and 15 ms setImmediate every 100 ms, a worker_thread, thread-pool work, an HTTP server"
echo "demo: \$ $bpfspec run loop-why -p $app -d 5s"
"$bpfspec" run loop-why -p "$app" -d 5s
echo
echo "demo: \$ $bpfspec run threadpool -p $app -d 3s"
"$bpfspec" run threadpool -p "$app" -d 3s
echo
echo "demo: \$ $bpfspec run http-server -p $app -d 3s"
"$bpfspec" run http-server -p "$app" -d 3s
