#!/usr/bin/env bash
# demo.sh BPFSPEC — starts the bundled node demo app, traces it with the
# libuv-phases spec for 5 seconds and prints the report.
set -eu
bpfspec=${1:-build/bpfspec}
here=$(cd "$(dirname "$0")" && pwd)
node "$here/workloads/phases.js" --worker &
app=$!
trap 'kill $app 2>/dev/null; wait $app 2>/dev/null || true' EXIT
sleep 1
echo "demo: node app (pid $app): 40 ms timer callback and 15 ms setImmediate every 100 ms, plus a worker_thread"
echo "demo: \$ $bpfspec run libuv-phases -p $app -d 5s"
"$bpfspec" run libuv-phases -p "$app" -d 5s
