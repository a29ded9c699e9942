#!/usr/bin/env bash
# demo.sh BPFSPEC — starts the bundled node demo app, traces it with the
# loop-why spec for 5 seconds and prints the report: each libuv phase's
# time, where it went (on-CPU, waiting for a CPU, blocked in syscalls) and
# the JavaScript that ran in the slow ones.  Node runs with
# --perf-basic-prof, so that JavaScript frames have names; it runs in a
# directory of its own (V8 writes a log there) removed at the end, with
# the perf map it writes in /tmp.
set -eu
bpfspec=${1:-build/bpfspec}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/bpfspec-demo.XXXXXX")
(cd "$dir" && exec node --perf-basic-prof "$here/workloads/phases.js" --worker) &
app=$!
trap 'kill $app 2>/dev/null; wait $app 2>/dev/null || true; rm -rf "$dir" "/tmp/perf-$app.map"' EXIT
sleep 1
echo "demo: node app (pid $app): 40 ms timer callback and 15 ms setImmediate every 100 ms, plus a worker_thread"
echo "demo: \$ $bpfspec run loop-why -p $app -d 5s"
"$bpfspec" run loop-why -p "$app" -d 5s
