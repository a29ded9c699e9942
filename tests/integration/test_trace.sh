#!/usr/bin/env bash
# -o trace: Chrome Trace Event JSON for Perfetto UI and chrome://tracing,
# checked by tests/trace/check_trace.mjs (the format's rules: numeric ts
# and dur, metadata, slices nested per thread, counters, async pairs) and
# against what the workloads logged:
#  - libuv-phases on scripts/workloads/phases.js with a worker: each 40 ms
#    timer callback has a timers slice on the main thread, each 15 ms
#    immediate a check slice, each 8 ms worker callback a timers slice on
#    the worker's thread, of the logged length within 5%; node's own
#    --trace-events (RunTimers) of the same run lie inside those slices;
#  - the threshold: calls = slices + shorter ones, and none shorter;
#  - tests/workloads/blocking_timers.js (a 20 ms Atomics.wait inside each
#    timer callback) with a spec of phases, futex events and utilization,
#    three 1 s intervals: each wait is futex slices (V8 may wait again
#    after an interrupt) inside its span and nested in its timers slice,
#    adding up to no less than its 20 ms timeout and no more than its span
#    (5% either way: a woken thread may wait for a CPU); the loop's busy
#    share is a counter.
. "$(dirname "$0")/../lib.sh"
need_root

check() { # check TRACE [check_trace options...]
	local rc=0
	node "$TOP/tests/trace/check_trace.mjs" "$@" >"$TMP/check.out" 2>&1 || rc=$?
	grep -v '^measured:' "$TMP/check.out" | sed 's/^/    /' >&2
	grep '^measured:' "$TMP/check.out"
	[ "$rc" -eq 0 ] || fail "$(basename "$1"): the trace check failed (status $rc)"
}

# 1. Phases, with node's own trace events of the same process.
mkdir "$TMP/node"
(cd "$TMP/node" && exec node --trace-event-categories node.environment \
	--trace-event-file-pattern "$TMP/node/node_trace.json" \
	"$TOP/scripts/workloads/phases.js" --worker --worker-busy 8 --log "$TMP/phases.log") &
app=$!
cleanup_pid "$app"
sleep 1.5
"$BPFSPEC" run libuv-phases -p "$app" -d 3 -o trace --output "$TMP/phases.json" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "run libuv-phases -o trace exited $status"; }
sleep 0.3	# the worker writes its last callbacks' lines with its next one
kill "$app"
wait "$app" || true	# node writes its trace file as it exits
[ -s "$TMP/node/node_trace.json" ] || fail "node wrote no trace events"
node "$TOP/scripts/workloads/phases.js" &
app2=$!
cleanup_pid "$app2"
check "$TMP/phases.json" --phases-log "$TMP/phases.log" --node-trace "$TMP/node/node_trace.json"

# The slices are the calls at least 1 ms long: per 100 ms, the main
# thread's 40 ms timers phase and each 50 ms the worker's 8 ms one, none
# dropped; the rest are counted.
other=$(jq -r '.otherData["probe timers"]' "$TMP/phases.json")
echo "measured: timers: $other"
read -r calls slices dropped < <(sed -n \
	's/^\([0-9]*\) calls: \([0-9]*\) slices of 1000000 ns or more, \([0-9]*\) dropped .*$/\1 \2 \3/p' \
	<<<"$other")
[ -n "$calls" ] || fail "otherData does not count the timers calls: $other"
# 3 s: about 30 main-thread and 60 worker timers phases of 1 ms or more.
[ "$dropped" -eq 0 ] && [ "$slices" -ge 80 ] && [ "$slices" -le 95 ] && [ "$calls" -gt "$slices" ] ||
	fail "timers: $slices slices of $calls calls ($dropped dropped), expected about 90 of more"
n=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "phase")] | length' "$TMP/phases.json")
[ "$n" -eq "$(jq -r '[.otherData | to_entries[] | select(.key | startswith("probe ")) | .value |
	capture("(?<s>[0-9]+) slices").s | tonumber] | add' "$TMP/phases.json")" ] ||
	fail "$n phase slices in the file, otherData says otherwise"
short=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "phase" and .dur < 1000)] | length' "$TMP/phases.json")
[ "$short" -eq 0 ] || fail "$short phase slices shorter than the 1 ms threshold"

# Entry-only timing (libuv-entry: a phase runs until the next one's entry)
# with slices: every phase uprobe prints the slice of the phase it ends.
"$BPFSPEC" run libuv-entry -p "$app2" -d 2 -o trace --output "$TMP/entry.json" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "run libuv-entry -o trace exited $status"; }
check "$TMP/entry.json"
n=$(jq '[.traceEvents[] | select(.ph == "X" and .name == "timers" and .tid == .pid and .dur >= 38000)] | length' \
	"$TMP/entry.json")
echo "measured: libuv-entry: $n main-thread timers slices of 38 ms or more in 2 s"
[ "$n" -ge 15 ] || fail "libuv-entry -o trace: $n main-thread timers slices of 38 ms or more, expected about 20"

# 2. A loop blocked in a syscall: the futex slices nest in timers.
cat >"$TMP/blocking.yaml" <<'YAML'
name: loop-blocking
description: timers and check phases, futex waits of 200 us or more, loop utilization
objects: [main, "libuv.so*"]
probes:
  - name: timers
    kind: latency
    function: uv__run_timers
  - name: check
    kind: latency
    function: uv__run_check
  - name: waits
    kind: events
    syscalls: [futex]
    threshold: 200us
  - name: loop
    kind: utilization
YAML
node "$TOP/tests/workloads/blocking_timers.js" --log "$TMP/blocking.log" &
app=$!
cleanup_pid "$app"
sleep 1.5
"$BPFSPEC" run "$TMP/blocking.yaml" -p "$app" -i 1 -n 3 --trace-threshold 2ms -o trace \
	--output "$TMP/blocking.json" 2>"$TMP/err" || { status=$?; cat "$TMP/err"; fail "run -i 1 -n 3 -o trace exited $status"; }
sleep 0.3
check "$TMP/blocking.json" --blocking-log "$TMP/blocking.log"
main=$(jq '[.traceEvents[] | select(.ph == "C" and .tid == .pid)] | length' "$TMP/blocking.json")
busy=$(jq '[.traceEvents[] | select(.ph == "C" and .tid == .pid) | .args["busy %"]] | min' "$TMP/blocking.json")
echo "measured: main loop busy counter: $main samples, at least $busy %"
# Three intervals and the end; each 100 ms the loop works 30 ms (blocked
# in the wait included: busy means outside epoll).
[ "$main" -eq 4 ] || fail "$main busy samples for the main thread, expected 4 (3 intervals and the end)"
awk -v b="$busy" 'BEGIN { exit !(b > 20 && b < 60) }' || fail "main loop busy $busy %, expected about 30"

# 3. What -o trace refuses: a saved report (it has no calls), a threshold
# without it, cumulative intervals, a zero threshold, a spec with nothing
# to draw as slices.
for args in "report $TMP/phases.json -o trace" "run libuv-phases -p $app --trace-threshold 2ms" \
	"run libuv-phases -p $app -i 1 --cumulative -o trace" "run libuv-phases -p $app -o trace --trace-threshold 0" \
	"syscalls -p $app read -o trace"; do
	set +e
	# shellcheck disable=SC2086
	"$BPFSPEC" $args >/dev/null 2>"$TMP/err"
	rc=$?
	set -e
	[ "$rc" -eq 2 ] || fail "bpfspec $args: exit $rc, expected 2 (usage); $(cat "$TMP/err")"
	echo "measured: bpfspec ${args%% *} ...: exit 2, $(head -n 1 "$TMP/err")"
done
