#!/usr/bin/env bash
# -- CMD: bpfspec starts the command itself, holds it until the probes are
# attached (so the very first loop iterations are seen), and ends the run
# when the command exits.  Truth: phases.js --seconds 4 runs a 40 ms timer
# callback every 100 ms, counts its callbacks (--stats) and logs each
# one's wall time (--log): the main thread's longest timers phase is the
# longest logged callback (±15%) and there is one phase of 30 ms or more
# per timer callback (±1, or ±5% on a loaded machine where two late
# callbacks may share one phase).
. "$(dirname "$0")/../lib.sh"
need_root

set +e
"$BPFSPEC" run libuv-phases -d 0 -o json -- node "$TOP/scripts/workloads/phases.js" --seconds 4 \
	--stats "$TMP/truth" --log "$TMP/callbacks.log" >"$TMP/report.json" 2>"$TMP/stderr"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$TMP/stderr"; fail "bpfspec exited $rc"; }
r=$TMP/report.json
pid=$(jqr "$r" .target.pid)
[ "$pid" -gt 0 ] || fail "no target pid"
[ "$(jqr "$r" .partial)" = false ] || fail "a command that ends by itself is not a partial run"
# The window runs from the attach to the command's exit: node's own
# start-up (under a second) plus the 4 s it runs for.
win=$(jqr "$r" .duration_ns | awk '{print $1/1e9}')
echo "measured: window (s)                    $win"
awk -v w="$win" 'BEGIN { exit !(w >= 4 && w < 5.5) }' || fail "window $win s is not 4 s + start-up"
main() { jqr "$r" ".probes[] | select(.name == \"$1\") | .groups[] | select(.main_thread) | .$2"; }
read -r n max rest <<<"$(logged_truth "$TMP/callbacks.log" timer "$r")"
echo "measured: timer callbacks logged in the window $n"
within "timers max (ms)" "$(main timers max_ns | awk '{ print $1 / 1e6 }')" "$max" 0.15
slow=$(jqr "$r" '[.probes[] | select(.name == "timers") | .groups[] | select(.main_thread) | .buckets[] | select(.lo_ns >= 30000000) | .count] | add')
calls=$(sed -n 's/^timer_callbacks=//p' "$TMP/truth")
[ -n "$calls" ] || fail "the workload wrote no stats"
echo "measured: timer callbacks (truth)       $calls"
echo "measured: timers phases >= 30 ms        $slow"
awk -v s="$slow" -v c="$calls" 'BEGIN { d = s - c; if (d < 0) d = -d; t = c * 0.05; if (t < 1) t = 1; exit !(d <= t) }' ||
	fail "$slow slow timers phases for $calls timer callbacks"
# Nothing is left behind: the command was reaped, bpftrace is gone.
if pgrep -f "phases.js --seconds 4" >/dev/null; then fail "the command is still running"; fi
