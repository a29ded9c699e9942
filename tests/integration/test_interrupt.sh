#!/usr/bin/env bash
# Ctrl-C (SIGINT) and SIGTERM during an open-ended run: bpftrace is
# stopped, the final report is printed, the exit status is 0, and no
# bpftrace process is left behind.  Interrupted twice: bpftrace is killed
# at once and the exit status is 130.  bpfspec SIGKILLed: bpftrace dies
# with it.
. "$(dirname "$0")/../lib.sh"
need_root

node "$TOP/scripts/workloads/phases.js" &
app=$!
cleanup_pid "$app"
sleep 1

for sig in INT TERM; do
	"$BPFSPEC" run libuv-phases -p "$app" -d 0 -o json -v >"$TMP/report.json" 2>"$TMP/stderr-$sig" &
	run=$!
	for _ in $(seq 100); do grep -q "attached" "$TMP/stderr-$sig" 2>/dev/null && break; sleep 0.1; done
	sleep 2
	kill -"$sig" "$run"
	set +e
	wait "$run"
	rc=$?
	set -e
	echo "measured: SIG$sig once: exit status $rc"
	[ "$rc" -eq 0 ] || { cat "$TMP/stderr-$sig"; fail "SIG$sig: exit status $rc"; }
	[ "$(jqr "$TMP/report.json" .partial)" = false ] || fail "SIG$sig: report marked partial"
	within "SIG$sig window (s)" "$(jqr "$TMP/report.json" .duration_ns | awk '{print $1/1e9}')" 2.5 0.5
	n=$(jqr "$TMP/report.json" '.probes[] | select(.name == "timers") | .count')
	[ "$n" -gt 0 ] || fail "SIG$sig: no data"
	if pgrep -P "$run" >/dev/null; then fail "SIG$sig: a child of bpfspec survived"; fi
done

# Twice: prompt exit, nothing left.  The two signals must arrive
# together: after one, bpfspec reports and exits within milliseconds,
# before a second sent later could arrive (on a busy machine even the
# next `kill` of this script can come too late).  So bpfspec is stopped
# while both are sent and continued: both are then pending at once.  Two
# of the same signal would be one pending signal, so the second is
# SIGTERM (a stop signal as well).
"$BPFSPEC" run libuv-phases -p "$app" -d 0 -o json -v >"$TMP/report.json" 2>"$TMP/stderr1" &
run=$!
for _ in $(seq 100); do grep -q "attached" "$TMP/stderr1" 2>/dev/null && break; sleep 0.1; done
tracer=$(pgrep -P "$run" -x bpftrace) || fail "no bpftrace child of bpfspec"
kill -STOP "$run"
kill -INT "$run"
kill -TERM "$run"
kill -CONT "$run"
set +e
wait "$run"
rc=$?
set -e
echo "measured: SIGINT twice: exit status $rc"
[ "$rc" -eq 130 ] || { cat "$TMP/stderr1"; fail "SIGINT twice: exit status $rc, expected 130"; }
# bpfspec reaped it: the pid is gone (not even a zombie).
if kill -0 "$tracer" 2>/dev/null; then fail "bpftrace (pid $tracer) outlived bpfspec"; fi

# bpfspec killed outright: its bpftrace dies with it (no probe is left
# attached by an orphan).
"$BPFSPEC" run libuv-phases -p "$app" -d 0 -o json -v >"$TMP/report.json" 2>"$TMP/stderr2" &
run=$!
for _ in $(seq 100); do grep -q "attached" "$TMP/stderr2" 2>/dev/null && break; sleep 0.1; done
tracer=$(pgrep -P "$run" -x bpftrace) || fail "no bpftrace child of bpfspec"
kill -KILL "$run"
wait "$run" 2>/dev/null || true
for _ in $(seq 50); do kill -0 "$tracer" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$tracer" 2>/dev/null; then fail "bpftrace (pid $tracer) survived a SIGKILLed bpfspec"; fi
echo "measured: SIGKILL of bpfspec: its bpftrace ended too"
