#!/usr/bin/env bash
# A span spec as a user writes one, on a C workload of known behaviour:
# tests/workloads/span_handoff.c submits items on its main thread
# (span_submit) and a worker thread completes them (span_complete).
#   phase 1: N items one at a time, each completed DELAY_MS after its
#            submit: N spans of DELAY_MS (a nanosleep: ±15%, the p50);
#   phase 2: M items submitted together, then completed: M spans open at
#            once in a table of 'open: 16' slots, so at least M - 16 are
#            evicted (two keys can share a slot: more may be).
# Truth, from the workload's own counts: every span opened is counted
# once, as completed, evicted or still open (completed + evicted + open
# = N + M, exactly); all N of phase 1 complete (one open at a time);
# at most 16 of phase 2 complete.  The run covers the workload's whole
# life (-- CMD: held until every probe is attached).  Then once more
# with -o trace: phase 1's spans as async slices from start to end on the
# main thread, which started them.
# The same run has a second probe on the same points, labelled by the
# work type each submit names (a string: 'label: str(arg1)', 'labels: 5'):
# phase 1's items take the workload's six types in turn (N/6 each), so the
# first five are kept apart with exactly N/6 spans each and the sixth,
# with phase 2's "burst" spans, is other: other = completed - 5 * N/6.
# The types carry a comma, quotes, an escape sequence, a backslash, a
# newline, invalid UTF-8 and more than the 31 bytes a label keeps: each
# output writes them in its escaped form, never a raw control byte.
. "$(dirname "$0")/../lib.sh"
need_root

N=30 M=64 DELAY_MS=20
cc -O2 -g -Wall -Werror -pthread -o "$TMP/span_handoff" "$TOP/tests/workloads/span_handoff.c"
cat >"$TMP/handoff.yaml" <<YAML
# Items handed from the main thread to a worker: submit to complete.
name: handoff
probes:
  - name: item
    kind: span
    unit: ms
    open: 16
    points:
      - {probe: "uprobe:$TMP/span_handoff:span_submit", key: arg0}
      - {stage: handed, probe: "uprobe:$TMP/span_handoff:span_complete", key: arg0}
YAML
cp "$TMP/handoff.yaml" "$TMP/typed.yaml"
cat >>"$TMP/typed.yaml" <<YAML
  - name: typed
    kind: span
    unit: ms
    open: 16
    labels: 5
    points:
      - {probe: "uprobe:$TMP/span_handoff:span_submit", key: arg0, label: str(arg1)}
      - {stage: handed, probe: "uprobe:$TMP/span_handoff:span_complete", key: arg0}
YAML
"$BPFSPEC" check "$TMP/handoff.yaml" >/dev/null || fail "bpfspec check rejects the span spec"
"$BPFSPEC" run "$TMP/typed.yaml" -o json -- "$TMP/span_handoff" "$N" "$M" "$DELAY_MS" \
	>"$TMP/r.json" 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "bpfspec run failed"; }
grep -qx "$N $M" "$TMP/r.json" || fail "the workload did not finish"
sed -i "/^$N $M\$/d" "$TMP/r.json"

count=$(jqr "$TMP/r.json" '.probes[0].count')
evicted=$(jqr "$TMP/r.json" '.probes[0].evicted')
open=$(jqr "$TMP/r.json" '.probes[0].open')
handed=$(jqr "$TMP/r.json" '[.probes[0].rows[] | select(.stage == "handed")][0].count')
echo "measured: spans completed $count (stage handed $handed), evicted $evicted, open $open; opened $((N + M))"
[ "$((count + evicted + open))" -eq $((N + M)) ] ||
	fail "completed $count + evicted $evicted + open $open is not the $((N + M)) spans opened"
[ "$handed" -eq "$count" ] || fail "the one stage counts $handed spans, the whole spans $count"
[ "$count" -ge "$N" ] && [ "$count" -le $((N + 16)) ] ||
	fail "$count spans completed: phase 1's $N, and at most the 16 of phase 2 the table kept"
[ "$evicted" -ge $((M - 16)) ] || fail "only $evicted evicted of $M spans open in 16 slots"
p50=$(jqr "$TMP/r.json" '.probes[0].p50_ns / 1e6')
within "span p50 (ms)" "$p50" "$DELAY_MS" 0.15
"$BPFSPEC" report "$TMP/r.json" >"$TMP/r.txt" || fail "bpfspec report cannot read the span report back"
grep -q "^  handed  *- *$count " "$TMP/r.txt" || { cat "$TMP/r.txt"; fail "the text view has no row for the stage"; }
grep -q "$evicted evicted" "$TMP/r.txt" || fail "the text view does not say spans were evicted"

# The string labels: N/6 spans of each of the first five work types, the
# rest other; each label's text as the workload wrote it (31 bytes at
# most), in JSON exactly, escaped elsewhere.
typed=$(jqr "$TMP/r.json" '.probes[1].count')
rows() { jq -r '[.probes[1].rows[] | select(.stage == "handed") | '"$1"'] | tostring' "$TMP/r.json"; }
each=$((N / 6))
echo "measured: string labels: $(rows '[.label, .count]')"
for label in 'fs' 'dns,lookup "q"' $'crypto\e[31m\\red\n' 'a-work-type-name-longer-than-31'; do
	got=$(jq --arg l "$label" '[.probes[1].rows[] | select(.stage == "handed" and .label == $l)] |
		if length == 1 then .[0].count else "rows: \(length)" end' "$TMP/r.json")
	[ "$got" = "$each" ] || fail "label $(printf %q "$label"): $got spans, not $each"
done
zlib=$(jq '[.probes[1].rows[] | select(.stage == "handed" and .label_hex == "fffe7a6c6962")] |
	.[0].count' "$TMP/r.json")
[ "$zlib" = "$each" ] || fail "the label of invalid UTF-8 (label_hex fffe7a6c6962): $zlib spans, not $each"
other=$(jq '[.probes[1].rows[] | select(.stage == "handed" and .other)] | .[0].count' "$TMP/r.json")
[ "$other" = $((typed - 5 * each)) ] ||
	fail "other: $other spans, not $((typed - 5 * each)) ($typed completed, 5 labels of $each)"
[ "$(rows 'select(.other | not)' | jq length)" = 5 ] || fail "not 5 labels kept apart: $(rows .label)"
"$BPFSPEC" report "$TMP/r.json" -o prom >"$TMP/r.prom" || fail "bpfspec report -o prom failed"
"$BPFSPEC" report "$TMP/r.json" -o html --output "$TMP/r.html" || fail "bpfspec report -o html failed"
for f in r.txt r.prom r.html; do
	! LC_ALL=C grep -q $'[\x1b\xff]' "$TMP/$f" || fail "$f holds a raw escape or invalid byte of a label"
done
grep -qF 'typed  ' "$TMP/r.txt" && grep -qF 'crypto\x1b[31m\\red\x0a' "$TMP/r.txt" &&
	grep -qF '\xff\xfezlib' "$TMP/r.txt" || { cat "$TMP/r.txt"; fail "the text view lacks the labels' text form"; }
grep -qF 'stage="handed",label="crypto\\x1b[31m\\\\red\\x0a"' "$TMP/r.prom" &&
	grep -qF "label=\"dns,lookup \\\"q\\\"\"} $each" "$TMP/r.prom" ||
	{ grep typed "$TMP/r.prom"; fail "-o prom lacks the labels, escaped"; }
grep -qF 'dns,lookup &quot;q&quot;' "$TMP/r.html" || fail "the HTML page lacks the label, escaped"

# -o trace: each span at least the threshold long (phase 1's, none of
# phase 2's, which take microseconds) as an async slice on the thread
# that started it (the main thread: pid = tid), as long as the span; the
# labelled probe's with their labels' text form: N/6 each, the sixth type
# other.
"$BPFSPEC" run "$TMP/typed.yaml" -o trace --trace-threshold 5ms --output "$TMP/t.json" -- \
	"$TMP/span_handoff" "$N" "$M" "$DELAY_MS" >/dev/null 2>"$TMP/t.err" ||
	{ cat "$TMP/t.err"; fail "bpfspec run -o trace failed"; }
item='select(.cat == "span" and .name == "item")'
begins=$(jq "[.traceEvents[] | $item | select(.ph == \"b\" and .tid == .pid)] | length" "$TMP/t.json")
ends=$(jq "[.traceEvents[] | $item | select(.ph == \"e\")] | length" "$TMP/t.json")
echo "measured: spans on the timeline: $begins begun on the main thread, $ends ended (phase 1: $N)"
[ "$begins" -eq "$N" ] && [ "$ends" -eq "$N" ] || fail "$begins/$ends span slices for $N spans of ${DELAY_MS} ms"
mean=$(jq "[.traceEvents[] | $item] | group_by(.id) |
	map((.[] | select(.ph == \"e\") | .ts) - (.[] | select(.ph == \"b\") | .ts)) | add / length / 1000" "$TMP/t.json")
within "span slice mean (ms)" "$mean" "$DELAY_MS" 0.15
labels=$(jq -c '[.traceEvents[] | select(.cat == "span" and .name == "typed" and .ph == "b") | .args.label] |
	group_by(.) | map([.[0], length])' "$TMP/t.json")
echo "measured: labelled span slices: $labels"
want=$(jq -cn --argjson n "$each" '[["\\xff\\xfezlib", $n], ["a-work-type-name-longer-than-31", $n],
	["crypto\\x1b[31m\\\\red\\x0a", $n], ["dns,lookup \"q\"", $n], ["fs", $n], ["other", $n]]')
[ "$labels" = "$want" ] || fail "labelled slices $labels, not $want"
echo "ok"
