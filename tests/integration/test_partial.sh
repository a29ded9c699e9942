#!/usr/bin/env bash
# A traced process that exits before the window ends: the report covers
# what was seen, says it is partial and why, and the exit status is 7.
. "$(dirname "$0")/../lib.sh"
need_root

# Seconds enough for bpftrace to attach (up to ~2 s on a loaded machine)
# before the target exits.
node "$TOP/scripts/workloads/phases.js" --seconds 5 &
app=$!
cleanup_pid "$app"
sleep 1
set +e
"$BPFSPEC" run libuv-phases -p "$app" -d 20s -o json >"$TMP/report.json" 2>"$TMP/stderr"
rc=$?
set -e
echo "measured: exit status $rc"
[ "$rc" -eq 7 ] || { cat "$TMP/stderr"; fail "exit status $rc, expected 7 (partial)"; }
r=$TMP/report.json
[ "$(jqr "$r" .partial)" = true ] || fail "not marked partial"
jqr "$r" .partial_reason | grep -q "pid $app exited" || fail "reason does not name the pid"
n=$(jqr "$r" '.probes[] | select(.name == "timers") | .count')
[ "$n" -gt 0 ] || fail "no timers data in the partial report"
# The window runs from the attach to the target's exit: under its 5 s.
win=$(jqr "$r" .duration_ns | awk '{print $1/1e9}')
echo "measured: window (s)                    $win"
awk -v w="$win" 'BEGIN { exit !(w > 0.2 && w < 4) }' || fail "window $win s: expected attach-to-exit, under 4 s"

# The text view says so too.
node "$TOP/scripts/workloads/phases.js" --seconds 4 &
app=$!
cleanup_pid "$app"
sleep 1
set +e
"$BPFSPEC" run libuv-phases -p "$app" -d 20s >"$TMP/report.txt" 2>"$TMP/stderr"
rc=$?
set -e
[ "$rc" -eq 7 ] || fail "text mode: exit status $rc"
grep -q "^PARTIAL: target pid $app exited" "$TMP/report.txt" || fail "text report does not say PARTIAL"
