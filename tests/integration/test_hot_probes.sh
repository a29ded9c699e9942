#!/usr/bin/env bash
# Probes on hot paths while the window starts.  bpfspec used to clear its
# in-flight maps (@start_*) when the window began; bpftrace 0.17's clear()
# aborts when a probe deletes a key under it ("Could not clear map"), which
# a function called 200,000 times a second made likely.  Those maps are no
# longer cleared while probes run; entries from before the window are
# skipped by their timestamp.  Truth: scripts/workloads/call_loop.c calls
# an empty function in a loop; five 1 s windows in a row all report, each
# with at least 10,000 calls and a max under 0.5 s; syscall_loop's
# getppid() loop under the syscalls one-liner likewise.
. "$(dirname "$0")/../lib.sh"
need_root

cc -O2 -o "$TMP/call_loop" "$TOP/scripts/workloads/call_loop.c" || fail "cannot build call_loop"
cc -O2 -o "$TMP/syscall_loop" "$TOP/scripts/workloads/syscall_loop.c" || fail "cannot build syscall_loop"
"$TMP/call_loop" 60 >/dev/null &
hot=$!
cleanup_pid "$hot"
sleep 0.5
for i in 1 2 3 4 5; do
	"$BPFSPEC" latency -p "$hot" call_loop_work -d 1 -o json >"$TMP/l$i.json" 2>"$TMP/err" ||
		{ status=$?; cat "$TMP/err"; fail "window $i on a hot function: bpfspec exited $status"; }
	n=$(jqr "$TMP/l$i.json" '.probes[0].count')
	max=$(jqr "$TMP/l$i.json" '.probes[0].max_ns')
	echo "measured: window $i: $n calls of call_loop_work, max $max ns"
	[ "$n" -ge 10000 ] || fail "window $i: only $n calls"
	[ "$max" -lt 500000000 ] || fail "window $i: a 1 ns function took $max ns (a call from before the window?)"
done

"$TMP/syscall_loop" 100000000 getppid /dev/null &
sys=$!
cleanup_pid "$sys"
sleep 0.5
for i in 1 2 3; do
	"$BPFSPEC" syscalls -p "$sys" getppid -d 1 -o json >"$TMP/s$i.json" 2>"$TMP/err" ||
		{ status=$?; cat "$TMP/err"; fail "window $i on a hot syscall: bpfspec exited $status"; }
	n=$(jqr "$TMP/s$i.json" '[.probes[0].syscalls[] | select(.syscall == "getppid") | .count] | add')
	echo "measured: window $i: $n getppid calls"
	[ "$n" -ge 10000 ] || fail "window $i: only $n getppid calls"
done
echo "ok: hot probes"
