#!/usr/bin/env bash
# On a saturated host (twice as many busy loops as CPUs beside the
# target: when an SRE reaches for the tool), loop-why and libuv-phases
# give exactly the reports their options promise, in -o json, -o json
# -i 1 and text: one JSON object for a window (never a second, empty
# one), one a second with -i 1, one text report; each valid JSON, its
# window within 5% of what was asked (or marked partial, with exit status
# 7), every attributed phase's parts adding up to its total (0.1% or 50
# us); exit status 0; no bpftrace of a run left once it exits (bpfspec does
# not wait for bpftrace's detach, and the kernel ends it with bpfspec); the
# next run, started at once, attaches and reports.  How long after its
# last report bpfspec exits is logged (the bench has the figure).
# build: release — these code paths run under the sanitizer in
# test_interrupt, test_partial and test_why; here the load, not the build,
# is under test.
. "$(dirname "$0")/../lib.sh"
need_root

node "$TOP/scripts/workloads/phases.js" --worker &
app=$!
cleanup_pid "$app"
n_busy=$(($(nproc) * 2))
for _ in $(seq "$n_busy"); do
	sh -c 'while :; do :; done' &
	cleanup_pid $!
done
sleep 1

# check_run NAME RC OUT EXPECTED_REPORTS WINDOW_S FORMAT — judges one run.
check_run() {
	local name=$1 rc=$2 out=$3 want=$4 window=$5 format=$6 n
	[ "$rc" -eq 0 ] || { cat "$TMP/err"; fail "$name: exit status $rc"; }
	if [ "$format" = json ]; then
		n=$(jq -c . "$out" | wc -l) || fail "$name: not valid JSON"
		[ "$n" -eq "$want" ] || fail "$name: $n JSON reports, expected $want"
		# every attributed phase's parts add up to its total (0.1% or 50 us)
		jq -r '.probes[] | .groups[]? | select(.attribution) |
			"\(.sum_ns) \(.attribution.unaccounted_ns)"' "$out" | while read -r sum un; do
			awk -v s="$sum" -v u="$un" 'BEGIN { u = u < 0 ? -u : u; exit !(u <= 0.001 * s || u <= 50000) }' ||
				fail "$name: parts leave $un ns of $sum ns unaccounted"
		done
		jq -r '[.duration_ns, .partial] | @tsv' "$out" | while IFS=$'\t' read -r d partial; do
			[ "$partial" = false ] || fail "$name: a report is partial with exit status 0"
			awk -v d="$d" -v w="$window" 'BEGIN { exit (d >= w * 0.95e9 && d <= w * 1.05e9) ? 0 : 1 }' ||
				fail "$name: a window of $(awk -v d="$d" 'BEGIN { print d / 1e9 }') s, asked $window s"
		done
	else
		n=$(grep -c '^bpfspec [a-z-]*: pid' "$out") || true
		[ "$n" -eq "$want" ] || { cat "$out"; fail "$name: $n text reports, expected $want"; }
		grep -q "window $window\.0[0-9][0-9] s" "$out" ||
			{ head -3 "$out"; fail "$name: the window is not about $window s"; }
	fi
}

# loop-why in every mode; libuv-phases, whose probes are a part of
# loop-why's, in the mode with most to go wrong (intervals) only.
for spec in loop-why libuv-phases; do
	modes="json json-i text json"
	[ "$spec" = libuv-phases ] && modes=json-i
	for mode in $modes; do
		case $mode in
		json) opts=(-d 2 -o json) want=1 window=2 format=json ;;
		json-i) opts=(-d 3 -i 1 -o json) want=3 window=1 format=json ;;
		text) opts=(-d 2) want=1 window=2 format=text ;;
		esac
		name="$spec $mode"
		rc=0
		"$BPFSPEC" run "$spec" -p "$app" "${opts[@]}" -v >"$TMP/out" 2>"$TMP/err" &
		run=$!
		tracer=
		for _ in $(seq 300); do
			tracer=$(pgrep -P "$run" -x bpftrace) && break
			kill -0 "$run" 2>/dev/null || break
			sleep 0.1
		done
		wait "$run" || rc=$?
		exited=$EPOCHREALTIME
		check_run "$name" "$rc" "$TMP/out" "$want" "$window" "$format"
		awk -v a="$(stat -c %.9Y "$TMP/out")" -v b="$exited" -v n="$name" \
			'BEGIN { printf "measured: %-22s exit %.0f ms after its last report\n", n, (b - a) * 1000 }'
		held=$(grep -o 'was held [0-9.]* ms' "$TMP/err" | awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $3 }')
		[ -z "$held" ] || echo "measured: $name held between intervals (ms): $held"
		grep -q "bpftrace detaches on its own" "$TMP/err" ||
			{ cat "$TMP/err"; fail "$name: bpfspec waited for bpftrace to detach"; }
		[ -n "$tracer" ] || fail "$name: no bpftrace child seen"
		for _ in $(seq 100); do kill -0 "$tracer" 2>/dev/null || break; sleep 0.1; done
		if kill -0 "$tracer" 2>/dev/null; then fail "$name: bpftrace (pid $tracer) outlived bpfspec by 10 s"; fi
	done
done
