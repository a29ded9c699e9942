#!/usr/bin/env bash
# JavaScript frames named from a heap that keeps moving (spec loop-why,
# 'stacks'): tests/workloads/v8_gc.js churns allocations and forces a full
# collection every 250 ms (--expose-gc) while the sampler records the
# frames' functions (their SharedFunctionInfos), which bpfspec reads out of
# the heap only at the window's end.
#   1. No perf map, full collections compacting as V8 decides: bpfspec and
#      node survive, the frames are named from V8's heap, churn with its
#      script and line (v8_gc.js:17) in at least 10 timers samples (the
#      collections themselves take much of the phase, from 20% to 80% as
#      the machine's load goes, their stacks over 16 native frames deep:
#      the walk does not reach the JavaScript under them), none of the
#      workload's functions with another line than its own (churn :17,
#      compact :59, tick :62), 90% of the frames the walk found named;
#      those the heap could not name are counted
#      (stack_sampling.js_frames - js_frames_named).
#   2. With the perf map, and every full collection compacting
#      (--compact-on-every-full-gc: the SharedFunctionInfos themselves
#      move, between a sample and the window's end, and others move in
#      at their addresses): node and bpfspec survive, the heap walk is
#      checked against the perf map (js_check), and no frame is named
#      otherwise than the perf map names it, but for the innermost (a
#      frameless builtin on top pairs the walk's first function with the
#      builtin's entry) in at most 1% of the frames.  The sampler marks
#      each function (v8meta.h): one found at the address without its
#      mark stays unnamed.  The check compares with the perf map's newest
#      line at each frame's address: V8 frees code and reuses its
#      addresses, and the perf map keeps the old lines (before both, a
#      quarter of the frames differed, most of them stale perf-map
#      lines).  Frames unnamed and frames the perf map could not place
#      are counted, not asserted (3% to 68%, and 0 to 46%).
# Prints the figures ("measured:").  About 25 s.
. "$(dirname "$0")/../lib.sh"
need_root

script=$TOP/tests/workloads/v8_gc.js
APPS=()
trap '_cleanup; for p in "${APPS[@]+"${APPS[@]}"}"; do rm -f "/tmp/perf-$p.map"; done' EXIT

# sample NAME NODE_OPTION... — runs v8_gc.js with the options, loop-why on
# it for 2 s into $TMP/NAME.json; fails when either dies.
sample() {
	local name=$1
	shift
	(cd "$TMP" && exec node --expose-gc "$@" "$script") &
	APP=$!
	APPS+=("$APP")
	cleanup_pid "$APP"
	sleep 1.5
	kill -0 "$APP" || fail "$name: v8_gc.js exited"
	"$BPFSPEC" run loop-why -p "$APP" -d 2 -o json --output "$TMP/$name.json" 2>"$TMP/$name.err" ||
		{ status=$?; cat "$TMP/$name.err"; fail "$name: bpfspec run exited $status"; }
	kill -0 "$APP" || fail "$name: v8_gc.js died while sampled"
	kill "$APP"
	/usr/bin/python3 "$TOP/scripts/validate-json-schema.py" --strict \
		"$TOP/docs/report.schema.json" "$TMP/$name.json" ||
		fail "$name: the report does not match docs/report.schema.json"
}

sample heap
rep=$TMP/heap.json
jq -e '.stack_sampling.js_names == "v8_heap"' "$rep" >/dev/null ||
	fail "the frames were not named from V8's heap: $(jq -c '[.stack_sampling, .warnings]' "$rep")"
echo "measured: node $(node --version): frames named from the heap $(jq -r '.stack_sampling |
	"\(.js_frames_named) of \(.js_frames), unknown \(.js_frames - .js_frames_named)"' "$rep")"
# The workload's functions: any frame named one of them has its line.
figures=$(jq -c '.probes[] | select(.name == "timers") |
	{ samples: ([.stacks[].samples] | add // 0),
	  churn: ([.stacks[] | select(.stack | test("JS:churn [^;]*/v8_gc\\.js:17(;|$)")) | .samples] | add // 0),
	  wrong: ([.stacks[] | select([.stack | split(";")[] | select(test("^JS:(churn|compact|tick) ")) |
		select(test("^JS:(churn .*/v8_gc\\.js:17|compact .*/v8_gc\\.js:59|tick .*/v8_gc\\.js:62)$") | not)] |
		length > 0) | .samples] | add // 0) }' "$rep")
echo "measured: timers stacks $figures"
jq -e '.samples >= 100 and .churn >= 10 and .wrong == 0' <<<"$figures" >/dev/null ||
	fail "churn named in under 10 timers samples, or a function of the workload with a wrong line: $figures"
jq -e '.stack_sampling | .js_frames >= 50 and .js_frames_named >= 0.9 * .js_frames' "$rep" >/dev/null ||
	fail "under 90% of the frames the walk found named from the heap: $(jq -c .stack_sampling "$rep")"

sample perf --compact-on-every-full-gc --perf-basic-prof --interpreted-frames-native-stack
check=$(jq -c '.stack_sampling.js_check // empty' "$TMP/perf.json")
[ -n "$check" ] || fail "no js_check: $(jq -c '[.stack_sampling, .warnings]' "$TMP/perf.json")"
echo "measured: every full collection compacting, with the perf map: js_check $check"
echo "measured: the heap named $(jq -r '"\(.same) of the perf map'"'"'s \(.frames) frames the same, \(.unnamed) not (\(.unnamed_no_walk) in samples not walked)"' <<<"$check")"
jq -e '.frames >= 100' <<<"$check" >/dev/null || fail "under 100 frames named by the perf map: $check"
echo "measured: the heap named $(jq -r '"\(.different) of \(.frames) frames otherwise than the perf map, \(.different_innermost) of them innermost"' <<<"$check")"
jq -e '.different == .different_innermost and .different <= 0.01 * .frames' <<<"$check" >/dev/null ||
	fail "the heap named frames otherwise than the perf map, after compactions: $check"
