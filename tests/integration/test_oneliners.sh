#!/usr/bin/env bash
# The one-liners and runbook features on a real node process whose phases
# are known (scripts/workloads/phases.js: a 40 ms timer callback every
# 100 ms): latency of named functions, syscalls, --emit-spec round trip,
# intervals (-i/-n: exactly N NDJSON lines, each a report), checks that
# pass and fail (exit 0 and 1), and diff of two real reports.
. "$(dirname "$0")/../lib.sh"
need_root

prio="nice -n -10"	# real time where allowed: the truth is wall time
if chrt -f 10 true 2>/dev/null; then prio="chrt -f 10"; fi
log=$TMP/callbacks.log	# the callbacks as the workload saw them
$prio node "$TOP/scripts/workloads/phases.js" --log "$log" &
app=$!
cleanup_pid "$app"
sleep 1

# latency FUNC...: found in the executable, timed per call.
r=$TMP/lat.json
# Phases of at least MIN_MS: those that ran a callback.
slow_phases() { # FUNC MIN_MS [REPORT]
	jqr "${3:-$r}" ".probes[] | select(.function == \"$1\") | [.buckets[] | select(.lo_ns >= $2 * 1000000) | .count] | add // 0"
}
# Each function's phases that ran a callback against the callbacks the
# workload logged in the window (one off at a window edge), and its max
# against theirs, ±15%: a busy-wait the host stretched is stretched in
# the log too.
measure_latency() {
	"$BPFSPEC" latency -p "$app" uv__run_timers uv__run_check -d 3 -o json >"$r" 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "latency one-liner"; }
	[ "$(jqr "$r" '.probes | length')" = 2 ] || fail "two probes expected"
	local f k n max rest c
	for f in uv__run_timers:timer uv__run_check:immediate; do
		IFS=: read -r f k <<<"$f"
		read -r n max rest <<<"$(logged_truth "$log" "$k" "$r")"
		c=$(slow_phases "$f" 10)
		echo "measured: $f phases of 10+ ms  $c (logged callbacks $n)"
		[ "$n" -ge 20 ] && [ $((c - n)) -ge -1 ] && [ $((c - n)) -le 1 ] ||
			fail "$c $f phases of 10+ ms, the workload logged $n callbacks"
		within "$f max (ms)" "$(jqr "$r" ".probes[] | select(.function == \"$f\") | .max_ns / 1e6")" "$max" 0.15
	done
}
up_to 3 measure_latency

# --emit-spec writes a spec that loads and gives the same program.
"$BPFSPEC" latency -p "$app" uv__run_timers --emit-spec >"$TMP/one.yaml"
"$BPFSPEC" check "$TMP/one.yaml" >/dev/null || fail "--emit-spec output does not load"
# The probe is named as the function was typed, so checks and diffs
# find it by that name (it was once "uv_run_timers").
grep -qx '  - name: uv__run_timers' "$TMP/one.yaml" ||
	fail "the probe of uv__run_timers is not named uv__run_timers: $(grep name: "$TMP/one.yaml")"
"$BPFSPEC" latency -p "$app" uv__run_timers --emit-program >"$TMP/a.bt" 2>/dev/null
"$BPFSPEC" gen "$TMP/one.yaml" -p "$app" >"$TMP/b.bt" 2>/dev/null
diff <(grep -v '^// spec:' "$TMP/a.bt") <(grep -v '^// spec:' "$TMP/b.bt") >/dev/null ||
	fail "--emit-program and gen of the emitted spec differ"
# A function that is nowhere: exit 4, names it.
set +e
"$BPFSPEC" latency -p "$app" no_such_function_xyz -d 1 >/dev/null 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 4 ] && grep -q "no_such_function_xyz" "$TMP/err" || { cat "$TMP/err"; fail "missing function: exit $rc"; }

# syscalls NAME,...: the main thread's epoll_pwait/epoll_wait is seen.
"$BPFSPEC" syscalls -p "$app" epoll_wait,epoll_pwait,write -d 2 -o json >"$TMP/sys.json" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "syscalls one-liner"; }
n=$(jqr "$TMP/sys.json" '[.probes[0].syscalls[] | select(.syscall | startswith("epoll")) | .count] | add')
echo "measured: epoll waits in 2 s          $n"
[ "$n" -ge 10 ] || fail "expected the loop's epoll waits"

# -i 1 -n 3 -o json: exactly three lines, each a whole report of about
# 1 s.  Intervals end on a fixed schedule (begin + k s): one the host
# made late (a stolen burst delays bpfspec's tick) is longer and the
# next one shorter, so each is judged loosely (0.5-1.5 s), the three
# together as one window (window_length: 3 s, the last tick at most
# 0.5 s late), and each must begin where the one before it ended (±1 ms:
# no time lost or counted twice between intervals).
"$BPFSPEC" run libuv-phases -p "$app" -i 1 -n 3 -o json >"$TMP/ndjson" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "interval mode"; }
lines=$(wc -l <"$TMP/ndjson")
echo "measured: NDJSON lines                  $lines (truth 3)"
[ "$lines" -eq 3 ] || fail "$lines lines for -n 3"
i=0
while IFS= read -r line; do
	i=$((i + 1))
	printf '%s\n' "$line" >"$TMP/line$i.json"
	[ "$(jqr "$TMP/line$i.json" .schema)" = 2 ] || fail "line $i is not a report"
	d=$(jqr "$TMP/line$i.json" .duration_ns)
	ws=$(jqr "$TMP/line$i.json" .window_start_unix_ns)
	echo "measured: interval $i window (s)        $(awk -v d="$d" 'BEGIN { print d / 1e9 }') (truth 0.5-1.5)"
	awk -v d="$d" 'BEGIN { exit !(d >= 0.5e9 && d <= 1.5e9) }' || fail "interval $i lasted $d ns"
	if [ "$i" -gt 1 ]; then
		# after the hold between two intervals (bpftrace printing and
		# clearing the maps: milliseconds), never before the last ended
		gap=$(awk -v e="$prev_end" -v s="$ws" 'BEGIN { printf "%.1f", (s - e) / 1e6 }')
		echo "measured: interval $i began $gap ms after the one before ended (the hold)"
		awk -v e="$prev_end" -v s="$ws" 'BEGIN { g = s - e; exit !(g >= -1e6 && g <= 1e9) }' ||
			fail "interval $i began at $ws, the one before ended at $prev_end"
	fi
	prev_end=$(awk -v s="$ws" -v d="$d" 'BEGIN { printf "%.0f", s + d }')
	total=$(awk -v t="${total:-0}" -v d="$d" 'BEGIN { printf "%.0f", t + d }')
	c=$(jqr "$TMP/line$i.json" '.probes[] | select(.name == "timers") | .groups[] | select(.main_thread) | .buckets | map(select(.lo_ns >= 10000000) | .count) | add // 0')
	# Per interval, not cumulative: the timer callbacks the workload
	# logged in that interval (about ten), one off at an edge.
	read -r n rest <<<"$(logged_truth "$log" timer "$TMP/line$i.json")"
	echo "measured: interval $i slow timers phases $c (logged callbacks $n)"
	[ "$n" -ge 3 ] && [ $((c - n)) -ge -1 ] && [ $((c - n)) -le 1 ] ||
		fail "interval $i has $c slow timers phases, the workload logged $n callbacks"
done <"$TMP/ndjson"
window_length "three intervals (s)" "$(awk -v t="$total" 'BEGIN { print t / 1e9 }')" 3

# Checks: one that holds (exit 1, says which) and one that does not (exit 0).
set +e
"$BPFSPEC" run libuv-phases -p "$app" -d 2 -o json --fail-if 'timers.max > 30ms' >"$TMP/c1.json" 2>"$TMP/err"
rc=$?
set -e
echo "measured: failing check exit status     $rc"
[ "$rc" -eq 1 ] || { cat "$TMP/err"; fail "a failing check must exit 1, got $rc"; }
grep -q "check failed: timers.max = .* > 30ms" "$TMP/err" || { cat "$TMP/err"; fail "no check message"; }
"$BPFSPEC" run libuv-phases -p "$app" -d 2 -o json --fail-if 'timers.max > 10s' >"$TMP/c2.json" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "a passing check must exit 0"; }
# A condition with a typo is refused before any tracing.
set +e
"$BPFSPEC" run libuv-phases -p "$app" -d 2 --fail-if 'timers.p95 > 1ms' >/dev/null 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "p95" "$TMP/err" || { cat "$TMP/err"; fail "bad condition: exit $rc"; }

# diff of the two real reports, with relative checks.
"$BPFSPEC" diff "$TMP/c1.json" "$TMP/c2.json" >"$TMP/diff.txt" || fail "diff"
grep -q "timers" "$TMP/diff.txt" || fail "diff does not show timers"
"$BPFSPEC" diff "$TMP/c1.json" "$TMP/c2.json" -o json >"$TMP/diff.json" || fail "diff -o json"
jq -e . "$TMP/diff.json" >/dev/null || fail "diff JSON does not parse"
# Two reports of the same workload: diff's relative check on the max
# fails exactly when the reports' maxima differ by more than +50% (a
# stretched busy-wait can make them, and diff must then say so).
"$BPFSPEC" run libuv-phases -p "$app" -d 2 -o json >"$TMP/s1.json" 2>/dev/null || fail "run s1"
"$BPFSPEC" run libuv-phases -p "$app" -d 2 -o json >"$TMP/s2.json" 2>/dev/null || fail "run s2"
m1=$(jqr "$TMP/s1.json" '.probes[] | select(.name == "timers") | .max_ns')
m2=$(jqr "$TMP/s2.json" '.probes[] | select(.name == "timers") | .max_ns')
want=$(awk -v a="$m1" -v b="$m2" 'BEGIN { w = (b - a) / a > 0.5 ? 1 : 0; print w }')
set +e
"$BPFSPEC" diff "$TMP/s1.json" "$TMP/s2.json" --fail-if 'timers.max > +50%' >/dev/null 2>"$TMP/err"
rc=$?
set -e
echo "measured: diff of two runs, max $m1 -> $m2 ns: exit $rc (expected $want)"
[ "$rc" -eq "$want" ] || { cat "$TMP/err"; fail "diff --fail-if 'timers.max > +50%' exited $rc, expected $want"; }
# Against a doctored copy of a report whose p99 doubled, the same check
# fails (compared with the report it was made from: exactly +100%).
jq '(.probes[] | select(.name == "timers") | .p99_ns) |= . * 2' "$TMP/c2.json" >"$TMP/worse.json"
set +e
"$BPFSPEC" diff "$TMP/c2.json" "$TMP/worse.json" --fail-if 'timers.p99 > +50%' >/dev/null 2>"$TMP/err"
rc=$?
set -e
echo "measured: diff check on a doubled p99   exit $rc"
[ "$rc" -eq 1 ] || { cat "$TMP/err"; fail "relative check: exit $rc, expected 1"; }

# --output writes atomically; the file is a complete report.
"$BPFSPEC" run libuv-phases -p "$app" -d 1 -o json --output "$TMP/out.json" 2>/dev/null || fail "--output"
jq -e .schema "$TMP/out.json" >/dev/null || fail "--output file is not a report"
[ -z "$(find "$TMP" -name 'out.json.*')" ] || fail "a temporary file was left behind"
