#!/usr/bin/env bash
# A traced process that exits before the window ends: the report covers
# what was seen, says it is partial and why, and the exit status is 7.
# The target is ended 1 s after bpfspec says its probes are attached (the
# attach takes from 1 to several seconds, depending on the machine's load).
. "$(dirname "$0")/../lib.sh"
need_root

# partial_run FORMAT OUT — traces a fresh phases.js for up to 20 s and ends
# the target 1 s into the window; sets rc.
partial_run() {
	node "$TOP/scripts/workloads/phases.js" --seconds 120 &
	app=$!
	cleanup_pid "$app"
	sleep 0.5
	set +e
	# Emptied here, not by the redirection below: that one happens in the
	# background child, and await_window could read the last run's
	# "the window begins" before it (it did, on a loaded machine).
	: >"$TMP/stderr"
	"$BPFSPEC" run libuv-phases -p "$app" -d 20s -o "$1" -v >"$2" 2>"$TMP/stderr" &
	bpf=$!
	await_window "$bpf" "$TMP/stderr" 60
	sleep 1
	kill "$app"
	wait "$bpf"
	rc=$?
	set -e
}

# A failure below shows bpfspec's stderr and the report it judged.
fail_run() {
	cat "$TMP/stderr" >&2
	[ -s "$r" ] && head -c 2000 "$r" >&2
	fail "$@"
}

partial_run json "$TMP/report.json"
echo "measured: exit status $rc"
[ "$rc" -eq 7 ] || { cat "$TMP/stderr"; fail "exit status $rc, expected 7 (partial)"; }
r=$TMP/report.json
[ "$(jqr "$r" .partial)" = true ] || fail_run "not marked partial"
jqr "$r" .partial_reason | grep -q "pid $app exited" || fail_run "reason does not name the pid"
n=$(jqr "$r" '.probes[] | select(.name == "timers") | .count')
[ "$n" -gt 0 ] || fail_run "no timers data in the partial report"
# The window runs from the attach to the target's exit, about 1 s later.
win=$(jqr "$r" .duration_ns | awk '{print $1/1e9}')
echo "measured: window (s)                    $win (truth about 1)"
awk -v w="$win" 'BEGIN { exit !(w > 0.5 && w < 3) }' || fail_run "window $win s: expected attach-to-exit, about 1 s"

# The text view says so too.
partial_run text "$TMP/report.txt"
[ "$rc" -eq 7 ] || { cat "$TMP/stderr"; fail "text mode: exit status $rc"; }
r=$TMP/report.txt
grep -q "^PARTIAL: target pid $app exited" "$r" || fail_run "text report does not say PARTIAL"

# A target that exits while bpftrace is still attaching: no report, and
# the error says so (bpfspec stops bpftrace itself then, which exits 0:
# "bpftrace failed before attaching its probes (exit status 0)" blamed
# the wrong party).  The target is killed as soon as bpfspec says it
# starts bpftrace, which then needs at least its compile time to attach.
node "$TOP/scripts/workloads/phases.js" --seconds 120 &
app=$!
cleanup_pid "$app"
sleep 0.5
set +e
"$BPFSPEC" run libuv-phases -p "$app" -d 10s -v >"$TMP/early.out" 2>"$TMP/early.err" &
bpf=$!
for _ in $(seq 200); do
	grep -q "running bpftrace on pid" "$TMP/early.err" && break
	sleep 0.05
done
kill "$app"
wait "$bpf"
rc=$?
set -e
grep -q "running bpftrace on pid" "$TMP/early.err" || { cat "$TMP/early.err"; fail "bpftrace was never started"; }
grep -q "bpftrace attached" "$TMP/early.err" && { cat "$TMP/early.err"; fail "bpftrace attached before the target was killed: the test did not test"; }
echo "measured: target gone during the attach: exit $rc, \"$(grep -m1 error: "$TMP/early.err")\""
[ "$rc" -eq 4 ] || { cat "$TMP/early.err"; fail "exit status $rc, expected 4 (target problem)"; }
grep -q "pid $app exited before bpftrace had attached its probes" "$TMP/early.err" ||
	{ cat "$TMP/early.err"; fail "the error does not say the target exited first"; }
grep -q "bpftrace failed" "$TMP/early.err" && fail "bpftrace is blamed for the target's exit"
[ ! -s "$TMP/early.out" ] || fail "a report was printed"
