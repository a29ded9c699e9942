#!/usr/bin/env bash
# The heap's names against the perf map's, in one run (spec loop-why,
# 'stacks'): tests/workloads/v8_named.js started with --perf-basic-prof
# --interpreted-frames-native-stack, so bpftrace names every JavaScript
# frame from the perf map, while the sampler also walks the frame-pointer
# chain and bpfspec names the same frames from V8's heap
# (gen/attribution/why_v8check.h).  The report's stack_sampling.js_check:
#   - the frames are shown with the perf map's names;
#   - every frame the perf map names that the heap names too gets the same
#     function, but for the innermost frame of a sample taken as a
#     function sets up or leaves its frame (its frame pointer still its
#     caller's: the heap names the caller), at most 1% of the frames;
#   - frames the heap leaves unnamed, but in samples not walked (taken in
#     the kernel, with no user registers to walk, or under more than 16
#     native frames), at most 1%;
#   - each function's share of the samples (once per stack it is on) the
#     same either way within 2 points, plus the share of samples not
#     walked (their frames have the perf map's names only);
#   - the text says it; the report matches docs/report.schema.json and
#     reads back the same.
# Functions the optimizing compiler inlined have no frame in either source
# (both show the caller): the workload keeps busyInner and busyOuter too
# big to inline.  Prints the figures ("measured:").  About 20 s.
. "$(dirname "$0")/../lib.sh"
need_root

script=$TOP/tests/workloads/v8_named.js
(cd "$TMP" && exec node --perf-basic-prof --interpreted-frames-native-stack "$script") &
APP=$!
cleanup_pid "$APP"
trap '_cleanup; rm -f "/tmp/perf-$APP.map"' EXIT
sleep 1.5
kill -0 "$APP" || fail "v8_named.js exited"
[ -e "/tmp/perf-$APP.map" ] || fail "node wrote no perf map"

rep=$TMP/why.json
"$BPFSPEC" run loop-why -p "$APP" -d 3 -o json --output "$rep" 2>"$TMP/err" ||
	{ status=$?; cat "$TMP/err"; fail "bpfspec run exited $status"; }
/usr/bin/python3 "$TOP/scripts/validate-json-schema.py" --strict "$TOP/docs/report.schema.json" "$rep" ||
	fail "the report does not match docs/report.schema.json"

check=$(jq -c '.stack_sampling.js_check // empty' "$rep")
[ -n "$check" ] || fail "no js_check: $(jq -c '[.stack_sampling, .warnings]' "$rep")"
echo "measured: node $(node --version): js_check $check"
jq -e '.stack_sampling.js_names == "perf_map"' "$rep" >/dev/null ||
	fail "the frames were not named by the perf map: $(jq -c .stack_sampling "$rep")"
jq -e '.frames >= 300' <<<"$check" >/dev/null || fail "too few frames named by the perf map: $check"
jq -e '.different == .different_innermost and .different_innermost <= 0.01 * .frames' \
	<<<"$check" >/dev/null || fail "the heap named frames otherwise than the perf map: $check"
jq -e '.unnamed - .unnamed_no_walk <= 0.01 * .frames' <<<"$check" >/dev/null ||
	fail "the heap left over 1% of the perf map's frames unnamed: $check"
jq -e '.share_difference <= 0.02 + .samples_no_walk / .samples' <<<"$check" >/dev/null ||
	fail "a function's share of the samples differs by over 2 points more than the samples not walked: $check"
echo "measured: same $(jq -r '"\(.same) of \(.frames) (\(1000 * .same / .frames | floor / 10)%), samples not walked \(.samples_no_walk) of \(.samples)"' <<<"$check"), share difference $(jq -r '1000 * .share_difference | floor / 10' <<<"$check") points ($(jq -r .share_function <<<"$check"))"

"$BPFSPEC" report "$rep" >"$TMP/text" || fail "bpfspec report exited $?"
grep -q "named by the perf map; V8's heap named $(jq -r .same <<<"$check") of its $(jq -r .frames <<<"$check") the same" \
	"$TMP/text" || fail "the text does not give the check:
$(grep JAVASCRIPT "$TMP/text")"
"$BPFSPEC" report "$rep" -o json >"$TMP/again.json" || fail "bpfspec report -o json exited $?"
[ "$(jq -c .stack_sampling.js_check "$TMP/again.json")" = "$check" ] ||
	fail "js_check read back otherwise: $(jq -c .stack_sampling.js_check "$TMP/again.json")"
echo "ok: the heap's names agree with the perf map's"
