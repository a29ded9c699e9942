#!/usr/bin/env bash
# JavaScript frames named without a perf map (spec loop-why, 'stacks'):
# tests/workloads/v8_named.js, started with no flag, burns CPU in the
# timers phase in busyOuter (line 43) calling busyInner (line 8).  The
# stack sampler walks node's frame-pointer chain and bpfspec reads each
# frame's function out of the V8 heap (gen/attribution/why_v8.h):
#   - the report says the frames were named from V8's heap (no perf map);
#   - at least 80% of the timers phase's samples have busyInner, with its
#     script and line (v8_named.js:8), innermost, called from busyOuter
#     (v8_named.js:43); no frame names either with another line;
#   - the same names in `bpfspec report` of the saved JSON (text) and in
#     -o folded; the report matches docs/report.schema.json.
# About 10 s.
. "$(dirname "$0")/../lib.sh"
need_root

script=$TOP/tests/workloads/v8_named.js
(cd "$TMP" && exec node "$script") &
APP=$!
cleanup_pid "$APP"
sleep 1.5
kill -0 "$APP" || fail "v8_named.js exited"
[ ! -e "/tmp/perf-$APP.map" ] || fail "node wrote a perf map without being asked to"

rep=$TMP/why.json
"$BPFSPEC" run loop-why -p "$APP" -d 3 -o json --output "$rep" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "bpfspec run exited $status"; }

/usr/bin/python3 "$TOP/scripts/validate-json-schema.py" --strict "$TOP/docs/report.schema.json" "$rep" ||
	fail "the report does not match docs/report.schema.json"
jq -e '.stack_sampling.js_symbols == false and .stack_sampling.js_names == "v8_heap"' "$rep" \
	>/dev/null || fail "the frames were not named from V8's heap: $(jq -c '[.stack_sampling, .warnings]' "$rep")"
echo "measured: JavaScript frames named from the heap: $(jq -r '.stack_sampling |
	"\(.js_frames_named) of \(.js_frames)"' "$rep")"

inner="JS:busyInner [^;]*/v8_named\\.js:8"
outer="JS:busyOuter [^;]*/v8_named\\.js:43"
figures=$(jq -c --arg inner "$inner" --arg outer "$outer" '.probes[] | select(.name == "timers") |
	{ samples: ([.stacks[].samples] | add // 0),
	  named: ([.stacks[] | select(.stack | test($outer + ";" + $inner + "$")) | .samples] | add // 0),
	  wrong: ([.stacks[] | select(.stack | test("JS:busy(Inner|Outer) ") and
		(test($inner) or test($outer) | not)) | .samples] | add // 0) }' "$rep")
echo "measured: timers stacks $figures"
jq -e '.samples >= 100' <<<"$figures" >/dev/null || fail "too few timers samples: $figures"
jq -e '.named >= 0.8 * .samples' <<<"$figures" >/dev/null ||
	fail "busyInner <- busyOuter named in under 80% of the samples: $figures
$(jq -r '.probes[] | select(.name == "timers") | .stacks[:3][] | "\(.samples) \(.stack)"' "$rep")"
jq -e '.wrong == 0' <<<"$figures" >/dev/null || fail "a busy function named with a wrong line: $figures"

"$BPFSPEC" report "$rep" >"$TMP/text" || fail "bpfspec report exited $?"
grep -q "named from V8's heap" "$TMP/text" || fail "the text does not say what named the frames"
grep -Eq "busyInner [^ ]*/v8_named\\.js:8" "$TMP/text" || fail "the text does not name busyInner:
$(sed -n '/JAVASCRIPT/,/^$/p' "$TMP/text")"
"$BPFSPEC" report "$rep" -o folded >"$TMP/folded" || fail "bpfspec report -o folded exited $?"
grep -Eq "^timers;.*$outer;$inner " "$TMP/folded" || fail "-o folded has no busyOuter;busyInner stack"
echo "ok: busyInner and busyOuter named with their script and line, without a perf map"
