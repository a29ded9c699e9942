#!/usr/bin/env bash
# Every bundled syscall spec runs against a live node process: 2 s of
# syscall-latency, file-io, net-connect and memory against
# tests/workloads/node_syscalls.js, which every 50 ms reads a file,
# connects to a closed port on 127.0.0.1 and allocates (then collects) a
# 64 MiB Buffer.  Truth, for each spec: exit 0, valid JSON, every probe of
# the program attached, a full 2 s window (±10%), no lost events; and,
# for each call the workload makes at least ~40 times in the window, a
# non-zero count: openat, read and close (file-io), socket and connect
# with a record naming 127.0.0.1:PORT (net-connect), mmap and munmap
# (memory), and all of them in syscall-latency.
. "$(dirname "$0")/../lib.sh"
need_root

start_node_syscalls
target=$TARGET port=$PORT

# nonzero REPORT PROBE SYSCALL... — each SYSCALL has a count > 0 in PROBE.
nonzero() {
	local r=$1 probe=$2 s n
	shift 2
	for s; do
		n=$(jq -r --arg p "$probe" --arg s "$s" \
			'[.probes[] | select(.name == $p) | .syscalls[] | select(.syscall == $s) | .count] | add // 0' "$r")
		echo "measured: $(basename "$r" .json) $probe $s calls: $n"
		[ "$n" -gt 0 ] || fail "$(basename "$r" .json): no $s call counted in probe $probe"
	done
}

for spec in syscall-latency file-io net-connect memory; do
	r=$TMP/$spec.json
	set +e
	"$BPFSPEC" run "$spec" -p "$target" -d 2s -o json >"$r" 2>"$TMP/$spec.stderr"
	rc=$?
	set -e
	[ "$rc" -eq 0 ] || { cat "$TMP/$spec.stderr"; fail "$spec: bpfspec exited $rc"; }
	jq -e 'type == "object" and .schema == 2' "$r" >/dev/null || fail "$spec: the report is not valid JSON (schema 2)"
	kill -0 "$target" || fail "the workload died during $spec"
	attached=$(jqr "$r" .attached_probes)
	expected=$(jqr "$r" .expected_probes)
	echo "measured: $spec attached probes: $attached of $expected"
	[ "$attached" -eq "$expected" ] && [ "$attached" -gt 0 ] || fail "$spec: attached $attached of $expected probes"
	[ "$(jqr "$r" .spec)" = "$spec" ] || fail "$spec: the report names spec $(jq .spec "$r")"
	[ "$(jqr "$r" .partial)" = false ] || fail "$spec: partial run: $(jq -r .partial_reason "$r")"
	[ "$(jqr "$r" .lost_events)" -eq 0 ] || fail "$spec: lost events"
	[ "$(jqr "$r" '[.probes[] | select(.attached | not)] | length')" -eq 0 ] || fail "$spec: a probe was not attached"
	window_length "$spec window (s)" "$(jqr "$r" .duration_ns | awk '{print $1/1e9}')" 2
done

nonzero "$TMP/syscall-latency.json" syscalls openat read close socket connect mmap munmap
nonzero "$TMP/file-io.json" file openat read close
nonzero "$TMP/net-connect.json" net socket connect
nonzero "$TMP/memory.json" mem mmap munmap

# syscall-latency sees the non-blocking connects fail.
inprogress=$(jqr "$TMP/syscall-latency.json" \
	'[.probes[0].syscalls[] | select(.syscall == "connect") | .errors.EINPROGRESS // 0] | add')
echo "measured: syscall-latency connect EINPROGRESS: $inprogress"
[ "$inprogress" -gt 0 ] || fail "syscall-latency: no connect failed with EINPROGRESS"

# net-connect names the destination of every connect.
r=$TMP/net-connect.json
n_conn=$(jqr "$r" '.probes[] | select(.name == "net") | .syscalls[] | select(.syscall == "connect") | .count')
n_rec=$(jqr "$r" '[.probes[] | select(.name == "connects") | .events[] | select(.address == "127.0.0.1:'"$port"'")] | length')
echo "measured: net-connect records of 127.0.0.1:$port: $n_rec (connect calls $n_conn)"
[ "$n_rec" -gt 0 ] || fail "net-connect: no record names 127.0.0.1:$port"
others=$(jq -r '[.probes[] | select(.name == "connects") | .events[] | select(.address != "127.0.0.1:'"$port"'") | .address] | join(" ")' "$r")
[ -z "$others" ] || fail "net-connect: records of destinations the workload never tried: $others"
